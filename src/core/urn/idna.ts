/**
 * IDNA2008 lookup checks on one label (RFC 5891 section 5.4, RFC 5892
 * derived properties and contextual rules, RFC 5893 Bidi rule) and the
 * Punycode step (RFC 3492, via the `punycode` package).
 *
 * The derived property of a code point follows RFC 5892 section 3 in order,
 * computed from the JavaScript engine's Unicode data (General_Category,
 * Noncharacter/Default_Ignorable/White_Space, NFKC) plus generated tables for
 * the two properties JavaScript does not expose (Bidi_Class and the Virama
 * combining class, see idna-tables.ts). Known gap: the CONTEXTJ rule for
 * ZERO WIDTH NON-JOINER after a non-virama needs Joining_Type, which is not
 * available, so such a ZWNJ is rejected.
 */
import punycode from 'punycode/punycode.js';
import type { UrnCode } from './codes.ts';
import { BIDI_CLASS_NAMES, BIDI_RANGES, VIRAMA } from './idna-tables.ts';

export type DerivedProperty = 'PVALID' | 'CONTEXTJ' | 'CONTEXTO' | 'DISALLOWED' | 'UNASSIGNED';

/** A problem in a label: code, message and the offending code-unit index range in the label. */
export interface LabelProblem {
  readonly code: UrnCode;
  readonly message: string;
  readonly start: number;
  readonly end: number;
}

const RE_UNASSIGNED = /^\p{Cn}$/u;
const RE_NONCHAR = /^\p{Noncharacter_Code_Point}$/u;
const RE_IGNORABLE =
  /^[\p{Default_Ignorable_Code_Point}\p{White_Space}\p{Noncharacter_Code_Point}]$/u;
const RE_LETTER_DIGIT = /^[\p{Ll}\p{Lu}\p{Lo}\p{Nd}\p{Lm}\p{Mn}\p{Mc}]$/u;
const RE_MARK = /^\p{M}$/u;
const RE_GREEK = /^\p{Script=Greek}$/u;
const RE_HEBREW = /^\p{Script=Hebrew}$/u;
const RE_KANA_HAN = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u;

/** RFC 5892 section 2.6 exceptions. */
const EXCEPTIONS = new Map<number, DerivedProperty>([
  [0x00df, 'PVALID'],
  [0x03c2, 'PVALID'],
  [0x06fd, 'PVALID'],
  [0x06fe, 'PVALID'],
  [0x0f0b, 'PVALID'],
  [0x3007, 'PVALID'],
  [0x00b7, 'CONTEXTO'],
  [0x0375, 'CONTEXTO'],
  [0x05f3, 'CONTEXTO'],
  [0x05f4, 'CONTEXTO'],
  [0x30fb, 'CONTEXTO'],
  [0x0640, 'DISALLOWED'],
  [0x07fa, 'DISALLOWED'],
  [0x302e, 'DISALLOWED'],
  [0x302f, 'DISALLOWED'],
  [0x3031, 'DISALLOWED'],
  [0x3032, 'DISALLOWED'],
  [0x3033, 'DISALLOWED'],
  [0x3034, 'DISALLOWED'],
  [0x3035, 'DISALLOWED'],
  [0x303b, 'DISALLOWED'],
]);
for (let cp = 0x0660; cp <= 0x0669; cp++) EXCEPTIONS.set(cp, 'CONTEXTO');
for (let cp = 0x06f0; cp <= 0x06f9; cp++) EXCEPTIONS.set(cp, 'CONTEXTO');

const VIRAMA_SET = new Set(VIRAMA);

/** Full case folding approximated by lower(upper(x)), with the two known exceptions. */
function caseFold(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    // Cherokee folds to upper case; dotless i has no folding.
    if ((cp >= 0xab70 && cp <= 0xabbf) || (cp >= 0x13f8 && cp <= 0x13fd)) out += ch.toUpperCase();
    else if (cp === 0x0131) out += ch;
    else out += ch.toUpperCase().toLowerCase();
  }
  return out;
}

const cache = new Map<number, DerivedProperty>();

