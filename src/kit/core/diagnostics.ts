/**
 * Shared shapes for errors-as-values across the pure core.
 *
 * Every layer reports problems with a stable, SCREAMING_SNAKE `code`
 * (documented, never renamed), a message a person understands, and where the
 * problem is. Invalid input never throws an untyped error.
 */

/** A half-open character range [start, end) in the input text (0-based UTF-16 offsets). */
export interface Span {
  readonly start: number;
  readonly end: number;
}

export type Severity = 'error' | 'warning';

export interface Diagnostic {
  readonly code: string;
  readonly message: string;
  readonly severity: Severity;
  readonly span?: Span;
}

/**
 * The one result shape of the core: `core/kit/result.ts` (re-exported here
 * for the public `lexroute/urn` and `lexroute/zone` entry points).
 */
import type { Result as KitResult } from './result.ts';

export type { Err, Failure, Ok } from './result.ts';
export { err, ok } from './result.ts';

/** `core/kit/result.ts`'s `Result`, whose failure defaults to a `Diagnostic` here (as before). */
export type Result<T, E extends { readonly code: string } = Diagnostic> = KitResult<T, E>;
