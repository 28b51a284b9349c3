/**
 * The control channel on a loopback TCP port with a key (issue 16: "over a
 * Unix socket (permissions 0600 by default) or a loopback port with a
 * key"): `ctl keygen`, `serve` and `resolver` with `--control
 * 127.0.0.1:0 --control-key FILE`, `ctl` signing each request; a wrong key,
 * an unsigned request and a replayed one are refused (CTL_AUTH_FAILED) and
 * nothing runs; a non-loopback address, a port without a key and a key
 * file others can read are refused before anything listens. Also the
 * resolver's `stats`.
 */
import { chmodSync, cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { requestMac } from '../../src/authority/control-endpoint.ts';
import { captureIo, type CapturedIo, events } from '../helpers/io.ts';
import { REPO } from './harness.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-ctl-tcp-'));
const key = path.join(dir, 'ctl.key');
const otherKey = path.join(dir, 'other.key');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function waitEvent(io: CapturedIo, name: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 400; i++) {
    const e = events(io).find((x) => (x.event ?? x.msg) === name);
    if (e) return e;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no ${name} event:\n${io.stderr()}`);
}

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo({ cwd: dir });
  const code = await run(args, c);
  return { code, out: c.stdout(), err: c.stderr() };
}

/** One raw exchange: read the challenge, send `line(challenge)`, return the answer. */
function raw(port: number, line: (challenge: string) => string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let buf = '';
    let sent = false;
    s.setEncoding('utf8');
    s.on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (!sent && nl >= 0) {
        sent = true;
        const { challenge } = JSON.parse(buf.slice(0, nl)) as { challenge: string };
        buf = buf.slice(nl + 1);
        s.write(`${line(challenge)}\n`);
      }
    });
    s.on('end', () => resolve(JSON.parse(buf) as Record<string, unknown>));
    s.on('error', reject);
  });
}

beforeAll(async () => {
  expect((await cli('ctl', 'keygen', 'ctl.key')).code).toBe(0);
  expect((await cli('ctl', 'keygen', 'other.key')).code).toBe(0);
});

describe('ctl keygen', () => {
  it('writes 32 random octets in base64, mode 0600, and never overwrites', async () => {
    expect(statSync(key).mode & 0o777).toBe(0o600);
    const text = readFileSync(key, 'utf8').trim();
    expect(Buffer.from(text, 'base64')).toHaveLength(32);
    expect(readFileSync(otherKey, 'utf8')).not.toBe(readFileSync(key, 'utf8'));
    const again = await cli('ctl', 'keygen', 'ctl.key');
    expect(again.code).toBe(1);
    expect(again.err).toMatch(
      /^lexroute ctl: CONTROL_KEY_WRITE: cannot write .*ctl\.key: it exists/,
    );
    expect(readFileSync(key, 'utf8').trim()).toBe(text);
  });
});

describe('serve --control 127.0.0.1:PORT --control-key FILE', () => {
  let io: CapturedIo;
  let done: Promise<number>;
  let port = 0;
  let where = '';
  beforeAll(async () => {
    const zones = path.join(dir, 'zones');
    cpSync(path.join(REPO, 'zones', 'urn.arpa.zone'), path.join(zones, 'urn.arpa.zone'));
    io = captureIo({ cwd: dir });
    const args = ['serve', '--zones', zones, '--listen', '127.0.0.1:0', '--log-format', 'json'];
    done = run([...args, '--control', '127.0.0.1:0', '--control-key', 'ctl.key'], io);
    where = (await waitEvent(io, 'control_listening')).path as string;
    port = Number(/^127\.0\.0\.1:(\d+)$/.exec(where)![1]);
  });
  afterAll(async () => {
    io?.abort();
    await done;
  });

  it('answers a request signed with the key (human and --json)', async () => {
    const human = await cli('ctl', '--control', where, '--control-key', 'ctl.key', 'status');
    expect(human.code).toBe(0);
    expect(human.out).toMatch(/^lexroute \d+\.\d+\.\d+, pid \d+, up \d+ s, 1 worker/);
    expect(human.out).toMatch(/urn\.arpa\. {2}serial \d+ {2}\d+ records/);
    const json = await cli(
      'ctl',
      '--control',
      where,
      '--control-key',
      'ctl.key',
      '--json',
      'stats',
    );
    expect(JSON.parse(json.out)).toMatchObject({ ok: true, result: { workers: [{ worker: 0 }] } });
  });

  it('refuses another key, an unsigned request and a replayed one; nothing runs', async () => {
    const wrong = await cli('ctl', '--control', where, '--control-key', 'other.key', 'stop');
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/^lexroute ctl: CTL_AUTH_FAILED: /);
    const unsigned = await raw(port, () => JSON.stringify({ command: 'stop', args: [] }));
    expect(unsigned).toMatchObject({ ok: false, code: 'CTL_AUTH_FAILED' });
    // A request signed for one connection's challenge is refused on the next.
    const k = Buffer.from(readFileSync(key, 'utf8').trim(), 'base64');
    let recorded = '';
    const first = await raw(port, (c) => {
      recorded = JSON.stringify({
        command: 'stats',
        args: [],
        mac: requestMac(k, c, { command: 'stats' }),
      });
      return recorded;
    });
    expect(first).toMatchObject({ ok: true });
    expect(await raw(port, () => recorded)).toMatchObject({ ok: false, code: 'CTL_AUTH_FAILED' });
    // A signed request whose command was changed after signing is refused too.
    const altered = await raw(port, (c) =>
      JSON.stringify({ command: 'stop', args: [], mac: requestMac(k, c, { command: 'stats' }) }),
    );
    expect(altered).toMatchObject({ ok: false, code: 'CTL_AUTH_FAILED' });
    // Counted, not one line each: the summary line comes at the end of the interval.
    expect(events(io).filter((e) => e.event === 'control_auth_failed')).toHaveLength(0);
    // Still running: the refused `stop`s did nothing.
    expect((await cli('ctl', '--control', where, '--control-key', 'ctl.key', 'status')).code).toBe(
      0,
    );
  });

  it('the refusals are summed into one log line (written at the interval, here at stop)', async () => {
    io.abort();
    expect(await done).toBe(0);
    const lines = events(io).filter((e) => e.event === 'control_auth_failed');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ count: 4, level: 'warn' });
  });
});

describe('refused before listening', () => {
  it('a non-loopback address, a port without a key, a key for a socket path: usage errors', async () => {
    const zones = path.join(REPO, 'zones');
    const base = ['serve', '--zones', zones, '--listen', '127.0.0.1:0'];
    const far = await cli(...base, '--control', '192.0.2.1:9953', '--control-key', 'ctl.key');
    expect(far.code).toBe(2);
    expect(far.err).toMatch(/CONTROL_NOT_LOOPBACK/);
    const keyless = await cli(...base, '--control', '127.0.0.1:9953');
    expect(keyless.code).toBe(2);
    expect(keyless.err).toMatch(/CONTROL_KEY_REQUIRED: .*lexroute ctl keygen/);
    const path0 = await cli('ctl', '--control', 'x.sock', '--control-key', 'ctl.key', 'status');
    expect(path0.code).toBe(2);
    expect(path0.err).toMatch(/--control-key is for a TCP control port/);
  });

  it('a key file others can read, or too short, is CONTROL_KEY_INVALID (exit 1)', async () => {
    const open = path.join(dir, 'open.key');
    cpSync(key, open);
    chmodSync(open, 0o644);
    const r = await cli('ctl', '--control', '127.0.0.1:9', '--control-key', 'open.key', 'status');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^lexroute ctl: CONTROL_KEY_INVALID: .*readable by others \(mode 644\)/);
    const short = path.join(dir, 'short.key');
    cpSync(key, short);
    chmodSync(short, 0o600);
    await import('node:fs/promises').then((f) => f.writeFile(short, 'c2hvcnQ=\n'));
    const s = await cli(
      'resolver',
      '--sample',
      '--control',
      '127.0.0.1:0',
      '--control-key',
      'short.key',
    );
    expect(s.code).toBe(1);
    expect(s.err).toMatch(/^lexroute resolver: CONTROL_KEY_INVALID: .*at least 16 octets/);
  });
});

describe('resolver --control 127.0.0.1:PORT: stats', () => {
  it('requests by service and status, latency bounds and cache counters, over the keyed port', async () => {
    const io = captureIo({ cwd: REPO });
    const done = run(
      ['resolver', '--sample', '--listen', '127.0.0.1:0', '--control', '127.0.0.1:0'].concat([
        '--control-key',
        key,
      ]),
      io,
    );
    const url = (await waitEvent(io, 'listening')).url as string;
    const where = (await waitEvent(io, 'control_listening')).path as string;
    const cc = 'urn:lex:br:federal:lei:2002-01-10;10406';
    for (let i = 0; i < 3; i++) await fetch(`${url}/uri-res/N2L?${cc}`, { redirect: 'manual' });
    await fetch(`${url}/uri-res/N2L?urn:lex:br:federal:lei:1900-01-01;999999999`);
    await fetch(`${url}/health`);
    const ctl = ['ctl', '--control', where, '--control-key', key];
    const json = await cli(...ctl, '--json', 'stats');
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const a = JSON.parse(json.out) as { ok: boolean; result: Record<string, any> };
    expect(a.ok).toBe(true);
    expect(a.result.requests).toEqual({ 'N2L 303': 3, 'N2L 404': 1, 'health 200': 1 });
    expect(a.result.latency.counts.reduce((x: number, y: number) => x + y, 0)).toBe(5);
    // The default admission caches an answer on its second miss: miss, miss, hit; the 404 misses.
    expect(a.result.cache).toEqual({ hits: 1, misses: 3 });
    expect(a.result.latencyUpperBoundSeconds.p50).toBeGreaterThan(0);
    const human = await cli(...ctl, 'stats');
    expect(human.out).toMatch(
      /^requests: 5 in \d+ s\n {2}N2L 303 {6}3\n {2}N2L 404 {6}1\n {2}health 200 {3}1\n/,
    );
    expect(human.out).toMatch(/^latency: p50 <=[\d.]+ ms, p90 <=[\d.]+ ms, p99 <=[\d.]+ ms$/m);
    expect(human.out).toMatch(/^answer cache: hits 1, misses 3$/m);
    expect((await cli(...ctl, 'stop')).code).toBe(0);
    expect(await done).toBe(0);
  });
});
