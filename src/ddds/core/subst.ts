/**
 * RFC 3402 section 3.2 substitution expressions (the NAPTR REGEXP field), in
 * wire form (single backslashes; the zone parser undoes `\\`).
 *
 * Interpretation (decisions.md items 1 and 7, digest 2.4-2.5, 15.1-15.14):
 * - The delimiter is the first character; digits, `\`, `i`, NUL and
 *   non-ASCII are refused (as BIND's loader, plus the one-octet ABNF).
 * - Read in pairs left to right (`\\` then the delimiter is an escaped
 *   backslash and a real delimiter); exactly three unescaped delimiters.
 * - In the ERE, `\<delim>` is `<delim>` unless the delimiter is an ERE
 *   metacharacter (then it stays a literal `\<delim>`).
 * - In the replacement `\1`-`\9` are back-references (one digit), `\0` and
 *   references above the group count are errors, `\<delim>` is the delimiter,
 *   any other `\x` stays as both characters.
 * - Flags: `i` only (repeatable). Output is the whole replacement (not sed's
 *   splice), the match a search; code points, not bytes.
 */
import type { Span } from '../../kit/core/diagnostics.ts';
import { err, ok, type Err, type Ok, type Result } from '../../kit/core/result.ts';
import {
  compileEre,
  parseEre,
  ERE_METACHARACTERS,
  type CompiledEre,
  type EreErrorCode,
} from './ere.ts';
import { fastMatchInto, isAscii, prefixRejects } from './fast-match.ts';

/** The REGEXP field is a <character-string>: at most 255 octets. */
export const SUBST_MAX_OCTETS = 255;

export type SubstErrorCode =
  | 'SUBST_EMPTY'
  | 'SUBST_TOO_LONG'
  | 'SUBST_BAD_DELIMITER'
  | 'SUBST_DELIMITER_COUNT'
  | 'SUBST_BAD_FLAG'
  | 'SUBST_BACKREF_ZERO'
  | 'SUBST_BACKREF_RANGE'
  | 'SUBST_NUL'
  | 'SUBST_BAD_INPUT'
  | 'SUBST_ENGINE'
  | 'SUBST_UNREPRESENTABLE'
  | EreErrorCode;

export interface SubstError {
  readonly code: SubstErrorCode;
  readonly message: string;
  /** Position in the REGEXP field (UTF-16 offsets). */
  readonly span: Span;
}

export type ReplPart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'backref'; readonly group: number; readonly span: Span };

export interface SubstExpr {
  /** The REGEXP field as given. */
  readonly source: string;
  readonly delimiter: string;
  /** The ERE after escaped delimiters were resolved, with its AST and translation. */
  readonly ere: CompiledEre;
  /** Span of the ERE in `source`. */
  readonly ereSpan: Span;
  readonly repl: readonly ReplPart[];
  /** Span of the replacement in `source`. */
  readonly replSpan: Span;
  readonly caseInsensitive: boolean;
  /** Highest back-reference used in the replacement (0 when none). */
  readonly maxBackref: number;
}

/** `parseSubstitution` succeeded: `value` is the expression. */
export type ParsedSubstitution = Ok<SubstExpr>;

/** A `Result<SubstExpr, SubstError>`. */
export type ParseSubstitutionResult = ParsedSubstitution | Err<SubstError>;

export type ApplySubstitutionResult =
  | { readonly matched: false; readonly error?: undefined }
  | { readonly matched: true; readonly output: string; readonly error?: undefined }
  | { readonly matched: false; readonly error: SubstError };

function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i += 1;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

function describe(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x20 || cp === 0x7f) return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return `'${ch}'`;
}

/** The field split at its delimiters, before the ERE is parsed. */
interface SubstSplit {
  readonly delim: string;
  /** Offsets of the second and third delimiter. */
  readonly d2: number;
  readonly d3: number;
  readonly caseInsensitive: boolean;
  /** The ERE with escaped delimiters resolved. */
  readonly ere: string;
  /** Map from ERE offsets to field offsets; undefined when it is `i + 1` (nothing resolved). */
  readonly offsets: number[] | undefined;
}

