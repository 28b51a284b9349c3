/**
 * NAPTR lint: checks of every NAPTR record of a zone against RFC 3402-3404
 * and the project's decisions, plus the `; expect` directives that pin what
 * a zone's rules do with a given URN.
 *
 * The substitution-expression parser, the flag and service readers and the
 * DDDS step are the client's own (`src/ddds/core/`), so the linter accepts
 * exactly what the client will run.
 *
 * Scale (a registry's zone of a million rules is checked before it is
 * published): a distinct combination of FLAGS, SERVICES, REGEXP and
 * REPLACEMENT is decoded and checked once (cache keyed by its octets); a
 * REGEXP whose template (`substitutionTemplate`: the field with its literal
 * runs abstracted) was seen valid is not parsed again; no engine program is
 * compiled (`compileEre` compiles on first use); the PREFERENCE rule is
 * checked per run of one owner. `test/zone/naptr-lint-scale.test.ts` holds
 * the result equal to a per-record reference; `bench/zone-load.ts --lint`
 * measures it.
 */
import { absoluteLowerName } from '../../../kit/core/names.ts';
import { parseFlags, parseServices, type FlagsResult, type ServicesResult } from '../naptr.ts';
import { dddsStep, type NaptrRecord } from '../step.ts';
import { SubstitutionChecker, type ReplPart } from '../subst.ts';
import { toDnsKey } from '../../../urn/core/dns-key.ts';
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
import { fnv1aBytes, fnv1aText } from '../../../kit/core/hash.ts';
import { decodeUtf8Strict } from '../../../kit/core/utf8.ts';
import { BoundedMemo } from '../../../kit/core/memo.ts';

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

/**
 * Warnings on the jurisdiction part of a LEX pattern (`^urn:lex:<code>...`):
 * - NAPTR_JURISDICTION_UNBOUNDED: the code is not followed by `[;:]` (or `;`,
 *   `:`, `$`), so `br` would also match `brx` (docs/ddds.md section 8);
 * - NAPTR_UNESCAPED_DOT: a `.` in the code is the ERE "any character"
 *   (`un.org` also matches `unxorg`); write `\.`.
 */
export function lintJurisdictionPattern(ere: string): { code: LintCode; message: string }[] {
  const out: { code: LintCode; message: string }[] = [];
  // /^\^?urn:lex:/i (a JavaScript /i without /u folds ASCII letters only).
  let i = ere.charCodeAt(0) === 0x5e ? 1 : 0;
  if (!startsWithUrnLex(ere, i)) return out;
  i += URN_LEX.length;
  const n = ere.length;
  for (;;) {
    const start = i;
    while (i < n) {
      const next = jurisdictionAtom(ere, i, out);
      if (next < 0) break;
      i = next;
    }
    if (i === start) break;
    if (ere.charCodeAt(i) === 0x3b && i + 1 < n && ere.charCodeAt(i + 1) !== 0x5d) {
      i++;
      continue;
    }
    break;
  }
  if (!boundedAt(ere, i)) {
    out.push({
      code: 'NAPTR_JURISDICTION_UNBOUNDED',
      message: `the jurisdiction in ${JSON.stringify(ere)} is not followed by [;:], so a longer code also matches (br matches brx); add [;:] (docs/ddds.md section 8)`,
    });
  }
  return out;
}

const URN_LEX = 'urn:lex:';

function startsWithUrnLex(text: string, at: number): boolean {
  if (text.length < at + URN_LEX.length) return false;
  for (let k = 0; k < URN_LEX.length; k++) {
    let c = text.charCodeAt(at + k);
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if (c !== URN_LEX.charCodeAt(k)) return false;
  }
  return true;
}

function isAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/**
 * One unit of a jurisdiction code at `i` (a letter, digit, `_` or `-`, a
 * `%hh` octet, an escape pair, a `.` before a letter or digit (warned), a bracket expression
 * other than `[;:]`, or a group, each optionally quantified): the offset
 * after it, or -1.
 */
