/**
 * Validation of one catalogue import row (JSON Lines or CSV), pure.
 *
 * A row names one URN at any FRBR level and optionally one item of it:
 *
 * | field      | JSONL                | CSV column | meaning |
 * | ---        | ---                  | ---        | --- |
 * | `urn`      | string, required     | `urn`      | a LEX URN: work, `@expression` or `$manifestation` level; no `~partition`, no `?`/`#` components |
 * | `url`      | string               | `url`      | an `http:`/`https:` URL of an item of that manifestation (of the expression's generic manifestation when the URN has no `$`) |
 * | `priority` | integer 0-65535      | `priority` | item order, lower first (default 10) |
 * | `inForce`  | `YYYY-MM-DD`         | `in_force` | the date this version comes into force (for "most recent" and `?=at=`) |
 * | `partitionDepth` | integer 0-32   | `partition_depth` | how many `;`-separated levels of partition IDs this manifestation's markup has anchors for (RFC 9676 section 5.8): `~art15;par3` becomes `#art15` at depth 1, no partition fragment at depth 0 (a `#fragment` catalogued in the URL stays: the URL as catalogued is "the beginning"); absent: unknown, the whole partition is appended. Only on a `$manifestation` URN |
 * | `title`    | string               | `title`    | the work's title |
 * | `aliases`  | array of URNs, or one string of URNs separated by spaces | `aliases` (space-separated) | other work-level names of the same work (RFC 9676 sections 5.5, 6.2.3, 6.2.4) |
 *
 * JSONL also accepts `in_force` and `partition_depth`. Unknown fields are
 * errors. A later row's `inForce` or `partitionDepth` replaces an earlier
 * one; a row without it leaves it as it was.
 */
import type { ExpressionKey, ManifestationKey, MatchQuery, UrnAnalyser, WorkKey } from './model.ts';
import { isValidIsoDate } from './match.ts';
import type { RowErrorCode } from './codes.ts';
import type { Err, Ok } from '../../kit/core/result.ts';

export interface RowWork {
  readonly urn: string;
  readonly key: WorkKey;
}

export interface CatalogueRow {
  readonly work: RowWork;
  /** Null for a work-level URN. */
  readonly expression: ExpressionKey | null;
  /** Null when the URN has no `$manifestation`. */
  readonly manifestation: ManifestationKey | null;
  readonly item: { readonly url: string; readonly priority: number } | null;
  readonly inForce: string | null;
  /** The manifestation's partition depth; null when the row does not give one. */
  readonly partitionDepth: number | null;
  readonly title: string | null;
  readonly aliases: readonly RowWork[];
}

/**
 * A refused row. `C` is wider at the catalogue edge, whose writer adds its
 * own codes (ALIAS_CONFLICT).
 */
export interface RowError<C extends string = RowErrorCode> {
  /** Stable code: `ROW_*`, or the URN library's code for a bad URN. */
  readonly code: C;
  readonly message: string;
  /** The field (JSONL key / CSV column) at fault. */
  readonly field?: string;
  /** 0-based offset inside the field's value, when the URN library gives one. */
  readonly offset?: number;
}

export const ROW_FIELDS = [
  'urn',
  'url',
  'priority',
  'inForce',
  'partitionDepth',
  'title',
  'aliases',
] as const;

/** JSONL spellings accepted for a field besides its own name. */
const FIELD_SYNONYMS: Readonly<Record<string, string>> = {
  in_force: 'inForce',
  partition_depth: 'partitionDepth',
};

export const DEFAULT_PRIORITY = 10;
/** The deepest partition hierarchy a manifestation may declare (`art1;par2;let3;...`). */
export const MAX_PARTITION_DEPTH = 32;
const MAX_TITLE = 2000;
const MAX_URL = 4000;
const MAX_ALIASES = 100;
/** The longest URN a row may name: request-targets are at most 8,192 characters (`/` + the URN). */
export const MAX_URN_LENGTH = 8191;