/** The checks before the ERE (empty, length, NUL, delimiter, delimiter count, flags), and its text. */
function splitSubstitution(field: string): SubstSplit | SubstError {
  if (field.length === 0) {
    return substError('SUBST_EMPTY', 'the substitution expression is empty', 0, 0);
  }
  const octets = utf8Length(field);
  if (octets > SUBST_MAX_OCTETS) {
    return substError(
      'SUBST_TOO_LONG',
      `the REGEXP field is ${octets} octets; a <character-string> holds at most ${SUBST_MAX_OCTETS}`,
      0,
      field.length,
    );
  }
  const nul = field.indexOf('\0');
  if (nul >= 0) {
    return substError(
      'SUBST_NUL',
      'NUL is not allowed in a substitution expression (BIND rejects it)',
      nul,
      nul + 1,
    );
  }
  const delimCp = field.codePointAt(0) ?? 0;
  const delim = String.fromCodePoint(delimCp);
  // "delim-char = "/" / "!" / <Any octet not in 'POS-DIGIT' or 'flags'>" (RFC 3402 section 3.2);
  // BIND's loader also refuses '0', '\' and NUL.
  if (delimCp > 0x7f || (delim >= '0' && delim <= '9') || delim === '\\' || delim === 'i') {
    const why =
      delimCp > 0x7f
        ? 'a delimiter must be a single ASCII character'
        : delim === 'i'
          ? "'i' is the flag character and cannot be the delimiter"
          : delim === '\\'
            ? "'\\' is the escape character and cannot be the delimiter"
            : 'digits cannot be delimiters (they would clash with back-references)';
    return substError(
      'SUBST_BAD_DELIMITER',
      `bad delimiter ${describe(delim)}: ${why}`,
      0,
      delim.length,
    );
  }

  // Tokenise in pairs from the left; record the unescaped delimiters.
  const n = field.length;
  let count = 1;
  let d2 = 0;
  let d3 = 0;
  let fourth = -1;
  let escapedDelim = false;
  for (let i = 1; i < n;) {
    const c = field.charCodeAt(i);
    if (c === 0x5c && i + 1 < n) {
      const next = field.charCodeAt(i + 1);
      if (next === delimCp && count === 1) escapedDelim = true;
      // A high surrogate starts a pair: the escape takes the whole code point.
      i += next >= 0xd800 && next <= 0xdbff && i + 2 < n && isLow(field.charCodeAt(i + 2)) ? 3 : 2;
      continue;
    }
    if (c === delimCp) {
      count++;
      if (count === 2) d2 = i;
      else if (count === 3) d3 = i;
      else if (count === 4) fourth = i;
    }
    i += 1;
  }
  if (count !== 3) {
    const where = count > 3 ? fourth : n;
    return substError(
      'SUBST_DELIMITER_COUNT',
      `expected exactly 3 unescaped ${describe(delim)} delimiters (delimiter, ere, delimiter, replacement, delimiter, flags), found ${count}`,
      where,
      count > 3 ? where + 1 : where,
    );
  }

  // Flags: only 'i'.
  let caseInsensitive = false;
  for (let i = d3 + 1; i < n; i++) {
    if (field.charCodeAt(i) !== 0x69) {
      return substError(
        'SUBST_BAD_FLAG',
        `unknown flag ${describe(field[i] ?? '')}: only 'i' (case-insensitive) is defined`,
        i,
        i + 1,
      );
    }
    caseInsensitive = true;
  }

  // ERE: resolve escaped delimiters, keep an offset map for error spans.
  if (!escapedDelim || ERE_METACHARACTERS.includes(delim)) {
    // Nothing to resolve: ERE offset k is field offset k + 1.
    return { delim, d2, d3, caseInsensitive, ere: field.slice(1, d2), offsets: undefined };
  }
  let ere = '';
  const offsets: number[] = [];
  for (let i = 1; i < d2;) {
    const c = field[i] ?? '';
    if (c === '\\' && field[i + 1] === delim) {
      ere += delim;
      offsets.push(i);
      i += 2;
      continue;
    }
    if (c === '\\' && i + 1 < d2) {
      ere += c;
      offsets.push(i);
      i += 1;
      const cp = field.codePointAt(i) ?? 0;
      const len = cp > 0xffff ? 2 : 1;
      for (let k = 0; k < len; k++) {
        ere += field[i + k] ?? '';
        offsets.push(i + k);
      }
      i += len;
      continue;
    }
    ere += c;
    offsets.push(i);
    i += 1;
  }
  offsets.push(d2);
  return { delim, d2, d3, caseInsensitive, ere, offsets };
}

