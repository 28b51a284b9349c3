/**
 * What a CLI command may touch. Commands never reach for process.* directly,
 * so tests run them in-process with captured output.
 */
import type { CliCode } from './codes.ts';
import { EXIT_STATUS } from './exit.ts';
export interface CliIo {
  /** Write to standard output (no newline added). */
  out(text: string): void;
  /** Write to standard error (no newline added). */
  err(text: string): void;
  /** Standard input, for `--batch -` and the like. */
  readonly stdin: NodeJS.ReadableStream;
  /** True when standard output is a terminal (colours, progress bars). */
  readonly isTTY: boolean;
  /** True when standard error is a terminal. */
  readonly errIsTTY: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Aborted on SIGINT/SIGTERM; long-running commands resolve once shut down. */
  readonly signal: AbortSignal;
  /** Emits 'reload' on SIGHUP (servers reload their zones). */
  onReload(listener: () => void): () => void;
}

/** Exit codes: names for `EXIT_STATUS` (exit.ts, the CLI's one table). */
export const EXIT_OK = EXIT_STATUS.ok;
/** The command ran and found something invalid or failed. */
export const EXIT_FAIL = EXIT_STATUS.failed;
/** Bad command line. */
export const EXIT_USAGE = EXIT_STATUS.usage;

/** A command (its name and summary are in the table of `commands/index.ts`). */
export interface Command {
  run(argv: readonly string[], io: CliIo): Promise<number>;
}

/** A failure already reported on standard error, with its codes (for `exitCodeOfFailure`). */
export class Reported {
  readonly codes: readonly string[];
  constructor(codes: readonly string[]) {
    this.codes = codes;
  }
}

/** A usage error: printed with the command's help hint, exit code 2. */
export class UsageError extends Error {
  readonly code: CliCode = 'USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A long-running command's end: on `signal` (SIGTERM/SIGINT) or `stopNow` (a control channel's `stop`). */
export function stopSignal(signal: AbortSignal): { stopped: Promise<void>; stopNow: () => void } {
  let stopNow = () => undefined as void;
  const stopped = new Promise<void>((resolve) => {
    stopNow = resolve;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  return { stopped, stopNow };
}
