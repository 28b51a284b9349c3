/**
 * `lexroute serve --control PATH` and `lexroute ctl` (issue 16): each command
 * against a running server, including a reload of one zone whose file is
 * broken (the old zone stays, the error is reported).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { captureIo, type CapturedIo } from '../helpers/io.ts';
import { query, REPO } from './harness.ts';
import { xfr, xfrQuery } from '../xfr/client.ts';

let io: CapturedIo;
let done: Promise<number>;
let dir: string;
let sock: string;
let port = 0;

async function waitEvent(name: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const e = io
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((x) => x.event === name);
    if (e) return e;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no ${name} event:\n${io.stderr()}`);
}

async function ctl(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo();
  const code = await run(['ctl', '--control', sock, ...args], c);
  return { code, out: c.stdout(), err: c.stderr() };
}

async function serial(name: string): Promise<number> {
  const r = (await query(port, 'udp', name, 'SOA')).answer;
  return JSON.parse(r[0]!.split(' ').slice(3).join(' ')).serial as number;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-ctl-'));
  for (const z of ['urn.arpa.zone', 'nic.it.zone']) {
    cpSync(path.join(REPO, 'zones', z), path.join(dir, z));
  }
  sock = path.join(dir, 'control.sock');
  io = captureIo({ cwd: REPO });
  done = run(
    [
      'serve',
      '--zones',
      dir,
      '--listen',
      '127.0.0.1:0',
      '--control',
      sock,
      '--allow-transfer',
      '127.0.0.1/32',
      '--log-format',
      'json',
    ],
    io,
  );
  port = (await waitEvent('listening')).port as number;
  await waitEvent('control_listening');
});
afterAll(async () => {
  io?.abort();
  await done;
  rmSync(dir, { recursive: true, force: true });
});

describe('lexroute ctl', () => {
  it('the socket is mode 0600', () => {
    expect(statSync(sock).mode & 0o777).toBe(0o600);
  });

  it('status: version, workers, zones with serial and records (human and --json)', async () => {
    const human = await ctl('status');
    expect(human.code).toBe(0);
    expect(human.out).toMatch(/^lexroute \d+\.\d+\.\d+, pid \d+, up \d+ s, 1 worker/);
    expect(human.out).toMatch(/urn\.arpa\. {2}serial 2026112001 {2}\d+ records {2}loaded /);
    const json = await ctl('--json', 'status');
    const a = JSON.parse(json.out);
    expect(a.ok).toBe(true);
    expect(a.result.workers).toBe(1);
    expect(a.result.zones.map((z: { zone: string }) => z.zone).sort()).toEqual([
      'nic.it.',
      'urn.arpa.',
    ]);
    const urn = a.result.zones.find((z: { zone: string }) => z.zone === 'urn.arpa.');
    expect(urn).toMatchObject({ serial: 2026112001, lastResult: 'loaded' });
    expect(urn.records).toBeGreaterThan(0);
  });

  it('zone-status ZONE, and an unknown zone', async () => {
    const a = JSON.parse((await ctl('--json', 'zone-status', 'urn.arpa')).out);
    expect(a.result).toMatchObject({ zone: 'urn.arpa.', serial: 2026112001, lastResult: 'loaded' });
    const nope = await ctl('zone-status', 'nope.example');
    expect(nope.code).toBe(1);
    expect(nope.err).toContain('CTL_UNKNOWN_ZONE');
  });

  it('reload ZONE: a good edit is served; a broken file keeps the old zone and reports the error', async () => {
    const file = path.join(dir, 'urn.arpa.zone');
    const good = readFileSync(file, 'utf8');
    const axfrSerial = async () => {
      const soa = (await xfr(port, xfrQuery('urn.arpa.', 'AXFR'))).records[0];
      return soa?.type === 'SOA' ? soa.data.serial : undefined;
    };
    expect(await axfrSerial()).toBe(2026112001);
    writeFileSync(file, good.replace('2026112001', '2026112002'));
    const ok = await ctl('reload', 'urn.arpa');
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('serial 2026112002');
    expect(await serial('urn.arpa')).toBe(2026112002);
    // Transfers give the new version too (they find the zone by the engine's list).
    expect(await axfrSerial()).toBe(2026112002);

    writeFileSync(file, good.replace('2026112001', '2026112003') + 'bad line with ( unbalanced\n');
    const bad = await ctl('--json', 'reload', 'urn.arpa');
    expect(bad.code).toBe(1);
    const a = JSON.parse(bad.out);
    expect(a).toMatchObject({ ok: false, code: 'ZONE_RELOAD_FAILED' });
    expect(a.message).toMatch(/urn\.arpa\.: ZONE_\w+: .*line \d+/);
    expect(a.message).toContain('serving the previous version (serial 2026112002)');
    expect(await serial('urn.arpa')).toBe(2026112002);
    const st = JSON.parse((await ctl('--json', 'zone-status', 'urn.arpa')).out).result;
    expect(st).toMatchObject({ serial: 2026112002, lastResult: 'failed' });
    expect(st.lastError).toMatch(/^ZONE_/);
    // The human form names the failure too.
    const human = await ctl('reload', 'urn.arpa');
    expect(human.err).toContain('ZONE_RELOAD_FAILED');
    writeFileSync(file, good.replace('2026112001', '2026112004'));
    expect((await ctl('reload')).code).toBe(0);
    expect(await serial('urn.arpa')).toBe(2026112004);
  });

  it('reload ZONE looks at that zone only: another changed file waits for a full reload', async () => {
    const urn = path.join(dir, 'urn.arpa.zone');
    const nic = path.join(dir, 'nic.it.zone');
    const nicBefore = await serial('nic.it');
    const urnBefore = await serial('urn.arpa');
    const urnText = readFileSync(urn, 'utf8');
    const nicText = readFileSync(nic, 'utf8');
    writeFileSync(urn, urnText.replace(String(urnBefore), String(urnBefore + 1)));
    writeFileSync(nic, nicText.replace(String(nicBefore), String(nicBefore + 1)));
    const one = JSON.parse((await ctl('--json', 'reload', 'urn.arpa')).out);
    expect(one.ok).toBe(true);
    // The other file is not looked at (not even counted unchanged).
    expect(one.result).toMatchObject({ loaded: 1, unchanged: 0, zones: 2 });
    expect(await serial('urn.arpa')).toBe(urnBefore + 1);
    expect(await serial('nic.it')).toBe(nicBefore);
    expect((await ctl('reload')).code).toBe(0);
    expect(await serial('nic.it')).toBe(nicBefore + 1);
  });

  it('stats: query and TCP counters', async () => {
    const a = JSON.parse((await ctl('--json', 'stats')).out);
    expect(a.ok).toBe(true);
    expect(a.result.queries.queries).toBeGreaterThanOrEqual(3);
    expect(a.result.tcp).toMatchObject({ open: 0 });
    expect(a.result.rrl).toBeNull();
    // Text without --json, as status (issue 31 item 22: it printed JSON).
    const text = (await ctl('stats')).out;
    expect(text).toMatch(/^queries in \d+ s:\n {2}queries {10}[\d,]+\n/);
    expect(text).toMatch(/^tcp: 0 open, [\d,]+ accepted, /m);
    expect(text).toMatch(/^rrl: off$/m);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('usage errors exit 2; an unreachable socket exits 1', async () => {
    expect((await ctl()).code).toBe(2);
    expect((await ctl('frobnicate')).code).toBe(2);
    expect((await ctl('zone-status')).code).toBe(2);
    const c = captureIo();
    expect(await run(['ctl', '--control', path.join(dir, 'none.sock'), 'status'], c)).toBe(1);
    expect(c.stderr()).toContain('CTL_UNREACHABLE');
  });

  it('stop: the server shuts down cleanly', async () => {
    const r = await ctl('stop');
    expect(r.code).toBe(0);
    expect(await done).toBe(0);
    expect(io.stderr()).toContain('"event":"stopped"');
  });
});
