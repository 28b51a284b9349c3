/**
 * IDNA2008 lookup checks on one label (RFC 5891 section 5.4, RFC 5892, RFC
 * 5893 Bidi) and Punycode (RFC 3492). Properties come from the pinned UCD
 * tables (idna-tables.ts); Script (CONTEXTO A.4, A.5, A.7) from the engine.
 */
import punycode from 'punycode/punycode.js';
import type { UrnCode } from './codes.ts';
import {
  BIDI_CLASS_NAMES,
  BIDI_RANGES,
  DERIVED_NAMES,
  DERIVED_RANGES,
  JOINING_RANGES,
  JOINING_TYPE_NAMES,
  UNICODE_VERSION,
  VIRAMA,
} from './idna-tables.ts';

export type DerivedProperty = 'PVALID' | 'CONTEXTJ' | 'CONTEXTO' | 'DISALLOWED' | 'UNASSIGNED';

/** A problem in a label: code, message and the offending code-unit index range in the label. */
export interface LabelProblem {
  readonly code: UrnCode;
  readonly message: string;
  readonly start: number;
  readonly end: number;
}

const RE_MARK = /^\p{M}$/u;
const RE_GREEK = /^\p{Script=Greek}$/u;
const RE_HEBREW = /^\p{Script=Hebrew}$/u;
const RE_KANA_HAN = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u;

const VIRAMA_SET: ReadonlySet<number> = new Set(VIRAMA);

/** Binary search of a flat [start, end, value, ...] table; 0 when not listed. */
function lookup(ranges: readonly number[], cp: number): number {
  let lo = 0;
  let hi = ranges.length / 3 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < ranges[mid * 3]!) hi = mid - 1;
    else if (cp > ranges[mid * 3 + 1]!) lo = mid + 1;
    else return ranges[mid * 3 + 2]!;
  }
  return 0;
}

/** The IDNA2008 derived property of a code point (RFC 5892 section 3, generated table). */
export function derivedProperty(cp: number): DerivedProperty {
  return DERIVED_NAMES[lookup(DERIVED_RANGES, cp)]!;
}

/** Bidi_Class name of a code point. */
export function bidiClass(cp: number): (typeof BIDI_CLASS_NAMES)[number] {
  return BIDI_CLASS_NAMES[lookup(BIDI_RANGES, cp)]!;
}

/** Joining_Type of a code point as RFC 5892 appendix A.1 uses it (U stands for U and C). */
export function joiningType(cp: number): (typeof JOINING_TYPE_NAMES)[number] {
  return JOINING_TYPE_NAMES[lookup(JOINING_RANGES, cp)]!;
}

/** The Unicode version of the generated tables (Bidi_Class, Joining_Type, derived property). */
export const IDNA_UNICODE_VERSION: string = UNICODE_VERSION;

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
    if (prop === 'CONTEXTJ' && !contextJ(cps, k)) {
      return {
        code: 'KEY_CONTEXTJ',
        message:
          cp === 0x200c
            ? `${hex(cp)} is only allowed after a virama or between joining letters (RFC 5892 appendix A.1)`
            : `${hex(cp)} is only allowed after a virama (RFC 5892 appendix A.2)`,
        ...where,
      };
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

/**
 * RFC 5892 appendix A.1 (ZERO WIDTH NON-JOINER: after a virama, or
 * (Joining_Type:{L,D})(Joining_Type:T)* ZWNJ (Joining_Type:T)*(Joining_Type:{R,D}))
 * and A.2 (ZERO WIDTH JOINER: after a virama).
 */
function contextJ(cps: readonly number[], k: number): boolean {
  const before = cps[k - 1];
  if (before !== undefined && VIRAMA_SET.has(before)) return true;
  if (cps[k] !== 0x200c) return false;
  let i = k - 1;
  while (i >= 0 && joiningType(cps[i]!) === 'T') i--;
  const left = i >= 0 ? joiningType(cps[i]!) : 'U';
  let j = k + 1;
  while (j < cps.length && joiningType(cps[j]!) === 'T') j++;
  const right = j < cps.length ? joiningType(cps[j]!) : 'U';
  return (left === 'L' || left === 'D') && (right === 'R' || right === 'D');
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
