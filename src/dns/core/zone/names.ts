/**
 * Domain names in the zone model: wire form, and the one canonical
 * presentation spelling (lowercased, absolute, `\DDD` for any octet not a
 * letter, digit, `-`, `_` or `*`). RFC 1035 sections 2.3.4 and 5.1.
 */

/** Octets printed as themselves in a name; everything else becomes `\DDD`. */
const PLAIN = new Uint8Array(256);
for (let c = 0x30; c <= 0x39; c++) PLAIN[c] = 1;
for (let c = 0x41; c <= 0x5a; c++) PLAIN[c] = 1;
for (let c = 0x61; c <= 0x7a; c++) PLAIN[c] = 1;
PLAIN[0x2d] = 1; // -
PLAIN[0x5f] = 1; // _
PLAIN[0x2a] = 1; // *

/** Characters allowed unescaped in a name: printable ASCII, as BIND reads them. */
const NAME_CHAR = new Uint8Array(128);
for (let c = 0x21; c < 0x7f; c++) NAME_CHAR[c] = 1;

export type NameError =
  | 'ZONE_EMPTY_LABEL'
  | 'ZONE_LABEL_TOO_LONG'
  | 'ZONE_NAME_TOO_LONG'
  | 'ZONE_BAD_ESCAPE'
  | 'ZONE_NON_ASCII_NAME'
  | 'ZONE_BAD_NAME_CHAR';

export const NAME_ERROR_MESSAGES: Record<NameError, string> = {
  ZONE_EMPTY_LABEL: 'empty label in domain name (RFC 1035 section 5.1: only the root may be empty)',
  ZONE_LABEL_TOO_LONG: 'label longer than 63 octets (RFC 1035 section 2.3.4)',
  ZONE_NAME_TOO_LONG: 'domain name longer than 255 octets on the wire (RFC 1035 section 2.3.4)',
  ZONE_BAD_ESCAPE: 'bad escape: \\DDD must be three decimal digits with a value up to 255',
  ZONE_BAD_NAME_CHAR: 'control character in a domain name: write it as \\DDD',
  ZONE_NON_ASCII_NAME:
    'non-ASCII character in a domain name: write A-labels (xn--...) or \\DDD escapes',
};

/**
 * Encode the presentation name `text[start, end)` into `out` at `offset`; a
 * name without a trailing dot gets `origin` (wire form) appended and
 * `relative` set. Returns the new offset, or a NameError. `@` is the caller's.
 */
export function encodeName(
  text: string,
  start: number,
  end: number,
  origin: Uint8Array | undefined,
  out: Uint8Array,
  offset: number,
  lower = false,
): number | NameError | 'RELATIVE' {
  const base = offset;
  // Root: a lone dot.
  if (end - start === 1 && text.charCodeAt(start) === 0x2e) {
    out[offset] = 0;
    return offset + 1;
  }
  let lenPos = offset;
  offset++;
  let labelLen = 0;
  let absolute = false;
  let i = start;
  while (i < end) {
    let c = text.charCodeAt(i);
    if (c === 0x2e) {
      if (labelLen === 0) return 'ZONE_EMPTY_LABEL';
      out[lenPos] = labelLen;
      lenPos = offset;
      offset++;
      labelLen = 0;
      i++;
      if (i === end) absolute = true;
      continue;
    }
    if (c === 0x5c) {
      if (i + 1 >= end) return 'ZONE_BAD_ESCAPE';
      const d1 = text.charCodeAt(i + 1);
      if (d1 >= 0x30 && d1 <= 0x39) {
        if (i + 3 >= end) return 'ZONE_BAD_ESCAPE';
        const d2 = text.charCodeAt(i + 2);
        const d3 = text.charCodeAt(i + 3);
        if (!(d2 >= 0x30 && d2 <= 0x39 && d3 >= 0x30 && d3 <= 0x39)) return 'ZONE_BAD_ESCAPE';
        c = (d1 - 0x30) * 100 + (d2 - 0x30) * 10 + (d3 - 0x30);
        if (c > 255) return 'ZONE_BAD_ESCAPE';
        i += 4;
      } else {
        c = d1;
        if (c > 0x7f) return 'ZONE_NON_ASCII_NAME';
        i += 2;
      }
    } else {
      if (c > 0x7f) return 'ZONE_NON_ASCII_NAME';
      if (!NAME_CHAR[c]) return 'ZONE_BAD_NAME_CHAR';
      i++;
    }
    if (lower && c >= 0x41 && c <= 0x5a) c += 0x20;
    if (labelLen === 63) return 'ZONE_LABEL_TOO_LONG';
    if (offset - base >= 255) return 'ZONE_NAME_TOO_LONG';
    out[offset++] = c;
    labelLen++;
  }
  if (absolute) {
    // lenPos points at the slot for the terminating root label.
    out[lenPos] = 0;
    if (offset - base > 255) return 'ZONE_NAME_TOO_LONG';
    return offset;
  }
  // Relative: close the last label, then append the origin.
  out[lenPos] = labelLen;
  if (origin === undefined) return 'RELATIVE';
  if (offset - base + origin.length > 255) return 'ZONE_NAME_TOO_LONG';
  out.set(origin, offset);
  return offset + origin.length;
}

