/**
 * `lexroute serve` as a child process of this checkout (as an operator runs
 * it, with its own memory and CPU to measure from /proc): UDP/TCP on
 * `listen`, and a plain DoH endpoint on `doh` when given. Shared by tests
 * and benches (bench/doh.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const REPO = path.resolve(import.meta.dirname, '../..');

export function spawnServeProcess(zones: string, listen: string, doh?: string): ChildProcess {
  return spawn(
    process.execPath,
    [
      path.join(REPO, 'bin/lexroute.js'),
      'serve',
      '--zones',
      zones,
      '--listen',
      listen,
      ...(doh === undefined ? [] : ['--doh', doh]),
      '--log-level',
      'error',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
}
