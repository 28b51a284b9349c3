/**
 * bin/lexroute.js runs the long-running services with V8's optimizing
 * compiler on the main thread (`--no-concurrent-recompilation`, issue 30:
 * the compiler threads' scratch memory stayed resident). It replaces its own
 * image: the process its caller started is the server (same PID, signals
 * and exit code as before), node options given are kept, and an explicit
 * choice is left alone.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/lexroute.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'lexroute-node-options-'));
const zone = join(dir, 'lex.urn.arpa.zone');
writeFileSync(
  zone,
  '$ORIGIN lex.urn.arpa.\n@ 300 SOA ns hm 1 3600 600 86400 300\n@ 300 NS ns\nns 300 A 127.0.0.1\n',
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const args = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

/** Start `serve` with `nodeArgs`; returns its command line once it is ready, then stops it. */
async function serveCommandLine(
  nodeArgs: string[],
): Promise<{ argv: string[]; code: number | null }> {
  const child = spawn(
    process.execPath,
    [...nodeArgs, BIN, 'serve', '--zones', zone, '--listen', '127.0.0.1:0'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const end = Date.now() + 20_000;
  while (!out.includes('"event":"ready"')) {
    if (Date.now() > end || child.exitCode !== null) throw new Error(`serve did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const argv = args(child.pid!);
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
