/**
 * POSIX Extended Regular Expressions (the ERE of an RFC 3402 section 3.2
 * substitution expression), parsed with POSIX meaning and translated to the
 * linear-time RE2 engine (`re2js`): DNS regexps are untrusted (RFC 3403
 * section 10, RFC 3404 section 8).
 *
 * Interpretation (decisions.md item 7, digest sections 2.5 and 15.12):
 * - POSIX syntax (Base Definitions 9.4) on code points, no locale: a backslash
 *   in a bracket is literal, `[:alpha:]` etc. are ASCII classes, `[=x=]` and
 *   `[.x.]` single characters only; `.` matches newline, `^`/`$` only at the
 *   ends of the input.
 * - Structural rules follow BIND's `isc_regex_validate`: `{` without a digit,
 *   `}` and an unmatched `)` are literal; empty alternatives and quantifiers
 *   without an atom or after another quantifier are errors.
 * - ERE_UNSUPPORTED: back-references in the ERE, Perl/GNU escapes and groups,
 *   lazy and possessive quantifiers, multi-character collating elements.
 * - Leftmost-longest for the whole match (RE2 longest-match mode). Trap: among
 *   several longest matches RE2 keeps the backtracking one, not POSIX's
 *   leftmost-maximal sub-matches (`(a|ab)(c|bcd)(d*)` on `abcd`); anchored
 *   one-capture patterns, the LEX idiom, are unaffected.
 */
import { RE2JS } from 're2js';
import type { Span } from '../../kit/core/diagnostics.ts';
import { err, ok, type Result } from '../../kit/core/result.ts';
import { buildFastPath, type EreFastPath } from './fast-match.ts';

/** POSIX RE_DUP_MAX lower bound, and the bound BIND enforces. */
export const ERE_DUP_MAX = 255;
/** Maximum nesting of parentheses. */
export const ERE_MAX_DEPTH = 64;

export type EreErrorCode = 'ERE_SYNTAX' | 'ERE_UNSUPPORTED' | 'ERE_INTERVAL_LIMIT' | 'ERE_EMPTY';

export interface EreError {
  readonly code: EreErrorCode;
  readonly message: string;
  readonly span: Span;
}

export type PosixClassName =
  | 'alnum'
  | 'alpha'
  | 'blank'
  | 'cntrl'
  | 'digit'
  | 'graph'
  | 'lower'
  | 'print'
  | 'punct'
  | 'space'
  | 'upper'
  | 'xdigit';

const POSIX_CLASSES: ReadonlySet<string> = new Set([
  'alnum',
  'alpha',
  'blank',
  'cntrl',
  'digit',
  'graph',
  'lower',
  'print',
  'punct',
  'space',
  'upper',
  'xdigit',
]);

export type BracketItem =
  | { readonly type: 'char'; readonly codePoint: number }
  | { readonly type: 'range'; readonly from: number; readonly to: number }
  | { readonly type: 'class'; readonly name: PosixClassName };

export type EreNode =
  | { readonly type: 'literal'; readonly codePoint: number; readonly span: Span }
  | { readonly type: 'any'; readonly span: Span }
  | { readonly type: 'anchor'; readonly kind: 'start' | 'end'; readonly span: Span }
  | {
      readonly type: 'bracket';
      readonly negated: boolean;
      readonly items: readonly BracketItem[];
      readonly span: Span;
    }
  | {
      readonly type: 'group';
      /** 1-based capture index, counted by opening parenthesis from the left. */
      readonly index: number;
      readonly body: EreAlternation;
      readonly span: Span;
    }
  | {
      readonly type: 'repeat';
      readonly min: number;
      /** undefined = unbounded */
      readonly max: number | undefined;
      readonly body: EreNode;
      readonly span: Span;
    };

export interface EreAlternation {
  readonly type: 'alternation';
  readonly branches: readonly (readonly EreNode[])[];
  readonly span: Span;
}

export interface ParsedEre {
  /** The ERE text that was parsed (after the substitution layer removed escaped delimiters). */
  readonly source: string;
  readonly ast: EreAlternation;
  /** Number of capturing groups (`(`), for back-reference checks. */
  readonly groupCount: number;
  /** The equivalent pattern in RE2 syntax. */
  readonly translated: string;
}

