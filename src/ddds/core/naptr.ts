/**
 * NAPTR fields as the URI/URN resolution application reads them: FLAGS,
 * SERVICES, and the record-level rewrite (REGEXP xor REPLACEMENT).
 *
 * @see RFC 3403 section 4.1 (the record), RFC 3404 sections 4.3-4.4 (flags and
 *   services for URI/URN resolution), digest sections 4.3-4.6, 14, 15.15-15.22,
 *   decisions.md item 5.
 */
import {
  applySubstitution,
  parseSubstitution,
  type ParseSubstitutionResult,
  type SubstExpr,
} from './subst.ts';
import { BoundedMemo } from '../../kit/core/memo.ts';
import { fail, type Err, type Failure, type Ok } from '../../kit/core/result.ts';
import type { ResolutionCode } from './codes.ts';
import type { NaptrData } from '../../dns/core/rr/record.ts';

/** The NAPTR record as the step sees it (wire values): the record model's NAPTR fields, and TTL. */
export type NaptrRecord = { -readonly [K in keyof NaptrData]: NaptrData[K] } & { ttl?: number };

/** The record as the step reports it: NAPTR fields and TTL only (a model record is copied). */
export function stepRecord(r: NaptrRecord): NaptrRecord {
  if ((r as { code?: unknown }).code === undefined) return r;
  const { order, preference, flags, services, regexp, replacement, ttl } = r;
  const out: NaptrRecord = { order, preference, flags, services, regexp, replacement };
  if (ttl !== undefined) out.ttl = ttl;
  return out;
}

/** The same NAPTR fields (an RRset holds no two such records). */
export function sameNaptr(a: NaptrRecord, b: NaptrRecord): boolean {
  return (
    a.order === b.order &&
    a.preference === b.preference &&
    a.flags === b.flags &&
    a.services === b.services &&
    a.regexp === b.regexp &&
    a.replacement === b.replacement
  );
}

export type TerminalFlag = 'U' | 'S' | 'A';
export type KnownFlag = TerminalFlag | 'P';

export type FlagsResult =
  | { readonly kind: 'non-terminal' }
  | { readonly kind: 'flag'; readonly flag: KnownFlag }
  | {
      readonly kind: 'unusable';
      readonly code: 'NAPTR_FLAG_UNKNOWN' | 'NAPTR_FLAG_MULTIPLE' | 'NAPTR_FLAG_INVALID';
      readonly message: string;
    };

/**
 * Read the FLAGS field (A-Z0-9, case-insensitive, may be empty: RFC 3403
 * section 4.1). RFC 3404 section 4.3: an unknown flag makes the record ignored
 * before ordering; S, A, U, P are mutually exclusive, and several make the
 * record unusable too (digest 15.18).
 */
export function parseFlags(flags: string): FlagsResult {
  if (flags === '') return { kind: 'non-terminal' };
  const unusable = (code: Extract<FlagsResult, { kind: 'unusable' }>['code'], message: string) =>
    ({ kind: 'unusable', code, message }) as const;
  const invalid = [...flags].find((ch) => !/^[A-Za-z0-9]$/.test(ch));
  if (invalid !== undefined)
    return unusable(
      'NAPTR_FLAG_INVALID',
      `flag ${JSON.stringify(invalid)} is not in A-Z or 0-9 (RFC 3403 section 4.1)`,
    );
  const upper = flags.toUpperCase();
  const unknown = [...upper].find((ch) => !'SAUP'.includes(ch));
  if (unknown !== undefined)
    return unusable(
      'NAPTR_FLAG_UNKNOWN',
      `unknown flag '${unknown}' (URI/URN resolution defines S, A, U and P; RFC 3404 section 4.3: ignore the record before ordering)`,
    );
  if (upper.length > 1)
    return unusable(
      'NAPTR_FLAG_MULTIPLE',
      `flags '${flags}': S, A, U and P are mutually exclusive (RFC 3404 section 4.3)`,
    );
  return { kind: 'flag', flag: upper as KnownFlag };
}

export interface ParsedServices {
  /** The protocol as written, or undefined when the field has none. */
  readonly protocol: string | undefined;
  /** The resolution services as written (without '+'). */
  readonly services: readonly string[];
}

/** `parseServices` failed: `error` holds the code and message. */
export type ServicesSyntaxError = Err<Failure<'NAPTR_SERVICES_SYNTAX'>>;

/** A `Result<ParsedServices, Failure<'NAPTR_SERVICES_SYNTAX'>>`. */
export type ServicesResult = Ok<ParsedServices> | ServicesSyntaxError;

