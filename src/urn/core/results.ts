/**
 * The result objects of the URN parsers: `Result`s (`core/kit/result.ts`)
 * that also keep the fields they had before issue 19 (`urn`, `errors`).
 *
 * `value` and `error` are getters on the prototype, not own fields: the
 * object a parse allocates is the same as before (no second object, no extra
 * own field, which matters on the client's and the resolver's hot path), and
 * `JSON.stringify`, `{...r}` and deep-equality checks see the older fields
 * exactly as before.
 */
import type {
  LexParseOk,
  LexUrn,
  NormalizationChange,
  NormalizeOk,
  Urn8141,
  Urn8141Ok,
  UrnDiagnostic,
  UrnRejection,
} from './types.ts';

export class Urn8141Parsed implements Urn8141Ok {
  readonly ok = true as const;
  /** @deprecated use `value`. */
  readonly urn: Urn8141;
  constructor(urn: Urn8141) {
    this.urn = urn;
  }
  get value(): Urn8141 {
    return this.urn;
  }
}

export class LexParsed implements LexParseOk {
  readonly ok = true as const;
  /** @deprecated use `value`. */
  readonly urn: LexUrn;
  readonly warnings: readonly UrnDiagnostic[];
  constructor(urn: LexUrn, warnings: readonly UrnDiagnostic[]) {
    this.urn = urn;
    this.warnings = warnings;
  }
  get value(): LexUrn {
    return this.urn;
  }
}

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
