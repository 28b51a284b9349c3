/**
 * The typed trees of the URN library: RFC 8141 (`Urn8141`) and RFC 9676
 * section 8 (`LexUrn`). A `span` is the node's half-open UTF-16 range in the
 * input, separators excluded; values are kept as written (the formatter is
 * the parser's exact inverse; canonical forms from `normalizeLexUrn`).
 */
import type { Diagnostic, Span } from '../../kit/core/diagnostics.ts';
import type { Err, Ok } from '../../kit/core/result.ts';
import type { UrnCode } from './codes.ts';

export type { Span } from '../../kit/core/diagnostics.ts';
export type { UrnCode } from './codes.ts';

/** A problem found in a URN or key: stable `code` (see codes.ts), message, and where. */
export interface UrnDiagnostic extends Diagnostic {
  readonly code: UrnCode;
  readonly span: Span;
}

/** A piece of the input as written. */
export interface Segment {
  readonly text: string;
  readonly span: Span;
}

// RFC 8141 layer

/**
 * `assigned-name [ "?+" r-component ] [ "?=" q-component ] [ "#" f-component ]`.
 * The r-, q- and f-components hold their text without the `?+`, `?=`, `#`.
 */
export interface Urn8141 {
  /** `urn` as written (any case). */
  readonly scheme: Segment;
  readonly nid: Segment;
  readonly nss: Segment;
  readonly rComponent?: Segment;
  readonly qComponent?: Segment;
  readonly fComponent?: Segment;
  /** The whole input. */
  readonly span: Span;
  /** `urn:` NID `:` NSS as written. */
  readonly assignedName: Segment;
}

/** A URN parse that failed: `error`, and `errors` (today always `[error]`: parsers stop at one). */
export interface UrnRejection extends Err<UrnDiagnostic> {
  readonly errors: readonly UrnDiagnostic[];
}

/** `parseUrn8141`: a `Result<Urn8141, UrnDiagnostic>`. */
export type Urn8141Ok = Ok<Urn8141>;

export type Urn8141Result = Urn8141Ok | UrnRejection;

// LEX layer (RFC 9676 section 8)

/** `jurisdiction = jurisdiction-code *(";" jurisdiction-unit)` */
export interface LexJurisdiction {
  readonly code: Segment;
  readonly units: readonly Segment[];
  readonly span: Span;
}

/** `issuer = (institution *(";" body-function)) / office`; an office is an issuer without body-functions. */
export interface LexIssuer {
  /** The institution or the office. */
  readonly name: Segment;
  readonly bodyFunctions: readonly Segment[];
  readonly span: Span;
}

/** `authority = issuer *("+" issuer)` */
export interface LexAuthority {
  readonly issuers: readonly LexIssuer[];
  readonly span: Span;
}

/**
 * An element followed by `*(";" specification)`: measure (measure-type),
 * annex (annex-id), editor (publisher), format (mime), component (part),
 * feature (attribute).
 */
export interface LexQualified {
  readonly value: Segment;
  readonly specifications: readonly Segment[];
  readonly span: Span;
}

/** `date = date-iso ["|" date-loc]` (RFC 9676 section 3.6); a raw `|` is accepted with a warning. */
export interface LexDate {
  /** `YYYY-MM-DD` as written. */
  readonly iso: Segment;
  readonly year: number;
  readonly month: number;
  readonly day: number;
  /** The separator as written: `|`, `%7C` or `%7c`; absent when there is no local date. */
  readonly separator?: string;
  /** The local-calendar date (may be empty text). Present exactly when `separator` is. */
  readonly local?: Segment;
  readonly span: Span;
}

/** `numbers = number / number-lex` */
export type LexNumbers =
  | {
      readonly kind: 'ids';
      /** `document-id *("," document-id)` */
      readonly ids: readonly Segment[];
      readonly span: Span;
    }
  | {
      readonly kind: 'lex';
      /** `"lex-" 1*DIGIT` as written (the whole `lex-N`). */
      readonly text: Segment;
      /** The digits after `lex-`. */
      readonly digits: string;
      readonly span: Span;
    };

/** `details = (dates / period) ";" numbers`: exactly one of `dates`/`period`. */
export interface LexDetails {
  readonly dates?: readonly LexDate[];
  readonly period?: Segment;
  readonly numbers: LexNumbers;
  readonly span: Span;
}