function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

function substError(code: SubstErrorCode, message: string, start: number, end: number): SubstError {
  return { code, message, span: { start, end } };
}

/** The replacement's parts, checked against the group count (errors left to right). */
function parseReplacement(
  field: string,
  split: SubstSplit,
  groupCount: number,
): { repl: ReplPart[]; maxBackref: number } | SubstError {
  const { delim, d2, d3 } = split;
  const repl: ReplPart[] = [];
  let maxBackref = 0;
  // Text is taken as slices between escapes.
  let text = '';
  let from = d2 + 1;
  for (let i = d2 + 1; i < d3;) {
    if (field.charCodeAt(i) !== 0x5c || i + 1 >= d3 + 1) {
      i += 1;
      continue;
    }
    const n = field[i + 1] ?? '';
    if (n === delim) {
      text += field.slice(from, i) + delim;
      i += 2;
      from = i;
      continue;
    }
    if (n === '0') {
      return substError(
        'SUBST_BACKREF_ZERO',
        "'\\0' is not a back-reference (RFC 3402 allows \\1 to \\9; RFC 2915 section 3 excludes 0)",
        i,
        i + 2,
      );
    }
    if (n >= '1' && n <= '9') {
      const group = n.charCodeAt(0) - 0x30;
      if (group > groupCount) {
        return substError(
          'SUBST_BACKREF_RANGE',
          `back-reference '\\${n}' but the regular expression has ${groupCount === 0 ? 'no groups' : groupCount === 1 ? 'only 1 group' : `only ${groupCount} groups`}`,
          i,
          i + 2,
        );
      }
      text += field.slice(from, i);
      if (text !== '') repl.push({ kind: 'text', text });
      text = '';
      repl.push({ kind: 'backref', group, span: { start: i, end: i + 2 } });
      if (group > maxBackref) maxBackref = group;
      i += 2;
      from = i;
      continue;
    }
    // Any other backslash pair is literal text, both characters.
    const cp = field.codePointAt(i + 1) ?? 0;
    i += 1 + (cp > 0xffff ? 2 : 1);
  }
  text += field.slice(from, d3);
  if (text !== '') repl.push({ kind: 'text', text });
  return { repl, maxBackref };
}

/**
 * Parse a REGEXP field (wire form, single backslashes).
 * @see RFC 3402 section 3.2
 */
export function parseSubstitution(field: string): ParseSubstitutionResult {
  const split = splitSubstitution(field);
  if ('code' in split) return err(split);
  const compiled = compileEre(
    split.ere,
    split.offsets === undefined
      ? { caseInsensitive: split.caseInsensitive, shift: 1 }
      : { caseInsensitive: split.caseInsensitive, offsets: split.offsets },
  );
  if (!compiled.ok) return err(compiled.error);
  const r = parseReplacement(field, split, compiled.value.groupCount);
  if ('code' in r) return err(r);
  return ok({
    source: field,
    delimiter: split.delim,
    ere: compiled.value,
    ereSpan: { start: 1, end: split.d2 },
    repl: r.repl,
    replSpan: { start: split.d2 + 1, end: split.d3 },
    caseInsensitive: split.caseInsensitive,
    maxBackref: r.maxBackref,
  });
}

/** Characters a template may stand for (plain literals in the ERE outside brackets and in the replacement). */
export const TEMPLATE_SAFE: Uint8Array = (() => {
  const t = new Uint8Array(128);
  for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_:;@~=,%&-') {
    t[ch.charCodeAt(0)] = 1;
  }
  return t;
})();

/** Stands for a run of template-safe characters in a template key. */
export const RUN = '\u0001';

/**
 * The template of a REGEXP field: each maximal run of TEMPLATE_SAFE
 * characters that can only be literal (in the ERE before its first `[`, in
 * the replacement, never escaped) replaced by RUN. Undefined with an
 * unescaped `{` in the ERE or a U+0001 in the field.
 *
 * Two fields of one template (within SUBST_MAX_OCTETS) are both valid or
 * both invalid with the same group count: every check reads only what the
 * template keeps, and without intervals the engine accepts any such ERE.
 * test/ddds/subst-template.test.ts checks the claim on generated fields.
 */
