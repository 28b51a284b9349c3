/**
 * The result objects of the URN parsers: `Result`s (`kit/core/result.ts`);
 * a normalisation also carries its `canonical` text and `changes`, a
 * rejection all its `errors` (`error` is the first).
 */
import type { NormalizationChange, NormalizeOk, UrnDiagnostic, UrnRejection } from './types.ts';

export class Normalized implements NormalizeOk {
  readonly ok = true as const;
  readonly canonical: string;
  readonly changes: readonly NormalizationChange[];
  constructor(canonical: string, changes: readonly NormalizationChange[]) {
    this.canonical = canonical;
    this.changes = changes;
  }
  get value(): string {
    return this.canonical;
  }
}

export class UrnRejected implements UrnRejection {
  readonly ok = false as const;
  readonly errors: readonly UrnDiagnostic[];
  constructor(error: UrnDiagnostic) {
    this.errors = [error];
  }
  /** The (first) error: `errors[0]`. */
  get error(): UrnDiagnostic {
    return this.errors[0]!;
  }
}
