/**
 * Stable codes of the command line itself (`UsageError.code`).
 *
 * Codes are never renamed or reused. test/codes.test.ts checks that every code
 * used in src is in exactly one table; docs/codes.md is generated (npm run codes).
 */
export const CLI_CODES = {
  USAGE: 'a bad command line: an unknown command or option, a missing or extra argument (exit 2)',
} as const;

export type CliCode = keyof typeof CLI_CODES;
