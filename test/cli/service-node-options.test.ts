/**
 * bin/lexroute.js runs the long-running services with V8's optimizing
 * compiler on the main thread (`--no-concurrent-recompilation`, issue 30:
 * the compiler threads' scratch memory stayed resident). It replaces its own
 * image: the process its caller started is the server (same PID, signals
 * and exit code as before), node options given are kept, and an explicit
 * choice is left alone.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { minimalZoneFolder, startServeChild } from '../helpers/serve-process.ts';

const folder = minimalZoneFolder('lexroute-node-options-');
afterAll(() => folder.remove());

/** Start `serve` with `nodeArgs`; its command line once ready, and its exit code after SIGTERM. */
async function serveCommandLine(
  nodeArgs: string[],
): Promise<{ argv: string[]; code: number | null }> {
  const { child } = await startServeChild(folder.zone, nodeArgs);
  const argv = readFileSync(`/proc/${child.pid!}/cmdline`, 'utf8').split('\0');
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  child.kill('SIGTERM');
  return { argv, code: await exited };
}

describe.runIf(process.platform === 'linux')('node options of the services', () => {
  it('serve runs in the process started, with the compiler on its main thread and the options given', async () => {
    const { argv, code } = await serveCommandLine(['--max-old-space-size=512']);
    expect(argv.slice(1, 3)).toEqual(['--max-old-space-size=512', '--no-concurrent-recompilation']);
    expect(argv).toContain('serve');
    // Stopped by SIGTERM as before: the process started was the server itself.
    expect(code).toBe(0);
  });

  it('an explicit --concurrent-recompilation is kept as given', async () => {
    const { argv } = await serveCommandLine(['--concurrent-recompilation']);
    expect(argv).toContain('--concurrent-recompilation');
    expect(argv).not.toContain('--no-concurrent-recompilation');
  });
});