/**
 * A parsed ERE ready to run. `program` and `fast` are made on first access
 * (prototype getters: an object spread does not copy them, copy them by name).
 */
export interface CompiledEre extends ParsedEre {
  readonly caseInsensitive: boolean;
  readonly program: RE2JS;
  /** Engine-free paths for anchored patterns on ASCII input (fast-match.ts). */
  readonly fast?: EreFastPath;
}

type ParseResult<T> = Result<T, EreError>;

/** Characters that are special in a POSIX ERE outside a bracket expression. */
export const ERE_METACHARACTERS = '.[\\()*+?{|^$';

const PERL_ESCAPES: Readonly<Record<string, string>> = {
  d: 'Perl class \\d (use [0-9] or [[:digit:]])',
  D: 'Perl class \\D (use [^0-9])',
  w: 'Perl class \\w (use [[:alnum:]_])',
  W: 'Perl class \\W (use [^[:alnum:]_])',
  s: 'Perl class \\s (use [[:space:]])',
  S: 'Perl class \\S (use [^[:space:]])',
  b: 'Perl/GNU word boundary \\b',
  B: 'Perl/GNU non-boundary \\B',
  A: 'Perl anchor \\A (use ^)',
  z: 'Perl anchor \\z (use $)',
  Z: 'Perl anchor \\Z (use $)',
  n: 'escape \\n (write the character itself)',
  t: 'escape \\t (write the character itself)',
  r: 'escape \\r (write the character itself)',
  x: 'escape \\x (write the character itself)',
  u: 'escape \\u (write the character itself)',
  p: 'Unicode property \\p',
  P: 'Unicode property \\P',
  Q: 'Perl quoting \\Q...\\E',
  E: 'Perl quoting \\Q...\\E',
  '<': 'GNU word anchor \\<',
  '>': 'GNU word anchor \\>',
  '`': 'GNU buffer anchor \\`',
  "'": "GNU buffer anchor \\'",
};

class EreParser {
  private readonly text: string;
  private readonly offsets: readonly number[] | undefined;
  private readonly shift: number;
  private pos = 0;
  private groups = 0;
  private depth = 0;

  constructor(text: string, offsets: readonly number[] | undefined, shift: number) {
    this.text = text;
    this.offsets = offsets;
    this.shift = shift;
  }

  /** Position in the caller's coordinates (the whole REGEXP field when offsets are given). */
  at(i: number): number {
    if (this.offsets === undefined) return Math.min(i, this.text.length) + this.shift;
    return this.offsets[i] ?? this.offsets[this.offsets.length - 1] ?? i;
  }

  span(start: number, end: number): Span {
    return { start: this.at(start), end: end > start ? this.at(end - 1) + 1 : this.at(start) };
  }

  fail(code: EreErrorCode, message: string, start: number, end = start + 1): ParseResult<never> {
    const e = Math.min(Math.max(end, start), this.text.length);
    const s = Math.min(start, this.text.length);
    const span =
      s >= this.text.length
        ? { start: this.at(this.text.length), end: this.at(this.text.length) }
        : this.span(s, Math.max(e, s + 1));
    return { ok: false, error: { code, message, span } };
  }

  peekCp(i = this.pos): number | undefined {
    return this.text.codePointAt(i);
  }

  cpLen(cp: number): number {
    return cp > 0xffff ? 2 : 1;
  }

  parse(): ParseResult<{ ast: EreAlternation; groupCount: number }> {
    if (this.text.length === 0) {
      return this.fail('ERE_EMPTY', 'the regular expression is empty', 0, 0);
    }
    const alt = this.parseAlternation();
    if (!alt.ok) return alt;
    if (this.pos < this.text.length) {
      // Only reachable through a ')' at depth 0, which parseBranch treats as literal.
      return this.fail('ERE_SYNTAX', `unexpected '${this.text[this.pos]}'`, this.pos);
    }
    return { ok: true, value: { ast: alt.value, groupCount: this.groups } };
  }

