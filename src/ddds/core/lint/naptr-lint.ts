/**
 * NAPTR lint: every NAPTR record of a zone against RFC 3402-3404 and the
 * project's decisions, plus the `; expect` directives. The parsers and the
 * DDDS step are the client's own, so the linter accepts exactly what the
 * client runs.
 *
 * The server lints every zone it loads: a clean record is told from its
 * octets (`quick.ts`), each distinct rule is checked once (table keyed by its
 * octets), a REGEXP whose template was seen valid is not parsed again, no
 * engine program is compiled. test/zone/naptr-lint-scale.test.ts holds the
 * result equal to a per-record reference.
 */
import { absoluteLowerName } from '../../../kit/core/names.ts';
import { parseFlags, parseServices, type FlagsResult, type ServicesResult } from '../naptr.ts';
import { dddsStep, type NaptrRecord } from '../step.ts';
import { SubstitutionChecker, type ReplPart } from '../subst.ts';
import type {
  ResourceRecord,
  SourcePosition,
  ZoneDiagnostic,
} from '../../../dns/core/zone/model.ts';
import { nameToText, wireNameLength } from '../../../dns/core/zone/names.ts';
import type { ExpectDirective } from '../../../dns/core/zone/parser.ts';
import { TYPE_NAPTR } from '../../../dns/core/rr/types.ts';
import type { LintCode } from './codes.ts';

export type { LintCode } from './codes.ts';
import {
  NAPTR_FLAGS,
  NAPTR_REGEXP,
  NAPTR_REPLACEMENT,
  naptrLayout,
  naptrOrder,
  naptrPreference,
} from '../../../dns/core/rr/naptr.ts';
import { fnv1aBytes } from '../../../kit/core/hash.ts';
import { decodeUtf8Strict } from '../../../kit/core/utf8.ts';
import { BoundedMemo } from '../../../kit/core/memo.ts';
import { recordRows, type NaptrRows } from './rows.ts';
import { lintJurisdictionPattern } from './jurisdiction.ts';

export { lintJurisdictionPattern } from './jurisdiction.ts';
import { CLEAN, LOOK, MALFORMED, OctetTable, QuickCheck } from './quick.ts';

/** NAPTR RDATA as strings (wire values: single backslashes), or undefined when malformed. */
export function naptrFields(rdata: Uint8Array): NaptrRecord | undefined {
  const at = new Int32Array(4);
  if (naptrLayout(rdata, 0, rdata.length, at) >= 0) return undefined;
  const strings: string[] = [];
  for (let k = NAPTR_FLAGS; k <= NAPTR_REGEXP; k++) {
    const o = at[k]!;
    const s = decodeUtf8Strict(rdata, o + 1, o + 1 + rdata[o]!);
    if (s === undefined) return undefined;
    strings.push(s);
  }
  const p = at[NAPTR_REPLACEMENT]!;
  const nlen = wireNameLength(rdata, p);
  if (nlen < 0 || p + nlen !== rdata.length) return undefined;
  return {
    order: naptrOrder(rdata, 0),
    preference: naptrPreference(rdata, 0),
    flags: strings[0]!,
    services: strings[1]!,
    regexp: strings[2]!,
    replacement: nameToText(rdata, p, true),
  };
}

function diag(
  code: LintCode,
  severity: 'error' | 'warning',
  message: string,
  rr: { source?: SourcePosition | undefined },
  token?: string,
): ZoneDiagnostic {
  return {
    code,
    severity,
    message,
    ...(rr.source ? { position: rr.source } : {}),
    ...(token !== undefined ? { token } : {}),
  };
}

/** The literal text before the first back-reference of a replacement. */
function staticPrefix(repl: readonly ReplPart[]): { text: string; complete: boolean } {
  let text = '';
  for (const part of repl) {
    if (part.kind === 'backref') return { text, complete: false };
    text += part.text;
  }
  return { text, complete: true };
}

