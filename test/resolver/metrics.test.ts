/**
 * `lexroute resolver --metrics ADDR:PORT` (issue 16): requests by service and
 * status, the latency histogram, answer-cache hits and the catalogue size,
 * with exact counts after a known mix; `promtool check metrics` accepts the
 * text; with `--workers 2` the primary sums what both workers counted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CC = 'urn:lex:br:federal:lei:2002-01-10;10406';
/** Children still running when a test times out (its finally never runs): killed here. */
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function parse(text: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    m.set(line.slice(0, sp), Number(line.slice(sp + 1)));
  }
  return m;
}

async function waitFor<T>(what: string, f: () => T | undefined, text: () => string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${what}:\n${text()}`);
}

const urlOf = (log: string, msg: string) =>
  new RegExp(`"event":"${msg}","url":"([^"]+)"`).exec(log)?.[1];

describe('resolver --metrics', () => {
  it('exact counts after a known request mix; promtool accepts the text', async () => {
    const io = captureIo({ cwd: ROOT });
    const done = run(
      ['resolver', '--sample', '--listen', '127.0.0.1:0', '--metrics', '127.0.0.1:0'],
      io,
    );
    try {
      const base = await waitFor('listening', () => urlOf(io.stderr(), 'listening'), io.stderr);
      const metrics = await waitFor('metrics', () => urlOf(io.stderr(), 'metrics'), io.stderr);
      for (let i = 0; i < 3; i++) {
        expect((await fetch(`${base}/uri-res/N2L?${CC}`, { redirect: 'manual' })).status).toBe(303);
      }
      const bad = (await fetch(`${base}/uri-res/N2C?urn:lex:zz:nothing:here`)).status;
      expect(bad).toBeGreaterThanOrEqual(400);
      expect((await fetch(`${base}/health`)).status).toBe(200);
      const res = await fetch(metrics);
      expect(res.status).toBe(200);
      const text = await res.text();
      const m = parse(text);
      expect(m.get('lexroute_resolver_requests_total{service="N2L",status="303"}')).toBe(3);
      expect(m.get(`lexroute_resolver_requests_total{service="N2C",status="${bad}"}`)).toBe(1);
      expect(m.get('lexroute_resolver_requests_total{service="health",status="200"}')).toBe(1);
      expect(m.get('lexroute_resolver_request_duration_seconds_count')).toBe(5);
      // Second-request admission: the second N2L is stored, the third is a hit.
      expect(m.get('lexroute_resolver_cache_hits_total')).toBe(1);
      expect(m.get('lexroute_resolver_catalogue_size{kind="works"}')).toBeGreaterThan(0);
      const promtool = toolOrSkip('promtool');
      if (promtool.path) {
        const out = execFileSync(promtool.path, ['check', 'metrics'], {
          input: text,
          encoding: 'utf8',
        });
        expect(out.trim()).toBe('');
      }
    } finally {
      io.abort();
      expect(await done).toBe(0);
    }
  });

  it('--workers 2: the primary sums both workers', async () => {
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'bin/lexroute.js'),
        'resolver',
        '--sample',
        '--workers',
        '2',
        '--listen',
        '127.0.0.1:0',
        '--metrics',
        '127.0.0.1:0',
      ],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    children.add(child);
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    try {
      const metrics = await waitFor(
        'metrics',
        () => urlOf(err, 'metrics'),
        () => err,
      );
      const base = await waitFor(
        'two workers listening',
        () =>
          (err.match(/"event":"listening"/g) ?? []).length >= 2
            ? urlOf(err, 'listening')
            : undefined,
        () => err,
      );
      const n = 20;
      for (let i = 0; i < n; i++) {
        // A new connection each time: the primary hands connections to the workers in turn.
        await fetch(`${base}/health`, { headers: { connection: 'close' } });
      }
      const m = parse(await (await fetch(metrics)).text());
      expect(m.get('lexroute_resolver_workers')).toBe(2);
      expect(m.get('lexroute_resolver_requests_total{service="health",status="200"}')).toBe(n);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });
});