export function substitutionTemplate(field: string): string | undefined {
  const n = field.length;
  if (n === 0) return undefined;
  const delim = field.charCodeAt(0);
  let key = '';
  let from = 0;
  // 0: ERE, 1: replacement, 2: flags.
  let part = 0;
  let ereRuns = true;
  for (let i = 1; i < n;) {
    const c = field.charCodeAt(i);
    if (c === 0x01) return undefined;
    if (c === 0x5c && i + 1 < n) {
      const next = field.charCodeAt(i + 1);
      if (next === 0x01) return undefined;
      i += next >= 0xd800 && next <= 0xdbff && i + 2 < n && isLow(field.charCodeAt(i + 2)) ? 3 : 2;
      continue;
    }
    if (c === delim) {
      part++;
      i++;
      continue;
    }
    if (part === 0 && (c === 0x5b || c === 0x7b)) {
      if (c === 0x7b) return undefined;
      ereRuns = false;
    }
    if (c < 0x80 && TEMPLATE_SAFE[c] === 1 && (part === 1 || (part === 0 && ereRuns))) {
      key += field.slice(from, i) + RUN;
      i++;
      while (i < n) {
        const d = field.charCodeAt(i);
        if (d >= 0x80 || TEMPLATE_SAFE[d] !== 1 || d === delim) break;
        i++;
      }
      from = i;
      continue;
    }
    i++;
  }
  return key + field.slice(from);
}

/** What the NAPTR lint reads from a REGEXP field. */
export type SubstCheck =
  | {
      readonly ok: true;
      /** The ERE text (escaped delimiters resolved). */
      readonly ere: string;
      readonly repl: readonly ReplPart[];
      readonly caseInsensitive: boolean;
    }
  | { readonly ok: false; readonly error: SubstError };

/**
 * `parseSubstitution`'s verdict on REGEXP fields without what only matching
 * needs: the ERE of a field whose template was seen valid is not parsed again.
 */
export class SubstitutionChecker {
  /** Templates seen valid, with their group count (oldest dropped first). */
  private readonly templates = new Map<string, number>();
  private readonly limit: number;

  constructor(limit = 4096) {
    this.limit = limit;
  }

  check(field: string): SubstCheck {
    const template = substitutionTemplate(field);
    const groups = template === undefined ? undefined : this.templates.get(template);
    if (groups !== undefined) {
      const split = splitSubstitution(field);
      // Only the length can differ between fields of one template.
      if ('code' in split) return err(split);
      const r = parseReplacement(field, split, groups);
      if (!('code' in r)) {
        return { ok: true, ere: split.ere, repl: r.repl, caseInsensitive: split.caseInsensitive };
      }
    }
    const parsed = parseSubstitution(field);
    if (!parsed.ok) return parsed;
    if (template !== undefined) {
      if (this.templates.size >= this.limit) {
        this.templates.delete(this.templates.keys().next().value as string);
      }
      this.templates.set(template, parsed.value.ere.groupCount);
    }
    const e = parsed.value;
    return { ok: true, ere: e.ere.source, repl: e.repl, caseInsensitive: e.caseInsensitive };
  }
}

function isWellFormed(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
      i += 1;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return false;
    }
  }
  return true;
}

/**
 * Apply an expression to the AUS: leftmost-longest search, then the
 * replacement with back-references expanded (a group not taking part gives
 * ''). An empty output is returned; the step counts it as no match.
 */