const TOKEN = /^[A-Za-z][A-Za-z0-9]{0,31}$/;

/**
 * Parse SERVICES, `[ [protocol] *("+" rs) ]` with ALPHA *31ALPHANUM tokens
 * (RFC 3404 section 4.4). Anything else (S-NAPTR `tag:proto`, ...) is an
 * error: the step treats the services as unknown (decisions.md item 5).
 */
export function parseServices(field: string): ServicesResult {
  if (field === '') return { ok: true, value: { protocol: undefined, services: [] } };
  const parts = field.split('+');
  const head = parts[0] ?? '';
  const bad = (message: string): ServicesResult =>
    fail(
      'NAPTR_SERVICES_SYNTAX',
      `services ${JSON.stringify(field)} do not parse under RFC 3404 section 4.4: ${message}`,
    );
  if (head !== '' && !TOKEN.test(head)) {
    return bad(
      `protocol ${JSON.stringify(head)} must be a letter then at most 31 letters or digits`,
    );
  }
  const services: string[] = [];
  for (const rs of parts.slice(1)) {
    if (!TOKEN.test(rs)) {
      return bad(
        `service ${JSON.stringify(rs)} must be a letter then at most 31 letters or digits`,
      );
    }
    services.push(rs);
  }
  return { ok: true, value: { protocol: head === '' ? undefined : head, services } };
}

/** A service token for comparison: lowercase, `I2x` as `N2x` (RFC 2483; decisions.md item 5). */
export function canonicalService(token: string): string {
  const t = token.toLowerCase();
  return /^[in]2/.test(t) ? `n2${t.slice(2)}` : t;
}

export interface ProtocolInfo {
  /** THTTP (RFC 2169) over this URI scheme. */
  readonly scheme: 'http' | 'https';
  /** Default port, used with the `A` flag (NAPTR has no port; RFC 2168 "Advice"). */
  readonly defaultPort: number;
}

/** Protocols spoken: `thttp`/`http` (THTTP over HTTP), `https` (decisions.md item 5). */
export function protocolInfo(protocol: string | undefined): ProtocolInfo | undefined {
  switch (protocol?.toLowerCase()) {
    case 'thttp':
    case 'http':
      return { scheme: 'http', defaultPort: 80 };
    case 'https':
      return { scheme: 'https', defaultPort: 443 };
    default:
      return undefined;
  }
}

export type ServiceCheck =
  | { readonly usable: true; readonly reason: string }
  | { readonly usable: false; readonly code: ResolutionCode; readonly reason: string };

/**
 * Does a record serve the wanted service (RFC 3402 section 3.3 step 4)? A
 * non-empty service list must name it. `U`: a protocol, if any, must be one
 * we speak (digest 15.21); `S`, `A`: a protocol we speak is required; `P`: a
 * protocol is required (the hand-off target).
 */
export function checkServices(
  flags: FlagsResult,
  services: ServicesResult,
  wanted: string,
): ServiceCheck {
  const no = (code: ResolutionCode, reason: string): ServiceCheck => ({
    usable: false,
    code,
    reason,
  });
  const yes = (reason: string): ServiceCheck => ({ usable: true, reason });
  if (!services.ok) return no('NAPTR_SERVICES_SYNTAX', services.error.message);
  const { protocol, services: list } = services.value;
  const want = canonicalService(wanted);
  const listed = list.some((s) => canonicalService(s) === want);
  const listNote = list.length === 0 ? 'no service list' : `services ${list.join('+')}`;
  if (list.length > 0 && !listed)
    return no('NAPTR_SERVICE_UNWANTED', `${listNote} do not include ${wanted}`);
  if (flags.kind === 'non-terminal') return yes(`non-terminal, ${listNote}`);
  if (flags.kind !== 'flag') return no(flags.code, flags.message);
  if (flags.flag === 'P')
    return protocol === undefined
      ? no('NAPTR_PROTOCOL_MISSING', "'P' record names no protocol to hand over to")
      : yes(`hand-off to protocol ${protocol}`);
  if (protocol === undefined)
    return flags.flag === 'U'
      ? yes(`'U' with no protocol (the URI scheme decides), ${listNote}`)
      : no(
          'NAPTR_PROTOCOL_MISSING',
          `'${flags.flag}' record names no protocol (RFC 2915 section 2: a terminal rule must)`,
        );
  if (protocolInfo(protocol) === undefined)
    return no(
      'NAPTR_PROTOCOL_UNKNOWN',
      `protocol ${protocol} is not one this client speaks (thttp, http, https)`,
    );
  return yes(`protocol ${protocol}, ${listNote}`);
}

