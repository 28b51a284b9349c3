/** Octet strings: equality and order. */

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Octet by octet, a shorter prefix first (RFC 4034 section 6.3 canonical RDATA order). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** The octets as a string of one char each (a map or set key). */
export function latin1(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i += 4096)
    s += String.fromCharCode.apply(null, b.subarray(i, i + 4096) as unknown as number[]);
  return s;
}