/** `http(s)://` + a non-empty authority; no whitespace, controls, `<>"` or backslash anywhere. */
const HTTP_URL = /^https?:\/\/[^/?#\s<>"\\]+[^\s<>"\\]*$/i;

/**
 * The one check of an item URL, on import and when served (`decodeWork`): an
 * absolute `http:`/`https:` URL with an authority, at most 4,000 characters,
 * no whitespace, controls, `<>"` or backslash.
 */
export function isServableUrl(url: unknown): url is string {
  return typeof url === 'string' && url.length <= MAX_URL && HTTP_URL.test(url);
}

/** `validateRow` accepted the row: `value` is the row. */
export type RowOk = Ok<CatalogueRow>;

/** A `Result<CatalogueRow, RowError>`. */
export type RowResult = RowOk | Err<RowError>;

type Failed = Err<RowError>;

function fail(code: RowErrorCode, message: string, field?: string, offset?: number): Failed {
  return { ok: false, error: { code, message, field, offset } };
}

const failed = (v: unknown): v is Failed =>
  typeof v === 'object' && v !== null && (v as { ok?: unknown }).ok === false;
const given = (v: unknown): boolean => v !== undefined && v !== null;

/**
 * Validate a row given as a plain object (a parsed JSON line, or a CSV
 * record keyed by header). Empty strings count as absent.
 */
export function validateRow(
  fields: Readonly<Record<string, unknown>>,
  analyse: UrnAnalyser,
): RowResult {
  const values = rowValues(fields);
  if (failed(values)) return values;
  const q = rowUrn(values.urn, analyse);
  if (failed(q)) return q;
  const item = rowItem(values);
  if (failed(item)) return item;
  const inForce = rowInForce(values.inForce, q);
  if (failed(inForce)) return inForce;
  const partitionDepth = rowPartitionDepth(values.partitionDepth, q);
  if (failed(partitionDepth)) return partitionDepth;
  const title = rowTitle(values.title);
  if (failed(title)) return title;
  const aliases = rowAliases(values.aliases, q, analyse);
  if (failed(aliases)) return aliases;
  return rowAccepted({
    work: { urn: q.workUrn, key: q.work },
    expression: q.expression,
    manifestation: q.manifestation,
    item,
    inForce,
    partitionDepth,
    title,
    aliases,
  });
}

/** The fields by their canonical names (synonyms mapped), empty strings as absent. */
function rowValues(fields: Readonly<Record<string, unknown>>): Record<string, unknown> | Failed {
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) {
    return fail('ROW_NOT_OBJECT', 'a JSON Lines row must be a JSON object');
  }
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    const name = FIELD_SYNONYMS[k] ?? k;
    if (!(ROW_FIELDS as readonly string[]).includes(name)) {
      return fail(
        'ROW_UNKNOWN_FIELD',
        `unknown field '${k}' (fields: ${ROW_FIELDS.join(', ')})`,
        k,
      );
    }
    values[name] = v === '' ? undefined : v;
  }
  return values;
}

/** The row's URN analysed: a document (no partition, no component). */
function rowUrn(urnText: unknown, analyse: UrnAnalyser): MatchQuery | Failed {
  if (urnText === undefined || urnText === null)
    return fail('ROW_MISSING_URN', "the row has no 'urn'", 'urn');
  if (typeof urnText !== 'string') return fail('ROW_BAD_URN', "'urn' must be a string", 'urn');
  if (urnText.length > MAX_URN_LENGTH) {
    return fail(
      'ROW_URN_TOO_LONG',
      `the URN has ${urnText.length} characters; the resolver serves URNs of at most ${MAX_URN_LENGTH}`,
      'urn',
      MAX_URN_LENGTH,
    );
  }
  const a = analyse(urnText);
  if (!a.ok) return fail(a.error.code, a.error.message, 'urn', a.error.span?.start);
  const q = a.value;
  if (q.partition !== null) {
    return fail(
      'ROW_PARTITION',
      'a catalogue URN names a document, not a partition: remove the "~..." part',
      'urn',
    );
  }
  if (q.qComponent !== null || q.urn.length === 0) {
    return fail('ROW_COMPONENT', 'a catalogue URN has no ?+, ?= or # component', 'urn');
  }
  return q;
}

/** `url` and `priority`: the row's item, or null. */
function rowItem(values: Record<string, unknown>): CatalogueRow['item'] | Failed {
  if (!given(values.url)) {
    if (!given(values.priority)) return null;
    return fail(
      'ROW_PRIORITY_WITHOUT_URL',
      "'priority' applies to an item: the row has no 'url'",
      'priority',
    );
  }
  const url = values.url;
  if (!isServableUrl(url)) {
    return fail(
      'ROW_BAD_URL',
      "'url' must be an absolute http: or https: URL without spaces",
      'url',
    );
  }
  if (!given(values.priority)) return { url, priority: DEFAULT_PRIORITY };
  const p = typeof values.priority === 'string' ? Number(values.priority) : values.priority;
  if (typeof p !== 'number' || !Number.isInteger(p) || p < 0 || p > 65535) {
    return fail('ROW_BAD_PRIORITY', "'priority' must be an integer from 0 to 65535", 'priority');
  }
  return { url, priority: p };
}