  parseAlternation(): ParseResult<EreAlternation> {
    const start = this.pos;
    const branches: EreNode[][] = [];
    for (;;) {
      const branchStart = this.pos;
      const branch = this.parseBranch();
      if (!branch.ok) return branch;
      branches.push(branch.value);
      const c = this.text[this.pos];
      if (c === '|') {
        if (branch.value.length === 0) {
          return this.fail(
            'ERE_SYNTAX',
            "empty alternative before '|' (POSIX leaves it undefined; BIND rejects it)",
            branchStart === this.pos ? this.pos : branchStart,
          );
        }
        this.pos += 1;
        continue;
      }
      break;
    }
    const last = branches[branches.length - 1];
    if (last !== undefined && last.length === 0) {
      const onlyEmptyGroup = branches.length === 1 && this.depth > 0;
      if (!onlyEmptyGroup) {
        return this.fail(
          'ERE_SYNTAX',
          branches.length === 1
            ? 'the regular expression is empty'
            : "empty alternative after '|' (POSIX leaves it undefined; BIND rejects it)",
          Math.max(this.pos - 1, 0),
        );
      }
    }
    return ok({ type: 'alternation', branches, span: this.span(start, this.pos) });
  }

  parseBranch(): ParseResult<EreNode[]> {
    const nodes: EreNode[] = [];
    while (this.pos < this.text.length) {
      const c = this.text[this.pos];
      if (c === '|') break;
      if (c === ')' && this.depth > 0) break;
      const atom = this.parseAtom();
      if (!atom.ok) return atom;
      let node = atom.value;
      let quantified = false;
      for (;;) {
        const q = this.text[this.pos];
        const qStart = this.pos;
        let min: number;
        let max: number | undefined;
        const interval = q === '{' && isDigit(this.text[this.pos + 1]);
        if (!interval && q !== '*' && q !== '+' && q !== '?') break;
        if (quantified) {
          if (q === '?' || q === '+') {
            const prev = this.text[qStart - 1];
            return this.fail(
              'ERE_UNSUPPORTED',
              q === '?'
                ? `lazy quantifier '${prev}?' is Perl syntax, not POSIX`
                : `possessive quantifier '${prev}+' is not POSIX`,
              qStart - 1,
              qStart + 1,
            );
          }
          return this.fail(
            'ERE_SYNTAX',
            'a quantifier cannot follow another quantifier (undefined in POSIX; BIND rejects it)',
            qStart,
          );
        }
        if (interval) {
          const iv = this.parseInterval();
          if (!iv.ok) return iv;
          min = iv.value.min;
          max = iv.value.max;
        } else {
          this.pos += 1;
          min = q === '+' ? 1 : 0;
          max = q === '?' ? 1 : undefined;
        }
        if (node.type === 'anchor') {
          return this.fail(
            'ERE_SYNTAX',
            `nothing to repeat: '${this.text[qStart]}' follows an anchor`,
            qStart,
          );
        }
        node = {
          type: 'repeat',
          min,
          max,
          body: node,
          span: { start: node.span.start, end: this.span(qStart, this.pos).end },
        };
        quantified = true;
      }
      nodes.push(node);
    }
    return { ok: true, value: nodes };
  }

  parseInterval(): ParseResult<{ min: number; max: number | undefined }> {
    const start = this.pos;
    this.pos += 1; // '{'
    const readNumber = (): number | undefined => {
      const s = this.pos;
      while (isDigit(this.text[this.pos])) this.pos += 1;
      if (this.pos === s) return undefined;
      return Number(this.text.slice(s, this.pos));
    };
    const min = readNumber();
    if (min === undefined) return this.fail('ERE_SYNTAX', 'bad interval', start, this.pos + 1);
    let max: number | undefined = min;
    if (this.text[this.pos] === ',') {
      this.pos += 1;
      max = readNumber();
    }
    if (this.text[this.pos] !== '}') {
      return this.fail(
        'ERE_SYNTAX',
        "bad interval: expected '{m}', '{m,}' or '{m,n}'",
        start,
        this.pos + 1,
      );
    }
    this.pos += 1;
    if (min > ERE_DUP_MAX || (max !== undefined && max > ERE_DUP_MAX)) {
      return this.fail(
        'ERE_INTERVAL_LIMIT',
        `interval bound above ${ERE_DUP_MAX} (POSIX RE_DUP_MAX)`,
        start,
        this.pos,
      );
    }
    if (max !== undefined && min > max) {
      return this.fail(
        'ERE_SYNTAX',
        `bad interval: minimum ${min} is above maximum ${max}`,
        start,
        this.pos,
      );
    }
    return { ok: true, value: { min, max } };
  }

