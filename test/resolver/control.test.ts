/**
 * `lexroute resolver --control PATH` and `lexroute ctl` (issue 16, "the same
 * for the resolver where it fits"): status, reload of the configuration file
 * (applied, and refused when broken: the previous configuration keeps
 * serving), flush-cache and stop against a running resolver, human output
 * and --json; with --workers 2 the primary forwards to both workers, which
 * run the resolver's `worker-main` (issue 29: the CLI calls
 * `startResolver({ workers })` once, it does not run itself again), take the
 * configuration the primary read again at a reload, and stop on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CC = 'urn:lex:br:federal:lei:2002-01-10;10406';
const children = new Set<ChildProcess>();
const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-resolver-ctl-'));
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function waitFor<T>(what: string, f: () => T | undefined, text: () => string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${what}:\n${text()}`);
}

async function ctl(sock: string, ...args: string[]) {
  const c = captureIo();
  const code = await run(['ctl', '--control', sock, ...args], c);
  return { code, out: c.stdout(), err: c.stderr() };
}

async function ctlJson(sock: string, ...args: string[]) {
  const r = await ctl(sock, '--json', ...args);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { code: r.code, a: JSON.parse(r.out) as { ok: boolean; code?: string; result: any } };
}

const config = (found: unknown, requests = true) =>
  JSON.stringify({
    sampleCatalogue: path.join(ROOT, 'data/sample-catalogue.jsonl'),
    cacheControl: { found },
    log: { requests },
    cache: { admission: 'first-request' },
  });

const n2l = (base: string) => fetch(`${base}/uri-res/N2L?${CC}`, { redirect: 'manual' });

describe('resolver --control', () => {
  it('status, flush-cache, reload (applied, then refused when broken) and stop', async () => {
    const sock = path.join(dir, 'one.sock');
    const cfg = path.join(dir, 'resolver.json');
    writeFileSync(cfg, config('public, max-age=111'));
    const io = captureIo({ cwd: ROOT });
    const done = run(
      ['resolver', '--sample', '--config', cfg, '--listen', '127.0.0.1:0', '--control', sock],
      io,
    );
    const base = await waitFor(
      'listening',
      () => /"event":"listening","url":"([^"]+)"/.exec(io.stderr())?.[1],
      io.stderr,
    );
    await waitFor(
      'control',
      () => (statSync(sock, { throwIfNoEntry: false }) ? 1 : undefined),
      io.stderr,
    );
    expect(statSync(sock).mode & 0o777).toBe(0o600);

    expect((await n2l(base)).headers.get('cache-control')).toBe('public, max-age=111');
    await n2l(base); // a hit

    const human = await ctl(sock, 'status');
    expect(human.code).toBe(0);
    expect(human.out).toMatch(
      /^lexroute resolver \d+\.\d+\.\d+, pid \d+, up \d+ s, 1 worker\(s\), listening on 127\.0\.0\.1:0\n/,
    );
    expect(human.out).toMatch(/^catalogue sample: .*\d+ works/m);
    expect(human.out).toMatch(/^answer cache: 1 entries, [\d,]+ bytes, 1 hits, 1 misses$/m);
    const status = await ctlJson(sock, 'status');
    expect(status.a.ok).toBe(true);
    expect(status.a.result).toMatchObject({ kind: 'resolver', workers: 1, lastReloadError: null });
    expect(status.a.result.cache).toMatchObject({ entries: 1, hits: 1, misses: 1 });
    expect(status.a.result.catalogue.works).toBeGreaterThan(0);

    const flushed = await ctlJson(sock, 'flush-cache');
    expect(flushed.a.result.flushed.entries).toBe(1);
    expect((await ctlJson(sock, 'status')).a.result.cache.entries).toBe(0);
    expect((await ctl(sock, 'flush-cache')).out).toBe('answer cache emptied: 0 entries, 0 bytes\n');

    // A changed file: the new Cache-Control is served; a key that needs a restart is reported.
    writeFileSync(cfg, config('public, max-age=222', false));
    const reloaded = await ctl(sock, 'reload');
    expect(reloaded.code).toBe(0);
    expect(reloaded.out).toMatch(
      /^configuration reloaded; answer cache emptied \(0 entries\); changed keys that need a restart \(not applied\): log$/m,
    );
    expect((await n2l(base)).headers.get('cache-control')).toBe('public, max-age=222');

    // A broken file: refused with its code, the previous configuration keeps serving.
    writeFileSync(cfg, '{"cacheControl": {"found": 7}}');
    const broken = await ctl(sock, 'reload');
    expect(broken.code).toBe(1);
    expect(broken.err).toMatch(
      /^lexroute ctl: RESOLVER_RELOAD_FAILED: .*cacheControl\.found.*kept the previous configuration/,
    );
    expect((await n2l(base)).headers.get('cache-control')).toBe('public, max-age=222');
    const after = (await ctlJson(sock, 'status')).a.result;
    expect(after.lastReloadError).toMatch(/cacheControl\.found/);
    // Hits and misses stay counters across the swap of the app.
    expect(after.cache.misses).toBe(2);

    const zoneCmd = await ctlJson(sock, 'zone-status', 'x.');
    expect(zoneCmd.code).toBe(1);
    expect(zoneCmd.a.code).toBe('CTL_UNKNOWN_COMMAND');

    expect((await ctl(sock, 'stop')).out).toBe('stopping\n');
    expect(await done).toBe(0);
    expect(io.stderr()).toContain('"event":"config_reload_failed"');
  });

  it('--workers 2: the primary forwards status and flush-cache to both workers, stop ends all', async () => {
    const sock = path.join(dir, 'two.sock');
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'bin/lexroute.js'),
        ...['resolver', '--sample', '--workers', '2', '--listen', '127.0.0.1:0'],
        ...['--control', sock],
      ],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    children.add(child);
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise((r) => child.once('exit', r));
    await waitFor(
      'two workers listening',
      () => ((err.match(/"event":"listening"/g) ?? []).length >= 2 ? true : undefined),
      () => err,
    );
    await waitFor(
      'control',
      () => (statSync(sock, { throwIfNoEntry: false }) ? 1 : undefined),
      () => err,
    );
    const status = await ctlJson(sock, 'status');
    expect(status.a.ok).toBe(true);
    expect(status.a.result.workers).toBe(2);
    expect(status.a.result.pid).toBe(child.pid);
    expect(status.a.result.processes).toHaveLength(2);
    expect(new Set(status.a.result.processes.map((p: { pid: number }) => p.pid)).size).toBe(2);
    const human = await ctl(sock, 'status');
    expect(human.out).toMatch(/, 2 worker\(s\), /);
    const flushed = await ctlJson(sock, 'flush-cache');
    expect(flushed.a.result.flushed).toEqual({ entries: 0, bytes: 0 });
    // stats: every worker's counters, summed (the requests go to either worker).
    const url = /"event":"listening","url":"([^"]+)"/.exec(err)![1]!;
    for (let i = 0; i < 4; i++) await n2l(url);
    const stats = await ctlJson(sock, 'stats');
    expect(stats.a.ok).toBe(true);
    expect(stats.a.result.processes).toHaveLength(2);
    expect(stats.a.result.requests).toEqual({ 'N2L 303': 4 });
    expect(stats.a.result.cache.hits + stats.a.result.cache.misses).toBe(4);
    expect(stats.a.result.latency.counts.reduce((x: number, y: number) => x + y, 0)).toBe(4);
    expect((await ctlJson(sock, 'reload')).a.ok).toBe(true);
    expect((await ctl(sock, 'stop')).code).toBe(0);
    expect(await exited).toBe(0);
  });

  it('--workers 2: worker-main processes; a reload of a changed file reaches both; SIGTERM ends all', async () => {
    const sock = path.join(dir, 'three.sock');
    const cfg = path.join(dir, 'workers.json');
    writeFileSync(cfg, config('public, max-age=111', false));
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'bin/lexroute.js'),
        ...['resolver', '--sample', '--workers', '2', '--config', cfg],
        ...['--listen', '127.0.0.1:0', '--control', sock],
      ],
      { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    children.add(child);
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise((r) => child.once('exit', r));
    const base = await waitFor(
      'two workers listening',
      () =>
        (err.match(/"event":"listening"/g) ?? []).length >= 2
          ? /"event":"listening","url":"([^"]+)"/.exec(err)?.[1]
          : undefined,
      () => err,
    );
    await waitFor(
      'control',
      () => (statSync(sock, { throwIfNoEntry: false }) ? 1 : undefined),
      () => err,
    );
    const pids = ((await ctlJson(sock, 'status')).a.result.processes as { pid: number }[]).map(
      (p) => p.pid,
    );
    expect(new Set(pids).size).toBe(2);
    for (const pid of pids) {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(argv.some((a) => /worker-main\.[jt]s$/.test(a))).toBe(true);
      expect(argv).not.toContain('--workers');
    }
    // Each request on a new connection: the primary hands them to the workers in turn.
    const cacheControls = async () => {
      const seen = new Set<string | null>();
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`${base}/uri-res/N2L?${CC}`, {
          redirect: 'manual',
          headers: { connection: 'close' },
        });
        seen.add(res.headers.get('cache-control'));
      }
      return [...seen];
    };
    expect(await cacheControls()).toEqual(['public, max-age=111']);
    writeFileSync(cfg, config('public, max-age=222', false));
    expect((await ctlJson(sock, 'reload')).a.ok).toBe(true);
    expect(await cacheControls()).toEqual(['public, max-age=222']);
    writeFileSync(cfg, config(7, false));
    const broken = await ctlJson(sock, 'reload');
    expect(broken.code).toBe(1);
    expect(broken.a.code).toBe('RESOLVER_RELOAD_FAILED');
    expect(await cacheControls()).toEqual(['public, max-age=222']);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(pids.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
    expect(err).toContain('"event":"stopped"');
  });
});
