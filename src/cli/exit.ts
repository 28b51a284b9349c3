/**
 * The one mapping from an outcome or a failure to the process exit code at
 * the CLI's edge: `exitCodeOf` (one code) or `exitCodeOfFailure` (a run's
 * diagnostics); every registered failure code exits 1, a usage error 2
 * (test/cli/exit.test.ts checks every code table, `--help` and the README).
 */
import type { CliCode } from './codes.ts';

/** What a run of a command ended in. */
export type ExitOutcome = 'ok' | 'failed' | 'usage' | 'handoff' | 'brokenPipe';

export const EXIT_STATUS: Readonly<Record<ExitOutcome, number>> = {
  /** Success. */
  ok: 0,
  /** The command ran and found something invalid, or failed (any failure code). */
  failed: 1,
  /** A bad command line (USAGE). */
  usage: 2,
  /** `resolve`: a NAPTR rule with flag P hands the rest to another protocol. */
  handoff: 3,
  /** Standard output's reader went away: 128 + SIGPIPE (13), as a tool killed by SIGPIPE. */
  brokenPipe: 141,
};

/** The outcome of a failure: a usage error, or a failure like any other. */
export const OUTCOME_OF_CODE: Readonly<Record<CliCode, ExitOutcome>> = { USAGE: 'usage' };

/** The exit code of a run that reported `codes`: the highest of theirs, 1 when none is given. */
export function exitCodeOfFailure(codes: Iterable<string | { readonly code: string }>): number {
  let out: number = EXIT_STATUS.failed;
  for (const c of codes) out = Math.max(out, exitCodeOf(typeof c === 'string' ? c : c.code));
  return out;
}

/** The exit code of a failure code: `OUTCOME_OF_CODE` for the CLI's own codes, 1 for every other. */
export function exitCodeOf(code: string): number {
  return EXIT_STATUS[
    Object.hasOwn(OUTCOME_OF_CODE, code) ? OUTCOME_OF_CODE[code as CliCode] : 'failed'
  ];
}
