/**
 * The transport's socket and timer machinery (RFC 5452 section 9.2):
 * sequential queries keep one socket until it is replaced (every
 * `socketReuse` queries, with a new kernel-chosen port); queries in flight at
 * the same time use different source ports; one deadline timer fails every
 * late try in bounded time; and an idle transport does not keep the process
 * alive.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsTransport } from '../../src/client/transport.ts';
import { DnsError } from '../../src/client/errors.ts';
import { startFakeDns, type FakeDns, type FakeZone } from './helpers/fake-dns.ts';

const zone: FakeZone = {
  origin: 'test',
  records: [
    {
      name: 'test',
      type: 'SOA',
      ttl: 300,
      data: {
        mname: 'ns.test',
        rname: 'hostmaster.test',
        serial: 1,
        refresh: 3600,
        retry: 600,
        expire: 86400,
        minimum: 60,
      },
    },
    ...Array.from({ length: 8 }, (_, i) => ({
      name: `n${i}.test`,
      type: 'NAPTR' as const,
      ttl: 120,
      data: {
        order: 100,
        preference: i,
        flags: '',
        services: '',
        regexp: '',
        replacement: 'x.test',
      },
    })),
  ],
};

let server: FakeDns;
let silent: FakeDns;
/** Answers after a delay, so that queries overlap. */
let slow: FakeDns;

beforeAll(async () => {
  server = await startFakeDns({ zones: [zone] });
  silent = await startFakeDns({ zones: [zone], hook: () => null });
  slow = await startFakeDns({
    zones: [zone],
    hook: async (ctx) => {
      await new Promise((r) => setTimeout(r, 50));
      return ctx.answer();
    },
  });
});

afterAll(async () => {
  await server.close();
  await silent.close();
  await slow.close();
});

describe('source ports (RFC 5452 section 9.2)', () => {
  it('sequential queries keep a socket for socketReuse queries, then move to a new port', async () => {
    const t = new DnsTransport({ socketReuse: 8 });
    try {
      const before = server.log.length;
      for (let i = 0; i < 40; i++) {
        await t.query(`n${i % 8}.test.`, 'NAPTR', { servers: [server] });
      }
      const ports = server.log.slice(before).map((l) => l.srcPort);
      expect(ports).toHaveLength(40);
      // Runs of one port, each at most socketReuse long, and the port changes.
      const runs: number[] = [];
      for (const [i, p] of ports.entries()) {
        if (i > 0 && p === ports[i - 1]) runs[runs.length - 1] = (runs.at(-1) ?? 0) + 1;
        else runs.push(1);
      }
      expect(Math.max(...runs)).toBeLessThanOrEqual(8);
      expect(new Set(ports).size).toBeGreaterThanOrEqual(5);
      expect(new Set(server.log.slice(before).map((l) => l.id)).size).toBeGreaterThan(30);
    } finally {
      t.close();
    }
  });

  it('queries in flight at once leave from different ports', async () => {
    const t = new DnsTransport({ poolSize: 4 });
    try {
      const before = slow.log.length;
      const all = await Promise.all(
        Array.from({ length: 8 }, (_, i) => t.query(`n${i}.test.`, 'NAPTR', { servers: [slow] })),
      );
      expect(all.map((ex) => ex.message.answers.length)).toEqual(Array(8).fill(1));
      const ports = slow.log.slice(before).map((l) => l.srcPort);
      expect(new Set(ports).size).toBe(4);
    } finally {
      t.close();
    }
  });
});

describe('one deadline timer for every try', () => {
  it('fails overlapping late tries with DNS_TIMEOUT, in bounded time, and keeps working', async () => {
    const t = new DnsTransport({ timeoutMs: 150, tries: 2 });
    try {
      const t0 = performance.now();
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => t.query(`n${i}.test.`, 'NAPTR', { servers: [silent] })),
      );
      for (const r of results) {
        expect(r.status).toBe('rejected');
        const e = (r as PromiseRejectedResult).reason as DnsError;
        expect(e).toBeInstanceOf(DnsError);
        expect(e.code).toBe('DNS_TIMEOUT');
      }
      expect(t.stats.timeouts).toBe(12);
      // 2 tries x 150 ms, with slack for a loaded machine.
      expect(performance.now() - t0).toBeLessThan(3000);
      const ok = await t.query('n1.test.', 'NAPTR', { servers: [server] });
      expect(ok.message.answers).toHaveLength(1);
    } finally {
      t.close();
    }
  });

  it('an idle transport does not keep the process alive', async () => {
    // A child process asks one question with a 20 s timeout and never calls close().
    const script = `
      import { DnsTransport } from ${JSON.stringify(path.resolve('src/client/transport.ts'))};
      const t = new DnsTransport({ timeoutMs: 20000 });
      const ex = await t.query('n0.test.', 'NAPTR', { servers: [{ host: '127.0.0.1', port: ${server.port} }] });
      console.log(ex.message.answers.length);
    `;
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).toBe(0);
    expect(out.trim()).toBe('1');
    expect(performance.now() - t0).toBeLessThan(15000);
  });
});
