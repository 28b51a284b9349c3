/**
 * NAPTR RDATA (RFC 3403 section 4.1: ORDER, PREFERENCE, FLAGS, SERVICES,
 * REGEXP as character-strings, REPLACEMENT as a name): the one place that
 * finds its fields; the zone layer, the lint and the client read them from here.
 */

/** Index in `at` of each field's first octet (a character-string's length octet). */
export const NAPTR_FLAGS = 0;
export const NAPTR_SERVICES = 1;
export const NAPTR_REGEXP = 2;
/** Index in `at` of REPLACEMENT's first octet. */
export const NAPTR_REPLACEMENT = 3;

/**
 * Put in `at` the offset of FLAGS, SERVICES, REGEXP (each its length octet)
 * and REPLACEMENT of the NAPTR RDATA `buf[rd, end)`. Returns -1, or the
 * offset of the first field that does not fit. The name is not read.
 */
export function naptrLayout(buf: Uint8Array, rd: number, end: number, at: Int32Array): number {
  if (end - rd < 4) return rd;
  let o = rd + 4;
  for (let k = 0; k < 3; k++) {
    at[k] = o;
    if (o >= end || o + 1 + buf[o]! > end) return o;
    o += 1 + buf[o]!;
  }
  at[NAPTR_REPLACEMENT] = o;
  return -1;
}

/** ORDER of NAPTR RDATA at `rd`. */
export function naptrOrder(buf: Uint8Array, rd: number): number {
  return (buf[rd]! << 8) | buf[rd + 1]!;
}

/** PREFERENCE of NAPTR RDATA at `rd`. */
export function naptrPreference(buf: Uint8Array, rd: number): number {
  return (buf[rd + 2]! << 8) | buf[rd + 3]!;
}