  parseAtom(): ParseResult<EreNode> {
    const start = this.pos;
    const c = this.text[this.pos];
    switch (c) {
      case '(': {
        if (this.text[this.pos + 1] === '?') {
          return this.fail(
            'ERE_UNSUPPORTED',
            "'(?' groups (non-capturing, lookaround, named, inline flags) are Perl syntax, not POSIX",
            start,
            start + 2,
          );
        }
        if (this.depth >= ERE_MAX_DEPTH) {
          return this.fail(
            'ERE_UNSUPPORTED',
            `parentheses nested deeper than ${ERE_MAX_DEPTH}`,
            start,
          );
        }
        this.pos += 1;
        this.groups += 1;
        const index = this.groups;
        this.depth += 1;
        const body = this.parseAlternation();
        this.depth -= 1;
        if (!body.ok) return body;
        if (this.text[this.pos] !== ')') {
          return this.fail('ERE_SYNTAX', "unclosed '('", start);
        }
        this.pos += 1;
        return ok({ type: 'group', index, body: body.value, span: this.span(start, this.pos) });
      }
      case '[':
        return this.parseBracket();
      case '.':
        this.pos += 1;
        return { ok: true, value: { type: 'any', span: this.span(start, this.pos) } };
      case '^':
      case '$':
        this.pos += 1;
        return ok({
          type: 'anchor',
          kind: c === '^' ? 'start' : 'end',
          span: this.span(start, this.pos),
        });
      case '*':
      case '+':
      case '?':
        return this.fail('ERE_SYNTAX', `nothing to repeat: '${c}' has no preceding atom`, start);
      case '{':
        if (isDigit(this.text[this.pos + 1])) {
          return this.fail('ERE_SYNTAX', "nothing to repeat: '{' has no preceding atom", start);
        }
        return this.literalAt(start);
      case '\\': {
        const next = this.peekCp(this.pos + 1);
        if (next === undefined) {
          return this.fail('ERE_SYNTAX', 'trailing backslash', start);
        }
        const ch = String.fromCodePoint(next);
        if (ch >= '1' && ch <= '9') {
          return this.fail(
            'ERE_UNSUPPORTED',
            `back-reference '\\${ch}' inside the regular expression cannot run in linear time`,
            start,
            start + 2,
          );
        }
        if (ch === '0') {
          return this.fail('ERE_UNSUPPORTED', "escape '\\0' is not POSIX", start, start + 2);
        }
        const perl = PERL_ESCAPES[ch];
        if (perl !== undefined) {
          return this.fail('ERE_UNSUPPORTED', `${perl} is not POSIX ERE`, start, start + 2);
        }
        if (/^[A-Za-z]$/.test(ch)) {
          return this.fail(
            'ERE_UNSUPPORTED',
            `escape '\\${ch}' is undefined in POSIX ERE (write '${ch}' without a backslash)`,
            start,
            start + 2,
          );
        }
        this.pos += 1;
        const lit = this.literalAt(this.pos);
        if (!lit.ok) return lit;
        return ok({ ...lit.value, span: this.span(start, this.pos) } as EreNode);
      }
      default:
        return this.literalAt(start);
    }
  }

