import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as dnsPacket from 'dns-packet';
import type { Answer, Packet } from 'dns-packet';
import { DnsTransport } from '../../src/client/transport.ts';
import { toDnsPacketAnswer } from '../helpers/dns-packet-shapes.ts';
import { DnsError } from '../../src/client/errors.ts';
import {
  parseResolvConf,
  parseServerAddress,
  formatServer,
} from '../../src/client/server-address.ts';
import { startFakeDns, type FakeDns, type FakeZone, type HookContext } from './helpers/fake-dns.ts';

const SOA = {
  mname: 'ns.test',
  rname: 'hostmaster.test',
  serial: 1,
  refresh: 3600,
  retry: 600,
  expire: 86400,
  minimum: 60,
};

function naptr(i: number) {
  return {
    order: 100,
    preference: i,
    flags: 'u',
    services: 'http+N2L',
    regexp: `!^(.*)$!http://resolver-${i}.example/uri-res/N2L?\\1!`,
    replacement: '.',
  };
}

const zone: FakeZone = {
  origin: 'test',
  records: [
    { name: 'test', type: 'SOA', ttl: 300, data: SOA },
    { name: 'small.test', type: 'NAPTR', ttl: 120, data: naptr(1) },
    ...Array.from({ length: 60 }, (_, i) => ({
      name: 'big.test',
      type: 'NAPTR' as const,
      ttl: 120,
      data: naptr(i),
    })),
    ...Array.from({ length: 1500 }, (_, i) => ({
      name: 'giant.test',
      type: 'NAPTR' as const,
      ttl: 120,
      data: { order: 100, preference: i, flags: '', services: '', regexp: '', replacement: '.' },
    })),
  ],
};

/** A server whose behaviour each test sets through `mode`. */
let mode: (ctx: HookContext) => Packet | Buffer | Buffer[] | null | undefined = () => undefined;
let server: FakeDns;
let silent: FakeDns;
let transport: DnsTransport;

beforeAll(async () => {
  server = await startFakeDns({ zones: [zone], hook: (ctx) => mode(ctx) });
  silent = await startFakeDns({ zones: [zone], hook: () => null });
  transport = new DnsTransport({ timeoutMs: 250, tries: 2 });
});

afterAll(async () => {
  transport.close();
  await server.close();
  await silent.close();
});

const at = () => [{ host: server.host, port: server.port }];

async function failure(p: Promise<unknown>): Promise<DnsError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(DnsError);
    return e as DnsError;
  }
  throw new Error('expected a DnsError');
}