/** The IDNA2008 derived property of a code point (RFC 5892 section 3). */
export function derivedProperty(cp: number): DerivedProperty {
  const hit = cache.get(cp);
  if (hit) return hit;
  const p = computeProperty(cp);
  cache.set(cp, p);
  return p;
}

function computeProperty(cp: number): DerivedProperty {
  const exc = EXCEPTIONS.get(cp);
  if (exc) return exc; // F
  const s = String.fromCodePoint(cp);
  if (RE_UNASSIGNED.test(s) && !RE_NONCHAR.test(s)) return 'UNASSIGNED'; // J
  if (cp === 0x2d || (cp >= 0x30 && cp <= 0x39) || (cp >= 0x61 && cp <= 0x7a)) return 'PVALID'; // K
  if (cp === 0x200c || cp === 0x200d) return 'CONTEXTJ'; // H
  const nfkc = s.normalize('NFKC');
  if (caseFold(nfkc).normalize('NFKC') !== s) return 'DISALLOWED'; // B: Unstable
  if (RE_IGNORABLE.test(s)) return 'DISALLOWED'; // C
  if ((cp >= 0x20d0 && cp <= 0x20ff) || (cp >= 0x1d100 && cp <= 0x1d24f)) return 'DISALLOWED'; // D
  if (
    (cp >= 0x1100 && cp <= 0x11ff) ||
    (cp >= 0xa960 && cp <= 0xa97f) ||
    (cp >= 0xd7b0 && cp <= 0xd7ff)
  ) {
    return 'DISALLOWED'; // I: OldHangulJamo
  }
  if (RE_LETTER_DIGIT.test(s)) return 'PVALID'; // A
  return 'DISALLOWED';
}

/** Bidi_Class name of a code point. */
export function bidiClass(cp: number): (typeof BIDI_CLASS_NAMES)[number] {
  let lo = 0;
  let hi = BIDI_RANGES.length / 3 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const start = BIDI_RANGES[mid * 3]!;
    if (cp < start) hi = mid - 1;
    else if (cp > BIDI_RANGES[mid * 3 + 1]!) lo = mid + 1;
    else return BIDI_CLASS_NAMES[BIDI_RANGES[mid * 3 + 2]!]!;
  }
  return 'L';
}

