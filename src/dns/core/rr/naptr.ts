/**
 * NAPTR RDATA (RFC 3403 section 4.1), the one decoder of its layout:
 *
 *                                     1  1  1  1  1  1
 *       0  1  2  3  4  5  6  7  8  9  0  1  2  3  4  5
 *     +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
 *     |                     ORDER                     |
 *     |                   PREFERENCE                  |
 *     /                     FLAGS                     /
 *     /                   SERVICES                    /
 *     /                    REGEXP                     /
 *     /                  REPLACEMENT                  /
 *     +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
 *
 * FLAGS, SERVICES and REGEXP are <character-string>s, REPLACEMENT a domain
 * name. The zone layer (additional processing), the NAPTR lint and the
 * client's response decoder all find the fields here and read them in the
 * form they need (lowercased flags and a lookup key, strict UTF-8 text, the
 * client's strings); no other module walks NAPTR RDATA.
 */

/** Index in `at` of each field's first octet (a character-string's length octet). */
export const NAPTR_FLAGS = 0;
export const NAPTR_SERVICES = 1;
export const NAPTR_REGEXP = 2;
/** Index in `at` of REPLACEMENT's first octet. */
export const NAPTR_REPLACEMENT = 3;

/**
 * Find the fields of the NAPTR RDATA `buf[rd, end)`: `at` gets the offset of
 * FLAGS, SERVICES, REGEXP (each its length octet) and REPLACEMENT. Returns -1
 * when the three strings fit before `end`, else the offset of the first
 * field that does not (ORDER and PREFERENCE missing: `rd`). The name is not
 * read: the caller reads it in its own form, compressed or not.
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
