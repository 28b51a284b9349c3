/**
 * From a rewrite output to a DNS key (digest 9.5 (b), decisions.md item 2):
 * the URN library's `toDnsKey`, the contract `StepInput.toDnsKey` may replace.
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