  literalAt(i: number): ParseResult<EreNode> {
    const cp = this.peekCp(i);
    if (cp === undefined) return this.fail('ERE_SYNTAX', 'unexpected end', i);
    if (cp >= 0xd800 && cp <= 0xdfff) {
      return this.fail('ERE_SYNTAX', 'unpaired surrogate (not a Unicode scalar value)', i);
    }
    this.pos = i + this.cpLen(cp);
    return { ok: true, value: { type: 'literal', codePoint: cp, span: this.span(i, this.pos) } };
  }

  /** One bracket-expression element that may be a range endpoint: a char, [.x.] or [=x=]. */
  parseBracketChar(): ParseResult<
    | { kind: 'char'; cp: number }
    | { kind: 'class'; name: PosixClassName }
    | { kind: 'equiv'; cp: number }
  > {
    const start = this.pos;
    if (this.text[this.pos] === '[') {
      const k = this.text[this.pos + 1];
      if (k === ':' || k === '.' || k === '=') {
        const close = this.text.indexOf(`${k}]`, this.pos + 2);
        if (close < 0) {
          return this.fail(
            'ERE_SYNTAX',
            `unterminated '[${k}' in bracket expression`,
            start,
            start + 2,
          );
        }
        const inner = this.text.slice(this.pos + 2, close);
        this.pos = close + 2;
        if (k === ':') {
          if (!POSIX_CLASSES.has(inner)) {
            return this.fail(
              'ERE_SYNTAX',
              `unknown character class '[:${inner}:]'`,
              start,
              this.pos,
            );
          }
          return { ok: true, value: { kind: 'class', name: inner as PosixClassName } };
        }
        const cps = [...inner];
        if (cps.length === 0) {
          return this.fail(
            'ERE_SYNTAX',
            `empty '[${k}${k}]' in bracket expression`,
            start,
            this.pos,
          );
        }
        if (cps.length !== 1) {
          return this.fail(
            'ERE_UNSUPPORTED',
            `multi-character ${k === '.' ? 'collating element' : 'equivalence class'} '[${k}${inner}${k}]' (only single characters are supported without a locale)`,
            start,
            this.pos,
          );
        }
        const cp = inner.codePointAt(0) ?? 0;
        return { ok: true, value: k === '.' ? { kind: 'char', cp } : { kind: 'equiv', cp } };
      }
    }
    const cp = this.peekCp();
    if (cp === undefined) {
      return this.fail('ERE_SYNTAX', "unterminated bracket expression: missing ']'", start);
    }
    if (cp >= 0xd800 && cp <= 0xdfff) {
      return this.fail('ERE_SYNTAX', 'unpaired surrogate (not a Unicode scalar value)', start);
    }
    this.pos += this.cpLen(cp);
    return { ok: true, value: { kind: 'char', cp } };
  }

