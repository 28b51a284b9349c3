/**
 * The absolute, lowercased spelling of a presentation domain name: what every
 * comparison of names, zone origins and DDDS keys in lexroute uses.
 */

/** `Example.COM` -> `example.com.`; a name already absolute keeps its one trailing dot. */
export function absoluteLowerName(name: string): string {
  const n = name.toLowerCase();
  return n.endsWith('.') ? n : `${n}.`;
}