export function applySubstitution(expr: SubstExpr, input: string): ApplySubstitutionResult {
  // The step applies every rule to the same AUS: its ASCII scan is done once.
  let ascii: boolean;
  if (input === lastInput) {
    ascii = lastAscii;
  } else {
    ascii = isAscii(input);
    lastInput = input;
    lastAscii = ascii;
  }
  if (!ascii && !isWellFormed(input)) {
    const message = 'the input contains an unpaired surrogate (not Unicode text)';
    return { matched: false, error: substError('SUBST_BAD_INPUT', message, 0, 0) };
  }
  const fast = expr.ere.fast;
  if (fast !== undefined) {
    // Engine-free answers where they are provably the engine's (fast-match.ts).
    if (ascii) {
      const bounds = fast.plan?.groupBounds.length ?? 2;
      if (groupScratch.length < bounds) groupScratch = new Int32Array(bounds);
      const r = fastMatchInto(fast, input, groupScratch);
      if (r === 0) return NO_MATCH;
      if (r === 1) {
        const g = groupScratch;
        let output = '';
        for (const part of expr.repl) {
          output +=
            part.kind === 'text'
              ? part.text
              : input.slice(g[2 * part.group] as number, g[2 * part.group + 1] as number);
        }
        return { matched: true, output };
      }
    } else if (prefixRejects(fast, input)) {
      return NO_MATCH;
    }
  }
  let groups: (string | null)[];
  try {
    const m = expr.ere.program.matcher(input);
    if (!m.find()) return NO_MATCH;
    groups = [];
    for (let g = 0; g <= expr.maxBackref; g++) groups.push(m.group(g));
  } catch (e) {
    const message = `regular expression engine error: ${e instanceof Error ? e.message : String(e)}`;
    return { matched: false, error: { code: 'SUBST_ENGINE', message, span: expr.ereSpan } };
  }
  let output = '';
  for (const part of expr.repl) {
    output += part.kind === 'text' ? part.text : (groups[part.group] ?? '');
  }
  return { matched: true, output };
}

const NO_MATCH: ApplySubstitutionResult = Object.freeze({ matched: false });
/* eslint-disable no-restricted-syntax -- module state: the last input's ASCII test (a memo of a
   pure function of the input) and a scratch buffer, used within one synchronous call. */
let lastInput: string | undefined;
let lastAscii = false;
let groupScratch = new Int32Array(20);
/* eslint-enable no-restricted-syntax */

/**
 * Build a REGEXP field from its parts (`ere` as ERE text, `quoteEre` for a
 * literal), escaping the delimiter. Parsed back: what RFC 3402 cannot spell
 * (a literal backslash before a digit, the delimiter or a back-reference) is
 * refused.
 */
export function formatSubstitution(parts: {
  delimiter: string;
  ere: string;
  repl: readonly ReplPart[];
  caseInsensitive?: boolean;
}): Result<string, SubstError> {
  const d = parts.delimiter;
  let ere = '';
  for (let i = 0; i < parts.ere.length; i++) {
    const c = parts.ere[i] ?? '';
    if (c === '\\' && i + 1 < parts.ere.length) {
      // An escape pair stays as it is; `\<delim>` keeps its meaning both ways.
      ere += c + (parts.ere[i + 1] ?? '');
      i += 1;
      continue;
    }
    ere += c === d ? `\\${d}` : c;
  }
  let repl = '';
  for (const p of parts.repl) {
    if (p.kind === 'backref') repl += `\\${p.group}`;
    else for (const c of p.text) repl += c === d ? `\\${d}` : c;
  }
  const field = `${d}${ere}${d}${repl}${d}${parts.caseInsensitive === true ? 'i' : ''}`;
  const back = parseSubstitution(field);
  if (!back.ok) return back;
  const unrepresentable = (message: string, span: Span) =>
    err({ code: 'SUBST_UNREPRESENTABLE' as const, message, span });
  const intended = parseEre(parts.ere);
  if (intended.ok && intended.value.translated !== back.value.ere.translated)
    return unrepresentable(
      `the regular expression uses the delimiter ${describe(d)} as an operator; choose another delimiter`,
      back.value.ereSpan,
    );
  if (replKey(back.value.repl) !== replKey(parts.repl))
    return unrepresentable(
      'the replacement cannot be written: a literal backslash before a digit, the delimiter or a back-reference has no RFC 3402 spelling',
      back.value.replSpan,
    );
  return ok(field);
}

/** Canonical text of a replacement (adjacent text parts merged), for comparisons. */
function replKey(repl: readonly ReplPart[]): string {
  const merged: string[] = [];
  let text = '';
  for (const p of repl) {
    if (p.kind === 'text') text += p.text;
    else {
      merged.push(JSON.stringify(text), String(p.group));
      text = '';
    }
  }
  merged.push(JSON.stringify(text));
  return merged.join(',');
}
