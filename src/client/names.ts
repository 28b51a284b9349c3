/** Comparing DNS names as the client does (no Node built-ins). */

/** Lowercase and strip one trailing dot, for comparing names. */
export function canonicalName(name: string): string {
  const n = name.endsWith('.') && name.length > 1 ? name.slice(0, -1) : name;
  return n === '.' ? '' : n.toLowerCase();
}

/** `long` is `short` with one trailing dot added. */
function withDot(short: string, long: string): boolean {
  const n = short.length;
  return (
    long.length === n + 1 &&
    long.charCodeAt(n) === 0x2e &&
    short.charCodeAt(n - 1) !== 0x2e &&
    long.startsWith(short)
  );
}

/** Question names compare case-insensitively (RFC 4343). */
export function sameName(a: string, b: string): boolean {
  // The common cases: the same text, or the same name with and without its trailing dot.
  if (a === b || withDot(a, b) || withDot(b, a)) return true;
  return canonicalName(a) === canonicalName(b);
}
