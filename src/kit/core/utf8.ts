/**
 * The one UTF-8 decoder (RFC 3629), by the WHATWG Encoding Standard's
 * algorithm (as Buffer#toString and TextDecoder): `decodeUtf8` turns each
 * maximal invalid subpart into U+FFFD, `decodeUtf8Strict` gives undefined.
 */

/** Scratch UTF-16 units (a DNS string is at most 512 octets here; a longer run gets its own). */
const UNITS = new Uint16Array(512);

/** `bytes[start, end)` when it is all ASCII, else undefined. */
function ascii(bytes: Uint8Array, start: number, end: number): string | undefined {
  for (let i = start; i < end; i++) if (bytes[i]! >= 0x80) return undefined;
  const len = end - start;
  if (len === 0) return '';
  if (len === 1) return String.fromCharCode(bytes[start]!);
  return String.fromCharCode.apply(null, bytes.subarray(start, end) as unknown as number[]);
}

function decode(buf: Uint8Array, start: number, end: number, fatal: boolean): string | undefined {
  const fast = ascii(buf, start, end);
  if (fast !== undefined) return fast;
  // UTF-16 units never outnumber octets.
  const units = end - start <= UNITS.length ? UNITS : new Uint16Array(end - start);
  let n = 0;
  let i = start;
  while (i < end) {
    const b = buf[i]!;
    if (b < 0x80) {
      units[n++] = b;
      i++;
      continue;
    }
    let need: number;
    let cp: number;
    let lower = 0x80;
    let upper = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
      if (b === 0xe0) lower = 0xa0;
      if (b === 0xed) upper = 0x9f;
      need = 2;
      cp = b & 0x0f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      if (b === 0xf0) lower = 0x90;
      if (b === 0xf4) upper = 0x8f;
      need = 3;
      cp = b & 0x07;
    } else {
      if (fatal) return undefined;
      units[n++] = 0xfffd;
      i++;
      continue;
    }
    i++;
    let ok = true;
    for (let k = 0; k < need; k++) {
      if (i >= end) {
        ok = false;
        break;
      }
      const c = buf[i]!;
      if (c < lower || c > upper) {
        ok = false;
        break;
      }
      lower = 0x80;
      upper = 0xbf;
      cp = (cp << 6) | (c & 0x3f);
      i++;
    }
    if (!ok) {
      if (fatal) return undefined;
      // The maximal subpart read so far is one U+FFFD; the offending byte is read again.
      units[n++] = 0xfffd;
      continue;
    }
    if (cp > 0xffff) {
      cp -= 0x10000;
      units[n++] = 0xd800 | (cp >> 10);
      units[n++] = 0xdc00 | (cp & 0x3ff);
    } else {
      units[n++] = cp;
    }
  }
  return String.fromCharCode.apply(null, units.subarray(0, n) as unknown as number[]);
}

/** `bytes[start, end)` as text; invalid sequences become U+FFFD (as Buffer#toString('utf-8')). */
export function decodeUtf8(bytes: Uint8Array, start = 0, end = bytes.length): string {
  return decode(bytes, start, end, false) as string;
}

/** `bytes[start, end)` as text, or undefined when the octets are not UTF-8. */
export function decodeUtf8Strict(
  bytes: Uint8Array,
  start = 0,
  end = bytes.length,
): string | undefined {
  return decode(bytes, start, end, true);
}