/** What the lint says about one REGEXP field, whatever record carries it. */
interface RegexpFindings {
  /** The expression's error (code and full message), when it is invalid. */
  readonly error: { readonly code: LintCode; readonly message: string } | undefined;
  /** Warnings on a valid expression (anchoring, jurisdiction code). */
  readonly warnings: readonly { readonly code: LintCode; readonly message: string }[];
  /** For a "U" record: the NAPTR_U_NOT_URI message, when the output has no scheme. */
  readonly notUri: string | undefined;
  /** Valid, and its pattern anchored with "^". */
  readonly anchored: boolean;
}

const NO_WARNINGS: readonly { code: LintCode; message: string }[] = Object.freeze([]);

function regexpFindings(field: string, checker: SubstitutionChecker): RegexpFindings {
  const r = checker.check(field);
  if (!r.ok) {
    const message = `REGEXP ${JSON.stringify(field)}: ${r.error.message}`;
    const error = { code: `NAPTR_${r.error.code}` as const, message };
    return { error, warnings: NO_WARNINGS, notUri: undefined, anchored: false };
  }
  const ere = r.ere;
  const anchored = ere.startsWith('^');
  const warnings = lintJurisdictionPattern(ere);
  if (!anchored)
    warnings.unshift({
      code: 'NAPTR_UNANCHORED',
      message: `the pattern ${JSON.stringify(ere)} is not anchored with ^: sed-style and whole-string readings differ (docs/ddds.md section 1); anchor it ^...$`,
    });
  const prefix = staticPrefix(r.repl);
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.test(prefix.text);
  return {
    error: undefined,
    warnings: warnings.length > 0 ? warnings : NO_WARNINGS,
    notUri:
      !scheme && (prefix.complete || prefix.text !== '')
        ? `a "U" record must output an absolute URI (RFC 3404 section 4.3); the replacement starts ${JSON.stringify(prefix.text)}, which has no scheme`
        : undefined,
    anchored,
  };
}

/**
 * Per-field memos shared by every lint run of a thread (zones repeat their
 * shapes; REGEXP fields mostly differ only in literals). Bounded memos of
 * pure functions.
 */
class LintMemo {
  readonly checker = new SubstitutionChecker(LINT_TEMPLATES);
  readonly quick = new QuickCheck();
  private readonly flags = new BoundedMemo<string, FlagsResult>(LINT_SMALL_FIELDS);
  private readonly services = new BoundedMemo<string, ServicesResult>(LINT_SMALL_FIELDS);

  regexp(field: string): RegexpFindings {
    const found = regexpFindings(field, this.checker);
    if (found.anchored) this.quick.validAnchoredText(field);
    return found;
  }

  flagsOf(field: string): FlagsResult {
    return this.flags.getOrCompute(field, parseFlags);
  }

  servicesOf(field: string): ServicesResult {
    return this.services.getOrCompute(field, parseServices);
  }
}

/** Distinct valid templates kept by the checker. */
const LINT_TEMPLATES = 4096;
/** Distinct FLAGS and SERVICES values kept. */
const LINT_SMALL_FIELDS = 1024;

const MEMO = new LintMemo();

/** A finding of a record that depends only on its FLAGS, SERVICES, REGEXP and REPLACEMENT. */
interface Finding {
  readonly code: LintCode;
  readonly severity: 'error' | 'warning';
  readonly message: string;
  readonly token: string | undefined;
}

const NO_FINDINGS: readonly Finding[] = Object.freeze([]);

/** Slots of the table of records read in full (a power of two). */
const FIELD_SLOTS = 1 << 14;
/** Most octets of its keys kept; when full, it starts over. */
const FIELD_ARENA = 1 << 20;

/** The findings of the records the quick reading leaves, by their octets after ORDER and PREFERENCE. */
class FullReads {
  private readonly table = new OctetTable<readonly Finding[] | null>(FIELD_SLOTS, FIELD_ARENA);

