/** The NAPTR lint's warnings on the jurisdiction part of a LEX pattern (`^urn:lex:<code>...`). */
import type { LintCode } from './codes.ts';

/**
 * NAPTR_JURISDICTION_UNBOUNDED (no `[;:]` after the code: `br` matches `brx`)
 * and NAPTR_UNESCAPED_DOT (`un.org` matches `unxorg`); docs/ddds.md section 8.
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

export function isAlnum(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/**
 * One unit of a jurisdiction code at `i` (a character, `%hh`, escape pair,
 * `.` (warned), bracket other than `[;:]`, group; maybe quantified): its end, or -1.
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
  if (c === 0x5b && /^[;:]+$/.test(ere.slice(i + 1, j))) return -1;
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
