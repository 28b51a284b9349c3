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

/** A NAPTR query for lex.urn.arpa, ID 0, base64url (a DoH GET's `dns` parameter). */
const PROBE = 'AAABAAABAAAAAAAAA2xleAN1cm4EYXJwYQAAIwAB';

/** Wait until the plain DoH endpoint on `port` answers (HTTP 200); throw after 10 s. */
export async function waitForDoh(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/dns-query?dns=${PROBE}`);
      await r.arrayBuffer();
      if (r.status === 200) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`lexroute serve --doh on port ${port} did not answer`);
}
