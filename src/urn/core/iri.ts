/**
 * Raw non-ASCII input (an IRI) to its URI form: code points >= 0x80
 * percent-encoded as UTF-8, upper-case hex (RFC 3987 section 3.1, RFC 9676
 * section 3). Every input path applies it first, so `münchen` and
 * `m%C3%BCnchen` are one name; a lone surrogate is left for the parser to reject.
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

/** The raw-input offset an `encodeIri` offset stands for (diagnostics point at what was written). */
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
