/**
 * The LEX grammar of RFC 9676 section 8, parsed in one hand-written pass over
 * char codes into a tree with spans. Where the RFC is loose (README):
 * - manifestation is `editor ":" format [":" component [":" feature]]`
 *   (section 8 over the ABNF extract);
 * - a raw `|` only as the date-loc separator (LEX_RAW_PIPE; `%7C` canonical);
 * - jurisdiction-code: two or more ASCII characters (section 2.1), no empty
 *   dot-separated part;
 * - details starting `dddd-` are dates, else a `period` (LexML's `2006`);
 * - manifestation specifications may hold `-` (section 5.7's `dtd-nir-2.2`);
 * - language: the RFC 5646 subtag shape (section 8's ABNF cannot say `de-CH`);
 * - partition id: letters, digits, %hh, `.`, other, `;`, `,`, `:`, `+`.
 */
import { C_ALPHA, C_DIGIT, C_OTHER, C_PCHAR, CLASS, describeChar, pctOctet } from './chars.ts';
import type { UrnCode } from './codes.ts';
import { diag, fail, UrnFailure } from './fail.ts';
import { UrnRejected } from './results.ts';
import {
  failBadChar,
  parseUrn8141AllowingPipe,
  scanHead,
  scanPercent as scanRfc8141Percent,
  scanTail,
} from './rfc8141.ts';
import type {
  LexAuthority,
  LexDate,
  LexDetails,
  LexExpression,
  LexIssuer,
  LexJurisdiction,
  LexManifestation,
  LexNumbers,
  LexParseResult,
  LexQualified,
  LexUrn,
  LexVersion,
  LexVersionItem,
  LexWork,
  Segment,
  UrnDiagnostic,
} from './types.ts';

/** alf-dot = alfanum *alfadot */
const ALF_DOT = 0;
/** alf-dot-hyp = alfanum *(alfadot / "-") */
const ALF_DOT_HYP = 1;
/** alf-dot-oth = alfanum *(alfadot / other) */
const ALF_DOT_OTH = 2;

const COLON = 0x3a;
const SEMI = 0x3b;
const COMMA = 0x2c;
const PLUS = 0x2b;
const AT = 0x40;
const DOLLAR = 0x24;
const TILDE = 0x7e;
const PIPE = 0x7c;
const PERCENT = 0x25;
const DOT = 0x2e;
const HYPHEN = 0x2d;

type Writable<T> = { -readonly [K in keyof T]: T[K] };

