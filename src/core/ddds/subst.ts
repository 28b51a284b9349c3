/**
 * RFC 3402 section 3.2 substitution expressions (the NAPTR REGEXP field).
 *
 * ```
 * subst-expr   = delim-char  ere  delim-char  repl  delim-char  *flags
 * delim-char   = "/" / "!" / <Any octet not in 'POS-DIGIT' or 'flags'>
 * repl         = *(string / backref)
 * escapeddelim = "\" delim-char
 * backref      = "\" POS-DIGIT
 * flags        = "i"
 * ```
 *
 * The input is the REGEXP value as carried on the wire (single backslashes):
 * the zone-file `\\` doubling is undone by the zone parser, not here.
 *
 * Interpretation (decisions.md items 1 and 7, digest 2.4-2.5, 15.1-15.14):
 * - The first character is the delimiter. Digits, `\`, `i`, NUL and non-ASCII
 *   characters are refused (as BIND's loader does, plus non-ASCII because the
 *   ABNF delimiter is one octet).
 * - The field is read left to right in pairs: `\x` is always one token, so
 *   `\\` followed by the delimiter is an escaped backslash and then a real
 *   delimiter. There must be exactly three unescaped delimiters.
 * - In the ERE, `\<delim>` becomes `<delim>` when the delimiter is not an ERE
 *   metacharacter, and stays `\<delim>` (a literal) when it is.
 * - In the replacement: `\1`-`\9` are back-references (one digit, so `\10` is
 *   `\1` then `0`), `\0` is an error, a back-reference above the group count
 *   is an error, `\<delim>` is the delimiter, any other `\x` is kept as the two
 *   characters `\x`.
 * - Flags: only `i` (case-insensitive matching; repeated `i` is allowed by the
 *   `*flags` ABNF and by BIND).
 * - Output is whole-string: the replacement with its back-references expanded
 *   (not sed's splice into the input). The match is a search, not a full match.
 *   Back-references are never case-mapped here (`U` output keeps case).
 * - Code points, not bytes: the engine works on Unicode scalar values.
 */
import type { Span } from '../diagnostics.ts';
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

export type ParseSubstitutionResult =
  | { readonly ok: true; readonly expr: SubstExpr }
  | { readonly ok: false; readonly error: SubstError };

export type ApplySubstitutionResult =
  | { readonly matched: false; readonly error?: undefined }
  | { readonly matched: true; readonly output: string; readonly error?: undefined }
  | { readonly matched: false; readonly error: SubstError };

function fail(
  code: SubstErrorCode,
  message: string,
  start: number,
  end: number,
): ParseSubstitutionResult {
  return { ok: false, error: { code, message, span: { start, end } } };
}

function utf8Length(text: string): number {
  let n = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

function describe(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x20 || cp === 0x7f) return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return `'${ch}'`;
}

/**
 * Parse a REGEXP field (wire form, single backslashes).
 * @see RFC 3402 section 3.2
 */