describe('stub transport over UDP (RFC 1035 4.2.1, RFC 5452)', () => {
  it('answers a NAPTR query over UDP with EDNS(0) 1232', async () => {
    mode = () => undefined;
    let sawOpt: unknown;
    mode = (ctx) => {
      sawOpt = (ctx.query.additionals ?? []).find((a) => a.type === 'OPT');
      return undefined;
    };
    const ex = await transport.query('small.test.', 'NAPTR', { servers: at() });
    expect(ex.protocol).toBe('udp');
    expect(ex.message.rcode).toBe('NOERROR');
    expect(ex.message.answers).toHaveLength(1);
    expect(
      (toDnsPacketAnswer(ex.message.answers[0]!) as Answer & { data: { preference: number } }).data
        .preference,
    ).toBe(1);
    expect(sawOpt).toMatchObject({ udpPayloadSize: 1232 });
  });

  it('uses random IDs and more than one source port', async () => {
    mode = () => undefined;
    const before = server.log.length;
    for (let i = 0; i < 40; i++) await transport.query('small.test', 'NAPTR', { servers: at() });
    const seen = server.log.slice(before);
    expect(new Set(seen.map((l) => l.id)).size).toBeGreaterThan(30);
    expect(new Set(seen.map((l) => l.srcPort)).size).toBeGreaterThan(1);
  });

  it('accepts a question echoed in another letter case (RFC 4343)', async () => {
    mode = (ctx) => {
      const a = ctx.answer();
      return { ...a, questions: [{ name: 'SMALL.Test', type: 'NAPTR', class: 'IN' }] };
    };
    const ex = await transport.query('small.test', 'NAPTR', { servers: at() });
    expect(ex.message.answers).toHaveLength(1);
  });

  it('ignores a wrong ID and keeps waiting for the real answer', async () => {
    mode = (ctx) => {
      const good = ctx.encode(ctx.answer());
      const bad = Buffer.from(good);
      bad.writeUInt16BE((ctx.query.id + 1) & 0xffff, 0);
      return [bad, good];
    };
    const ex = await transport.query('small.test', 'NAPTR', { servers: at() });
    expect(ex.message.answers).toHaveLength(1);
  });

  it('gives DNS_BAD_RESPONSE when only wrong-ID answers come', async () => {
    mode = (ctx) => {
      const bad = ctx.encode(ctx.answer());
      bad.writeUInt16BE((ctx.query.id + 7) & 0xffff, 0);
      return bad;
    };
    const t0 = performance.now();
    const e = await failure(transport.query('small.test', 'NAPTR', { servers: at() }));
    expect(e.code).toBe('DNS_BAD_RESPONSE');
    expect(e.message).toMatch(/ID \d+ matches no query/);
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('ignores an answer to another question (name, then type)', async () => {
    mode = (ctx) => ({
      ...ctx.answer(),
      questions: [{ name: 'other.test', type: 'NAPTR', class: 'IN' }],
    });
    let e = await failure(transport.query('small.test', 'NAPTR', { servers: at() }));
    expect(e.code).toBe('DNS_BAD_RESPONSE');
    expect(e.message).toContain("not 'small.test'");
    mode = (ctx) => ({
      ...ctx.answer(),
      questions: [{ name: 'small.test', type: 'A', class: 'IN' }],
    });
    e = await failure(transport.query('small.test', 'NAPTR', { servers: at() }));
    expect(e.message).toContain('type A, not NAPTR');
  });

  it('ignores a truncated (cut short) packet without TC', async () => {
    mode = (ctx) => ctx.encode(ctx.answer()).subarray(0, 40);
    const e = await failure(transport.query('small.test', 'NAPTR', { servers: at() }));
    expect(e.code).toBe('DNS_BAD_RESPONSE');
    expect(e.message).toMatch(/runs past|cut short|malformed/);
  });

  it('rejects NAPTR RDATA that does not end at RDLENGTH', async () => {
    mode = (ctx) => {
      const wire = ctx.encode(ctx.answer());
      // Grow RDLENGTH by one and append a byte: the NAPTR walk ends before it.
      const answerStart = wire.length - (wire.length - findAnswer(wire));
      const rdlenAt = answerStart + nameLength(wire, answerStart) + 8;
      const out = Buffer.concat([wire, Buffer.from([0])]);
      out.writeUInt16BE(wire.readUInt16BE(rdlenAt) + 1, rdlenAt);
      return out;
    };
    const e = await failure(transport.query('small.test', 'NAPTR', { servers: at() }));
    expect(e.code).toBe('DNS_BAD_RESPONSE');
    expect(e.message).toMatch(/RDLENGTH/);
  });

  it('gives DNS_TIMEOUT, in bounded time, when the server never answers', async () => {
    const t0 = performance.now();
    const e = await failure(
      transport.query('small.test', 'NAPTR', {
        servers: [{ host: silent.host, port: silent.port }],
      }),
    );
    expect(e.code).toBe('DNS_TIMEOUT');
    expect(e.server).toBe(silent.address);
    // 2 tries x 250 ms, with generous slack for a loaded machine.
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('maps SERVFAIL and REFUSED to their codes and moves to the next server', async () => {
    mode = (ctx) => ({ ...ctx.answer(), flags: 2, answers: [] });
    let e = await failure(transport.query('small.test', 'NAPTR', { servers: at() }));
    expect(e.code).toBe('DNS_SERVFAIL');
    mode = (ctx) => ({ ...ctx.answer(), flags: 5, answers: [] });
    e = await failure(transport.query('small.test', 'NAPTR', { servers: at() }));
    expect(e.code).toBe('DNS_REFUSED');

    const good = await startFakeDns({ zones: [zone] });
    try {
      const ex = await transport.query('small.test', 'NAPTR', {
        servers: [...at(), { host: good.host, port: good.port }],
      });
      expect(ex.server.port).toBe(good.port);
      expect(ex.failures.map((f) => f.code)).toEqual(['DNS_REFUSED']);
    } finally {
      await good.close();
    }
  });

  it('retries without EDNS after FORMERR to an EDNS query (RFC 6891 section 7)', async () => {
    mode = (ctx) => {
      const hasOpt = (ctx.query.additionals ?? []).some((a) => a.type === 'OPT');
      if (hasOpt)
        return { type: 'response', id: ctx.query.id, flags: 1, questions: ctx.query.questions };
      return undefined;
    };
    const ex = await transport.query('small.test', 'NAPTR', { servers: at() });
    expect(ex.message.answers).toHaveLength(1);
    expect(ex.failures[0]?.code).toBe('DNS_FORMERR');
  });

  it('keeps NXDOMAIN and NODATA as answers (with the SOA), not failures', async () => {
    mode = () => undefined;
    const nx = await transport.query('nope.test', 'NAPTR', { servers: at() });
    expect(nx.message.rcode).toBe('NXDOMAIN');
    expect(nx.message.authorities[0]?.type).toBe('SOA');
    const nodata = await transport.query('small.test', 'SRV', { servers: at() });
    expect(nodata.message.rcode).toBe('NOERROR');
    expect(nodata.message.answers).toHaveLength(0);
  });
});

describe('TCP retry on TC (RFC 7766)', () => {
  it('retries a truncated answer over TCP and gets the whole RRset', async () => {
    mode = () => undefined;
    const ex = await transport.query('big.test', 'NAPTR', { servers: at() });
    expect(ex.protocol).toBe('tcp');
    expect(ex.message.answers).toHaveLength(60);
    expect(ex.bytes).toBeGreaterThan(1232);
  });

  it('reassembles a TCP answer delivered in small pieces', async () => {
    mode = (ctx) => {
      if (ctx.protocol === 'udp') return undefined;
      const framed = dnsPacket.streamEncode(ctx.answer());
      const pieces: Buffer[] = [];
      for (let i = 0; i < framed.length; i += 700) pieces.push(framed.subarray(i, i + 700));
      return [framed.subarray(0, 1), ...pieces.map((p, i) => (i === 0 ? p.subarray(1) : p))];
    };
    const ex = await transport.query('big.test', 'NAPTR', { servers: at() });
    expect(ex.protocol).toBe('tcp');
    expect(ex.message.answers).toHaveLength(60);
  });

  it('gives a clear error when a TCP answer stops mid-message', async () => {
    mode = (ctx) => {
      if (ctx.protocol === 'udp') return undefined;
      return dnsPacket.streamEncode(ctx.answer()).subarray(0, 100);
    };
    // The fake keeps the socket open; a short message then silence is a timeout.
    const e = await failure(transport.query('big.test', 'NAPTR', { servers: at() }));
    expect(['DNS_TIMEOUT', 'DNS_BAD_RESPONSE']).toContain(e.code);
    expect(e.message).toMatch(/100 bytes/);
  });

  it('refuses a giant RRset with DNS_RRSET_TOO_LARGE', async () => {
    mode = () => undefined;
    const t0 = performance.now();
    const e = await failure(transport.query('giant.test', 'NAPTR', { servers: at() }));
    expect(e.code).toBe('DNS_RRSET_TOO_LARGE');
    expect(e.message).toMatch(/1500 records/);
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('refuses a TCP message over the size cap with DNS_MESSAGE_TOO_LARGE', async () => {
    mode = () => undefined;
    const small = new DnsTransport({ timeoutMs: 500, maxMessageBytes: 2000 });
    try {
      const e = await failure(small.query('big.test', 'NAPTR', { servers: at() }));
      expect(e.code).toBe('DNS_MESSAGE_TOO_LARGE');
    } finally {
      small.close();
    }
  });

  it('reports a refused TCP connection as DNS_NETWORK', async () => {
    const udpOnly = await startFakeDns({ zones: [zone], tcp: false });
    try {
      const e = await failure(
        transport.query('big.test', 'NAPTR', {
          servers: [{ host: udpOnly.host, port: udpOnly.port }],
        }),
      );
      expect(e.code).toBe('DNS_NETWORK');
      expect(e.message).toMatch(/ECONNREFUSED/);
    } finally {
      await udpOnly.close();
    }
  });
});

describe('server addresses and resolv.conf', () => {
  it('parses nameserver lines, IPv6 and comments', () => {
    const text = [
      '# comment',
      'search example.org',
      'nameserver 192.0.2.1',
      'nameserver 2001:db8::53 ; trailing comment',
      'nameserver fe80::1%eth0',
      '; nameserver 192.0.2.99',
      'nameserver not-an-ip',
      'options edns0',
    ].join('\r\n');
    expect(parseResolvConf(text)).toEqual([
      { host: '192.0.2.1', port: 53 },
      { host: '2001:db8::53', port: 53 },
      { host: 'fe80::1%eth0', port: 53 },
    ]);
  });

  it('parses --server values and rejects bad ones with a code', () => {
    expect(parseServerAddress('127.0.0.1:5353')).toEqual({ host: '127.0.0.1', port: 5353 });
    expect(parseServerAddress('127.0.0.2')).toEqual({ host: '127.0.0.2', port: 53 });
    expect(parseServerAddress('[::1]:5300')).toEqual({ host: '::1', port: 5300 });
    expect(parseServerAddress('::1')).toEqual({ host: '::1', port: 53 });
    expect(formatServer({ host: '::1', port: 53 })).toBe('[::1]:53');
    expect(() => parseServerAddress('dns.example:53')).toThrow(/IP literal/);
    expect(() => parseServerAddress('127.0.0.1:99999')).toThrow(/port/);
  });
});

/** Offset of the first answer record in a one-question message. */
function findAnswer(wire: Buffer): number {
  let o = 12;
  o += nameLength(wire, o);
  return o + 4;
}

function nameLength(wire: Buffer, start: number): number {
  let o = start;
  for (;;) {
    const len = wire[o] ?? 0;
    if (len === 0) return o + 1 - start;
    if ((len & 0xc0) === 0xc0) return o + 2 - start;
    o += len + 1;
  }
}
