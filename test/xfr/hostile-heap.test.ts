/**
 * A primary whose AXFR never ends, against a real `lexroute serve` child
 * process under a heap limit (`--max-old-space-size=256`, as the attack in
 * issue 31 ran it): with the default limits (derived from that heap) the
 * transfer is aborted with XFR_TOO_MANY_RECORDS, the process lives on, and
 * the zone it serves from a file keeps answering, through repeated tries.
 * Before the limits, the same run died with "JavaScript heap out of
 * memory" after 478,800 records.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../server/named.ts';
import { query } from '../server/harness.ts';
import { endlessPrimary } from './endless.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Peak and current resident memory of a process, MB (Linux /proc). */
function rssMb(pid: number): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { peak: Math.round(kb('VmHWM') / 1024), now: Math.round(kb('VmRSS') / 1024) };
}

describe('a never-ending AXFR against serve under --max-old-space-size=256', () => {
  let child: ChildProcess | undefined;
  let primary: net.Server | undefined;
  let dir: string | undefined;

  afterAll(async () => {
    child?.kill('SIGKILL');
    await new Promise((r) => (primary ? primary.close(r) : r(undefined)));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('aborts at the limit derived from the heap, survives, and keeps serving', async () => {
    const p = await endlessPrimary('endless', 2);
    primary = p.server;
    dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-hostile-heap-'));
    const file = path.join(dir, 'kept.test.zone');
    writeFileSync(
      file,
      '$ORIGIN kept.test.\n$TTL 60\n@ SOA ns1 h 1 3600 600 86400 60\n@ NS ns1\nns1 A 192.0.2.1\n',
    );
    const port = await freePort();
    let log = '';
    const t0 = performance.now();
    child = spawn(
      process.execPath,
      [
        '--max-old-space-size=256',
        path.join(ROOT, 'bin/lexroute.js'),
        'serve',
        '--listen',
        `127.0.0.1:${port}`,
        '--zones',
        file,
        '--secondary',
        `endless.test.=127.0.0.1:${p.port}`,
        '--state-dir',
        dir,
        '--json',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    let exit: number | null | undefined;
    child.on('exit', (code) => (exit = code));
    const failures = () =>
      log
        .split('\n')
        .filter((l) => l.includes('"xfr_in_failed"'))
        .map((l) => JSON.parse(l) as { code: string; error: string });
    // Two transfers aborted (the first, then the retry 5 s later): memory is given back between them.
    const samples: number[] = [];
    while (failures().length < 2) {
      if (exit !== undefined) throw new Error(`serve exited (${exit}):\n${log.slice(-2000)}`);
      if (performance.now() - t0 > 90_000)
        throw new Error(`no abort in 90 s:\n${log.slice(-2000)}`);
      samples.push(rssMb(child.pid!).now);
      await new Promise((r) => setTimeout(r, 250));
    }
    const seconds = ((performance.now() - t0) / 1000).toFixed(1);
    const rss = rssMb(child.pid!);
    const [first] = failures();
    console.log(
      `serve --max-old-space-size=256: ${first!.code} (${first!.error}); ${p.sent.records} records sent in ${seconds} s over 2 tries; RSS peak ${rss.peak} MB, now ${rss.now} MB, highest sampled ${Math.max(...samples)} MB`,
    );
    expect(first!.code).toBe('XFR_TOO_MANY_RECORDS');
    expect(exit).toBeUndefined();
    expect(log).not.toContain('heap out of memory');
    const r = await query(port, 'udp', 'ns1.kept.test.', 'A');
    expect(r.rcode).toBe(0);
    expect(r.answer).toHaveLength(1);
    // The secondary zone was never installed: nothing is served for it.
    const s = await query(port, 'udp', 'endless.test.', 'SOA');
    expect(s.rcode).not.toBe(0);
  }, 120_000);
});