  parseBracket(): ParseResult<EreNode> {
    const start = this.pos;
    this.pos += 1; // '['
    let negated = false;
    if (this.text[this.pos] === '^') {
      negated = true;
      this.pos += 1;
    }
    const items: BracketItem[] = [];
    let first = true;
    let lastWasRange = false;
    for (;;) {
      if (this.pos >= this.text.length) {
        return this.fail('ERE_SYNTAX', "unterminated bracket expression: missing ']'", start);
      }
      const c = this.text[this.pos];
      if (c === ']' && !first) {
        this.pos += 1;
        break;
      }
      const itemStart = this.pos;
      if (c === '-' && !first && this.text[this.pos + 1] !== ']' && lastWasRange) {
        return this.fail(
          'ERE_SYNTAX',
          "'-' right after a range is ambiguous: put a literal '-' first or last in the bracket",
          itemStart,
        );
      }
      first = false;
      const lo = this.parseBracketChar();
      if (!lo.ok) return lo;
      lastWasRange = false;
      // A range 'x-y' (a '-' followed by ']' is a literal '-').
      if (
        this.text[this.pos] === '-' &&
        this.text[this.pos + 1] !== ']' &&
        this.pos + 1 < this.text.length
      ) {
        if (lo.value.kind !== 'char') {
          return this.fail(
            'ERE_SYNTAX',
            'a character class or equivalence class cannot start a range',
            itemStart,
            this.pos + 1,
          );
        }
        this.pos += 1;
        const hiStart = this.pos;
        const hi = this.parseBracketChar();
        if (!hi.ok) return hi;
        if (hi.value.kind !== 'char') {
          return this.fail(
            'ERE_SYNTAX',
            'a character class or equivalence class cannot end a range',
            hiStart,
            this.pos,
          );
        }
        if (hi.value.cp < lo.value.cp) {
          return this.fail(
            'ERE_SYNTAX',
            `range out of order: '${String.fromCodePoint(lo.value.cp)}' is after '${String.fromCodePoint(hi.value.cp)}'`,
            itemStart,
            this.pos,
          );
        }
        items.push({ type: 'range', from: lo.value.cp, to: hi.value.cp });
        lastWasRange = true;
        continue;
      }
      if (lo.value.kind === 'class') items.push({ type: 'class', name: lo.value.name });
      else items.push({ type: 'char', codePoint: lo.value.cp });
    }
    return ok({ type: 'bracket', negated, items, span: this.span(start, this.pos) });
  }
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** A code point as a literal in RE2 syntax (valid inside and outside a character class). */
function re2Literal(cp: number): string {
  const ch = String.fromCodePoint(cp);
  if (/^[0-9A-Za-z]$/.test(ch)) return ch;
  // ASCII punctuation: escaped.
  if (/^[!-/:-@[-`{-~]$/.test(ch)) return `\\${ch}`;
  return `\\x{${cp.toString(16).toUpperCase()}}`;
}

function translateNode(node: EreNode): string {
  switch (node.type) {
    case 'literal':
      return re2Literal(node.codePoint);
    case 'any':
      return '.'; // compiled with DOTALL: any character, newline included (POSIX without REG_NEWLINE)
    case 'anchor':
      return node.kind === 'start' ? '^' : '$'; // no MULTILINE: start and end of the input only
    case 'bracket': {
      let out = node.negated ? '[^' : '[';
      for (const item of node.items) {
        if (item.type === 'char') out += re2Literal(item.codePoint);
        else if (item.type === 'range') out += `${re2Literal(item.from)}-${re2Literal(item.to)}`;
        else out += `[:${item.name}:]`;
      }
      return `${out}]`;
    }
    case 'group':
      return `(${translateAlternation(node.body)})`;
    case 'repeat': {
      const body = translateNode(node.body);
      let q: string;
      if (node.min === 0 && node.max === undefined) q = '*';
      else if (node.min === 1 && node.max === undefined) q = '+';
      else if (node.min === 0 && node.max === 1) q = '?';
      else if (node.max === undefined) q = `{${node.min},}`;
      else if (node.max === node.min) q = `{${node.min}}`;
      else q = `{${node.min},${node.max}}`;
      return body + q;
    }
  }
}

function translateAlternation(alt: EreAlternation): string {
  return alt.branches.map((b) => b.map(translateNode).join('')).join('|');
}

/** Parse a POSIX ERE; spans map through `offsets[i]` (into the whole field), else `i + shift`. */
export function parseEre(
  source: string,
  offsets?: readonly number[],
  shift = 0,
): Result<ParsedEre, EreError> {
  const parser = new EreParser(source, offsets, shift);
  const parsed = parser.parse();
  if (!parsed.ok) return parsed;
  return ok({
    source,
    ast: parsed.value.ast,
    groupCount: parsed.value.groupCount,
    translated: translateAlternation(parsed.value.ast),
  });
}

/** Flags for every compiled ERE: POSIX leftmost-longest, `.` matches newline. */
const BASE_FLAGS = RE2JS.LONGEST_MATCH | RE2JS.DOTALL;

function compileProgram(translated: string, caseInsensitive: boolean): RE2JS {
  return RE2JS.compile(translated, BASE_FLAGS | (caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0));
}

/** `CompiledEre` with the program and the fast paths made on first access. */
class LazyCompiledEre implements CompiledEre {
  readonly source: string;
  readonly ast: EreAlternation;
  readonly groupCount: number;
  readonly translated: string;
  readonly caseInsensitive: boolean;
  #program: RE2JS | undefined;
  #fast: EreFastPath | undefined;
  constructor(parsed: ParsedEre, caseInsensitive: boolean, program: RE2JS | undefined) {
    this.source = parsed.source;
    this.ast = parsed.ast;
    this.groupCount = parsed.groupCount;
    this.translated = parsed.translated;
    this.caseInsensitive = caseInsensitive;
    this.#program = program;
  }
  get program(): RE2JS {
    return (this.#program ??= compileProgram(this.translated, this.caseInsensitive));
  }
  get fast(): EreFastPath {
    return (this.#fast ??= buildFastPath(this.ast, this.groupCount, this.caseInsensitive));
  }
}

/**
 * The engine (re2js, as RE2) refuses a translation only by its size limits:
 * 1000 for a repeat count or a product of nested ones, 1,398,101 for the
 * program size estimate, 1000 for the tree height, 33,554,432 runes.
 */
const ENGINE_SAFE_SIZE = 100_000;
const ENGINE_SAFE_SOURCE = 4096;

/**
 * True when the engine certainly accepts the translation: no nested interval
 * (a single one is at most ERE_DUP_MAX), a size upper bound far below the
 * limit, height bounded by ERE_MAX_DEPTH, and a short source (rune count).
 * Otherwise `compileEre` compiles at once so a refusal is still reported at
 * parse time. Checked against the engine by test/ddds/lazy-compile.test.ts.
 */
export function engineCertainlyAccepts(parsed: ParsedEre): boolean {
  return (
    parsed.source.length <= ENGINE_SAFE_SOURCE && altSize(parsed.ast, false) <= ENGINE_SAFE_SIZE
  );
}

/** Upper bound of the engine's size estimate; Infinity for a nested interval. */
function altSize(alt: EreAlternation, inInterval: boolean): number {
  let size = alt.branches.length;
  for (const branch of alt.branches) {
    for (const node of branch) size += nodeSize(node, inInterval);
  }
  return size;
}

function nodeSize(node: EreNode, inInterval: boolean): number {
  switch (node.type) {
    case 'group':
      return 2 + altSize(node.body, inInterval);
    case 'repeat': {
      const interval = !(
        (node.min === 0 || node.min === 1) &&
        (node.max === undefined || (node.min === 0 && node.max === 1))
      );
      if (interval && inInterval) return Number.POSITIVE_INFINITY;
      const sub = nodeSize(node.body, inInterval || interval);
      const n = Math.max(node.max ?? node.min, 1);
      return 2 + n * sub + n;
    }
    default:
      return 1;
  }
}

/**
 * Parse an ERE for the linear-time engine (`offsets`/`shift` as for
 * `parseEre`). An engine refusal is ERE_UNSUPPORTED, never a throw: see
 * `engineCertainlyAccepts` for when the program is compiled at once.
 */
export function compileEre(
  source: string,
  options: { caseInsensitive?: boolean; offsets?: readonly number[]; shift?: number } = {},
): Result<CompiledEre, EreError> {
  const shift = options.offsets === undefined ? (options.shift ?? 0) : 0;
  const parsed = parseEre(source, options.offsets, shift);
  if (!parsed.ok) return parsed;
  const caseInsensitive = options.caseInsensitive === true;
  let program: RE2JS | undefined;
  if (!engineCertainlyAccepts(parsed.value)) {
    try {
      program = compileProgram(parsed.value.translated, caseInsensitive);
    } catch (e) {
      const detail = e instanceof Error ? e.message : String(e);
      const start = options.offsets?.[0] ?? shift;
      const end = options.offsets?.[source.length] ?? source.length + shift;
      const message = `the linear-time engine refuses this expression (${detail})`;
      return err({ code: 'ERE_UNSUPPORTED', message, span: { start, end } });
    }
  }
  return ok(new LazyCompiledEre(parsed.value, caseInsensitive, program));
}

/** Quote text so that the ERE matches it literally (a backslash before each metacharacter). */
export function quoteEre(text: string): string {
  let out = '';
  for (const ch of text) out += ERE_METACHARACTERS.includes(ch) ? `\\${ch}` : ch;
  return out;
}
