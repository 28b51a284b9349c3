/**
 * The one IPv4 and IPv6 text parser of the core, by inet_pton's rules: IPv4
 * as four decimal octets without leading zeros, IPv6 with at most one `::`
 * and an optional dotted IPv4 tail.
 */

/** IPv4 text `text[start, end)` into 4 octets at `out[o]`; false when it is not one. */
export function parseIpv4(
  text: string,
  start: number,
  end: number,
  out: Uint8Array,
  o: number,
): boolean {
  let part = 0;
  let v = 0;
  let digits = 0;
  for (let i = start; i <= end; i++) {
    const c = i < end ? text.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      if (digits === 0 || part > 3) return false;
      out[o + part] = v;
      part++;
      v = 0;
      digits = 0;
      continue;
    }
    const d = c - 0x30;
    if (d < 0 || d > 9) return false;
    // No leading zeros (inet_pton): "01" is refused.
    if (digits === 1 && v === 0) return false;
    v = v * 10 + d;
    if (v > 255) return false;
    digits++;
  }
  return part === 4;
}

/** IPv6 text `text[start, end)` into 16 octets at `out[o]`; false when it is not one. */
export function parseIpv6(
  text: string,
  start: number,
  end: number,
  out: Uint8Array,
  o: number,
): boolean {
  const words: number[] = [];
  let gap = -1;
  let i = start;
  if (end - start < 2) return false;
  if (text.charCodeAt(i) === 0x3a) {
    if (text.charCodeAt(i + 1) !== 0x3a) return false;
    gap = 0;
    i += 2;
    if (i === end) {
      out.fill(0, o, o + 16);
      return true;
    }
  }
  for (;;) {
    // one group: hex up to 4, or a dotted IPv4 tail
    let j = i;
    let v = 0;
    while (j < end && j - i < 5) {
      const c = text.charCodeAt(j);
      const h = hexValue(c);
      if (h < 0) break;
      v = (v << 4) | h;
      j++;
    }
    if (j < end && text.charCodeAt(j) === 0x2e) {
      // embedded IPv4
      if (words.length > 6) return false;
      const tmp = new Uint8Array(4);
      if (!parseIpv4(text, i, end, tmp, 0)) return false;
      words.push((tmp[0]! << 8) | tmp[1]!, (tmp[2]! << 8) | tmp[3]!);
      break;
    }
    if (j === i || j - i > 4) return false;
    words.push(v);
    i = j;
    if (i === end) break;
    if (text.charCodeAt(i) !== 0x3a) return false;
    i++;
    if (i < end && text.charCodeAt(i) === 0x3a) {
      if (gap >= 0) return false;
      gap = words.length;
      i++;
      if (i === end) break;
    } else if (i === end) return false;
  }
  if (gap < 0) {
    if (words.length !== 8) return false;
  } else if (words.length > 7) return false;
  const full: number[] =
    gap < 0
      ? words
      : [
          ...words.slice(0, gap),
          ...new Array<number>(8 - words.length).fill(0),
          ...words.slice(gap),
        ];
  for (let k = 0; k < 8; k++) {
    out[o + 2 * k] = full[k]! >>> 8;
    out[o + 2 * k + 1] = full[k]! & 0xff;
  }
  return true;
}

/** The value of a hexadecimal digit's char code, -1 when it is not one. */
export function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  if (l >= 0x61 && l <= 0x66) return l - 0x61 + 10;
  return -1;
}

/** An address's octets: 4 for IPv4 and IPv4-mapped IPv6, 16 for other IPv6 (`%zone` ignored); else undefined. */
export function addressOctets(text: string): Uint8Array | undefined {
  if (!text.includes(':')) {
    const v4 = new Uint8Array(4);
    return parseIpv4(text, 0, text.length, v4, 0) ? v4 : undefined;
  }
  const zone = text.indexOf('%');
  const end = zone < 0 ? text.length : zone;
  const v6 = new Uint8Array(16);
  if (!parseIpv6(text, 0, end, v6, 0)) return undefined;
  for (let i = 0; i < 10; i++) if (v6[i] !== 0) return v6;
  return v6[10] === 0xff && v6[11] === 0xff ? v6.slice(12) : v6;
}

/** Is this host a loopback address (127.0.0.0/8 as a dotted quad, ::1, localhost)? */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  const o = addressOctets(host);
  if (o === undefined) return false;
  if (o.length === 4) return o[0] === 127 && !host.includes(':');
  return o.every((x, i) => x === (i === 15 ? 1 : 0));
}