/** What a record's rewrite produced: the new key or URI, and which field gave it. */
export interface RewriteOutput {
  readonly output: string;
  readonly via: 'regexp' | 'replacement';
}

/** Why a record's rewrite produced nothing. */
export interface RewriteFailure extends Failure<ResolutionCode> {
  /** malformed: the record is in error; no-match: it simply does not apply. */
  readonly kind: 'malformed' | 'no-match';
}

/** `rewrite` succeeded: `value` is the output and how it was made. */
export type RewriteOk = Ok<RewriteOutput>;

/** `rewrite` failed: `error` is the failure. */
export type RewriteErr = Err<RewriteFailure>;

/** A `Result<RewriteOutput, RewriteFailure>`. */
export type RewriteResult = RewriteOk | RewriteErr;

function rewritten(output: string, via: 'regexp' | 'replacement'): RewriteOk {
  return { ok: true, value: { output, via } };
}

function malformed(code: ResolutionCode, message: string): RewriteErr {
  return { ok: false, error: { kind: 'malformed', code, message } };
}

function noMatch(code: ResolutionCode, message: string): RewriteErr {
  return { ok: false, error: { kind: 'no-match', code, message } };
}

const SUBST_CACHE_LIMIT = 1024;
// eslint-disable-next-line no-restricted-syntax -- module state: a bounded memo of a pure parse (same input, same result).
const substCache = new BoundedMemo<string, ParseSubstitutionResult>(SUBST_CACHE_LIMIT);

/** parseSubstitution with a small bounded memo (REGEXP fields repeat across lookups). */
export function parseSubstitutionCached(field: string): ParseSubstitutionResult {
  return substCache.getOrCompute(field, parseSubstitution);
}

/** RFC 3986 absolute-URI: a scheme, then URI characters and `%hh` only, no fragment. */
export function isAbsoluteUri(text: string): boolean {
  const colon = text.indexOf(':');
  if (colon < 1 || !isAlpha(text.charCodeAt(0))) return false;
  for (let i = 1; i < colon; i++) {
    const c = text.charCodeAt(i);
    if (!(isAlpha(c) || isDigitCode(c) || c === 0x2b || c === 0x2d || c === 0x2e)) return false;
  }
  for (let i = colon + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x25) {
      if (!isHexCode(text.charCodeAt(i + 1)) || !isHexCode(text.charCodeAt(i + 2))) return false;
      i += 2;
      continue;
    }
    if (c >= 0x80 || URI_CHARS[c] !== 1) return false;
  }
  return true;
}

/** RFC 3986 unreserved, sub-delims, ':', '@', '/', '?' (no '#': an absolute-URI has no fragment). */
const URI_CHARS: Uint8Array = (() => {
  const t = new Uint8Array(128);
  for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?") {
    t[ch.charCodeAt(0)] = 1;
  }
  return t;
})();

