/**
 * Stable codes of the command line itself (`UsageError.code`).
 *
 * Codes are never renamed or reused (test/codes.test.ts; docs/codes.md is generated).
 */
export const CLI_CODES = {
  USAGE: 'a bad command line: an unknown command or option, a missing or extra argument (exit 2)',
} as const;

export type CliCode = keyof typeof CLI_CODES;
