/**
 * The catalogue model (FRBR, RFC 9676 sections 5.2 and 10.2) as the pure
 * matcher sees it, and the store interface it reads through. Every URN and
 * part is canonical (the normaliser's output): nothing is re-normalised.
 */
import type { UrnCode } from '../../urn/core/codes.ts';
import type { Err, Failure, Ok } from '../../kit/core/result.ts';

/** The work-level parts of one name (canonical URN or alias) of a work. */
export interface WorkKey {
  /** `br;sao.paulo` */
  readonly jurisdiction: string;
  /** `federal`, `ministry.justice+ministry.finances` */
  readonly authority: string;
  /** `lei`, `decree.legislative` */
  readonly measure: string;
  /** The ISO dates of the details (local `|` parts dropped), in URN order. Empty when none. */
  readonly dates: readonly string[];
  /** The period when the details carry one instead of dates (`14.legislature`); null otherwise. */
  readonly period: string | null;
  /** The numbers of the details (`10406`, `c-10-97`, `lex-3`). Empty when none. */
  readonly numbers: readonly string[];
  /** Annex identifiers with their specifications, outermost first. */
  readonly annexes: readonly string[];
}

/** The expression-level parts (RFC 9676 section 5.6 and 7.1.2). */
export interface ExpressionKey {
  /** The whole version element (`2008-03-12`, `original`, `1998-02-19;1999-01-01`); null when absent. */
  readonly version: string | null;
  /** The amendment date when the version starts with one. */
  readonly versionDate: string | null;
  /** The language tag; null when absent. */
  readonly language: string | null;
}

/** The manifestation-level parts (RFC 9676 section 5.7). Absent parts are null. */
export interface ManifestationKey {
  readonly editor: string | null;
  readonly format: string | null;
  readonly component: string | null;
  readonly feature: string | null;
}

/** A request as the matcher sees it: the parsed, normalised URN. */
export interface MatchQuery {
  /** The canonical URN without partition, r-, q- or f-components. */
  readonly urn: string;
  /** The canonical work-level URN (`urn:lex:<jurisdiction>:<work>`). */
  readonly workUrn: string;
  readonly work: WorkKey;
  /** Null when the URN has no `@expression`. */
  readonly expression: ExpressionKey | null;
  /** Null when the URN has no `$manifestation`. */
  readonly manifestation: ManifestationKey | null;
  /** The `~partition` id, without the `~`; null when absent. */
  readonly partition: string | null;
  /** The q-component (`?=...`) without the `?=`; null when absent. */
  readonly qComponent: string | null;
}

export interface CatalogueItem {
  readonly url: string;
  /** Lower is preferred (like a NAPTR PREFERENCE). */
  readonly priority: number;
}

export interface CatalogueManifestation {
  readonly urn: string;
  readonly key: ManifestationKey;
  readonly items: readonly CatalogueItem[];
  /**
   * How many `;`-separated partition levels the markup has anchors for (RFC
   * 9676 section 5.8): 0 none (no partition fragment), null unknown (all of it).
   */
  readonly partitionDepth: number | null;
}

export interface CatalogueExpression {
  /** The canonical expression URN (the work URN itself for the unversioned expression). */
  readonly urn: string;
  readonly key: ExpressionKey;
  /** The date from which this version is in force, when the catalogue records one. */
  readonly inForce: string | null;
  readonly manifestations: readonly CatalogueManifestation[];
}

/** One name of a work: its canonical URN, or an alias (RFC 9676 sections 5.5, 6.2.3, 6.2.4). */
export interface CatalogueName {
  readonly urn: string;
  readonly key: WorkKey;
  readonly alias: boolean;
}

export interface CatalogueWork {
  /** Stable identity inside one catalogue (the store's row id). */
  readonly id: number;
  /** The canonical work URN. */
  readonly urn: string;
  readonly title: string | null;
  /** Every name, the canonical one first. */
  readonly names: readonly CatalogueName[];
  readonly expressions: readonly CatalogueExpression[];
}

/** A work as a writer edits it (the catalogue's writer, `worksFromRows`) (the shapes of `CatalogueWork`, mutable). */
export interface MutableManifestation {
  readonly urn: string;
  readonly key: ManifestationKey;
  items: CatalogueItem[];
  partitionDepth: number | null;
}
export interface MutableExpression {
  readonly urn: string;
  readonly key: ExpressionKey;
  inForce: string | null;
  readonly manifestations: MutableManifestation[];
}
export interface MutableWork {
  id: number;
  readonly urn: string;
  title: string | null;
  readonly names: CatalogueName[];
  readonly expressions: MutableExpression[];
}

/** What the matcher asks the store for partial matching. */
export interface CandidateQuery {
  readonly jurisdiction: string;
  readonly authority: string;
  readonly measure: string;
  /** `YYYY` of the query's first date or year-only period; null when the URN has no date. */
  readonly year: string | null;
  /** The query's period when it is not a year (`14.legislature`); null otherwise. */
  readonly period: string | null;
  readonly numbers: readonly string[];
  /** The store returns the names of at most this many works. */
  readonly limit: number;
}

/** A catalogued name offered for partial matching, with the id of its work. */
export interface CandidateName {
  readonly workId: number;
  readonly name: CatalogueName;
}

/** The store interface of the matcher, which stays pure; whole works are loaded only for kept candidates. */
export interface CatalogueReader {
  /** The work one of whose names (canonical or alias) is exactly this canonical work URN. */
  byName(workUrn: string): CatalogueWork | undefined;
  /**
   * Names of at most `limit` works with a name in the jurisdiction sharing a
   * number with the query; without numbers, the year and the same authority
   * or measure; without a year, the same period.
   */
  candidates(query: CandidateQuery): readonly CandidateName[];
  /** The whole work by id (as given in a CandidateName). */
  work(id: number): CatalogueWork | undefined;
}

/** Why a URN cannot be analysed: the URN library's code and message, and where. */
export interface UrnAnalysisError extends Failure<UrnCode> {
  /** Where in the text, 0-based [start, end). */
  readonly span?: { readonly start: number; readonly end: number };
}

/** `analyseLexUrn` succeeded: `value` is the query. */
export type UrnAnalysisOk = Ok<MatchQuery>;

/** `analyseLexUrn` failed: `error` is the failure. */
export type UrnAnalysisErr = Err<UrnAnalysisError>;

/** A URN parsed and normalised for the catalogue, or why it cannot be: a `Result<MatchQuery, UrnAnalysisError>`. */
export type UrnAnalysis = UrnAnalysisOk | UrnAnalysisErr;

/** Parse and normalise a LEX URN into the matcher's shape (see `analyseLexUrn`). */
export type UrnAnalyser = (text: string) => UrnAnalysis;