  /** The findings of the NAPTR RDATA `bytes[start, end)`, or undefined when it is malformed. */
  findings(bytes: Uint8Array, start: number, end: number): readonly Finding[] | undefined {
    const h = fnv1aBytes(bytes, start + 4, end);
    let found = this.table.get(bytes, start + 4, end, h);
    if (found === undefined) {
      const f = naptrFields(bytes.subarray(start, end));
      found = f === undefined ? null : recordFindings(f, MEMO);
      this.table.set(bytes, start + 4, end, h, found);
    }
    return found ?? undefined;
  }
}

/** Shared by the lint runs of a thread, as the memos. */
const FULL = new FullReads();

/** A well-formed record of one owner, as the PREFERENCE rule compares them. */
interface RunRecord {
  readonly source: SourcePosition | undefined;
  readonly order: number;
  readonly preference: number;
  readonly flagsLower: string;
  readonly servicesLower: string;
  readonly regexp: string;
  readonly replacement: string;
}

/** Row k as the PREFERENCE rule reads it, or undefined when it is malformed. */
function runRecord(rows: NaptrRows, k: number): RunRecord | undefined {
  const start = rows.rdataStart(k);
  const rdata = rows.rdataBlock(k).subarray(start, start + rows.rdataLength(k));
  const f = rdata.length < 8 ? undefined : naptrFields(rdata);
  if (f === undefined) return undefined;
  return {
    source: rows.source(k),
    order: f.order,
    preference: f.preference,
    flagsLower: f.flags.toLowerCase(),
    servicesLower: f.services.toLowerCase(),
    regexp: f.regexp,
    replacement: f.replacement,
  };
}

