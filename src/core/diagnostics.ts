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

export type Result<T, E = Diagnostic> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

export function err<E>(error: E): { readonly ok: false; readonly error: E } {
  return { ok: false, error };
}
