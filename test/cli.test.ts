import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/cli/main.ts';
import { captureIo, feedStdin } from './helpers/io.ts';

describe('lexroute CLI', () => {
  it('prints help listing every command and exits 0 with --help', async () => {
    const io = captureIo();
    expect(await run(['--help'], io)).toBe(0);
    for (const c of ['urn', 'zone', 'serve', 'resolve', 'resolver', 'catalogue', 'dev']) {
      expect(io.stdout()).toMatch(new RegExp(`^  ${c} `, 'm'));
    }
  });

  it('exits 2 on an unknown command and names it', async () => {
    const io = captureIo();
    expect(await run(['frobnicate'], io)).toBe(2);
    expect(io.stderr()).toContain("unknown command 'frobnicate'");
  });

  it('exits 2 with help when no command is given', async () => {
    const io = captureIo();
    expect(await run([], io)).toBe(2);
    expect(io.stderr()).toContain('Usage: lexroute <command>');
    expect(io.stdout()).toBe('');
  });
});

/**
 * `main()`, the process entry of bin/lexroute.js, in a child process: it
 * exits with the command's code even when a handle was left open (a command
 * that forgets a timer must not hang the shell), and only after the output
 * has reached the reader (pipe writes complete asynchronously).
 */
describe('main(): exit after the command, output flushed first', () => {
  const MAIN = path.resolve('src/cli/main.ts');
  const BIN = path.resolve('bin/lexroute.js');
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'lexroute-main-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  interface Ran {
    code: number | null;
    stdout: string;
    stderr: string;
  }

  /**
   * Run the CLI in a child. `strayHandle`: an interval is left running, as a
   * command that forgets one would. `slowReader`: stdout is not read for
   * 300 ms, so the pipe fills and writes wait. A child still alive after 20 s
   * is killed (code null): a hang fails the test instead of stalling it.
   */
  async function cli(
    args: readonly string[],
    opts: { strayHandle?: boolean; stdin?: string; slowReader?: boolean } = {},
  ): Promise<Ran> {
    const script = `
      setInterval(() => {}, 60_000);
      process.argv = [process.argv[0], 'lexroute', ...${JSON.stringify(args)}];
      const { main } = await import(${JSON.stringify(MAIN)});
      await main();
    `;
    const argv = opts.strayHandle ? ['--input-type=module', '-e', script] : [BIN, ...args];
    const child = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    if (opts.slowReader) {
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), 300);
    }
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    feedStdin(child.stdin, opts.stdin ?? '');
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    clearTimeout(killer);
    return { code, stdout: Buffer.concat(out).toString(), stderr: err };
  }

  /** A zone file whose `zone print` is over 1 MB (20,000 TXT records). */
  async function bigZone(origin: string): Promise<string> {
    const lines = [
      `$ORIGIN ${origin}.`,
      '$TTL 300',
      '@ IN SOA ns hostmaster 1 7200 3600 1209600 300',
    ];
    lines.push('@ IN NS ns', 'ns IN A 127.0.0.1');
    for (let i = 0; i < 20_000; i++)
      lines.push(`h${i} IN TXT "record ${i}, padded to make it longer"`);
    const file = path.join(dir, `${origin}.zone`);
    await writeFile(file, `${lines.join('\n')}\n`);
    return file;
  }

  it('exits with the command code although a handle is left open', async () => {
    const version = await cli(['--version'], { strayHandle: true });
    expect(version).toEqual({ code: 0, stdout: 'lexroute 1.0.0\n', stderr: '' });
    const unknown = await cli(['frobnicate'], { strayHandle: true });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
    // A command that read stdin to its end and succeeded exits too.
    const batch = await cli(['resolve', '--batch', '-', '--server', '127.0.0.1:9'], {
      strayHandle: true,
      stdin: '# nothing to resolve\n',
    });
    expect(batch).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('stops quietly with 141 when the reader of its output goes away (| head)', async () => {
    const file = await bigZone('pipe.test');
    const child = spawn(process.execPath, [BIN, 'zone', 'print', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // Read the first chunk, then close the pipe as `head` does.
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    clearTimeout(killer);
    expect(err).toBe('');
    expect(code).toBe(141);
  });

  it('writes all of a large output to a slow pipe before it exits', async () => {
    const file = await bigZone('big.test');
    const io = captureIo();
    expect(await run(['zone', 'print', file], io)).toBe(0);
    const expected = io.stdout();
    expect(expected.length).toBeGreaterThan(1_000_000);
    for (const strayHandle of [false, true]) {
      const r = await cli(['zone', 'print', file], { strayHandle, slowReader: true });
      expect(r.code).toBe(0);
      expect(r.stdout.length).toBe(expected.length);
      expect(r.stdout === expected).toBe(true);
    }
  });
});
