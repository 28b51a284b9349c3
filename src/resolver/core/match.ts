/**
 * URN-to-URL matching, RFC 9676 section 10.3, as a pure function over an
 * abstract catalogue reader. The section's steps: partition split off (the
 * caller's parse), normalisation (the query is canonical), exact match
 * (`byName`) else partial matches (`candidates` + `scoreName`), the most
 * recent version (`selectExpression`), `#partition` on URLs (`locate`,
 * `partitionForDepth`).
 */
import type { InvalidRequestCode, NotFoundCode, ReasonCode } from './codes.ts';
import { fail, ok, type Failure, type Result } from '../../kit/core/result.ts';
import type {
  CatalogueExpression,
  CatalogueName,
  CatalogueManifestation,
  CatalogueReader,
  CatalogueWork,
  ManifestationKey,
  MatchQuery,
  WorkKey,
} from './model.ts';
import {
  languageWeight,
  lexFormatToMediaType,
  mediaTypeWeight,
  parsePreferences,
} from './negotiate.ts';

/** Why a candidate scored less than 100 (or how it was found). */
export interface MatchReason {
  /** Stable code, documented in PENALTIES. */
  readonly code: ReasonCode;
  readonly message: string;
  /** Points taken from 100 for this reason. */
  readonly penalty: number;
}

/**
 * Points taken off 100 by the partial match. A candidate's jurisdiction and
 * annexes equal the query's and no number or date contradicts it.
 */
export const PENALTIES = {
  /** The query's numbers are a strict subset or superset of the work's. */
  NUMBERS_PARTIAL: 15,
  /** The query has no number (an incomplete reference). */
  NUMBER_MISSING: 25,
  /** The query gives only the year (`2002` for `2002-01-10`), a "reference" URN. */
  DATE_YEAR_ONLY: 10,
  /** The query gives some, not all, of the work's dates (or extra ones). */
  DATES_PARTIAL: 5,
  /** The query has no date at all. */
  DATE_MISSING: 20,
  /** Same year, different full date, while the numbers agree (a typo in the reference). */
  DATE_DIFFERS: 40,
  /** One authority is a `;`-prefix of the other (RFC 9676 section 6.2.4, second case). */
  AUTHORITY_PARTIAL: 10,
  AUTHORITY_DIFFERS: 30,
  /** Same measure type, different specification (`consolidation;public.contracts` vs `consolidation`). */
  MEASURE_PARTIAL: 10,
  MEASURE_DIFFERS: 30,
  /** A version the catalogue lacks; the version in force at that date was chosen. */
  VERSION_IN_FORCE_AT: 0,
  /** The partition was cut to the levels a manifestation's markup has anchors for (`partitionDepth`). */
  PARTITION_TRIMMED: 0,
  /** A manifestation's markup has no partition anchors (`partitionDepth` 0): its URL points at the document. */
  PARTITION_OMITTED: 0,
} as const;

export interface MatchOptions {
  /** `YYYY-MM-DD`: choose the version in force on that day (overrides `?=at=` in the URN). */
  readonly at?: string | null;
  /** The request's Accept header: ranks manifestations by format. */
  readonly accept?: string | null;
  /** The request's Accept-Language header: ranks expressions by language. */
  readonly acceptLanguage?: string | null;
  /** Candidates below this score are not offered (default 50). */
  readonly minScore?: number;
  /** The best candidate wins only if the second is more than this many points behind (default 10). */
  readonly ambiguityMargin?: number;
  /** At most this many candidates in a list (default 20). */
  readonly maxCandidates?: number;
}

/**
 * What became of the URN's `~partition` on one URL: `none` (no partition),
 * `whole` (the whole partition is the fragment), `trimmed` (its first
 * `partitionDepth` levels), `omitted` (the markup has no anchors: depth 0).
 */
export type PartitionApplied = 'none' | 'whole' | 'trimmed' | 'omitted';