function jurisdictionAtom(
  ere: string,
  i: number,
  out: { code: LintCode; message: string }[],
): number {
  const n = ere.length;
  const c = ere.charCodeAt(i);
  if (isAlnum(c) || c === 0x5f || c === 0x2d) return i + 1;
  // A percent-encoded octet of a non-ASCII unit (UTF-8 in the URN: m%C3%BCnchen).
  if (c === 0x25 && isAlnum(ere.charCodeAt(i + 1)) && isAlnum(ere.charCodeAt(i + 2))) return i + 3;
  if (c === 0x5c && i + 1 < n) return i + 2;
  if (c === 0x2e && i + 1 < n && isAlnum(ere.charCodeAt(i + 1))) {
    out.push({
      code: 'NAPTR_UNESCAPED_DOT',
      message: `unescaped '.' in the jurisdiction code of ${JSON.stringify(ere)} matches any character; write \\. (docs/ddds.md section 8)`,
    });
    return i + 1;
  }
  if (c !== 0x5b && c !== 0x28) return -1;
  // A bracket expression or group: skip to its end (brackets keep POSIX meaning).
  let depth = 0;
  let j = i;
  for (; j < n; j++) {
    const d = ere.charCodeAt(j);
    if (c === 0x5b) {
      if (j > i + 1 && d === 0x5d && !(j === i + 2 && ere.charCodeAt(i + 1) === 0x5e)) break;
      continue;
    }
    if (d === 0x5c) {
      j++;
      continue;
    }
    if (d === 0x28) depth++;
    if (d === 0x29 && --depth === 0) break;
  }
  if (j >= n) return -1;
  // `[;:]` itself is the boundary, not part of the code.
  if (c === 0x5b && j >= i + 2) {
    let boundary = true;
    for (let k = i + 1; k < j; k++) {
      const d = ere.charCodeAt(k);
      if (d !== 0x3b && d !== 0x3a) {
        boundary = false;
        break;
      }
    }
    if (boundary) return -1;
  }
  let next = j + 1;
  const q = ere.charCodeAt(next);
  if (q === 0x2b || q === 0x2a || q === 0x3f) next++;
  return next;
}

/** /^(\[[;:]{1,2}\]|[;:]|\$|\)|$)/ on the text from `i`. */
function boundedAt(ere: string, i: number): boolean {
  const n = ere.length;
  if (i >= n) return true;
  const c = ere.charCodeAt(i);
  if (c === 0x3b || c === 0x3a || c === 0x24 || c === 0x29) return true;
  if (c !== 0x5b) return false;
  let k = i + 1;
  while (k < n && k < i + 3 && (ere.charCodeAt(k) === 0x3b || ere.charCodeAt(k) === 0x3a)) k++;
  return k > i + 1 && ere.charCodeAt(k) === 0x5d;
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
}

const NO_WARNINGS: readonly { code: LintCode; message: string }[] = Object.freeze([]);

function regexpFindings(field: string, checker: SubstitutionChecker): RegexpFindings {
  const r = checker.check(field);
  if (!r.ok) {
    return {
      error: {
        code: `NAPTR_${r.error.code}`,
        message: `REGEXP ${JSON.stringify(field)}: ${r.error.message}`,
      },
      warnings: NO_WARNINGS,
      notUri: undefined,
    };
  }
  const ere = r.ere;
  let warnings: { code: LintCode; message: string }[] | undefined;
  if (!ere.startsWith('^'))
    warnings = [
      {
        code: 'NAPTR_UNANCHORED',
        message: `the pattern ${JSON.stringify(ere)} is not anchored with ^: sed-style and whole-string readings differ (docs/ddds.md section 1); anchor it ^...$`,
      },
    ];
  const j = lintJurisdictionPattern(ere);
  if (j.length > 0) warnings = warnings === undefined ? j : [...warnings, ...j];
  const prefix = staticPrefix(r.repl);
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.test(prefix.text);
  return {
    error: undefined,
    warnings: warnings ?? NO_WARNINGS,
    notUri:
      !scheme && (prefix.complete || prefix.text !== '')
        ? `a "U" record must output an absolute URI (RFC 3404 section 4.3); the replacement starts ${JSON.stringify(prefix.text)}, which has no scheme`
        : undefined,
  };
}

/**
 * Per-field memos of one lint run. REGEXP fields repeat across a zone (shared
 * rules), and the distinct ones mostly differ only in literals (one rule per
 * jurisdiction): the checker reads the ERE of a known template only once.
 * Every memo holds small values and is bounded.
 */
class LintMemo {
  readonly checker = new SubstitutionChecker(LINT_TEMPLATES);
  private readonly flags = new BoundedMemo<string, FlagsResult>(LINT_SMALL_FIELDS);
  private readonly services = new BoundedMemo<string, ServicesResult>(LINT_SMALL_FIELDS);