/** Length in octets of the wire name starting at `offset` (uncompressed), or -1 if malformed. */
export function wireNameLength(wire: Uint8Array, offset: number, end = wire.length): number {
  let p = offset;
  for (;;) {
    if (p >= end) return -1;
    const len = wire[p]!;
    if (len === 0) return p + 1 - offset;
    if (len > 63) return -1;
    p += len + 1;
  }
}

/**
 * Presentation form of a wire name. `lower` lowercases ASCII letters (the
 * model's spelling for owner names); RDATA names keep their case.
 */
export function nameToText(wire: Uint8Array, offset = 0, lower = true): string {
  const codes: number[] = [];
  let p = offset;
  for (;;) {
    const len = wire[p]!;
    if (len === 0 || len === undefined) break;
    p++;
    for (let k = 0; k < len; k++) {
      let c = wire[p + k]!;
      if (PLAIN[c]) {
        if (lower && c >= 0x41 && c <= 0x5a) c += 0x20;
        codes.push(c);
      } else {
        codes.push(
          0x5c,
          0x30 + Math.floor(c / 100),
          0x30 + (Math.floor(c / 10) % 10),
          0x30 + (c % 10),
        );
      }
    }
    codes.push(0x2e);
    p += len;
  }
  // One flat string (no concatenation tree), as names live as long as the zone.
  return codes.length === 0 ? '.' : String.fromCharCode.apply(null, codes);
}

/** Wire form of a name in the model's canonical spelling (or any valid absolute presentation). */
export function nameToWire(name: string): Uint8Array {
  const buf = new Uint8Array(256);
  const r = encodeName(name, 0, name.length, new Uint8Array([0]), buf, 0);
  if (typeof r !== 'number') throw new RangeError(`invalid domain name ${JSON.stringify(name)}`);
  return buf.slice(0, r);
}

/** The parent of a canonical name (`a.b.` -> `b.`, `b.` -> `.`). */
export function parentName(name: string): string {
  const i = name.indexOf('.');
  if (i < 0 || i === name.length - 1) return '.';
  return name.slice(i + 1);
}

/** True when `name` is `ancestor` or below it (both canonical). */
export function isSubdomain(name: string, ancestor: string): boolean {
  if (ancestor === '.') return true;
  if (name === ancestor) return true;
  return (
    name.length > ancestor.length &&
    name.endsWith(ancestor) &&
    name.charCodeAt(name.length - ancestor.length - 1) === 0x2e
  );
}

/**
 * A string whose code-unit order is the DNSSEC canonical order of names
 * (RFC 4034 section 6.1): labels from the right, separated by "\0\0", an
 * octet 0 inside a label written "\0\1".
 */
export function canonicalSortKey(name: string): string {
  if (name === '.') return '';
  // Canonical names never contain an escaped dot (it is printed \046).
  const labels = name.slice(0, -1).split('.').reverse();
  if (name.indexOf('\\') < 0) return labels.join('\u0000\u0000');
  const octet = (_: string, d: string) => (d === '000' ? '\u0000\u0001' : String.fromCharCode(+d));
  return labels.map((l) => l.replace(/\\([0-9]{3})/g, octet)).join('\u0000\u0000');
}

/** RFC 4034 section 6.1 comparison of two canonical names. */
export function compareNames(a: string, b: string): number {
  const ka = canonicalSortKey(a);
  const kb = canonicalSortKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
