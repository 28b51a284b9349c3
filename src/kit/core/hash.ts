/**
 * FNV-1a (32 bits), the one hash of lexroute's hash tables. Text is hashed by
 * UTF-16 unit and bytes by octet, so an ASCII name hashes the same either
 * way. The result is a signed 32-bit integer (Math.imul's): callers mask it.
 */
export const FNV_OFFSET_BASIS = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** FNV-1a over the code units of `text[start, end)`. */
export function fnv1aText(text: string, start = 0, end = text.length): number {
  let h = FNV_OFFSET_BASIS;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
}

/** FNV-1a over `bytes[start, end)`. */
export function fnv1aBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = FNV_OFFSET_BASIS;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, FNV_PRIME);
  return h;
}
