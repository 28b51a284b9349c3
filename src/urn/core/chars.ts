/** Character classes and percent-encoding helpers of the parsers, on char codes and tables. */

/** ASCII letter. */
export const C_ALPHA = 1;
/** ASCII digit. */
export const C_DIGIT = 2;
/** RFC 9676 `other = "-" / "_" / "'" / "=" / "(" / ")"`. */
export const C_OTHER = 4;
/**
 * RFC 3986 `pchar` without `%`: unreserved / sub-delims / ":" / "@".
 * @see RFC 3986 section 3.3
 */
export const C_PCHAR = 8;
/** Hexadecimal digit. */
export const C_HEX = 16;

/** Class bits of each ASCII code (0-127). */
export const CLASS = new Uint8Array(128);
for (let c = 0x61; c <= 0x7a; c++) CLASS[c] = C_ALPHA | C_PCHAR;
for (let c = 0x41; c <= 0x5a; c++) CLASS[c] = C_ALPHA | C_PCHAR;
for (let c = 0x30; c <= 0x39; c++) CLASS[c] = C_DIGIT | C_PCHAR | C_HEX;
for (let c = 0x61; c <= 0x66; c++) CLASS[c]! |= C_HEX;
for (let c = 0x41; c <= 0x46; c++) CLASS[c]! |= C_HEX;
for (const ch of "-._~!$&'()*+,;=:@") CLASS[ch.charCodeAt(0)]! |= C_PCHAR;
for (const ch of "-_'=()") CLASS[ch.charCodeAt(0)]! |= C_OTHER;

export function isHex(c: number): boolean {
  return c < 128 && (CLASS[c]! & C_HEX) !== 0;
}

export function hexValue(c: number): number {
  if (c <= 0x39) return c - 0x30;
  if (c <= 0x46) return c - 0x37;
  return c - 0x57;
}

/** The octet of the `%hh` triplet at `i` (text[i] is `%`), or -1 when it is not one. */
export function pctOctet(text: string, i: number): number {
  if (i + 2 >= text.length) return -1;
  const a = text.charCodeAt(i + 1);
  const b = text.charCodeAt(i + 2);
  if (!isHex(a) || !isHex(b)) return -1;
  return (hexValue(a) << 4) | hexValue(b);
}

/**
 * Validate the UTF-8 sequence that starts with the percent-encoded octet at
 * `i` (an octet >= 0x80). Returns the index after the whole sequence, or
 * `-(index of the first bad triplet) - 1` when it is not valid UTF-8
 * (RFC 3629 section 4: no overlongs, no surrogates, nothing above U+10FFFF).
 */
export function scanPctUtf8(text: string, i: number): number {
  const b0 = pctOctet(text, i);
  let need: number;
  let min: number;
  let cp: number;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    need = 1;
    min = 0x80;
    cp = b0 & 0x1f;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    need = 2;
    min = 0x800;
    cp = b0 & 0x0f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    need = 3;
    min = 0x10000;
    cp = b0 & 0x07;
  } else {
    return -i - 1;
  }
  let j = i + 3;
  for (let k = 0; k < need; k++, j += 3) {
    if (text.charCodeAt(j) !== 0x25) return -j - 1;
    const b = pctOctet(text, j);
    if (b < 0x80 || b > 0xbf) return -j - 1;
    cp = (cp << 6) | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return -i - 1;
  return j;
}

/** Describe a character for a message: `'a'`, `U+00E9 'é'`, `space`. */
export function describeChar(text: string, i: number): string {
  const cp = text.codePointAt(i) ?? 0;
  if (cp === 0x20) return 'space';
  if (cp < 0x20 || cp === 0x7f) return `control character U+${hex4(cp)}`;
  if (cp < 0x80) return `'${String.fromCharCode(cp)}'`;
  return `U+${hex4(cp)} '${String.fromCodePoint(cp)}'`;
}

export function hex4(cp: number): string {
  return cp.toString(16).toUpperCase().padStart(4, '0');
}

const HEX_UPPER = '0123456789ABCDEF';

/** Percent-encode a string as UTF-8 with upper-case hex (every code point >= 0x80). */
export function pctEncodeNonAscii(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const cp = s.codePointAt(i)!;
    if (cp > 0xffff) i++;
    if (cp < 0x80) {
      out += String.fromCharCode(cp);
      continue;
    }
    const bytes: number[] = [];
    if (cp < 0x800) bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000)
      bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else
      bytes.push(
        0xf0 | (cp >> 18),
        0x80 | ((cp >> 12) & 0x3f),
        0x80 | ((cp >> 6) & 0x3f),
        0x80 | (cp & 0x3f),
      );
    for (const b of bytes) out += '%' + HEX_UPPER[b >> 4] + HEX_UPPER[b & 15];
  }
  return out;
}

/** Decode a run of `%hh` triplets that is known to be valid UTF-8. */
export function pctDecodeUtf8(text: string, start: number, end: number): string {
  let out = '';
  let i = start;
  while (i < end) {
    const b0 = pctOctet(text, i);
    let cp: number;
    let n: number;
    if (b0 < 0x80) {
      cp = b0;
      n = 0;
    } else if (b0 < 0xe0) {
      cp = b0 & 0x1f;
      n = 1;
    } else if (b0 < 0xf0) {
      cp = b0 & 0x0f;
      n = 2;
    } else {
      cp = b0 & 0x07;
      n = 3;
    }
    i += 3;
    for (let k = 0; k < n; k++, i += 3) cp = (cp << 6) | (pctOctet(text, i) & 0x3f);
    out += String.fromCodePoint(cp);
  }
  return out;
}

export function upperHex(b: number): string {
  return HEX_UPPER[b >> 4]! + HEX_UPPER[b & 15]!;
}

/**
 * Lowercase each code point on its own, without `toLowerCase`'s Final_Sigma
 * context ("ΟΣ" -> "οσ"), as UTS #46 and RFC 5895 do.
 */
export function lowerCodePoints(s: string): string {
  let ascii = true;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) ascii = false;
  if (ascii) return s.toLowerCase();
  let out = '';
  for (const ch of s) out += ch.toLowerCase();
  return out;
}
