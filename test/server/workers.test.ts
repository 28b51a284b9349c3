/**
 * `serve --workers 2` (issue 16): two answering threads on the same port
 * (SO_REUSEPORT), one copy of the zones. Queries over UDP and TCP are
 * answered by both workers (counted through the per-worker metric); a reload
 * under dnsperf load loses no query, loads the file once, and afterwards
 * every worker serves the new serial; `ctl stats` sums the workers; SIGTERM
 * stops both.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolOrSkip } from '../helpers/tools.ts';
import { udpRaw } from './harness.ts';
import { naptrZoneText } from '../helpers/naptr-zone.ts';

const BIN = resolve(import.meta.dirname, '../../bin/lexroute.js');
const ORIGIN = 'workers.test.';
const RECORDS = 20_000;
const dnsperf = toolOrSkip('dnsperf');

const zoneText = (serial: number) => naptrZoneText(RECORDS, serial);
/** A second, small zone: `ctl reload` of it alone. */
const SMALL = 'small.test.';
const smallZone = (serial: number) =>
  `$ORIGIN ${SMALL}\n@ 300 IN SOA ns h ${serial} 3600 600 86400 300\n@ 300 IN NS ns\nns 300 IN A 192.0.2.1\n`;

let dir: string;
let file: string;
let child: ChildProcess;
let logs = '';
let port = 0;
let metricsUrl = '';

