/**
 * Raw non-ASCII input (an IRI) to its URI form: every code point >= 0x80
 * percent-encoded as UTF-8 with upper-case hex.
 *
 * @see RFC 3987 section 3.1: "Convert the IRI to a sequence of Unicode
 * characters ... map each character ... to octets using UTF-8 ... apply the
 * percent-encoding to all octets that are not allowed in URIs."
 * @see RFC 9676 section 3: the LEX name is carried in its percent-encoded
 * UTF-8 form, and equivalence is defined on it.
 *
 * The one function every input path that takes a LEX URN (normalise, the
 * resolver's matcher, catalogue rows, the DDDS client's AUS) applies first,
 * so raw `münchen` and `m%C3%BCnchen` are the same name everywhere.
 * A lone surrogate (not a Unicode scalar value, no UTF-8 form) is left as
 * written, so the parser rejects it at its position.
 */
import { pctEncodeNonAscii } from './chars.ts';

export interface IriEncoded {
  /** The URI form (ASCII, unless the input held a lone surrogate). */
  readonly text: string;
  /** True when the input held raw non-ASCII text that was encoded. */
  readonly encoded: boolean;
  /** Offset in the input of the first encoded character (-1 when none). */
  readonly first: number;
}

function isLoneSurrogate(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    return !(d >= 0xdc00 && d <= 0xdfff);
  }
  return c >= 0xdc00 && c <= 0xdfff;
}

/** Percent-encode the raw non-ASCII characters of `text` (RFC 3987 section 3.1). */
export function encodeIri(text: string): IriEncoded {
  let first = -1;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) >= 0x80) {
      first = i;
      break;
    }
  }
  if (first < 0) return { text, encoded: false, first };
  let out = text.slice(0, first);
  let run = first;
  for (let i = first; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (!isLoneSurrogate(text, i)) {
      i++; // a surrogate pair: skip its low half
      continue;
    }
    out += pctEncodeNonAscii(text.slice(run, i)) + text[i];
    run = i + 1;
  }
  out += pctEncodeNonAscii(text.slice(run));
  return { text: out, encoded: true, first };
}

/**
 * The offset in the raw input that an offset in its `encodeIri` form stands
 * for (an offset inside an encoded character maps to that character's start),
 * so a diagnostic points at what the user wrote.
 */
export function rawOffset(raw: string, encodedOffset: number): number {
  let e = 0;
  for (let i = 0; i < raw.length; i++) {
    const cp = raw.codePointAt(i)!;
    const width =
      cp < 0x80 ? 1 : isLoneSurrogate(raw, i) ? 1 : cp < 0x800 ? 6 : cp < 0x10000 ? 9 : 12;
    if (encodedOffset < e + width) return i;
    e += width;
    if (cp > 0xffff) i++;
  }
  return raw.length;
}