function rowInForce(v: unknown, q: MatchQuery): string | null | Failed {
  if (!given(v)) return null;
  if (typeof v !== 'string' || !isValidIsoDate(v)) {
    return fail('ROW_BAD_IN_FORCE', "'inForce' must be a date YYYY-MM-DD", 'inForce');
  }
  if (q.expression === null) {
    return fail(
      'ROW_IN_FORCE_WITHOUT_VERSION',
      "'inForce' belongs to a version: the URN has no '@' expression",
      'inForce',
    );
  }
  return v;
}

function rowPartitionDepth(raw: unknown, q: MatchQuery): number | null | Failed {
  if (!given(raw)) return null;
  // CSV gives text: decimal digits only (no sign, exponent or hex).
  const d = typeof raw === 'string' ? (/^[0-9]{1,3}$/.test(raw) ? Number(raw) : NaN) : raw;
  if (typeof d !== 'number' || !Number.isInteger(d) || d < 0 || d > MAX_PARTITION_DEPTH) {
    return fail(
      'ROW_BAD_PARTITION_DEPTH',
      `'partitionDepth' must be an integer from 0 to ${MAX_PARTITION_DEPTH}`,
      'partitionDepth',
    );
  }
  if (q.manifestation === null) {
    return fail(
      'ROW_PARTITION_DEPTH_WITHOUT_MANIFESTATION',
      "'partitionDepth' belongs to a manifestation: the URN has no '$' manifestation",
      'partitionDepth',
    );
  }
  return d;
}

function rowTitle(v: unknown): string | null | Failed {
  if (!given(v)) return null;
  if (typeof v !== 'string' || v.length > MAX_TITLE || /[\u0000-\u001f]/.test(v)) {
    return fail(
      'ROW_BAD_TITLE',
      `'title' must be a string of at most ${MAX_TITLE} characters without control characters`,
      'title',
    );
  }
  return v;
}

/** `aliases`: work-level URNs other than the row's own work, each once. */
function rowAliases(v: unknown, q: MatchQuery, analyse: UrnAnalyser): RowWork[] | Failed {
  const aliases: RowWork[] = [];
  if (!given(v)) return aliases;
  let list: unknown[];
  if (typeof v === 'string') list = v.split(/\s+/).filter((s) => s !== '');
  else if (Array.isArray(v)) list = v;
  else
    return fail(
      'ROW_BAD_ALIAS',
      "'aliases' must be an array of URNs or a space-separated string",
      'aliases',
    );
  if (list.length > MAX_ALIASES)
    return fail('ROW_BAD_ALIAS', `at most ${MAX_ALIASES} aliases per row`, 'aliases');
  for (const entry of list) {
    const aq = aliasWork(entry, analyse);
    if (failed(aq)) return aq;
    if (aq.workUrn !== q.workUrn && !aliases.some((x) => x.urn === aq.workUrn)) {
      aliases.push({ urn: aq.workUrn, key: aq.work });
    }
  }
  return aliases;
}

function aliasWork(entry: unknown, analyse: UrnAnalyser): MatchQuery | Failed {
  if (typeof entry !== 'string')
    return fail('ROW_BAD_ALIAS', 'each alias must be a string', 'aliases');
  if (entry.length > MAX_URN_LENGTH) {
    return fail(
      'ROW_URN_TOO_LONG',
      `an alias has ${entry.length} characters; the resolver serves URNs of at most ${MAX_URN_LENGTH}`,
      'aliases',
    );
  }
  const al = analyse(entry);
  if (!al.ok) {
    const e = al.error;
    return fail(e.code, `alias ${entry}: ${e.message}`, 'aliases', e.span?.start);
  }
  const aq = al.value;
  if (aq.urn !== aq.workUrn || aq.partition !== null || aq.qComponent !== null) {
    return fail(
      'ROW_ALIAS_NOT_WORK',
      `alias ${entry} must be a work-level URN (no @, $, ~ or ? parts)`,
      'aliases',
    );
  }
  return aq;
}

function rowAccepted(row: CatalogueRow): RowOk {
  return { ok: true, value: row };
}