export function parseSubstitution(field: string): ParseSubstitutionResult {
  if (field.length === 0) {
    return fail('SUBST_EMPTY', 'the substitution expression is empty', 0, 0);
  }
  const octets = utf8Length(field);
  if (octets > SUBST_MAX_OCTETS) {
    return fail(
      'SUBST_TOO_LONG',
      `the REGEXP field is ${octets} octets; a <character-string> holds at most ${SUBST_MAX_OCTETS}`,
      0,
      field.length,
    );
  }
  const nul = field.indexOf('\0');
  if (nul >= 0) {
    return fail(
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
    return fail('SUBST_BAD_DELIMITER', `bad delimiter ${describe(delim)}: ${why}`, 0, delim.length);
  }

  // Tokenise in pairs from the left; record the unescaped delimiters.
  const delims: number[] = [0];
  for (let i = 1; i < field.length;) {
    const c = field[i];
    if (c === '\\' && i + 1 < field.length) {
      const next = field.codePointAt(i + 1) ?? 0;
      i += 1 + (next > 0xffff ? 2 : 1);
      continue;
    }
    if (c === delim) delims.push(i);
    i += 1;
  }
  if (delims.length !== 3) {
    const where = delims.length > 3 ? (delims[3] ?? field.length) : field.length;
    return fail(
      'SUBST_DELIMITER_COUNT',
      `expected exactly 3 unescaped ${describe(delim)} delimiters (delimiter, ere, delimiter, replacement, delimiter, flags), found ${delims.length}`,
      where,
      delims.length > 3 ? where + 1 : where,
    );
  }
  const d2 = delims[1] ?? 0;
  const d3 = delims[2] ?? 0;

  // Flags: only 'i'.
  let caseInsensitive = false;
  for (let i = d3 + 1; i < field.length; i++) {
    const c = field[i] ?? '';
    if (c !== 'i') {
      return fail(
        'SUBST_BAD_FLAG',
        `unknown flag ${describe(c)}: only 'i' (case-insensitive) is defined`,
        i,
        i + 1,
      );
    }
    caseInsensitive = true;
  }

  // ERE: resolve escaped delimiters, keep an offset map for error spans.
  const delimIsMeta = ERE_METACHARACTERS.includes(delim);
  let ere = '';
  const offsets: number[] = [];
  for (let i = 1; i < d2;) {
    const c = field[i] ?? '';
    if (c === '\\' && field[i + 1] === delim && !delimIsMeta) {
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
  const compiled = compileEre(ere, { caseInsensitive, offsets });
  if (!compiled.ok) {
    const e = compiled.error;
    return fail(e.code, e.message, e.span.start, e.span.end);
  }

  // Replacement.
  const repl: ReplPart[] = [];
  let text = '';
  let maxBackref = 0;
  const groupCount = compiled.value.groupCount;
  for (let i = d2 + 1; i < d3;) {
    const c = field[i] ?? '';
    if (c === '\\' && i + 1 < d3 + 1) {
      const n = field[i + 1] ?? '';
      if (n === delim) {
        text += delim;
        i += 2;
        continue;
      }
      if (n === '0') {
        return fail(
          'SUBST_BACKREF_ZERO',
          "'\\0' is not a back-reference (RFC 3402 allows \\1 to \\9; RFC 2915 section 3 excludes 0)",
          i,
          i + 2,
        );
      }
      if (n >= '1' && n <= '9') {
        const group = n.charCodeAt(0) - 0x30;
        if (group > groupCount) {
          return fail(
            'SUBST_BACKREF_RANGE',
            `back-reference '\\${n}' but the regular expression has ${groupCount === 0 ? 'no groups' : groupCount === 1 ? 'only 1 group' : `only ${groupCount} groups`}`,
            i,
            i + 2,
          );
        }
        if (text !== '') repl.push({ kind: 'text', text });
        text = '';
        repl.push({ kind: 'backref', group, span: { start: i, end: i + 2 } });
        if (group > maxBackref) maxBackref = group;
        i += 2;
        continue;
      }
      // Any other backslash pair is literal text, both characters.
      const cp = field.codePointAt(i + 1) ?? 0;
      const len = cp > 0xffff ? 2 : 1;
      text += field.slice(i, i + 1 + len);
      i += 1 + len;
      continue;
    }
    text += c;
    i += 1;
  }
  if (text !== '') repl.push({ kind: 'text', text });

  return {
    ok: true,
    expr: {
      source: field,
      delimiter: delim,
      ere: compiled.value,
      ereSpan: { start: 1, end: d2 },
      repl,
      replSpan: { start: d2 + 1, end: d3 },
      caseInsensitive,
      maxBackref,
    },
  };
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
 * Apply a parsed expression to an input (the AUS): search for the leftmost-longest
 * match; on a match the output is the replacement with back-references expanded
 * (a group that did not take part gives an empty string). An empty output is
 * returned as is; the DDDS step counts it as "no match" (RFC 3402 section 3.3 step 3).
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
    return {
      matched: false,
      error: {
        code: 'SUBST_BAD_INPUT',
        message: 'the input contains an unpaired surrogate (not Unicode text)',
        span: { start: 0, end: 0 },
      },
    };
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
    return {
      matched: false,
      error: {
        code: 'SUBST_ENGINE',
        message: `regular expression engine error: ${e instanceof Error ? e.message : String(e)}`,
        span: expr.ereSpan,
      },
    };
  }
  let output = '';
  for (const part of expr.repl) {
    output += part.kind === 'text' ? part.text : (groups[part.group] ?? '');
  }
  return { matched: true, output };
}

const NO_MATCH: ApplySubstitutionResult = Object.freeze({ matched: false });
let lastInput: string | undefined;
let lastAscii = false;
let groupScratch = new Int32Array(20);

/**
 * Build a REGEXP field from its parts. `ere` is ERE text (use `quoteEre` for a
 * literal); `repl` is literal text plus back-references. The delimiter is
 * escaped wherever it occurs. The result is parsed back and must give the same
 * replacement: a literal backslash directly before a digit, the delimiter or a
 * back-reference cannot be written in RFC 3402 syntax and is refused.
 */
export function formatSubstitution(parts: {
  delimiter: string;
  ere: string;
  repl: readonly ReplPart[];
  caseInsensitive?: boolean;
}): { ok: true; value: string } | { ok: false; error: SubstError } {
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
  if (!back.ok) return { ok: false, error: back.error };
  const intended = parseEre(parts.ere);
  if (intended.ok && intended.value.translated !== back.expr.ere.translated) {
    return {
      ok: false,
      error: {
        code: 'SUBST_UNREPRESENTABLE',
        message: `the regular expression uses the delimiter ${describe(d)} as an operator; choose another delimiter`,
        span: back.expr.ereSpan,
      },
    };
  }
  if (replKey(back.expr.repl) !== replKey(parts.repl)) {
    return {
      ok: false,
      error: {
        code: 'SUBST_UNREPRESENTABLE',
        message:
          'the replacement cannot be written: a literal backslash before a digit, the delimiter or a back-reference has no RFC 3402 spelling',
        span: back.expr.replSpan,
      },
    };
  }
  return { ok: true, value: field };
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