/** NAPTR_PREFERENCE_AS_ORDER for the records of one owner, in record order. */
function preferenceFindings(recs: readonly RunRecord[]): ZoneDiagnostic[] | undefined {
  const n = recs.length;
  if (n <= PAIRWISE_MAX) {
    let out: ZoneDiagnostic[] | undefined;
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const d = preferencePair(recs[i]!, recs[j]!);
        if (d !== undefined) (out ??= []).push(d);
      }
    }
    return out;
  }
  // A large RRset: only records with the same ORDER, flags and services can
  // pair, and not within one PREFERENCE. Pairs come out in (i, j) order.
  const groups = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    const f = recs[i]!;
    const key = `${f.order}\0${f.flagsLower}\0${f.servicesLower}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [i]);
    else g.push(i);
  }
  const found: { i: number; j: number; d: ZoneDiagnostic }[] = [];
  for (const g of groups.values()) {
    let onePreference = true;
    for (let k = 1; k < g.length && onePreference; k++) {
      if (recs[g[k]!]!.preference !== recs[g[0]!]!.preference) onePreference = false;
    }
    if (onePreference) continue;
    for (let x = 0; x < g.length; x++) {
      for (let y = x + 1; y < g.length; y++) {
        const d = preferencePair(recs[g[x]!]!, recs[g[y]!]!);
        if (d !== undefined) found.push({ i: g[x]!, j: g[y]!, d });
      }
    }
  }
  if (found.length === 0) return undefined;
  found.sort((a, b) => a.i - b.i || a.j - b.j);
  return found.map((p) => p.d);
}

/** Records of one owner compared pairwise below this count; above it, by groups. */
const PAIRWISE_MAX = 8;

/** NAPTR_PREFERENCE_AS_ORDER for records a before b of one owner, if they are such a pair. */
function preferencePair(a: RunRecord, b: RunRecord): ZoneDiagnostic | undefined {
  // ORDER, not PREFERENCE, makes "more specific first" deterministic.
  const ap = a.preference;
  const bp = b.preference;
  if (a.order !== b.order || ap === bp) return undefined;
  if (a.flagsLower !== b.flagsLower) return undefined;
  if (a.servicesLower !== b.servicesLower) return undefined;
  if (a.regexp === b.regexp && a.replacement === b.replacement) return undefined;
  const later = ap > bp ? a : b;
  return diag(
    'NAPTR_PREFERENCE_AS_ORDER',
    'warning',
    `records with ORDER ${a.order}, the same flags and services but different rules are told apart only by PREFERENCE (${ap}, ${bp}); a client MAY pick either (RFC 3403 section 4.1): use different ORDER values for "more specific first"`,
    later,
    String(later.preference),
  );
}

const MALFORMED_MESSAGE = 'NAPTR RDATA is malformed or not UTF-8 (RFC 3403 section 4.1)';

/**
 * Lint every NAPTR record (others ignored). Findings in record order, then
 * the NAPTR_PREFERENCE_AS_ORDER warnings by owner (first appearance).
 */
export function lintNaptrRecords(records: readonly ResourceRecord[]): ZoneDiagnostic[] {
  return lintNaptrRows(recordRows(records));
}

/**
 * `lintNaptrRecords` over rows (a list of records, or a loaded zone's store).
 * `quick: false` decodes every record (the reference the tests compare to).
 */
export function lintNaptrRows(
  rows: NaptrRows,
  options: { readonly quick?: boolean } = {},
): ZoneDiagnostic[] {
  const out: ZoneDiagnostic[] = [];
  const quick = options.quick === false ? undefined : MEMO.quick;
  const runs = new OwnerRuns(rows);
  for (let k = 0, count = rows.count; k < count; k++) {
    if (!rows.isNaptr(k)) continue;
    runs.add(k);
    const bytes = rows.rdataBlock(k);
    const start = rows.rdataStart(k);
    const end = start + rows.rdataLength(k);
    const verdict = end - start < 8 ? MALFORMED : quick ? quick.check(bytes, start, end) : LOOK;
    if (verdict === CLEAN) {
      runs.wellFormed(k);
      continue;
    }
    const found = verdict === MALFORMED ? undefined : FULL.findings(bytes, start, end);
    if (found === undefined) {
      out.push(diag('NAPTR_MALFORMED', 'error', MALFORMED_MESSAGE, { source: rows.source(k) }));
      continue;
    }
    runs.wellFormed(k);
    if (found.length === 0) continue;
    const at = { source: rows.source(k) };
    for (let i = 0; i < found.length; i++) {
      const d = found[i]!;
      out.push(diag(d.code, d.severity, d.message, at, d.token));
    }
  }
  runs.close(out);
  return out;
}

/**
 * The PREFERENCE rule by owner: each run of one owner is checked when it
 * ends; an owner that comes back is rechecked at the end over all its rows.
 */
class OwnerRuns {
  private readonly rows: NaptrRows;
  /** Owner key -> owner index (in order of first appearance), -1 when not seen. */
  private ids: Int32Array;
  private owners = 0;
  /** Each owner's first run: rows [firstStart[id], firstEnd[id]). */
  private firstStart: Int32Array;
  private firstEnd: Int32Array;
  /** Owners that come back after another one: the rows of their later runs. */
  private readonly later = new Map<number, number[]>();
  /** NAPTR_PREFERENCE_AS_ORDER findings by owner index. */
  private readonly byOwner = new Map<number, ZoneDiagnostic[]>();
  private runKey = -1;
  private runId = -1;
  /** The owner's list of later rows, when the current run is not its first. */
  private runLater: number[] | undefined;
  private lastRow = -1;
  /** The current run's well-formed rows. */
  private readonly run: number[] = [];

  constructor(rows: NaptrRows) {
    this.rows = rows;
    // Keys and owners are about as many as rows.
    const size = Math.max(16, rows.count + 1);
    this.ids = new Int32Array(size).fill(-1);
    this.firstStart = new Int32Array(size);
    this.firstEnd = new Int32Array(size);
  }

  /** Row k, a NAPTR record, comes next. */
  add(k: number): void {
    const key = this.rows.ownerKey(k);
    if (key !== this.runKey) this.startRun(k, key);
    this.lastRow = k;
    if (this.runLater !== undefined) this.runLater.push(k);
  }

  /** Row k (the last added) is well formed. */
  wellFormed(k: number): void {
    this.run.push(k);
  }

  /** The PREFERENCE findings after all others, by owner in order of first appearance. */
  close(out: ZoneDiagnostic[]): void {
    this.closeRun();
    this.recheckLater();
    for (const id of [...this.byOwner.keys()].sort((a, b) => a - b)) {
      for (const d of this.byOwner.get(id)!) out.push(d);
    }
  }

  private startRun(k: number, key: number): void {
    this.closeRun();
    this.runKey = key;
    if (key >= this.ids.length) this.ids = grown(this.ids, key + 1, -1);
    const seen = this.ids[key]!;
    if (seen >= 0) {
      // Its records are checked together at the end.
      this.runId = seen;
      this.runLater = this.later.get(seen);
      if (this.runLater === undefined) this.later.set(seen, (this.runLater = []));
      return;
    }
    const id = this.owners++;
    this.ids[key] = id;
    this.runId = id;
    this.runLater = undefined;
    if (id >= this.firstStart.length) {
      this.firstStart = grown(this.firstStart, id + 1, 0);
      this.firstEnd = grown(this.firstEnd, id + 1, 0);
    }
    this.firstStart[id] = k;
  }

  private closeRun(): void {
    if (this.runId >= 0 && this.runLater === undefined) {
      this.firstEnd[this.runId] = this.lastRow + 1;
      if (this.run.length >= 2) {
        const found = preferenceFindings(this.records(this.run));
        if (found !== undefined) this.byOwner.set(this.runId, found);
      }
    }
    this.run.length = 0;
  }

  /** The well-formed NAPTR records among `rows`; none (nothing decoded) when no pair may exist. */
  private records(rows: readonly number[]): RunRecord[] {
    const out: RunRecord[] = [];
    if (!this.mayPair(rows)) return out;
    for (const k of rows) {
      if (!this.rows.isNaptr(k)) continue;
      const r = runRecord(this.rows, k);
      if (r !== undefined) out.push(r);
    }
    return out;
  }

  /** Whether two NAPTR rows of `rows` (8 octets or more) have one ORDER and two PREFERENCEs. */
  private mayPair(rows: readonly number[]): boolean {
    const preferences = new Map<number, number>();
    for (const k of rows) {
      if (!this.rows.isNaptr(k) || this.rows.rdataLength(k) < 8) continue;
      const bytes = this.rows.rdataBlock(k);
      const at = this.rows.rdataStart(k);
      const order = naptrOrder(bytes, at);
      const preference = naptrPreference(bytes, at);
      const seen = preferences.get(order);
      if (seen === undefined) preferences.set(order, preference);
      else if (seen !== preference) return true;
    }
    return false;
  }

  /** Owners that came back: their findings over all their rows replace the first run's. */
  private recheckLater(): void {
    for (const [id, more] of this.later) {
      const rows: number[] = [];
      // The first run's range holds only this owner's NAPTR records (and records of other types).
      for (let k = this.firstStart[id]!; k < this.firstEnd[id]!; k++) rows.push(k);
      const recs = this.records([...rows, ...more]);
      const found = recs.length >= 2 ? preferenceFindings(recs) : undefined;
      if (found !== undefined) this.byOwner.set(id, found);
      else this.byOwner.delete(id);
    }
  }
}

/** A copy of `a` at least `size` long (doubling), new entries `fill`. */
function grown(a: Int32Array, size: number, fill: number): Int32Array<ArrayBuffer> {
  let n = 2 * a.length;
  while (n < size) n *= 2;
  const out = new Int32Array(n).fill(fill);
  out.set(a);
  return out;
}

/** The findings of a record's fields, in the order they are reported. */
function recordFindings(f: NaptrRecord, memo: LintMemo): readonly Finding[] {
  let out: Finding[] | undefined;
  const add = (code: LintCode, severity: Finding['severity'], message: string, token?: string) =>
    (out ??= []).push({ code, severity, message, token });
  const hasRegexp = f.regexp !== '';
  const hasReplacement = f.replacement !== '.';
  // RFC 3403 section 4.1: "The Regexp and Replacement fields are mutually exclusive."
  if (hasRegexp && hasReplacement)
    add(
      'NAPTR_BOTH_FIELDS',
      'error',
      `REGEXP and REPLACEMENT (${f.replacement}) are both set; they are mutually exclusive and clients ignore the record (RFC 3403 section 4.1)`,
      f.replacement,
    );
  if (!hasRegexp && !hasReplacement)
    add(
      'NAPTR_NO_REWRITE',
      'error',
      'REGEXP is empty and REPLACEMENT is ".": the record produces nothing (RFC 3403 section 4.1; docs/ddds.md section 6)',
    );
  const flags = memo.flagsOf(f.flags);
  // RFC 3404 section 4.3 has clients skip an unknown flag, but BIND, Knot and
  // NSD load it: a warning (--strict fails on it); a malformed field is an error.
  if (flags.kind === 'unusable')
    add(
      flags.code,
      flags.code === 'NAPTR_FLAG_UNKNOWN' ? 'warning' : 'error',
      flags.message,
      f.flags,
    );
  const services = memo.servicesOf(f.services);
  if (!services.ok) add(services.error.code, 'error', services.error.message, f.services);
  const flag = flags.kind === 'flag' ? flags.flag : undefined;
  if ((flag === 'S' || flag === 'A') && services.ok && services.value.protocol === undefined)
    add(
      'NAPTR_TERMINAL_NO_PROTOCOL',
      'warning',
      `a terminal "${flag}" record names no protocol in SERVICES; clients skip it (RFC 2915 section 2; docs/ddds.md section 6)`,
      f.services,
    );
  let found: RegexpFindings | undefined;
  if (hasRegexp) {
    found = memo.regexp(f.regexp);
    if (found.error !== undefined) {
      add(found.error.code, 'error', found.error.message, f.regexp);
    } else {
      for (const w of found.warnings) add(w.code, 'warning', w.message, f.regexp);
    }
  }
  if (flag === 'U') {
    if (!hasRegexp)
      add(
        'NAPTR_U_WITHOUT_REGEXP',
        'error',
        'a "U" record outputs a URI from its REGEXP (RFC 2915 section 2); a REPLACEMENT alone gives no URI',
      );
    else if (found?.error === undefined && found?.notUri !== undefined)
      add('NAPTR_U_NOT_URI', 'error', found.notUri, f.regexp);
  }
  return out ?? NO_FINDINGS;
}

/** Parse `<urn> -> <result>`: a next key, `U <uri>`, `S <name>`, `A <name>`, `P <text>` or `fail`. */
export function parseExpect(
  text: string,
): { urn: string; kind: 'next' | 'U' | 'S' | 'A' | 'P' | 'fail'; value: string } | undefined {
  const m = /^(\S+)\s*->\s*(.+)$/.exec(text.trim());
  if (!m) return undefined;
  const urn = m[1]!;
  const result = m[2]!.trim();
  if (/^fail$/i.test(result)) return { urn, kind: 'fail', value: '' };
  const t = /^([USAP])\s+(\S+)$/i.exec(result);
  if (t) return { urn, kind: t[1]!.toUpperCase() as 'U' | 'S' | 'A' | 'P', value: t[2]! };
  if (/^\S+$/.test(result)) return { urn, kind: 'next', value: result };
  return undefined;
}

const absolute = absoluteLowerName;

/** Verify `; expect` directives: the client's DDDS step on the owner's RRset gives the stated result. */
export function checkExpectations(
  expects: readonly ExpectDirective[],
  records: readonly ResourceRecord[],
): ZoneDiagnostic[] {
  const out: ZoneDiagnostic[] = [];
  if (expects.length === 0) return out;
  const sets = expectedRRsets(expects, records);
  for (const e of expects) {
    const fail = (code: LintCode, message: string, token: string) =>
      out.push(diag(code, 'error', message, { source: e.position }, token));
    const parsed = parseExpect(e.text);
    if (!parsed) {
      fail(
        'NAPTR_EXPECT_SYNTAX',
        'expect directive: write "; expect <urn> -> <next.key.> | U <uri> | S <name> | A <name> | P <text> | fail"',
        e.text,
      );
      continue;
    }
    if (e.owner === undefined) {
      fail(
        'NAPTR_EXPECT_NO_OWNER',
        'expect directive before any record: it has no owner to test',
        e.text,
      );
      continue;
    }
    const records = sets.get(e.owner) ?? [];
    if (records.length === 0) {
      fail(
        'NAPTR_EXPECT_NO_NAPTR',
        `expect directive: ${e.owner} has no NAPTR records to apply`,
        e.owner,
      );
      continue;
    }
    const step = dddsStep({ aus: parsed.urn, key: e.owner, records, service: 'N2L' });
    const { got, same } = compareOutcome(parsed, step.outcome);
    if (!same)
      fail(
        'NAPTR_EXPECT_MISMATCH',
        `expect ${parsed.urn} at ${e.owner}: wanted ${wantText(parsed)}, the rules give ${got}`,
        e.text,
      );
  }
  return out;
}

/** The NAPTR RRsets of the directives' owners (only those are read). */
function expectedRRsets(
  expects: readonly ExpectDirective[],
  records: readonly ResourceRecord[],
): Map<string, NaptrRecord[]> {
  const wanted = new Set<string>();
  for (const e of expects) if (e.owner !== undefined) wanted.add(e.owner);
  const sets = new Map<string, NaptrRecord[]>();
  // An owner's records are usually consecutive: one lookup per run.
  let runOwner: string | undefined;
  let inRun = false;
  for (const rr of records) {
    if (rr.type !== TYPE_NAPTR) continue;
    if (rr.owner !== runOwner) {
      runOwner = rr.owner;
      inRun = wanted.has(runOwner);
    }
    if (!inRun) continue;
    const f = naptrFields(rr.rdata);
    if (!f) continue;
    let list = sets.get(rr.owner);
    if (!list) sets.set(rr.owner, (list = []));
    list.push({ ...f, ttl: rr.ttl });
  }
  return sets;
}

type Expectation = NonNullable<ReturnType<typeof parseExpect>>;

/** The step's outcome as text, and whether it is the one expected. */
function compareOutcome(
  parsed: Expectation,
  o: ReturnType<typeof dddsStep>['outcome'],
): { got: string; same: boolean } {
  let got: string;
  let same: boolean;
  switch (o.kind) {
    case 'next':
      got = o.key;
      same = parsed.kind === 'next' && absolute(parsed.value) === absolute(o.key);
      break;
    case 'terminal':
      got = `${o.flag} ${o.output}`;
      same =
        parsed.kind === o.flag &&
        (o.flag === 'U'
          ? parsed.value === o.output
          : absolute(parsed.value) === absolute(o.output));
      break;
    case 'handoff':
      got = `P ${o.output}`;
      same = parsed.kind === 'P' && parsed.value === o.output;
      break;
    case 'failure':
      got = `fail (${o.code}: ${o.message})`;
      same = parsed.kind === 'fail';
      break;
  }
  return { got, same };
}

/** The expected result as the directive writes it. */
function wantText(parsed: Expectation): string {
  return parsed.kind === 'next'
    ? parsed.value
    : parsed.kind === 'fail'
      ? 'fail'
      : `${parsed.kind} ${parsed.value}`;
}
