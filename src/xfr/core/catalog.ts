/**
 * Catalog zones (RFC 9432, schema version 2), the pure part: the zone text
 * (SOA, NS `invalid.` per section 4.1, `version` TXT "2", one `<id>.zones`
 * PTR per member) and the member label, a hash of the lowercased name so it
 * is stable across versions and restarts (section 4.4.1: a changed label
 * means remove and add again).
 */

import { serialAdd, serialCompare } from './serial.ts';

/** The name of the catalog's member `origin` label: 16 hex digits of FNV-1a 64 over the lowercased name. */
export function catalogMemberId(origin: string): string {
  let h = 0xcbf29ce484222325n;
  const lower = origin.toLowerCase();
  const name = lower.endsWith('.') ? lower : `${lower}.`;
  for (let i = 0; i < name.length; i++) {
    h ^= BigInt(name.charCodeAt(i) & 0xff);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

/** The serial of a new catalog version: the clock's seconds, or one past the previous one. */
export function nextCatalogSerial(previous: number | undefined, nowSeconds: number): number {
  const t = Math.floor(nowSeconds) >>> 0;
  if (previous === undefined) return t;
  return serialCompare(t, previous) > 0 ? t : serialAdd(previous, 1);
}

/** A catalog's content: its name, serial and members (absolute names, any order), and members' groups. */
export interface CatalogContent {
  readonly name: string;
  readonly serial: number;
  readonly members: readonly string[];
  /** `group` properties (RFC 9432 section 5.2) by member (lowercase, absolute). */
  readonly groups?: Readonly<Record<string, readonly string[]>>;
}

/** The members sorted and lowercased, without duplicates: the set a catalog version lists. */
export function catalogMembers(origins: Iterable<string>, catalog: string): string[] {
  const own = catalog.toLowerCase();
  const set = new Set<string>();
  for (const o of origins) {
    const n = o.toLowerCase();
    if (n !== own) set.add(n);
  }
  return [...set].sort();
}

/** The zone text of a catalog (master file format, every name absolute). */
export function catalogZoneText(c: CatalogContent): string {
  const lines = [
    `; catalog zone (RFC 9432 version 2) written by lexroute serve: do not edit`,
    `$ORIGIN ${c.name}`,
    `$TTL 0`,
    `@ IN SOA invalid. invalid. ${String(c.serial)} 3600 600 2147483646 0`,
    `@ IN NS invalid.`,
    `version IN TXT "2"`,
  ];
  for (const m of c.members) {
    const id = catalogMemberId(m);
    lines.push(`${id}.zones IN PTR ${m}`);
    for (const g of c.groups?.[m] ?? []) lines.push(`group.${id}.zones IN TXT "${g}"`);
  }
  return `${lines.join('\n')}\n`;
}

/** The serial and members of a catalog this module wrote (undefined when the text is not one). */
export function readCatalogText(text: string): { serial: number; members: string[] } | undefined {
  const soa = /^@ IN SOA \S+ \S+ (\d+) /m.exec(text);
  if (!soa) return undefined;
  const members = [...text.matchAll(/^[0-9a-f]{16}\.zones IN PTR (\S+)$/gm)].map((m) => m[1]!);
  return { serial: Number(soa[1]), members };
}
