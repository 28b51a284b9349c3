/** Errors as values across the core: a stable code, a message, and where. */

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

import type { Result as KitResult } from './result.ts';

/** `result.ts`'s `Result` (for `lexroute/urn` and `lexroute/zone`), its failure a `Diagnostic` by default. */
export type Result<T, E extends { readonly code: string } = Diagnostic> = KitResult<T, E>;