const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MONTHS = [
  '',
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/**
 * A `%hh` triplet (its whole UTF-8 sequence) in the LEX name, as RFC 8141
 * but no encoded C0, DEL or C1 control (it would reach logs and terminals).
 */
function scanPercent(text: string, i: number): number {
  const end = scanRfc8141Percent(text, i);
  const b = pctOctet(text, i);
  const c1 = b === 0xc2 ? pctOctet(text, i + 3) : -1;
  if (b < 0x20 || b === 0x7f || (c1 >= 0x80 && c1 <= 0x9f)) {
    const cp = b === 0xc2 ? c1 : b;
    fail(
      'LEX_CONTROL_CHAR',
      `"${text.slice(i, end)}" encodes the control character U+${cp.toString(16).toUpperCase().padStart(4, '0')}, which a LEX name cannot contain`,
      i,
      end,
    );
  }
  return end;
}

class Parser {
  readonly text: string;
  readonly n: number;
  readonly warnings: UrnDiagnostic[] = [];

  constructor(text: string) {
    this.text = text;
    this.n = text.length;
  }

  seg(start: number, end: number): Segment {
    return { text: this.text.slice(start, end), span: { start, end } };
  }

  code(i: number): number {
    return i < this.n ? this.text.charCodeAt(i) : -1;
  }

  /** End of the LEX name: end of input, `~` (partition), `?` (components), `#` (fragment). */
  atNameEnd(i: number): boolean {
    if (i >= this.n) return true;
    const c = this.text.charCodeAt(i);
    return c === TILDE || c === 0x3f || c === 0x23;
  }

  /** At the end of the work's elements: the end of the name, or `:`, `@` or `$`. */
  atWorkEnd(i: number): boolean {
    const c = this.code(i);
    return this.atNameEnd(i) || c === COLON || c === AT || c === DOLLAR;
  }

  /** `*(";" part)` from `i`: the parts, and where they end. */
  parts(i: number, kind: number, code: UrnCode, what: string): [Segment[], number] {
    const out: Segment[] = [];
    while (this.code(i) === SEMI) {
      const e = this.need(i + 1, kind, code, what);
      out.push(this.seg(i + 1, e));
      i = e;
    }
    return [out, i];
  }

  /** Read a token of the given kind from `i`; returns its end (== i when there is none). */
  token(i: number, kind: number): number {
    const text = this.text;
    const n = this.n;
    if (i >= n) return i;
    let c = text.charCodeAt(i);
    if (c < 128 && (CLASS[c]! & (C_ALPHA | C_DIGIT)) !== 0) i++;
    else if (c === PERCENT) i = scanPercent(text, i);
    else return i;
    while (i < n) {
      c = text.charCodeAt(i);
      if (c >= 128) break;
      const cls = CLASS[c]!;
      if ((cls & (C_ALPHA | C_DIGIT)) !== 0 || c === DOT) i++;
      else if (c === PERCENT) i = scanPercent(text, i);
      else if (kind === ALF_DOT_HYP && c === HYPHEN) i++;
      else if (kind === ALF_DOT_OTH && (cls & C_OTHER) !== 0) i++;
      else break;
    }
    return i;
  }

  /**
   * Fail at `i`, where the grammar could not go on. Characters that are wrong
   * anywhere get their own code; a separator out of place is LEX_UNEXPECTED;
   * anything else is reported with the code of the element being read.
   */
  stuck(i: number, code: UrnCode, what: string): never {
    const text = this.text;
    if (i >= this.n) fail(code, `${what} is missing at the end of the input`, i, i);
    const c = text.charCodeAt(i);
    if (c === 0x2f) {
      fail(
        'LEX_SLASH',
        '"/" is not allowed in a LEX name (RFC 9676 section 3.2 converts it to "-")',
        i,
        i + 1,
      );
    }
    if (c === 0x2a || c === 0x21) {
      fail(
        'LEX_FUTURE_CHAR',
        `"${String.fromCharCode(c)}" is reserved for future expansion (RFC 9676 section 3.2)` +
          (c === 0x21 ? '; a partition is introduced by "~", not LexML\'s "!"' : ''),
        i,
        i + 1,
      );
    }
    if (c === PERCENT) {
      scanPercent(text, i); // fails on a bad triplet
      fail(code, `"${text.slice(i, i + 3)}" is not allowed in ${what}`, i, i + 3);
    }
    if (c === PIPE) {
      fail(
        'URN_BAD_CHAR',
        '"|" is only accepted as the separator after an ISO date (date "|" date-loc)',
        i,
        i + 1,
      );
    }
    if (c >= 128 || (CLASS[c]! & C_PCHAR) === 0) failBadChar(text, i, 'a LEX name');
    if (c === 0x26)
      fail(
        'LEX_BAD_CHAR',
        '"&" is not allowed anywhere in a LEX name (RFC 9676 section 8)',
        i,
        i + 1,
      );
    if (c === COLON || c === SEMI || c === COMMA || c === PLUS || c === AT || c === DOLLAR) {
      fail('LEX_UNEXPECTED', `unexpected "${String.fromCharCode(c)}" in ${what}`, i, i + 1);
    }
    fail(code, `${describeChar(text, i)} is not allowed in ${what}`, i, i + 1);
  }

  /** A required token; fails with `code` when absent. */
  need(i: number, kind: number, code: UrnCode, what: string): number {
    const end = this.token(i, kind);
    if (end === i) {
      if (this.atNameEnd(i) || i >= this.n) fail(code, `${what} is missing`, i, i);
      const c = this.text.charCodeAt(i);
      if (c === COLON || c === SEMI || c === COMMA || c === PLUS || c === AT || c === DOLLAR) {
        fail(code, `${what} is empty`, i, i);
      }
      this.stuck(i, code, what);
    }
    return end;
  }

  /** `value *(";" specification)` */
  qualified(
    i: number,
    kind: number,
    specKind: number,
    code: UrnCode,
    what: string,
  ): [LexQualified, number] {
    const start = i;
    const end = this.need(i, kind, code, what);
    const value = this.seg(i, end);
    const [specifications, e] = this.parts(end, specKind, code, `a specification of ${what}`);
    return [{ value, specifications, span: { start, end: e } }, e];
  }

  /** After an element: the next character must be one of `allowed` or the end of the name. */
  expect(i: number, allowed: readonly number[], code: UrnCode, what: string): void {
    if (this.atNameEnd(i)) return;
    const c = this.text.charCodeAt(i);
    for (const a of allowed) if (a === c) return;
    this.stuck(i, code, what);
  }

  looksLikeDate(i: number): boolean {
    const t = this.text;
    if (i + 4 >= this.n) return false;
    for (let k = 0; k < 4; k++) {
      const c = t.charCodeAt(i + k);
      if (c < 0x30 || c > 0x39) return false;
    }
    return t.charCodeAt(i + 4) === HYPHEN;
  }

  twoDigits(i: number): number {
    const a = this.code(i) - 0x30;
    const b = this.code(i + 1) - 0x30;
    if (a < 0 || a > 9 || b < 0 || b > 9) return -1;
    const c = this.code(i + 2);
    if (c >= 0x30 && c <= 0x39) return -1;
    return a * 10 + b;
  }

  /** End of the text that looks like one date (for error spans). */
  dateEnd(i: number): number {
    while (i < this.n) {
      const c = this.text.charCodeAt(i);
      if (c < 128 && ((CLASS[c]! & (C_ALPHA | C_DIGIT)) !== 0 || c === HYPHEN)) i++;
      else break;
    }
    return i;
  }

  /** `date = date-iso ["|" date-loc]`, `date-iso = YYYY "-" MM "-" DD` (RFC 9676 section 3.6). */
  date(i: number): [LexDate, number] {
    const t = this.text;
    const start = i;
    const bad = (why: string): never => fail('LEX_BAD_DATE', why, start, this.dateEnd(start));
    const year =
      (t.charCodeAt(i) - 0x30) * 1000 +
      (t.charCodeAt(i + 1) - 0x30) * 100 +
      (t.charCodeAt(i + 2) - 0x30) * 10 +
      (t.charCodeAt(i + 3) - 0x30);
    const month = this.twoDigits(i + 5);
    if (month < 0 || this.code(i + 7) !== HYPHEN) {
      bad(
        `"${t.slice(start, this.dateEnd(start))}" is not YYYY-MM-DD: the month must be two digits followed by "-"`,
      );
    }
    const day = this.twoDigits(i + 8);
    if (day < 0)
      bad(`"${t.slice(start, this.dateEnd(start))}" is not YYYY-MM-DD: the day must be two digits`);
    const isoEnd = i + 10;
    const nextCode = this.code(isoEnd);
    if (
      nextCode >= 0 &&
      nextCode < 128 &&
      ((CLASS[nextCode]! & (C_ALPHA | C_DIGIT)) !== 0 || nextCode === HYPHEN)
    ) {
      bad(
        `"${t.slice(start, this.dateEnd(start))}" is not YYYY-MM-DD: unexpected text after the day`,
      );
    }
    if (month < 1 || month > 12) bad(`month ${month} does not exist`);
    const maxDay = month === 2 && isLeap(year) ? 29 : DAYS[month]!;
    if (day < 1 || day > maxDay) {
      bad(
        month === 2 && day === 29
          ? `${year} is not a leap year: February has 28 days`
          : `day ${day} does not exist in ${MONTHS[month]} (${maxDay} days)`,
      );
    }
    if (year < 1000) {
      this.warnings.push(
        diag(
          'LEX_UNUSUAL_YEAR',
          `year ${t.slice(i, i + 4)} is before 1000; is it a typing error?`,
          start,
          isoEnd,
          'warning',
        ),
      );
    }
    const iso = this.seg(start, isoEnd);
    i = isoEnd;
    let separator: string | undefined;
    let local: Segment | undefined;
    const c = this.code(i);
    if (c === PIPE || (c === PERCENT && pctOctet(t, i) === PIPE)) {
      const sepEnd = c === PIPE ? i + 1 : i + 3;
      separator = t.slice(i, sepEnd);
      if (c === PIPE) {
        this.warnings.push(
          diag(
            'LEX_RAW_PIPE',
            'raw "|" before a local date: accepted; the canonical form is "%7C"',
            i,
            i + 1,
            'warning',
          ),
        );
      }
      // date-loc = *(alfadot / other)
      let j = sepEnd;
      while (j < this.n) {
        const d = t.charCodeAt(j);
        if (d < 128 && ((CLASS[d]! & (C_ALPHA | C_DIGIT | C_OTHER)) !== 0 || d === DOT)) j++;
        else if (d === PERCENT) j = scanPercent(t, j);
        else break;
      }
      local = this.seg(sepEnd, j);
      i = j;
    }
    const date: Writable<LexDate> = { iso, year, month, day, span: { start, end: i } };
    if (separator !== undefined) {
      date.separator = separator;
      date.local = local;
    }
    return [date, i];
  }

  jurisdiction(i: number): [LexJurisdiction, number] {
    const start = i;
    const t = this.text;
    if (this.atNameEnd(i)) fail('LEX_BAD_JURISDICTION', 'the jurisdiction code is missing', i, i);
    const end = this.need(i, ALF_DOT, 'LEX_BAD_JURISDICTION', 'the jurisdiction code');
    for (let k = i; k < end; k++) {
      const c = t.charCodeAt(k);
      if (c === PERCENT) {
        fail(
          'LEX_BAD_JURISDICTION',
          'the jurisdiction code must be plain ASCII (RFC 9676 section 2.1), not percent-encoded',
          k,
          Math.min(end, k + 3),
        );
      }
      if (c === DOT && (k + 1 === end || t.charCodeAt(k + 1) === DOT)) {
        fail(
          'LEX_BAD_JURISDICTION',
          'the jurisdiction code has an empty part between dots',
          start,
          end,
        );
      }
    }
    if (end - i < 2) {
      fail(
        'LEX_BAD_JURISDICTION',
        'the jurisdiction code has fewer than 2 characters (2*alf-dot)',
        i,
        end,
      );
    }
    const code = this.seg(i, end);
    const [units, e] = this.parts(end, ALF_DOT, 'LEX_BAD_JURISDICTION', 'a jurisdiction unit');
    i = e;
    if (this.atNameEnd(i)) {
      fail(
        'LEX_MISSING_AUTHORITY',
        'nothing follows the jurisdiction: a LEX name needs jurisdiction:authority:measure:details',
        i,
        i,
      );
    }
    if (this.code(i) !== COLON) this.stuck(i, 'LEX_BAD_JURISDICTION', 'the jurisdiction');
    return [{ code, units, span: { start, end: i } }, i];
  }

  authority(i: number): [LexAuthority, number] {
    const start = i;
    if (this.atNameEnd(i))
      fail('LEX_MISSING_AUTHORITY', 'the authority is missing after the jurisdiction', i, i);
    const issuers: LexIssuer[] = [];
    for (;;) {
      const istart = i;
      const end = this.need(
        i,
        ALF_DOT,
        'LEX_BAD_AUTHORITY',
        issuers.length ? 'an issuer after "+"' : 'the authority',
      );
      const name = this.seg(i, end);
      const what = 'a body or function of the issuer';
      const [bodyFunctions, e] = this.parts(end, ALF_DOT, 'LEX_BAD_AUTHORITY', what);
      i = e;
      issuers.push({ name, bodyFunctions, span: { start: istart, end: i } });
      if (this.code(i) !== PLUS) break;
      i++;
    }
    if (this.atNameEnd(i)) {
      fail(
        'LEX_MISSING_MEASURE',
        'the measure is missing: a LEX work is authority:measure:details',
        i,
        i,
      );
    }
    if (this.code(i) !== COLON) this.stuck(i, 'LEX_BAD_AUTHORITY', 'the authority');
    return [{ issuers, span: { start, end: i } }, i];
  }

  details(i: number): [LexDetails, number] {
    const start = i;
    if (this.atWorkEnd(i)) {
      fail(
        'LEX_MISSING_DETAILS',
        'the details (date or period, then ";" and a number) are missing',
        i,
        i,
      );
    }
    let dates: LexDate[] | undefined;
    let period: Segment | undefined;
    if (this.looksLikeDate(i)) {
      dates = [];
      for (;;) {
        const [d, e] = this.date(i);
        dates.push(d);
        i = e;
        if (this.code(i) !== COMMA) break;
        i++;
        if (!this.looksLikeDate(i)) {
          fail(
            'LEX_BAD_DATE',
            'expected another YYYY-MM-DD date after ","',
            i,
            Math.max(i, this.dateEnd(i)),
          );
        }
      }
    } else {
      const e = this.need(i, ALF_DOT, 'LEX_BAD_PERIOD', 'the date or period of the details');
      period = this.seg(i, e);
      i = e;
    }
    if (this.code(i) !== SEMI) {
      if (this.atWorkEnd(i)) {
        fail(
          'LEX_MISSING_NUMBER',
          'the details need ";" and a number after the ' +
            (dates ? 'date' : 'period') +
            ' (unnumbered measures use "lex-N", RFC 9676 section 6.3.3)',
          i,
          i,
        );
      }
      this.stuck(i, dates ? 'LEX_BAD_DATE' : 'LEX_BAD_PERIOD', dates ? 'the dates' : 'the period');
    }
    i++;
    const numbers = this.numbers(i);
    i = numbers.span.end;
    this.expect(i, [COLON, AT, DOLLAR], 'LEX_BAD_NUMBER', 'the number');
    const details: Writable<LexDetails> = { numbers, span: { start, end: i } };
    if (dates) details.dates = dates;
    else details.period = period;
    return [details, i];
  }

  /** `numbers = number / number-lex`; `number-lex = "lex-" 1*DIGIT` */
  numbers(i: number): LexNumbers {
    const t = this.text;
    const start = i;
    if (
      (this.code(i) | 0x20) === 0x6c &&
      (this.code(i + 1) | 0x20) === 0x65 &&
      (this.code(i + 2) | 0x20) === 0x78 &&
      this.code(i + 3) === HYPHEN
    ) {
      let j = i + 4;
      while (j < this.n && t.charCodeAt(j) >= 0x30 && t.charCodeAt(j) <= 0x39) j++;
      if (j > i + 4) {
        const c = this.code(j);
        if (this.atNameEnd(j) || c === COLON || c === AT || c === DOLLAR) {
          return {
            kind: 'lex',
            text: this.seg(i, j),
            digits: t.slice(i + 4, j),
            span: { start, end: j },
          };
        }
      }
    }
    const ids: Segment[] = [];
    for (;;) {
      const e = this.need(
        i,
        ALF_DOT_OTH,
        'LEX_BAD_NUMBER',
        ids.length ? 'a number after ","' : 'the number',
      );
      ids.push(this.seg(i, e));
      i = e;
      if (this.code(i) !== COMMA) break;
      i++;
    }
    return { kind: 'ids', ids, span: { start, end: i } };
  }

  versionItem(i: number, first: boolean): [LexVersionItem, number] {
    if (this.looksLikeDate(i)) {
      const [date, e] = this.date(i);
      return [{ kind: 'date', date, span: date.span }, e];
    }
    const e = this.need(
      i,
      ALF_DOT,
      'LEX_BAD_VERSION',
      first
        ? 'the version (a date or a specification such as "original")'
        : 'an event of the version',
    );
    return [{ kind: 'text', text: this.seg(i, e), span: { start: i, end: e } }, e];
  }

  expression(i: number): [LexExpression, number] {
    const start = i;
    const [amendment, e] = this.versionItem(i, true);
    i = e;
    const events: LexVersionItem[] = [];
    while (this.code(i) === SEMI) {
      const [ev, e2] = this.versionItem(i + 1, false);
      events.push(ev);
      i = e2;
    }
    const version: LexVersion = { amendment, events, span: { start, end: i } };
    let language: Segment | undefined;
    if (this.code(i) === COLON) {
      const ls = i + 1;
      const le = this.language(ls);
      language = this.seg(ls, le);
      i = le;
    } else {
      this.expect(i, [DOLLAR], 'LEX_BAD_VERSION', 'the version');
    }
    const expression: Writable<LexExpression> = { version, span: { start, end: i } };
    if (language) expression.language = language;
    return [expression, i];
  }

  /** RFC 5646 subtag shape: 2*8ALPHA *("-" 1*8alphanum). */
  language(i: number): number {
    const t = this.text;
    const start = i;
    while (i < this.n && t.charCodeAt(i) < 128 && (CLASS[t.charCodeAt(i)]! & C_ALPHA) !== 0) i++;
    const len = i - start;
    const whole = (): number => {
      let j = start;
      while (j < this.n) {
        const c = t.charCodeAt(j);
        if (c < 128 && ((CLASS[c]! & (C_ALPHA | C_DIGIT)) !== 0 || c === HYPHEN)) j++;
        else break;
      }
      return Math.max(j, start + 1);
    };
    if (len < 2 || len > 8) {
      if (this.atNameEnd(start) || this.code(start) === DOLLAR)
        fail('LEX_BAD_LANGUAGE', 'the language is missing after ":"', start, start);
      fail(
        'LEX_BAD_LANGUAGE',
        `"${t.slice(start, whole())}" is not a language tag: it must start with 2 to 8 letters (RFC 5646, e.g. "fr", "de-ch")`,
        start,
        whole(),
      );
    }
    while (this.code(i) === HYPHEN) {
      const s = i + 1;
      let j = s;
      while (
        j < this.n &&
        t.charCodeAt(j) < 128 &&
        (CLASS[t.charCodeAt(j)]! & (C_ALPHA | C_DIGIT)) !== 0
      )
        j++;
      if (j === s || j - s > 8) {
        fail(
          'LEX_BAD_LANGUAGE',
          `"${t.slice(start, whole())}" is not a language tag: each subtag after "-" has 1 to 8 letters or digits`,
          start,
          whole(),
        );
      }
      i = j;
    }
    if (!this.atNameEnd(i) && this.code(i) !== DOLLAR) {
      const c = this.code(i);
      if (
        c < 128 &&
        c >= 0 &&
        ((CLASS[c]! & (C_DIGIT | C_OTHER)) !== 0 || c === DOT || c === PERCENT)
      ) {
        fail(
          'LEX_BAD_LANGUAGE',
          `"${t.slice(start, i + 1)}" is not a language tag (RFC 5646)`,
          start,
          i + 1,
        );
      }
      this.stuck(i, 'LEX_BAD_LANGUAGE', 'the language');
    }
    return i;
  }

  manifestation(i: number): [LexManifestation, number] {
    const start = i;
    const code: UrnCode = 'LEX_BAD_MANIFESTATION';
    const element = (at: number, what: string) =>
      this.qualified(at, ALF_DOT_HYP, ALF_DOT_HYP, code, `the ${what} of the manifestation`);
    const [editor, e1] = element(i, 'editor');
    i = e1;
    if (this.code(i) !== COLON) {
      if (this.atNameEnd(i))
        fail(code, 'the format is missing: manifestation = editor ":" format', i, i);
      this.stuck(i, code, 'the editor of the manifestation');
    }
    const [format, e2] = element(i + 1, 'format');
    i = e2;
    let component: LexQualified | undefined;
    let feature: LexQualified | undefined;
    if (this.code(i) === COLON) {
      [component, i] = element(i + 1, 'component');
      if (this.code(i) === COLON) [feature, i] = element(i + 1, 'feature');
    }
    if (!this.atNameEnd(i)) this.stuck(i, code, 'the manifestation');
    const m: Writable<LexManifestation> = { editor, format, span: { start, end: i } };
    if (component) m.component = component;
    if (feature) m.feature = feature;
    return [m, i];
  }

  partition(i: number): number {
    const t = this.text;
    const start = i;
    while (i < this.n) {
      const c = t.charCodeAt(i);
      if (
        c < 128 &&
        ((CLASS[c]! & (C_ALPHA | C_DIGIT | C_OTHER)) !== 0 ||
          c === DOT ||
          c === SEMI ||
          c === COMMA ||
          c === COLON ||
          c === PLUS)
      ) {
        i++;
      } else if (c === PERCENT) {
        i = scanPercent(t, i);
      } else {
        break;
      }
    }
    if (i === start) {
      if (i >= this.n || this.code(i) === 0x3f || this.code(i) === 0x23) {
        fail('LEX_BAD_PARTITION', 'the partition id after "~" is empty', start - 1, start);
      }
    }
    if (i < this.n) {
      const c = t.charCodeAt(i);
      if (c === TILDE) fail('LEX_BAD_PARTITION', 'a second "~" in the partition id', i, i + 1);
      if (c === AT || c === DOLLAR || c === PIPE) {
        fail(
          'LEX_BAD_PARTITION',
          `"${String.fromCharCode(c)}" is not allowed in a partition id`,
          i,
          i + 1,
        );
      }
      if (c !== 0x3f && c !== 0x23) this.stuck(i, 'LEX_BAD_PARTITION', 'the partition id');
    }
    return i;
  }

  parse(): LexUrn {
    const t = this.text;
    const nidEnd = scanHead(t);
    if (
      nidEnd !== 7 ||
      (t.charCodeAt(4) | 0x20) !== 0x6c ||
      (t.charCodeAt(5) | 0x20) !== 0x65 ||
      (t.charCodeAt(6) | 0x20) !== 0x78
    ) {
      fail('LEX_NOT_LEX', `the namespace is "${t.slice(4, nidEnd)}", not "lex"`, 4, nidEnd);
    }
    let i = 8;
    if (this.atNameEnd(i)) fail('URN_EMPTY_NSS', 'the namespace specific string is empty', i, i);
    const [jurisdiction, j1] = this.jurisdiction(i);
    const workStart = j1 + 1;
    const [authority, j2] = this.authority(workStart);
    const ms = j2 + 1;
    if (this.atNameEnd(ms))
      fail('LEX_MISSING_MEASURE', 'the measure is missing after the authority', ms, ms);
    const [measure, j3] = this.qualified(ms, ALF_DOT, ALF_DOT, 'LEX_BAD_MEASURE', 'the measure');
    if (this.atNameEnd(j3)) {
      fail(
        'LEX_MISSING_DETAILS',
        'the details (date or period, then ";" and a number) are missing',
        j3,
        j3,
      );
    }
    if (this.code(j3) !== COLON) this.stuck(j3, 'LEX_BAD_MEASURE', 'the measure');
    const [details, j4] = this.details(j3 + 1);
    i = j4;
    const annexes: LexQualified[] = [];
    while (this.code(i) === COLON) {
      const [annex, e] = this.qualified(i + 1, ALF_DOT, ALF_DOT, 'LEX_BAD_ANNEX', 'the annex');
      annexes.push(annex);
      i = e;
      this.expect(i, [COLON, AT, DOLLAR], 'LEX_BAD_ANNEX', 'the annex');
    }
    const work: LexWork = {
      authority,
      measure,
      details,
      annexes,
      span: { start: workStart, end: i },
    };
    let expression: LexExpression | undefined;
    let manifestation: LexManifestation | undefined;
    if (this.code(i) === AT) {
      [expression, i] = this.expression(i + 1);
    }
    if (this.code(i) === DOLLAR) {
      [manifestation, i] = this.manifestation(i + 1);
    }
    if (!this.atNameEnd(i)) this.stuck(i, 'LEX_UNEXPECTED', 'the LEX name');
    let partition: Segment | undefined;
    if (this.code(i) === TILDE) {
      const e = this.partition(i + 1);
      partition = this.seg(i + 1, e);
      i = e;
    }
    const tail = scanTail(t, i);
    const urn: Writable<LexUrn> = {
      input: t,
      span: { start: 0, end: this.n },
      scheme: this.seg(0, 3),
      nid: this.seg(4, 7),
      jurisdiction,
      work,
    };
    if (expression) urn.expression = expression;
    if (manifestation) urn.manifestation = manifestation;
    if (partition) urn.partition = partition;
    if (tail.rComponent) urn.rComponent = tail.rComponent;
    if (tail.qComponent) urn.qComponent = tail.qComponent;
    if (tail.fComponent) urn.fComponent = tail.fComponent;
    return urn;
  }
}

/**
 * Parse a LEX URN (RFC 9676 section 8) into a tree with spans. Never throws.
 * Error precedence: scheme and NID (`URN_*`, `LEX_NOT_LEX`), then RFC 8141
 * syntax anywhere (re-checked only on rejection), then the LEX grammar.
 */
export function parseLexUrn(text: string): LexParseResult {
  const p = new Parser(text);
  try {
    const urn = p.parse();
    return { ok: true, value: urn, warnings: p.warnings };
  } catch (e) {
    if (!(e instanceof UrnFailure)) throw e;
    const code = e.diagnostic.code;
    if (!code.startsWith('URN_') && code !== 'LEX_NOT_LEX') {
      const base = parseUrn8141AllowingPipe(text);
      if (!base.ok) return base;
    }
    return new UrnRejected(e.diagnostic);
  }
}