/** `work = authority ":" measure ":" details *(":" annex)` */
export interface LexWork {
  readonly authority: LexAuthority;
  readonly measure: LexQualified;
  readonly details: LexDetails;
  /** Annexes, then annexes of annexes, in order. */
  readonly annexes: readonly LexQualified[];
  readonly span: Span;
}

/** A version's first element or one of its `;` events. */
export type LexVersionItem =
  | { readonly kind: 'date'; readonly date: LexDate; readonly span: Span }
  | { readonly kind: 'text'; readonly text: Segment; readonly span: Span };

/** `version = (amendment-date / specification) *(";" (event-date / event))` */
export interface LexVersion {
  /** amendment-date (kind `date`) or specification such as `original` (kind `text`). */
  readonly amendment: LexVersionItem;
  readonly events: readonly LexVersionItem[];
  readonly span: Span;
}

/** `expression = version [":" language]` */
export interface LexExpression {
  readonly version: LexVersion;
  readonly language?: Segment;
  readonly span: Span;
}

/** `manifestation = editor ":" format [":" component [":" feature]]` (section 8 order). */
export interface LexManifestation {
  readonly editor: LexQualified;
  readonly format: LexQualified;
  readonly component?: LexQualified;
  readonly feature?: LexQualified;
  readonly span: Span;
}

/** A parsed LEX URN reference: `URN-document ["~" partition-id]` plus RFC 8141 components. */
export interface LexUrn {
  /** The input the tree was parsed from. */
  readonly input: string;
  readonly span: Span;
  /** `urn` as written. */
  readonly scheme: Segment;
  /** `lex` as written. */
  readonly nid: Segment;
  readonly jurisdiction: LexJurisdiction;
  readonly work: LexWork;
  readonly expression?: LexExpression;
  readonly manifestation?: LexManifestation;
  /** The partition id after `~` (RFC 9676 section 5.8), without the `~`. */
  readonly partition?: Segment;
  /** RFC 8141 components, without `?+`, `?=`, `#`. */
  readonly rComponent?: Segment;
  readonly qComponent?: Segment;
  readonly fComponent?: Segment;
}

/** `parseLexUrn`: a `Result<LexUrn, UrnDiagnostic>`, with the warnings of a success. */
export interface LexParseOk extends Ok<LexUrn> {
  readonly warnings: readonly UrnDiagnostic[];
}

export type LexParseResult = LexParseOk | UrnRejection;

// Normalisation

/** Which canonicalisation rule changed the input (each reported once, with its first span). */
export type NormalizationRule =
  /** `URN:` -> `urn:` (RFC 8141 section 3.1). */
  | 'scheme-lowercase'
  /** `LEX` -> `lex` (RFC 8141 section 3.1). */
  | 'nid-lowercase'
  /** ASCII letters of the LEX name lowercased (RFC 9676 section 3.3). */
  | 'case-fold'
  /** Percent-encoded non-ASCII text decoded, lowercased, re-encoded (RFC 9676 section 3.3). */
  | 'case-fold-encoded'
  /** `%c3` -> `%C3` (RFC 3986 section 6.2.2.1, RFC 8141 section 3.1). */
  | 'percent-hex-uppercase'
  /** A raw `|` date-loc separator written as `%7C` (digest 11.7). */
  | 'pipe-encoded'
  /** Raw non-ASCII text (an IRI) percent-encoded as UTF-8 (RFC 3987 section 3.1, RFC 9676 section 3). */
  | 'iri-encoded';

export interface NormalizationChange {
  readonly rule: NormalizationRule;
  /** Where the rule first applied in the input. */
  readonly span: Span;
  readonly message: string;
}

/** `normalizeLexUrn`: a `Result<string, UrnDiagnostic>` (the canonical text), with the changes. */
export interface NormalizeOk extends Ok<string> {
  /** The canonical text (also `value`). */
  readonly canonical: string;
  readonly changes: readonly NormalizationChange[];
}

export type NormalizeResult = NormalizeOk | UrnRejection;

/** `splitPartition`: only a literal `~` separates (never `%7E`). */
export interface PartitionSplit {
  readonly document: string;
  readonly partition?: string;
}
