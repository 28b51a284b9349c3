import { Readable, type Writable } from 'node:stream';
import { EventEmitter } from 'node:events';
import type { CliIo } from '../../src/cli/io.ts';

export interface CapturedIo extends CliIo {
  stdout(): string;
  stderr(): string;
  abort(): void;
  reload(): void;
}

/** A CliIo that records output, for running commands in-process. */
export function captureIo(
  options: { stdin?: string; env?: Record<string, string>; cwd?: string } = {},
): CapturedIo {
  let out = '';
  let err = '';
  const controller = new AbortController();
  const reloads = new EventEmitter();
  return {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    stdin: Readable.from([options.stdin ?? '']),
    isTTY: false,
    errIsTTY: false,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    signal: controller.signal,
    onReload(listener) {
      reloads.on('reload', listener);
      return () => reloads.off('reload', listener);
    },
    stdout: () => out,
    stderr: () => err,
    abort: () => controller.abort(),
    reload: () => reloads.emit('reload'),
  };
}

/** The JSON log lines a captured command wrote on standard error, parsed. */
export function events(io: CapturedIo): Record<string, unknown>[] {
  return io
    .stderr()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * Write `input` to a child's standard input and close it. A child that exits
 * before reading it (`--help`, a usage error) closes the pipe first, and the
 * write then fails with EPIPE: that is the child's choice and not a failure of
 * the test, which judges the child's exit code and output. Other errors still
 * surface.
 */
export function feedStdin(stdin: Writable, input: string): void {
  stdin.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE' && e.code !== 'ECONNRESET') throw e;
  });
  stdin.end(input);
}
