/** Comparing DNS names as the client does (no Node built-ins). */

/** Lowercase and strip one trailing dot, for comparing names. */
export function canonicalName(name: string): string {
  const n = name.endsWith('.') && name.length > 1 ? name.slice(0, -1) : name;
  return n === '.' ? '' : n.toLowerCase();
}

/** Question names compare case-insensitively (RFC 4343). */
export function sameName(a: string, b: string): boolean {
  if (a === b) return true;
  // The common case: the same name with and without its trailing dot.
  const la = a.length;
  const lb = b.length;
  if (
    lb === la + 1 &&
    b.charCodeAt(la) === 0x2e &&
    a.charCodeAt(la - 1) !== 0x2e &&
    b.startsWith(a)
  ) {
    return true;
  }
  if (
    la === lb + 1 &&
    a.charCodeAt(lb) === 0x2e &&
    b.charCodeAt(lb - 1) !== 0x2e &&
    a.startsWith(b)
  ) {
    return true;
  }
  return canonicalName(a) === canonicalName(b);
}