  regexp(field: string): RegexpFindings {
    return regexpFindings(field, this.checker);
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

/** A finding of a record that depends only on its FLAGS, SERVICES, REGEXP and REPLACEMENT. */
interface Finding {
  readonly code: LintCode;
  readonly severity: 'error' | 'warning';
  readonly message: string;
  readonly token: string | undefined;
}

/** The fields of a NAPTR RDATA after ORDER and PREFERENCE, decoded once, with the findings they give. */
interface NaptrFields {
  readonly flags: string;
  readonly services: string;
  readonly regexp: string;
  readonly replacement: string;
  readonly flagsLower: string;
  readonly servicesLower: string;
  readonly findings: readonly Finding[];
}

const NO_FINDINGS: readonly Finding[] = Object.freeze([]);

/** Most slots of the direct-mapped cache of decoded fields (a power of two). */
const FIELD_SLOTS = 1 << 14;
/** Most octets of keys kept; when full, the cache starts over. */
const FIELD_ARENA = 1 << 22;

/**
 * Decoded fields by their octets: a direct-mapped table (one entry per slot,
 * the newest wins) whose keys are copied into one arena, with each slot's
 * hash, key offset and length in typed arrays, so a repeated rule costs a
 * hash and a comparison of its octets, and makes nothing. Sized to the
 * records linted (a handful of records make a small cache).
 */
class FieldCache {
  private readonly entries: (NaptrFields | undefined)[];
  private readonly hashes: Int32Array;
  /** Key offset in the arena, -1 for an empty slot. */
  private readonly keyAt: Int32Array;
  private readonly keyLength: Int32Array;
  /** 1 when the slot's entry was found again since it was stored (second chance). */
  private readonly reused: Uint8Array;
  private readonly mask: number;
  private arena: Uint8Array;
  private used = 0;
  private readonly memo: LintMemo;

  constructor(memo: LintMemo, records: number) {
    this.memo = memo;
    let size = 16;
    while (size < FIELD_SLOTS && size < 2 * records) size *= 2;
    this.entries = new Array<NaptrFields | undefined>(size).fill(undefined);
    this.hashes = new Int32Array(size);
    this.keyAt = new Int32Array(size).fill(-1);
    this.keyLength = new Int32Array(size);
    this.reused = new Uint8Array(size);
    this.mask = size - 1;
    this.arena = new Uint8Array(64 * size);
  }

  /** The fields of `rdata` (at least 8 octets), or undefined when they are malformed. */
  get(rdata: Uint8Array): NaptrFields | undefined {
    const n = rdata.length;
    const h = fnv1aBytes(rdata, 4, n);
    const slot = h & this.mask;
    const at = this.keyAt[slot]!;
    if (at >= 0 && this.hashes[slot] === h && this.keyLength[slot] === n - 4) {
      const arena = this.arena;
      const d = at - 4;
      let i = 4;
      while (i < n && arena[d + i] === rdata[i]) i++;
      if (i === n) {
        this.reused[slot] = 1;
        return this.entries[slot];
      }
    }
    const f = naptrFields(rdata);
    if (f === undefined) return undefined;
    const made: NaptrFields = {
      flags: f.flags,
      services: f.services,
      regexp: f.regexp,
      replacement: f.replacement,
      flagsLower: f.flags.toLowerCase(),
      servicesLower: f.services.toLowerCase(),
      findings: recordFindings(f, this.memo),
    };
    // A rule that was found again keeps its slot once against a newcomer: a
    // zone's repeated rules are not pushed out by its many one-off ones.
    if (at >= 0 && this.reused[slot] === 1) {
      this.reused[slot] = 0;
      return made;
    }
    if (this.used + n - 4 > this.arena.length) {
      if (this.arena.length < FIELD_ARENA) {
        const grown = new Uint8Array(Math.min(FIELD_ARENA, 2 * (this.arena.length + n)));
        grown.set(this.arena.subarray(0, this.used));
        this.arena = grown;
      }
      if (this.used + n - 4 > this.arena.length) {
        this.keyAt.fill(-1);
        this.entries.fill(undefined);
        this.used = 0;
      }
    }
    this.arena.set(rdata.subarray(4), this.used);
    this.keyAt[slot] = this.used;
    this.keyLength[slot] = n - 4;
    this.hashes[slot] = h;
    this.reused[slot] = 0;
    this.used += n - 4;
    this.entries[slot] = made;
    return made;
  }
}

/**
 * NAPTR_PREFERENCE_AS_ORDER for the records of one owner, in record order
 * (parallel lists: record, ORDER, PREFERENCE, fields).
 */
function preferenceFindings(
  rrs: readonly ResourceRecord[],
  orders: readonly number[],
  prefs: readonly number[],
  fields: readonly NaptrFields[],
): ZoneDiagnostic[] | undefined {
  const n = rrs.length;
  if (n <= PAIRWISE_MAX) {
    let out: ZoneDiagnostic[] | undefined;
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const d = preferencePair(rrs, orders, prefs, fields, i, j);
        if (d !== undefined) (out ??= []).push(d);
      }
    }
    return out;
  }
  // A large RRset (one rule per jurisdiction at one name): only records with
  // the same ORDER, flags and services can be a pair, and a group whose
  // records all have one PREFERENCE has none. Pairs come out in (i, j) order.
  const groups = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    const f = fields[i]!;
    const key = `${orders[i]!}\0${f.flagsLower}\0${f.servicesLower}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [i]);
    else g.push(i);
  }
  const found: { i: number; j: number; d: ZoneDiagnostic }[] = [];
  for (const g of groups.values()) {
    let onePreference = true;
    for (let k = 1; k < g.length && onePreference; k++) {
      if (prefs[g[k]!] !== prefs[g[0]!]) onePreference = false;
    }
    if (onePreference) continue;
    for (let x = 0; x < g.length; x++) {
      for (let y = x + 1; y < g.length; y++) {
        const d = preferencePair(rrs, orders, prefs, fields, g[x]!, g[y]!);
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

/** NAPTR_PREFERENCE_AS_ORDER for records i < j of one owner, if they are such a pair. */
function preferencePair(
  rrs: readonly ResourceRecord[],
  orders: readonly number[],
  prefs: readonly number[],
  fields: readonly NaptrFields[],
  i: number,
  j: number,
): ZoneDiagnostic | undefined {
  // ORDER, not PREFERENCE, makes "more specific first" deterministic.
  const ao = orders[i]!;
  const ap = prefs[i]!;
  const bp = prefs[j]!;
  if (ao !== orders[j]! || ap === bp) return undefined;
  const a = fields[i]!;
  const b = fields[j]!;
  if (a.flagsLower !== b.flagsLower) return undefined;
  if (a.servicesLower !== b.servicesLower) return undefined;
  if (a.regexp === b.regexp && a.replacement === b.replacement) return undefined;
  const later = ap > bp ? i : j;
  return diag(
    'NAPTR_PREFERENCE_AS_ORDER',
    'warning',
    `records with ORDER ${ao}, the same flags and services but different rules are told apart only by PREFERENCE (${ap}, ${bp}); a client MAY pick either (RFC 3403 section 4.1): use different ORDER values for "more specific first"`,
    rrs[later]!,
    String(prefs[later]!),
  );
}

/**
 * Owner names -> index in order of first appearance: open addressing over
 * typed arrays, hashed in place (a zone has as many owners as rules; a Map
 * of them costs twice as much).
 */
class OwnerTable {
  private ids = new Int32Array(1024).fill(-1);
  private hashes = new Int32Array(1024);
  readonly names: string[] = [];

  /** The owner's index, and whether it was there before. */
  index(name: string): { id: number; seen: boolean } {
    const h = fnv1aText(name);
    const mask = this.ids.length - 1;
    let i = h & mask;
    for (;;) {
      const id = this.ids[i]!;
      if (id < 0) break;
      if (this.hashes[i] === h && this.names[id] === name) return { id, seen: true };
      i = (i + 1) & mask;
    }
    const id = this.names.length;
    this.ids[i] = id;
    this.hashes[i] = h;
    this.names.push(name);
    if (2 * this.names.length > this.ids.length) this.grow();
    return { id, seen: false };
  }

  private grow(): void {
    const size = 2 * this.ids.length;
    const ids = new Int32Array(size).fill(-1);
    const hashes = new Int32Array(size);
    const mask = size - 1;
    for (let k = 0; k < this.ids.length; k++) {
      const id = this.ids[k]!;
      if (id < 0) continue;
      let j = this.hashes[k]! & mask;
      while (ids[j]! >= 0) j = (j + 1) & mask;
      ids[j] = id;
      hashes[j] = this.hashes[k]!;
    }
    this.ids = ids;
    this.hashes = hashes;
  }
}

const MALFORMED_MESSAGE = 'NAPTR RDATA is malformed or not UTF-8 (RFC 3403 section 4.1)';

/**
 * Lint every NAPTR record; records of other types are ignored. Findings come
 * in record order, then the NAPTR_PREFERENCE_AS_ORDER warnings by owner (in
 * order of the owner's first record).
 *
 * Each distinct combination of FLAGS, SERVICES, REGEXP and REPLACEMENT is
 * decoded and checked once (while it stays in a bounded cache); a record
 * only adds its position to the findings. The records of an owner are
 * usually consecutive: each run of one owner is checked for the PREFERENCE
 * rule when it ends; an owner that comes back after another one is checked
 * at the end over its first run (kept as a range) and its later records.
 */
export function lintNaptrRecords(records: readonly ResourceRecord[]): ZoneDiagnostic[] {
  const out: ZoneDiagnostic[] = [];
  const cache = new FieldCache(new LintMemo(), records.length);
  const owners = new OwnerTable();
  /** Each owner's first run: record indices [firstStart[id], firstEnd[id]). */
  let firstStart = new Int32Array(1024);
  let firstEnd = new Int32Array(1024);
  /** Owners that come back after another one: the record indices of their later runs. */
  const later = new Map<number, number[]>();
  /** NAPTR_PREFERENCE_AS_ORDER findings by owner index. */
  const byOwner = new Map<number, ZoneDiagnostic[]>();
  let runOwner: string | undefined;
  let runId = -1;
  /** The owner's list of later records, when the current run is not its first. */
  let runLater: number[] | undefined;
  let lastRecord = -1;
  // The current run's well-formed records (lists reused from run to run).
  const runRRs: ResourceRecord[] = [];
  const runOrders: number[] = [];
  const runPrefs: number[] = [];
  const runFields: NaptrFields[] = [];
  const closeRun = () => {
    if (runId >= 0 && runLater === undefined) {
      firstEnd[runId] = lastRecord + 1;
      if (runRRs.length >= 2) {
        const found = preferenceFindings(runRRs, runOrders, runPrefs, runFields);
        if (found !== undefined) byOwner.set(runId, found);
      }
    }
    runRRs.length = 0;
    runOrders.length = 0;
    runPrefs.length = 0;
    runFields.length = 0;
  };
  for (let k = 0; k < records.length; k++) {
    const rr = records[k]!;
    if (rr.type !== TYPE_NAPTR) continue;
    const owner = rr.owner;
    if (owner !== runOwner) {
      closeRun();
      runOwner = owner;
      const { id, seen } = owners.index(owner);
      runId = id;
      if (seen) {
        // Its records are checked together at the end.
        runLater = later.get(id);
        if (runLater === undefined) later.set(id, (runLater = []));
      } else {
        runLater = undefined;
        if (id >= firstStart.length) {
          firstStart = doubled(firstStart);
          firstEnd = doubled(firstEnd);
        }
        firstStart[id] = k;
      }
    }
    lastRecord = k;
    if (runLater !== undefined) runLater.push(k);
    const rdata = rr.rdata;
    const f = rdata.length < 8 ? undefined : cache.get(rdata);
    if (f === undefined) {
      out.push(diag('NAPTR_MALFORMED', 'error', MALFORMED_MESSAGE, rr));
      continue;
    }
    runRRs.push(rr);
    runOrders.push(naptrOrder(rdata, 0));
    runPrefs.push(naptrPreference(rdata, 0));
    runFields.push(f);
    const findings = f.findings;
    for (let i = 0; i < findings.length; i++) {
      const d = findings[i]!;
      out.push(diag(d.code, d.severity, d.message, rr, d.token));
    }
  }
  closeRun();
  recheckLaterOwners(records, cache, later, firstStart, firstEnd, byOwner);
  appendByOwner(out, byOwner);
  return out;
}

/** The PREFERENCE findings after all others, by owner in order of first appearance. */
function appendByOwner(out: ZoneDiagnostic[], byOwner: Map<number, ZoneDiagnostic[]>): void {
  for (const id of [...byOwner.keys()].sort((a, b) => a - b)) {
    for (const d of byOwner.get(id)!) out.push(d);
  }
}

/** A copy of `a` twice as long. */
function doubled(a: Int32Array): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(2 * a.length);
  grown.set(a);
  return grown;
}

/**
 * The PREFERENCE rule again for each owner that came back after another one,
 * over its first run (the range [firstStart, firstEnd)) and its later records:
 * its findings replace those of its first run.
 */
function recheckLaterOwners(
  records: readonly ResourceRecord[],
  cache: FieldCache,
  later: Map<number, number[]>,
  firstStart: Int32Array,
  firstEnd: Int32Array,
  byOwner: Map<number, ZoneDiagnostic[]>,
): void {
  for (const [id, more] of later) {
    const rrs: ResourceRecord[] = [];
    const orders: number[] = [];
    const prefs: number[] = [];
    const fields: NaptrFields[] = [];
    const add = (k: number): void => {
      const rr = records[k]!;
      if (rr.type !== TYPE_NAPTR) return;
      const rdata = rr.rdata;
      const f = rdata.length < 8 ? undefined : cache.get(rdata);
      if (f === undefined) return;
      rrs.push(rr);
      orders.push((rdata[0]! << 8) | rdata[1]!);
      prefs.push((rdata[2]! << 8) | rdata[3]!);
      fields.push(f);
    };
    // The first run's range holds only this owner's NAPTR records (and records of other types).
    for (let k = firstStart[id]!; k < firstEnd[id]!; k++) add(k);
    for (const k of more) add(k);
    const found = rrs.length >= 2 ? preferenceFindings(rrs, orders, prefs, fields) : undefined;
    if (found !== undefined) byOwner.set(id, found);
    else byOwner.delete(id);
  }
}

/** The findings of a record's fields, in the order they are reported. */
function recordFindings(f: NaptrRecord, memo: LintMemo): readonly Finding[] {
  let out: Finding[] | undefined;
  const add = (
    code: LintCode,
    severity: 'error' | 'warning',
    message: string,
    token?: string,
  ): void => {
    (out ??= []).push({ code, severity, message, token });
  };
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
  // RFC 3404 section 4.3 reserves the other letters and tells clients to skip
  // such a record: BIND, Knot and NSD load it and lexroute serves it, so an
  // unknown flag is a warning (--strict fails on it); a malformed field stays an error.
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

/**
 * Parse `<urn> -> <result>`: result is a domain name (the next key), `U <uri>`,
 * `S <name>`, `A <name>`, `P <text>` or `fail`.
 */
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

/**
 * Verify `; expect` directives: the NAPTR RRset of the directive's owner,
 * applied by the client's DDDS step to the URN, must give the stated result.
 */
export function checkExpectations(
  expects: readonly ExpectDirective[],
  records: readonly ResourceRecord[],
): ZoneDiagnostic[] {
  const out: ZoneDiagnostic[] = [];
  if (expects.length === 0) return out;
  const sets = expectedRRsets(expects, records);
  for (const e of expects) {
    const where = { source: e.position };
    const parsed = parseExpect(e.text);
    if (!parsed) {
      out.push(
        diag(
          'NAPTR_EXPECT_SYNTAX',
          'error',
          'expect directive: write "; expect <urn> -> <next.key.> | U <uri> | S <name> | A <name> | P <text> | fail"',
          where,
          e.text,
        ),
      );
      continue;
    }
    if (e.owner === undefined) {
      out.push(
        diag(
          'NAPTR_EXPECT_NO_OWNER',
          'error',
          'expect directive before any record: it has no owner to test',
          where,
          e.text,
        ),
      );
      continue;
    }
    const rrset = sets.get(e.owner) ?? [];
    if (rrset.length === 0) {
      out.push(
        diag(
          'NAPTR_EXPECT_NO_NAPTR',
          'error',
          `expect directive: ${e.owner} has no NAPTR records to apply`,
          where,
          e.owner,
        ),
      );
      continue;
    }
    const step = dddsStep({
      aus: parsed.urn,
      key: e.owner,
      records: rrset,
      service: 'N2L',
      toDnsKey: (t) => {
        const r = toDnsKey(t);
        return r.ok
          ? { ok: true, value: r.value }
          : { ok: false, error: { code: r.error.code, message: r.error.message } };
      },
    });
    const { got, same } = compareOutcome(parsed, step.outcome);
    if (!same) {
      const want = wantText(parsed);
      out.push(
        diag(
          'NAPTR_EXPECT_MISMATCH',
          'error',
          `expect ${parsed.urn} at ${e.owner}: wanted ${want}, the rules give ${got}`,
          where,
          e.text,
        ),
      );
    }
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