/** One URL the resolver offers, with the manifestation it belongs to. */
export interface Location {
  /** The item URL with `#partition` and any forwarded q-component applied. */
  readonly url: string;
  /** The fragment of `url` (without `#`): the partition as applied, or the catalogued one; null when none. */
  readonly fragment: string | null;
  readonly partitionApplied: PartitionApplied;
  /** The manifestation's partition depth as catalogued; null when unknown. */
  readonly partitionDepth: number | null;
  /** The URL as catalogued. */
  readonly itemUrl: string;
  readonly priority: number;
  /** The canonical manifestation URN. */
  readonly manifestation: string;
  readonly editor: string | null;
  readonly format: string | null;
  /** `application/pdf` for format `application-pdf`; null when the format is absent. */
  readonly mediaType: string | null;
  readonly component: string | null;
  readonly feature: string | null;
  readonly language: string | null;
}

export interface Candidate {
  readonly work: CatalogueWork;
  readonly score: number;
  /** The name (canonical URN or alias) that scored best. */
  readonly matchedName: string;
  readonly reasons: readonly MatchReason[];
}

export interface Found {
  readonly kind: 'found';
  readonly query: MatchQuery;
  readonly work: CatalogueWork;
  readonly expression: CatalogueExpression;
  /** 100 for an exact match on a name. */
  readonly score: number;
  readonly exact: boolean;
  readonly matchedName: string;
  readonly reasons: readonly MatchReason[];
  /** Best first. Never empty. */
  readonly locations: readonly Location[];
}

export interface Ambiguous {
  readonly kind: 'ambiguous';
  readonly query: MatchQuery;
  /** Best first; each with its own best location when it has one. */
  readonly candidates: readonly (Candidate & { readonly best: Location | null })[];
}

export interface NotFound {
  readonly kind: 'not-found';
  readonly query: MatchQuery;
  /** UNKNOWN_URN, NO_LOCATION, VERSION_NOT_FOUND, NOT_IN_FORCE, LANGUAGE_NOT_AVAILABLE, MANIFESTATION_NOT_FOUND */
  readonly code: NotFoundCode;
  readonly message: string;
  /** The work, when the URN matched one but the expression/manifestation parts did not. */
  readonly work: CatalogueWork | null;
}

export interface InvalidRequest {
  readonly kind: 'invalid';
  readonly query: MatchQuery;
  /** INVALID_AT_DATE */
  readonly code: InvalidRequestCode;
  readonly message: string;
}

export type Resolution = Found | Ambiguous | NotFound | InvalidRequest;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const YEAR = /^\d{4}$/;

/** The words RFC 9676 section 7.1.2 uses for "original" "expressed in the language of the act". */
const ORIGINAL_LABELS: ReadonlySet<string> = new Set([
  'original',
  'originale',
  'originel',
  'originaal',
  'originario',
]);

/** True for a version label meaning the original text (or no version at all). */
export function isOriginalVersion(version: string | null): boolean {
  if (version === null) return true;
  return ORIGINAL_LABELS.has(version.split(';')[0] ?? '');
}

/** Resolve a parsed, normalised URN against a catalogue. Pure: the reader is the only input besides the query. */
export function resolveQuery(
  query: MatchQuery,
  reader: CatalogueReader,
  options: MatchOptions = {},
): Resolution {
  const q = splitQComponent(query.qComponent);
  const at = options.at ?? q.at;
  if (at !== null && !isValidIsoDate(at)) {
    return {
      kind: 'invalid',
      query,
      code: 'INVALID_AT_DATE',
      message: `'at' must be a date YYYY-MM-DD, got '${at}'`,
    };
  }
  const opts: ResolveOptions = {
    at,
    accept: options.accept ?? null,
    acceptLanguage: options.acceptLanguage ?? null,
    minScore: options.minScore ?? 50,
    ambiguityMargin: options.ambiguityMargin ?? 10,
    maxCandidates: options.maxCandidates ?? 20,
  };
  const exact = exactCandidate(query, reader);
  const chosen = exact ?? bestCandidate(query, reader, opts);
  if ('kind' in chosen) return chosen;
  const isExact = exact !== undefined;

  const sel = locate(chosen.work, query, opts);
  if (!sel.ok) {
    return {
      kind: 'not-found',
      query,
      code: sel.error.code,
      message: sel.error.message,
      work: chosen.work,
    };
  }
  return {
    kind: 'found',
    query,
    work: chosen.work,
    expression: sel.value.expression,
    score: Math.max(0, chosen.score - sumPenalties(sel.value.reasons)),
    exact: isExact,
    matchedName: chosen.matchedName,
    reasons: [...chosen.reasons, ...sel.value.reasons],
    locations: sel.value.locations,
  };
}