function isAlpha(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHexCode(c: number): boolean {
  return isDigitCode(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/**
 * The record-level rewrite (digest section 14): malformed with both or
 * neither of REGEXP and REPLACEMENT (RFC 3403 section 4.1), or a `U` without
 * REGEXP (RFC 2915 section 2); an empty output is no match (RFC 3402 section
 * 3.3 step 3); a `U` output must be an absolute URI (RFC 3404 section 4.3).
 */
export function rewrite(record: NaptrRecord, aus: string): RewriteResult {
  return rewriteCompiled(compileRecord(record), aus);
}

/** A record's fields read once, with the rewrite results that do not depend on the AUS. */
export interface CompiledRecord {
  readonly flagsField: string;
  readonly servicesField: string;
  readonly regexpField: string;
  readonly replacementField: string;
  readonly flags: FlagsResult;
  readonly services: ServicesResult;
  /** A rewrite result that does not depend on the AUS (malformed, or REPLACEMENT). */
  readonly fixed: RewriteResult | undefined;
  /** The parsed substitution when REGEXP is used. */
  readonly expr: SubstExpr | undefined;
  readonly isU: boolean;
  /** checkServices per wanted service. */
  readonly checks: Map<string, ServiceCheck>;
  noMatch: RewriteResult | undefined;
  emptyOutput: RewriteResult | undefined;
}

/** Compiled records by content (REGEXP, then the other fields): fresh decodes reuse the work. */
const COMPILED_MAX = 2048;
/* eslint-disable no-restricted-syntax -- module state: a memo of a pure compilation keyed by the
   record's content, emptied at COMPILED_MAX entries. */
const compiledByRegexp = new Map<string, CompiledRecord[]>();
let compiledCount = 0;
/* eslint-enable no-restricted-syntax */

/** The compiled form of a record (memoised on its field values, bounded). */
export function compileRecord(record: NaptrRecord): CompiledRecord {
  const list = compiledByRegexp.get(record.regexp);
  if (list !== undefined) {
    for (let i = 0; i < list.length; i++) {
      const c = list[i] as CompiledRecord;
      if (
        c.flagsField === record.flags &&
        c.servicesField === record.services &&
        c.replacementField === record.replacement
      ) {
        return c;
      }
    }
  }
  const c = compileRecordUncached(record);
  if (compiledCount >= COMPILED_MAX) {
    compiledByRegexp.clear();
    compiledCount = 0;
  }
  const l = compiledByRegexp.get(record.regexp);
  if (l === undefined) compiledByRegexp.set(record.regexp, [c]);
  else l.push(c);
  compiledCount++;
  return c;
}

function compileRecordUncached(record: NaptrRecord): CompiledRecord {
  const flags = parseFlags(record.flags);
  const isU = flags.kind === 'flag' && flags.flag === 'U';
  const hasRegexp = record.regexp !== '';
  const hasReplacement = record.replacement !== '' && record.replacement !== '.';
  const parsed = hasRegexp && !hasReplacement ? parseSubstitutionCached(record.regexp) : undefined;
  let fixed: RewriteResult | undefined;
  if (hasRegexp && hasReplacement)
    fixed = malformed(
      'NAPTR_BOTH_FIELDS',
      `both REGEXP and REPLACEMENT (${record.replacement}) are set; RFC 3403 section 4.1: the record is in error and SHOULD be ignored`,
    );
  else if (!hasRegexp && !hasReplacement)
    fixed = malformed(
      'NAPTR_NO_FIELDS',
      'REGEXP is empty and REPLACEMENT is "." : the record produces nothing',
    );
  else if (!hasRegexp)
    fixed = isU
      ? malformed(
          'NAPTR_U_WITHOUT_REGEXP',
          "a 'U' record must produce its URI with REGEXP; a REPLACEMENT is a domain name",
        )
      : rewritten(record.replacement, 'replacement');
  else if (!parsed!.ok) {
    const e = parsed!.error;
    fixed = malformed(
      e.code,
      `REGEXP ${JSON.stringify(record.regexp)} at column ${e.span.start + 1}: ${e.message}`,
    );
  }
  return {
    flagsField: record.flags,
    servicesField: record.services,
    regexpField: record.regexp,
    replacementField: record.replacement,
    flags,
    services: parseServices(record.services),
    isU,
    checks: new Map<string, ServiceCheck>(),
    noMatch: undefined,
    emptyOutput: undefined,
    expr: parsed?.ok ? parsed.value : undefined,
    fixed,
  };
}

/** checkServices for a compiled record, memoised per wanted service. */
export function checkServicesCompiled(c: CompiledRecord, wanted: string): ServiceCheck {
  let check = c.checks.get(wanted);
  if (check === undefined) {
    check = checkServices(c.flags, c.services, wanted);
    if (c.checks.size < 16) c.checks.set(wanted, check);
  }
  return check;
}

/** `rewrite` on a compiled record. */
export function rewriteCompiled(c: CompiledRecord, aus: string): RewriteResult {
  if (c.fixed !== undefined) return c.fixed;
  const expr = c.expr as SubstExpr;
  const applied = applySubstitution(expr, aus);
  if (applied.error !== undefined) {
    return malformed(applied.error.code, applied.error.message);
  }
  if (!applied.matched) {
    return (c.noMatch ??= noMatch(
      'NAPTR_NO_MATCH',
      `REGEXP ${JSON.stringify(c.regexpField)} does not match the AUS`,
    ));
  }
  if (applied.output === '') {
    return (c.emptyOutput ??= noMatch(
      'NAPTR_EMPTY_OUTPUT',
      `REGEXP ${JSON.stringify(c.regexpField)} matches but produces an empty string (RFC 3402 section 3.3: only a non-empty result counts)`,
    ));
  }
  if (c.isU && !isAbsoluteUri(applied.output)) {
    return malformed(
      'NAPTR_U_NOT_URI',
      `'U' output ${JSON.stringify(applied.output)} is not an absolute URI (RFC 3404 section 4.3)`,
    );
  }
  return rewritten(applied.output, 'regexp');
}