async function waitFor(re: RegExp, from = 0, ms = 60_000): Promise<string> {
  for (let t = 0; t < ms; t += 20) {
    const m = re.exec(logs.slice(from));
    if (m) return m[0];
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${re} in:\n${logs.slice(from)}`);
}

/** Queries received per worker, from /metrics. */
async function perWorker(): Promise<Map<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^lexroute_dns_worker_queries_total\{worker="(\d+)"\} (\d+)$/gm))
    out.set(m[1]!, Number(m[2]));
  return out;
}

function delta(after: Map<string, number>, before: Map<string, number>): number[] {
  return ['0', '1'].map((w) => (after.get(w) ?? 0) - (before.get(w) ?? 0));
}

/** The SOA serial answered to one query from a fresh UDP socket (a new source port). */
async function serialUdp(name = ORIGIN): Promise<number> {
  const q = dnsPacket.encode({ type: 'query', id: 9, questions: [{ type: 'SOA', name }] });
  const m = await udpRaw(port, q, 2000);
  if (!m) throw new Error('no answer');
  const soa = dnsPacket.decode(m).answers?.[0] as { data: { serial: number } } | undefined;
  return soa?.data.serial ?? -1;
}

/** The SOA serial over a fresh TCP connection. */
function serialTcp(name = ORIGIN): Promise<number> {
  return new Promise((done, fail) => {
    const c = net.connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    c.setTimeout(2000, () => {
      c.destroy();
      fail(new Error('no answer over TCP'));
    });
    c.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 2 || buf.length < 2 + buf.readUInt16BE(0)) return;
      c.end();
      const m = dnsPacket.decode(buf.subarray(2, 2 + buf.readUInt16BE(0)));
      done((m.answers?.[0] as { data: { serial: number } } | undefined)?.data.serial ?? -1);
    });
    c.on('error', fail);
    c.write(dnsPacket.streamEncode({ type: 'query', id: 9, questions: [{ type: 'SOA', name }] }));
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lexroute-workers-'));
  file = join(dir, `${ORIGIN}zone`);
  writeFileSync(file, zoneText(1));
  writeFileSync(join(dir, `${SMALL}zone`), smallZone(1));
  child = spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--zones',
      dir,
      '--listen',
      '127.0.0.1:0',
      '--workers',
      '2',
      '--metrics',
      '127.0.0.1:0',
      '--control',
      join(dir, 'ctl.sock'),
      '--log-format',
      'json',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => void (logs += d));
  const ready = await waitFor(/"event":"ready"[^\n]*/);
  port = Number(/127\.0\.0\.1:(\d+)/.exec(ready)![1]);
  metricsUrl = JSON.parse(await waitFor(/\{[^\n]*"event":"metrics_listening"[^\n]*\}/)).url;
  expect(logs).toContain('"event":"workers_started","workers":2');
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.on('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('serve --workers 2', () => {
  it('answers UDP queries from both workers', async () => {
    const before = await perWorker();
    const serials = await Promise.all(Array.from({ length: 40 }, serialUdp));
    expect(serials.every((s) => s === 1)).toBe(true);
    const d = delta(await perWorker(), before);
    expect(d[0]! + d[1]!).toBe(40);
    expect(d[0]).toBeGreaterThan(0);
    expect(d[1]).toBeGreaterThan(0);
  });

  it('answers TCP connections from both workers', async () => {
    const before = await perWorker();
    const serials: number[] = [];
    for (let i = 0; i < 30; i++) serials.push(await serialTcp());
    expect(serials.every((s) => s === 1)).toBe(true);
    const d = delta(await perWorker(), before);
    expect(d[0]! + d[1]!).toBe(30);
    expect(d[0]).toBeGreaterThan(0);
    expect(d[1]).toBeGreaterThan(0);
  });

  it.skipIf(dnsperf.skipReason)(
    'a reload under dnsperf loses no query, loads once, and every worker serves the new serial',
    async () => {
      const queries = join(dir, 'queries.txt');
      const q: string[] = [];
      for (let i = 0; i < 2000; i++) q.push(`j${(i * 7919) % RECORDS}.${ORIGIN} NAPTR`);
      writeFileSync(queries, q.join('\n') + '\n');
      const perf = spawn(
        dnsperf.path!,
        ['-s', '127.0.0.1', '-p', String(port), '-d', queries, '-l', '4', '-Q', '2000', '-c', '8'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      perf.stdout!.setEncoding('utf8');
      perf.stdout!.on('data', (d: string) => void (out += d));
      const done = new Promise((r) => perf.on('exit', r));
      await new Promise((r) => setTimeout(r, 1000));
      const from = logs.length;
      writeFileSync(file, zoneText(2));
      child.kill('SIGHUP');
      await waitFor(/"event":"zones_reloaded"[^\n]*/, from);
      await done;
      expect(out).toMatch(/Queries lost:\s+0 /);
      expect(Number(/Queries completed:\s+(\d+)/.exec(out)?.[1])).toBeGreaterThan(1000);
      // One load for both workers.
      expect(logs.slice(from).match(/"event":"zone_loaded"/g)).toHaveLength(1);
      const before = await perWorker();
      const serials = await Promise.all(Array.from({ length: 40 }, serialUdp));
      for (let i = 0; i < 10; i++) serials.push(await serialTcp());
      expect(new Set(serials)).toEqual(new Set([2]));
      const d = delta(await perWorker(), before);
      expect(d[0]).toBeGreaterThan(0);
      expect(d[1]).toBeGreaterThan(0);
    },
    60_000,
  );

  it("ctl reload ZONE: every worker serves that zone's new version, sent to it alone", async () => {
    const many = (name: string) => Promise.all(Array.from({ length: 40 }, () => serialUdp(name)));
    expect(new Set(await many(SMALL))).toEqual(new Set([1]));
    const big = await serialUdp();
    writeFileSync(join(dir, `${SMALL}zone`), smallZone(2));
    const from = logs.length;
    const r = spawnSync(
      process.execPath,
      [BIN, 'ctl', '--control', join(dir, 'ctl.sock'), '--json', 'reload', SMALL],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, result: { loaded: 1, serial: 2 } });
    // The one-zone swap (its origin named), not the whole set; no thread refused it.
    await waitFor(/"event":"zones_compiled"[^\n]*"origin":"small\.test\."/, from);
    expect(logs.slice(from)).not.toContain('workers_swap_failed');
    const before = await perWorker();
    const serials = await many(SMALL);
    for (let i = 0; i < 10; i++) serials.push(await serialTcp(SMALL));
    expect(new Set(serials)).toEqual(new Set([2]));
    const d = delta(await perWorker(), before);
    expect(d[0]).toBeGreaterThan(0);
    expect(d[1]).toBeGreaterThan(0);
    expect(new Set(await many(ORIGIN))).toEqual(new Set([big]));
  });

  it('ctl stats sums the workers', () => {
    const r = spawnSync(
      process.execPath,
      [BIN, 'ctl', '--control', join(dir, 'ctl.sock'), 'stats', '--json'],
      { encoding: 'utf8' },
    );
    expect(r.status).toBe(0);
    const answer = JSON.parse(r.stdout) as {
      ok: boolean;
      result: { queries: { queries: number }; workers: { worker: number; queries: number }[] };
    };
    expect(answer.ok).toBe(true);
    const { workers, queries } = answer.result;
    expect(workers.map((w) => w.worker)).toEqual([0, 1]);
    expect(workers.every((w) => w.queries > 0)).toBe(true);
    expect(queries.queries).toBe(workers[0]!.queries + workers[1]!.queries);
  });
});