type ResolveOptions = Required<Omit<MatchOptions, 'at'>> & { at: string | null };

/** The work the query's URN names exactly (canonical or alias: an alias says so), at 100. */
function exactCandidate(query: MatchQuery, reader: CatalogueReader): Candidate | undefined {
  const exact = reader.byName(query.workUrn);
  if (!exact) return undefined;
  const alias = exact.urn !== query.workUrn;
  return {
    work: exact,
    score: 100,
    matchedName: query.workUrn,
    reasons: alias
      ? [
          {
            code: 'ALIAS',
            message: `${query.workUrn} is an alias of ${exact.urn}`,
            penalty: 0,
          },
        ]
      : [],
  };
}

/** The best partial match; else not found, or ambiguous when the second is within the margin. */
function bestCandidate(
  query: MatchQuery,
  reader: CatalogueReader,
  opts: ResolveOptions,
): Candidate | Resolution {
  const ranked = rankCandidates(query, reader, opts.minScore, opts.maxCandidates);
  const [best, second] = ranked;
  if (!best) {
    return {
      kind: 'not-found',
      query,
      code: 'UNKNOWN_URN',
      message: `no catalogued work matches ${query.workUrn}`,
      work: null,
    };
  }
  if (second && best.score - second.score < opts.ambiguityMargin) {
    return {
      kind: 'ambiguous',
      query,
      candidates: ranked.map((c) => {
        const sel = locate(c.work, query, opts);
        return { ...c, best: sel.ok ? (sel.value.locations[0] ?? null) : null };
      }),
    };
  }
  return best;
}

function sumPenalties(reasons: readonly MatchReason[]): number {
  return reasons.reduce((s, r) => s + r.penalty, 0);
}

/** Candidates for a partial match, best first, each work once (its best-scoring name). */
export function rankCandidates(
  query: MatchQuery,
  reader: CatalogueReader,
  minScore: number,
  maxCandidates: number,
): Candidate[] {
  const w = query.work;
  const year = firstYear(w);
  const names = reader.candidates({
    jurisdiction: w.jurisdiction,
    authority: w.authority,
    measure: w.measure,
    year,
    period: year === null ? w.period : null,
    numbers: w.numbers,
    limit: Math.max(maxCandidates * 5, 50),
  });
  // Score the names; keep each work's best name.
  const best = new Map<number, { score: number; name: CatalogueName; reasons: MatchReason[] }>();
  for (const { workId, name } of names) {
    const s = scoreName(w, name.key);
    if (!s) continue;
    const score = 100 - sumPenalties(s.reasons);
    const prev = best.get(workId);
    if (!prev || score > prev.score) best.set(workId, { score, name, reasons: s.reasons });
  }
  const kept = [...best]
    .filter(([, b]) => b.score >= minScore)
    .sort(
      ([ia, a], [ib, b]) =>
        b.score - a.score || (a.name.urn < b.name.urn ? -1 : a.name.urn > b.name.urn ? 1 : ia - ib),
    )
    .slice(0, maxCandidates);
  // Load whole works only for the candidates kept.
  const out: Candidate[] = [];
  for (const [workId, b] of kept) {
    const work = reader.work(workId);
    if (!work) continue;
    const reasons: readonly MatchReason[] = b.name.alias
      ? [
          ...b.reasons,
          { code: 'ALIAS', message: `matched the alias ${b.name.urn} of ${work.urn}`, penalty: 0 },
        ]
      : b.reasons;
    out.push({ work, score: b.score, matchedName: b.name.urn, reasons });
  }
  out.sort((a, b) => b.score - a.score || (a.work.urn < b.work.urn ? -1 : 1));
  return out;
}

function firstYear(w: WorkKey): string | null {
  const d = w.dates[0];
  if (d !== undefined) return d.slice(0, 4);
  if (w.period !== null && YEAR.test(w.period)) return w.period;
  return null;
}

