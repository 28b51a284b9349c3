/**
 * `gcHelperNice` (issue 20): `lexroute serve`, a real process, sets every V8
 * platform thread (`V8Worker`) to the configured nice value and leaves its
 * other threads (the answering thread above all) at their own; at 0 it
 * touches none. Read back from /proc (Linux only; the key is ignored
 * elsewhere). The load thread is not looked at: it has its own key,
 * `zoneFiles.loadNice`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../e2e/helpers.ts';

const BIN = path.join(REPO, 'bin', 'lexroute.js');
const scratch = mkdtempSync(path.join(tmpdir(), 'lexroute-gc-nice-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** [thread name, nice] of each thread of process `pid`, the main thread first. */
function threads(pid: number): [string, number][] {
  const tids = readdirSync(`/proc/${pid}/task`).sort((a, b) => Number(a) - Number(b));
  return tids.map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // Fields after the name: state is field 3; nice is field 19.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [name, Number(fields[16])];
  });
}

/** Serve the sample zones with `config`; the threads once it is ready. */
async function threadsOfServe(config: object): Promise<[string, number][]> {
  const file = path.join(scratch, `server-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify({ listen: ['127.0.0.1:0'], ...config }));
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--config', file, '--zones', 'zones', '--log-format', 'json'],
    { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr.on('data', (b: Buffer) => (log += b.toString()));
  try {
    const until = Date.now() + 20_000;
    while (!log.includes('"event":"ready"')) {
      if (Date.now() > until || child.exitCode !== null)
        throw new Error(`serve did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return threads(child.pid!);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

describe.runIf(existsSync('/proc/self/task'))('gcHelperNice', () => {
  // (A test run itself above nice 13 could not tell a value set from one refused.)
  const base = threads(process.pid)[0]![1];
  it.runIf(base <= 13)(
    'sets the V8 platform threads to the value, and not the answering thread',
    async () => {
      const ts = await threadsOfServe({ gcHelperNice: 13 });
      const helpers = ts.filter(([n]) => n === 'V8Worker');
      expect(helpers.length).toBeGreaterThan(0);
      expect(helpers.map(([, nice]) => nice)).toEqual(helpers.map(() => 13));
      // The answering thread (the process's first task) keeps its own value.
      expect(ts[0]![1]).toBe(base);
    },
    30_000,
  );

  it('leaves every thread at its own value at 0', async () => {
    const ts = await threadsOfServe({ gcHelperNice: 0 });
    const helpers = ts.filter(([n]) => n === 'V8Worker');
    expect(helpers.length).toBeGreaterThan(0);
    expect(helpers.every(([, nice]) => nice === base)).toBe(true);
    expect(ts[0]![1]).toBe(base);
  }, 30_000);
});
