/** Canonical presentation: one record per line, absolute names, TTL and class; parse(write(z)) gives the same records. */
import { zoneDataTtl, type ResourceRecord, type Zone } from './model.ts';
import { canonicalSortKey } from './names.ts';
import { hasPresentationForm, rdataToText } from '../rr/rdata/registry.ts';
import { className, TYPE_SOA, typeName } from '../rr/types.ts';

/** `owner ttl class type rdata` on one line (no newline); `ttl` overrides the record's (RRset TTL). */
export function rrToPresentation(rr: ResourceRecord, ttl = rr.ttl): string {
  const type = hasPresentationForm(rr.type) ? typeName(rr.type) : `TYPE${rr.type}`;
  return `${rr.owner} ${ttl} ${className(rr.class)} ${type} ${rdataToText(rr.type, rr.rdata)}`;
}

/**
 * A zone in canonical order: the SOA, then names in DNSSEC order, types
 * ascending, records in file order; RRset TTLs (an RRSIG its own).
 */
export function writeZone(input: Zone | readonly ResourceRecord[]): string {
  const lines: string[] = [];
  if (!Array.isArray(input)) {
    const zone = input as Zone;
    lines.push(`$ORIGIN ${zone.origin}`);
    for (const rr of zone.soa.records) lines.push(rrToPresentation(rr, zone.soa.ttl));
    for (const name of zone.names) {
      const node = zone.nodes.get(name);
      if (!node) continue;
      const types = [...node.rrsets.keys()].sort((a, b) => a - b);
      for (const t of types) {
        if (t === TYPE_SOA && name === zone.origin) continue;
        const set = node.rrsets.get(t)!;
        for (const rr of set.records) lines.push(rrToPresentation(rr, zoneDataTtl(set, rr)));
      }
    }
    return lines.join('\n') + '\n';
  }
  const records = input as readonly ResourceRecord[];
  const keyed = records.map((rr, i) => ({ rr, i, key: canonicalSortKey(rr.owner) }));
  keyed.sort((a, b) => {
    const soaA = a.rr.type === TYPE_SOA ? 0 : 1;
    const soaB = b.rr.type === TYPE_SOA ? 0 : 1;
    if (soaA !== soaB) return soaA - soaB;
    if (a.key !== b.key) return a.key < b.key ? -1 : 1;
    if (a.rr.type !== b.rr.type) return a.rr.type - b.rr.type;
    return a.i - b.i;
  });
  for (const { rr } of keyed) lines.push(rrToPresentation(rr));
  return lines.length ? lines.join('\n') + '\n' : '';
}