/** Score a catalogued name against the query: null when a part contradicts it, else the reasons for the penalties. */
export function scoreName(q: WorkKey, c: WorkKey): { reasons: MatchReason[] } | null {
  if (q.jurisdiction !== c.jurisdiction) return null;
  if (!sameList(q.annexes, c.annexes)) return null;
  const reasons: MatchReason[] = [];

  const numbersAgree = scoreNumbers(q, c, reasons);
  if (numbersAgree === null || !scoreDates(q, c, numbersAgree, reasons)) return null;
  scoreQualified(q, c, reasons);
  return { reasons };
}

/** The numbers' part of scoreName: null when they contradict the name, else whether they agree exactly. */
function scoreNumbers(q: WorkKey, c: WorkKey, reasons: MatchReason[]): boolean | null {
  // Numbers (RFC 9676 section 6.3.4: several numbers for one document).
  let numbersAgree = false;
  if (q.numbers.length === 0) {
    reasons.push(reason('NUMBER_MISSING', 'the URN gives no number'));
  } else if (sameSet(q.numbers, c.numbers)) {
    numbersAgree = true;
  } else if (q.numbers.some((n) => c.numbers.includes(n))) {
    reasons.push(
      reason(
        'NUMBERS_PARTIAL',
        `numbers ${q.numbers.join(',')} only partly match ${c.numbers.join(',')}`,
      ),
    );
  } else {
    return null;
  }
  return numbersAgree;
}

/** The dates' or period's part of scoreName: false when they contradict the name. */
function scoreDates(
  q: WorkKey,
  c: WorkKey,
  numbersAgree: boolean,
  reasons: MatchReason[],
): boolean {
  // Dates or period (RFC 9676 sections 6.3.1 and 6.3.2).
  if (q.dates.length > 0) {
    if (sameList(q.dates, c.dates)) {
      // equal
    } else if (q.dates.some((d) => c.dates.includes(d))) {
      reasons.push(
        reason(
          'DATES_PARTIAL',
          `dates ${q.dates.join(',')} only partly match ${c.dates.join(',')}`,
        ),
      );
    } else if (numbersAgree && c.dates.some((d) => d.slice(0, 4) === q.dates[0]?.slice(0, 4))) {
      reasons.push(
        reason('DATE_DIFFERS', `date ${q.dates.join(',')} differs from ${c.dates.join(',')}`),
      );
    } else {
      return false;
    }
  } else if (q.period !== null) {
    if (q.period === c.period) {
      // equal
    } else if (YEAR.test(q.period)) {
      const cYear =
        c.dates[0]?.slice(0, 4) ?? (c.period !== null && YEAR.test(c.period) ? c.period : null);
      if (cYear !== q.period) return false;
      if (c.dates.length > 0) {
        reasons.push(
          reason(
            'DATE_YEAR_ONLY',
            `the URN gives only the year ${q.period} of ${c.dates.join(',')}`,
          ),
        );
      }
    } else {
      return false;
    }
  } else {
    reasons.push(reason('DATE_MISSING', 'the URN gives no date'));
  }
  return true;
}

/** The authority's and measure's part of scoreName: reasons for a partial or different one. */
function scoreQualified(q: WorkKey, c: WorkKey, reasons: MatchReason[]): void {
  for (const part of ['authority', 'measure'] as const) {
    const how = compareQualified(q[part], c[part]);
    if (how === 'equal') continue;
    // The codes spelt out: each stable code appears literally where it is reported.
    const [partial, differs] =
      part === 'authority'
        ? (['AUTHORITY_PARTIAL', 'AUTHORITY_DIFFERS'] as const)
        : (['MEASURE_PARTIAL', 'MEASURE_DIFFERS'] as const);
    reasons.push(
      how === 'partial'
        ? reason(partial, `${part} ${q[part]} only partly matches ${c[part]}`)
        : reason(differs, `${part} ${q[part]} differs from ${c[part]}`),
    );
  }
}

function reason(code: keyof typeof PENALTIES, message: string): MatchReason {
  return { code, message, penalty: PENALTIES[code] };
}

