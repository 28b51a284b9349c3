/** The NAPTR lint's own codes; it also reports DDDS_CODES, and NAPTR_ + a code for a bad REGEXP. */
import type { DddsCode } from '../codes.ts';

export const NAPTR_LINT_CODES = {
  NAPTR_MALFORMED: 'NAPTR RDATA that does not decode',
  NAPTR_NO_REWRITE: 'REGEXP empty and REPLACEMENT ".": the record produces nothing',
  NAPTR_TERMINAL_NO_PROTOCOL: 'warning: an S or A record names no protocol in SERVICES',
  NAPTR_PREFERENCE_AS_ORDER:
    'warning: rules of one ORDER told apart only by PREFERENCE (a client may pick either)',
  NAPTR_UNANCHORED: 'warning: a REGEXP pattern not anchored with "^"',
  NAPTR_UNESCAPED_DOT: 'warning: an unescaped "." in the jurisdiction code of a pattern',
  NAPTR_JURISDICTION_UNBOUNDED:
    'warning: the jurisdiction in a pattern is not followed by [;:] (br also matches brx)',
  NAPTR_DELEGATION_NO_CUT:
    'warning: a delegation to a name below the apex with no zone cut (NS) there: NXDOMAIN on a server holding only this zone',
  NAPTR_EXPECT_SYNTAX: 'a malformed "; expect" directive',
  NAPTR_EXPECT_NO_OWNER: 'an "; expect" directive before any record',
  NAPTR_EXPECT_NO_NAPTR: 'an "; expect" directive at an owner without NAPTR records',
  NAPTR_EXPECT_MISMATCH: 'the NAPTR rules do not give the result an "; expect" directive states',
} as const;

export type NaptrLintCode = keyof typeof NAPTR_LINT_CODES;

/** The codes the NAPTR lint reports: its own, the DDDS core's, NAPTR_ + a DDDS code (a bad REGEXP). */
export type LintCode = NaptrLintCode | DddsCode | `NAPTR_${DddsCode}`;
