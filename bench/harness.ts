/**
 * What the daemon benches share: free loopback ports, polling until a
 * condition holds, a scratch folder that daemons running as `nobody` can
 * write, the child processes killed and the folder removed at exit, and a
 * process's CPU time.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The repository's root (bin/lexroute.js, node_modules/.bin/node). */
export const ROOT = new URL('../', import.meta.url).pathname;

/** Spawn options that run a reference daemon as `nobody` when the bench runs as root. */
export const AS_NOBODY = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

/** Microseconds per clock tick (`getconf CLK_TCK`; 100 Hz if it cannot be asked). */
const TICK_US = (() => {
  try {
    return 1e6 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  } catch {
    return 10_000;
  }
})();

/** CPU time (user + system, all threads) of process `pid` so far, us; NaN without /proc. */
export function processCpuUs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of proc(5), 12 and 13 after the command name.
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  } catch {
    return Number.NaN;
  }
}

/** A TCP port free on 127.0.0.1 now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

/** Poll `ok` every `stepMs` until it holds; throw after `ms`. */
export async function until(
  what: string,
  ok: () => boolean | Promise<boolean>,
  ms = 60_000,
  stepMs = 50,
): Promise<void> {
  const t0 = Date.now();
  while (!(await ok())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/**
 * A scratch folder (mode 0777, for daemons running as `nobody`) and the list
 * of children to kill: both cleaned up when the process exits.
 */
export function scratch(prefix: string): { dir: string; children: ChildProcess[] } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o777);
  const children: ChildProcess[] = [];
  process.on('exit', () => {
    for (const c of children) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, children };
}

/**
 * `lexroute serve ARGS --json` from this checkout; its log (standard error)
 * accumulates in `log()`, and `onText` sees each chunk as it arrives.
 */
export function spawnServe(
  args: readonly string[],
  children: ChildProcess[],
  onText?: (text: string) => void,
): { child: ChildProcess; log: () => string } {
  let log = '';
  const child = spawn(
    join(ROOT, 'node_modules/.bin/node'),
    [join(ROOT, 'bin/lexroute.js'), 'serve', ...args, '--json'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.push(child);
  child.stderr!.on('data', (d: Buffer) => {
    const text = d.toString();
    log += text;
    onText?.(text);
  });
  return { child, log: () => log };
}

/** The reload benches' zone (bench/reload.ts, reload-stall.ts, reload-memory.ts, answers-ahead.ts), shared with the reload tests. */
export { naptrZoneText } from '../test/helpers/naptr-zone.ts';