/** Compare `a;b;c`-qualified elements: equal, one a `;`-prefix of the other, or different. */
function compareQualified(q: string, c: string): 'equal' | 'partial' | 'differs' {
  if (q === c) return 'equal';
  if (q === '' || c === '') return 'differs';
  if (c.startsWith(`${q};`) || q.startsWith(`${c};`)) return 'partial';
  return 'differs';
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

/** The expression and locations chosen for a work, or why there are none. */
type Selection = Result<
  { expression: CatalogueExpression; locations: Location[]; reasons: MatchReason[] },
  Failure<NotFoundCode>
>;

interface SelectOptions {
  readonly at: string | null;
  readonly accept: string | null;
  readonly acceptLanguage: string | null;
}

/**
 * Choose the expression and manifestations of a work for the query, and build the URLs.
 * A manifestation named without a version is looked for under the unversioned
 * expression first (unless `at` is given), then among the expressions that
 * have it (an older version's must still be found); none: among all.
 */
export function locate(work: CatalogueWork, query: MatchQuery, opts: SelectOptions): Selection {
  const ex = selectExpressionFor(work, query, opts);
  if (!ex.ok) return ex;
  const mans = selectManifestations(ex.value.expression, query.manifestation, opts.accept);
  if (!mans.ok) return mans;
  const forward = splitQComponent(query.qComponent).rest;
  const ranked: { location: Location; weight: number }[] = [];
  for (const { manifestation: m, weight } of mans.value.manifestations) {
    const p = partitionForDepth(query.partition, m.partitionDepth);
    for (const item of m.items) {
      const url = decorateUrl(item.url, p.partition, forward);
      const hash = url.indexOf('#');
      ranked.push({
        weight,
        location: {
          url,
          fragment: hash < 0 ? null : url.slice(hash + 1),
          partitionApplied: p.applied,
          partitionDepth: m.partitionDepth,
          itemUrl: item.url,
          priority: item.priority,
          manifestation: m.urn,
          editor: m.key.editor,
          format: m.key.format,
          mediaType: m.key.format === null ? null : lexFormatToMediaType(m.key.format),
          component: m.key.component,
          feature: m.key.feature,
          language: ex.value.expression.key.language,
        },
      });
    }
  }
  // Best Accept match first, then lower priority; catalogue order breaks ties (stable sort).
  ranked.sort((a, b) => b.weight - a.weight || a.location.priority - b.location.priority);
  const locations = ranked.map((r) => r.location);
  if (locations.length === 0) {
    return fail('NO_LOCATION', `${ex.value.expression.urn} is catalogued but has no location`);
  }
  return ok({
    expression: ex.value.expression,
    locations,
    reasons:
      query.partition === null
        ? ex.value.reasons
        : [...ex.value.reasons, ...partitionReasons(query, locations)],
  });
}

function selectExpressionFor(
  work: CatalogueWork,
  query: MatchQuery,
  opts: SelectOptions,
): ReturnType<typeof selectExpression> {
  const wanted = query.manifestation;
  if (wanted !== null && !query.expression?.version) {
    // Exact match first (RFC 9676 section 10.3): the expression under which
    // this very manifestation is catalogued (the unversioned one here).
    const exact = work.expressions.filter(
      (e) =>
        e.key.version === null &&
        e.key.language === (query.expression?.language ?? null) &&
        e.manifestations.some((m) => m.items.length > 0 && sameManifestation(wanted, m.key)),
    );
    if (opts.at === null && exact.length > 0 && exact.length < work.expressions.length) {
      const narrowed = selectExpression({ ...work, expressions: exact }, query, opts);
      if (narrowed.ok) return narrowed;
    }
    const having = work.expressions.filter((e) =>
      e.manifestations.some((m) => m.items.length > 0 && manifestationMatches(wanted, m.key)),
    );
    if (having.length > 0 && having.length < work.expressions.length) {
      const narrowed = selectExpression({ ...work, expressions: having }, query, opts);
      if (narrowed.ok) return narrowed;
    }
  }
  return selectExpression(work, query, opts);
}

/** One reason per manifestation whose URLs got less than the whole partition, best location first. */
function partitionReasons(query: MatchQuery, locations: readonly Location[]): MatchReason[] {
  const out: MatchReason[] = [];
  const seen = new Set<string>();
  for (const l of locations) {
    if (l.partitionApplied !== 'trimmed' && l.partitionApplied !== 'omitted') continue;
    if (seen.has(l.manifestation)) continue;
    seen.add(l.manifestation);
    const depth = l.partitionDepth ?? 0;
    out.push(
      l.partitionApplied === 'trimmed'
        ? {
            code: 'PARTITION_TRIMMED',
            message: `partition ${query.partition ?? ''} trimmed to ${l.fragment ?? ''} for ${l.manifestation}: its markup has anchors for ${depth} level${depth === 1 ? '' : 's'}`,
            penalty: PENALTIES.PARTITION_TRIMMED,
          }
        : {
            code: 'PARTITION_OMITTED',
            message: `partition ${query.partition ?? ''} not applied to ${l.manifestation}: its markup has no partition anchors, so the URL points at the beginning of the document`,
            penalty: PENALTIES.PARTITION_OMITTED,
          },
    );
  }
  return out;
}

/** The date from which an expression applies, for "most recent" and "in force at". */
export function effectiveDate(work: CatalogueWork, e: CatalogueExpression): string | null {
  if (e.inForce !== null) return e.inForce;
  if (e.key.versionDate !== null) return e.key.versionDate;
  if (isOriginalVersion(e.key.version)) return work.names[0]?.key.dates[0] ?? null;
  return null;
}

/**
 * The most recent version (RFC 9676 section 10.3), or the `@version` given,
 * or the one in force on `at`; then the language (URN, else Accept-Language).
 */
export function selectExpression(
  work: CatalogueWork,
  query: MatchQuery,
  opts: SelectOptions,
): Result<{ expression: CatalogueExpression; reasons: MatchReason[] }, Failure<NotFoundCode>> {
  const reasons: MatchReason[] = [];
  const withItems = work.expressions.filter((e) =>
    e.manifestations.some((m) => m.items.length > 0),
  );
  let pool: readonly CatalogueExpression[] = withItems.length > 0 ? withItems : work.expressions;
  if (pool.length === 0) {
    return fail('NO_LOCATION', `${work.urn} is catalogued but has no location`);
  }
  const qx = query.expression;

  if (qx?.language) {
    const narrowed = narrowToLanguage(work, pool, qx.language, reasons);
    if (!narrowed.ok) return narrowed;
    pool = narrowed.value;
  }
  const versioned = chooseVersion(work, pool, qx, opts, reasons);
  if (!versioned.ok) return versioned;
  pool = versioned.value.pool;
  const chosen = versioned.value.chosen ?? latest(work, pool);
  if (!chosen) {
    return fail('NO_LOCATION', `${work.urn} has no expression`);
  }

  // Among the expressions of the chosen version, pick the language.
  const version = chosen.key.version;
  const group = pool.filter((e) => e.key.version === version);
  if (qx?.language || group.length < 2) return ok({ expression: chosen, reasons });
  return ok({ expression: pickLanguage(group, opts.acceptLanguage), reasons });
}

/** The pool narrowed to the URN's language, else to those with no language (with a reason), else an error. */
function narrowToLanguage(
  work: CatalogueWork,
  pool: readonly CatalogueExpression[],
  lang: string,
  reasons: MatchReason[],
): Result<readonly CatalogueExpression[], Failure<NotFoundCode>> {
  const same = pool.filter(
    (e) =>
      e.key.language !== null &&
      languageWeight([{ value: lang, q: 1, index: 0 }], e.key.language, 0) > 0,
  );
  if (same.length > 0) return ok(same);
  const unrecorded = pool.filter((e) => e.key.language === null);
  if (unrecorded.length === 0) {
    const available = [...new Set(pool.map((e) => e.key.language ?? ''))].join(', ');
    return fail(
      'LANGUAGE_NOT_AVAILABLE',
      `${work.urn} has no expression in language '${lang}' (available: ${available})`,
    );
  }
  reasons.push({
    code: 'LANGUAGE_UNRECORDED',
    message: `no expression is tagged '${lang}'; the expression with no recorded language was chosen`,
    penalty: 0,
  });
  return ok(unrecorded);
}

/**
 * The version: `@version` narrows the pool (failing that, the version of its
 * date or in force on it, with a reason); `at`: in force that day.
 * `chosen` is undefined when the pool decides alone.
 */
function chooseVersion(
  work: CatalogueWork,
  pool: readonly CatalogueExpression[],
  qx: MatchQuery['expression'],
  opts: SelectOptions,
  reasons: MatchReason[],
): Result<
  { pool: readonly CatalogueExpression[]; chosen: CatalogueExpression | undefined },
  Failure<NotFoundCode>
> {
  let chosen: CatalogueExpression | undefined;
  if (qx?.version) {
    const version = qx.version;
    const exact = pool.filter((e) => e.key.version === version);
    if (exact.length > 0) {
      pool = exact;
    } else if (isOriginalVersion(version)) {
      const originals = pool.filter((e) => isOriginalVersion(e.key.version));
      if (originals.length === 0) {
        return fail('VERSION_NOT_FOUND', `${work.urn} has no original version catalogued`);
      }
      pool = originals;
    } else if (qx.versionDate !== null) {
      const sameDate = pool.filter((e) => e.key.versionDate === qx.versionDate);
      if (sameDate.length > 0) {
        pool = sameDate;
        reasons.push({
          code: 'VERSION_EVENTS_DIFFER',
          message: `no version '${version}'; the version of ${qx.versionDate} was chosen`,
          penalty: 0,
        });
      } else {
        chosen = latest(work, pool, qx.versionDate);
        if (!chosen) {
          return fail(
            'VERSION_NOT_FOUND',
            `${work.urn} has no version '${version}' nor one in force on ${qx.versionDate}`,
          );
        }
        reasons.push({
          code: 'VERSION_IN_FORCE_AT',
          message: `no version '${version}' is catalogued; the version in force on ${qx.versionDate} (${chosen.key.version ?? 'original'}) was chosen`,
          penalty: PENALTIES.VERSION_IN_FORCE_AT,
        });
      }
    } else {
      return fail('VERSION_NOT_FOUND', `${work.urn} has no version '${version}'`);
    }
  } else if (opts.at !== null) {
    chosen = latest(work, pool, opts.at);
    if (!chosen) {
      return fail('NOT_IN_FORCE', `no version of ${work.urn} is in force on ${opts.at}`);
    }
  }
  return ok({ pool, chosen });
}

/** Among the expressions of the chosen version, the one in the language preferred. */
function pickLanguage(
  group: readonly CatalogueExpression[],
  acceptLanguage: string | null,
): CatalogueExpression {
  const prefs = parsePreferences(acceptLanguage);
  let best = group[0] as CatalogueExpression;
  let bestW = -1;
  for (const e of group) {
    // Without Accept-Language, the expression with no language (the sole official one) comes first.
    const w =
      e.key.language === null
        ? prefs.length === 0
          ? 1
          : 0.001
        : languageWeight(prefs, e.key.language, 0.5);
    if (w > bestW) {
      best = e;
      bestW = w;
    }
  }
  return best;
}

/** The expression with the latest effective date (on or before `date` when given; without a date, one without an effective date may do). */
function latest(
  work: CatalogueWork,
  pool: readonly CatalogueExpression[],
  date?: string,
): CatalogueExpression | undefined {
  let best: CatalogueExpression | undefined;
  let bestDate = '';
  for (const e of pool) {
    const effective = effectiveDate(work, e);
    if (date !== undefined && (effective === null || effective > date)) continue;
    const d = effective ?? '';
    if (!best || d > bestDate) {
      best = e;
      bestDate = d;
    }
  }
  return best;
}

/**
 * Parts given in the URN filter the manifestations (RFC 9676 section 10.3);
 * Accept gives each a weight (1 for all without an Accept header).
 */
export function selectManifestations(
  expression: CatalogueExpression,
  wanted: ManifestationKey | null,
  accept: string | null,
): Result<
  { manifestations: { manifestation: CatalogueManifestation; weight: number }[] },
  Failure<NotFoundCode>
> {
  let mans = expression.manifestations.filter((m) => m.items.length > 0);
  if (wanted) {
    mans = mans.filter((m) => manifestationMatches(wanted, m.key));
    if (mans.length === 0) {
      const available = expression.manifestations.map((m) => m.urn).join(', ') || 'none';
      return fail(
        'MANIFESTATION_NOT_FOUND',
        `${expression.urn} has no such manifestation (available: ${available})`,
      );
    }
  }
  const prefs = parsePreferences(accept);
  const weight = (m: CatalogueManifestation): number => {
    if (prefs.length === 0) return 1;
    const type = m.key.format === null ? null : lexFormatToMediaType(m.key.format);
    return type === null
      ? mediaTypeWeight(prefs, 'application/octet-stream') / 2
      : mediaTypeWeight(prefs, type);
  };
  return ok({ manifestations: mans.map((m) => ({ manifestation: m, weight: weight(m) })) });
}

/** Every part the URN gives matches the catalogued manifestation's (see `partMatches`). */
function manifestationMatches(wanted: ManifestationKey, have: ManifestationKey): boolean {
  return (
    partMatches(wanted.editor, have.editor) &&
    partMatches(wanted.format, have.format) &&
    partMatches(wanted.component, have.component) &&
    partMatches(wanted.feature, have.feature)
  );
}

export function sameManifestation(a: ManifestationKey, b: ManifestationKey): boolean {
  return (
    a.editor === b.editor &&
    a.format === b.format &&
    a.component === b.component &&
    a.feature === b.feature
  );
}

/** A URN part matches a catalogued one when equal, or equal to its main element before `;` specifications. */
function partMatches(wanted: string | null, have: string | null): boolean {
  if (wanted === null) return true;
  if (have === null) return false;
  return wanted === have || have.startsWith(`${wanted};`);
}

/** Split `at=YYYY-MM-DD` (a resolver directive) from the other q-component parameters. */
export function splitQComponent(q: string | null): { at: string | null; rest: string | null } {
  if (q === null || q === '') return { at: null, rest: null };
  let at: string | null = null;
  const rest: string[] = [];
  for (const p of q.split('&')) {
    if (p.startsWith('at=')) at = p.slice(3);
    else if (p !== '') rest.push(p);
  }
  return { at, rest: rest.length > 0 ? rest.join('&') : null };
}

/**
 * The part of a partition ID that a manifestation's markup has anchors for
 * (RFC 9676 section 5.8: sub-partitions not addressed may be dropped).
 * Levels are separated by a literal `;` only, as in the RFC's examples;
 * other spellings (`art15-par3`, `%3B`) are one level. Depth null: `whole`;
 * 0: `omitted`; else the first `depth` levels (`trimmed`, or `whole`), empty
 * trailing levels dropped (`art15;;par3` at 2 is `art15`; nothing left: `omitted`).
 */
export function partitionForDepth(
  partition: string | null,
  depth: number | null,
): { readonly partition: string | null; readonly applied: PartitionApplied } {
  if (partition === null || partition === '') return { partition: null, applied: 'none' };
  if (depth === null) return { partition, applied: 'whole' };
  if (depth <= 0) return { partition: null, applied: 'omitted' };
  // The end of the first `depth` levels: the depth-th ';' (or the end).
  let end = -1;
  for (let level = 0; level < depth; level++) {
    end = partition.indexOf(';', end + 1);
    if (end < 0) return { partition, applied: 'whole' };
  }
  let cut = end;
  while (cut > 0 && partition.charCodeAt(cut - 1) === 0x3b) cut--;
  if (cut === 0) return { partition: null, applied: 'omitted' };
  return { partition: partition.slice(0, cut), applied: 'trimmed' };
}

/**
 * Apply the partition (RFC 9676 section 5.8: `#` + partition ID, replacing a
 * catalogued fragment, which stays without one) and the forwarded
 * q-component (RFC 8141 section 2.3.2: into the URL's query) to an item URL.
 */
export function decorateUrl(url: string, partition: string | null, forward: string | null): string {
  const hash = url.indexOf('#');
  let base = hash >= 0 ? url.slice(0, hash) : url;
  const fragment = hash >= 0 ? url.slice(hash + 1) : null;
  if (forward !== null) base += (base.includes('?') ? '&' : '?') + forward;
  if (partition !== null && partition !== '') return `${base}#${partition}`;
  return fragment === null ? base : `${base}#${fragment}`;
}

/** True for a real calendar date `YYYY-MM-DD`. */
export function isValidIsoDate(s: string): boolean {
  if (!ISO_DATE.test(s)) return false;
  const y = Number(s.slice(0, 4));
  const m = Number(s.slice(5, 7));
  const d = Number(s.slice(8, 10));
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] ?? 0;
  return d <= days;
}