function hex(cp: number): string {
  return 'U+' + cp.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * Validate a U-label (lowercase, NFC expected) by RFC 5891 section 5.4 minus
 * Bidi (which is a property of the whole name, see `checkBidi`).
 */
export function checkULabel(label: string): LabelProblem | undefined {
  if (label.normalize('NFC') !== label) {
    return {
      code: 'KEY_NOT_NFC',
      message: 'the label is not in Unicode NFC',
      start: 0,
      end: label.length,
    };
  }
  if (label.length >= 4 && label.charCodeAt(2) === 0x2d && label.charCodeAt(3) === 0x2d) {
    return {
      code: 'KEY_HYPHEN',
      message: 'a U-label must not have "--" in positions 3 and 4',
      start: 2,
      end: 4,
    };
  }
  if (label.charCodeAt(0) === 0x2d || label.charCodeAt(label.length - 1) === 0x2d) {
    return {
      code: 'KEY_HYPHEN',
      message: 'a label must not start or end with "-"',
      start: 0,
      end: label.length,
    };
  }
  const cps = Array.from(label, (c) => c.codePointAt(0)!);
  if (cps.length && RE_MARK.test(String.fromCodePoint(cps[0]!))) {
    return {
      code: 'KEY_LEADING_COMBINING',
      message: `the label starts with the combining mark ${hex(cps[0]!)}`,
      start: 0,
      end: cps[0]! > 0xffff ? 2 : 1,
    };
  }
  let off = 0;
  for (let k = 0; k < cps.length; k++) {
    const cp = cps[k]!;
    const w = cp > 0xffff ? 2 : 1;
    const prop = derivedProperty(cp);
    const where = { start: off, end: off + w };
    if (prop === 'DISALLOWED' || prop === 'UNASSIGNED') {
      return {
        code: 'KEY_DISALLOWED',
        message: `${hex(cp)} '${String.fromCodePoint(cp)}' is ${prop} in IDNA2008 (RFC 5892)`,
        ...where,
      };
    }
    if (prop === 'CONTEXTJ') {
      const before = cps[k - 1];
      if (before === undefined || !VIRAMA_SET.has(before)) {
        return {
          code: 'KEY_CONTEXTJ',
          message: `${hex(cp)} is only allowed after a virama (RFC 5892 appendix A.${cp === 0x200c ? 1 : 2})`,
          ...where,
        };
      }
    }
    if (prop === 'CONTEXTO' && !contextO(cps, k)) {
      return {
        code: 'KEY_CONTEXTO',
        message: `${hex(cp)} is not in a context RFC 5892 appendix A allows`,
        ...where,
      };
    }
    off += w;
  }
  return undefined;
}

/** RFC 5892 appendix A.3-A.9. */
function contextO(cps: readonly number[], k: number): boolean {
  const cp = cps[k]!;
  const before = cps[k - 1];
  const after = cps[k + 1];
  if (cp === 0x00b7) return before === 0x6c && after === 0x6c; // A.3 MIDDLE DOT
  if (cp === 0x0375) return after !== undefined && RE_GREEK.test(String.fromCodePoint(after)); // A.4
  if (cp === 0x05f3 || cp === 0x05f4) {
    return before !== undefined && RE_HEBREW.test(String.fromCodePoint(before)); // A.5, A.6
  }
  if (cp === 0x30fb) {
    return cps.some((c) => c !== 0x30fb && RE_KANA_HAN.test(String.fromCodePoint(c))); // A.7
  }
  if (cp >= 0x0660 && cp <= 0x0669) return !cps.some((c) => c >= 0x06f0 && c <= 0x06f9); // A.8
  if (cp >= 0x06f0 && cp <= 0x06f9) return !cps.some((c) => c >= 0x0660 && c <= 0x0669); // A.9
  return false;
}

/** True when the label has a right-to-left character (R, AL or AN): RFC 5893 section 1.4. */
export function isRtlLabel(label: string): boolean {
  for (const ch of label) {
    const b = bidiClass(ch.codePointAt(0)!);
    if (b === 'R' || b === 'AL' || b === 'AN') return true;
  }
  return false;
}

/**
 * The Bidi rule, RFC 5893 section 2, for one label of a Bidi domain name.
 * Returns the number of the failed condition, or 0.
 */
export function bidiRuleFailure(label: string): number {
  const classes = Array.from(label, (c) => bidiClass(c.codePointAt(0)!));
  if (classes.length === 0) return 0;
  const first = classes[0]!;
  if (first !== 'L' && first !== 'R' && first !== 'AL') return 1;
  let last = classes.length - 1;
  while (last > 0 && classes[last] === 'NSM') last--;
  const end = classes[last]!;
  if (first === 'R' || first === 'AL') {
    const ok = new Set(['R', 'AL', 'AN', 'EN', 'ES', 'CS', 'ET', 'ON', 'BN', 'NSM']);
    if (!classes.every((c) => ok.has(c))) return 2;
    if (end !== 'R' && end !== 'AL' && end !== 'EN' && end !== 'AN') return 3;
    if (classes.includes('EN') && classes.includes('AN')) return 4;
    return 0;
  }
  const ok = new Set(['L', 'EN', 'ES', 'CS', 'ET', 'ON', 'BN', 'NSM']);
  if (!classes.every((c) => ok.has(c))) return 5;
  if (end !== 'L' && end !== 'EN') return 6;
  return 0;
}

/** Punycode-encode a label (RFC 3492); undefined on failure (overflow). */
export function punycodeEncode(label: string): string | undefined {
  try {
    return punycode.encode(label);
  } catch {
    return undefined;
  }
}

/** Punycode-decode (RFC 3492 section 6.2); undefined on failure. */
export function punycodeDecode(encoded: string): string | undefined {
  try {
    return punycode.decode(encoded);
  } catch {
    return undefined;
  }
}
