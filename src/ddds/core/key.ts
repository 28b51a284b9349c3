/**
 * From a rewrite output to a DNS key (digest section 9.5 (b), decisions.md
 * item 2). The conversion itself (percent-decoding of %80-%FF, IDNA2008,
 * Punycode, LDH and length checks) is the URN library's `toDnsKey`; this
 * module is the single place the DDDS core reaches it through, and the
 * contract a caller may replace (`StepInput.toDnsKey`).
 */
import { toDnsKey } from '../../urn/core/index.ts';
import type { ResolutionCode } from './codes.ts';
import type { Failure, Result } from '../../kit/core/result.ts';

/** The key, or why the text does not convert (a KEY_* code of the URN library). */
export type DnsKeyResult = Result<string, Failure<ResolutionCode>>;

/** The contract of the URN library's `toDnsKey`: an absolute name with a trailing dot. */
export type ToDnsKey = (text: string) => DnsKeyResult;

/** The conversion `dddsStep` uses when the caller passes none. */
export const defaultToDnsKey: ToDnsKey = toDnsKey;
