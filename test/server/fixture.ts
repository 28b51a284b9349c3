/**
 * Test-only helpers: build a `Zone` snapshot from records (the model's
 * conventions: ENT nodes, zone cuts, below-cut flags), records from
 * dns-packet's structured RDATA, and a parsed zone text via the project's
 * parser. Not a zone-file parser: the text path calls `parseZoneText`.
 */
import dnsPacket from 'dns-packet';
import type { ResourceRecord, RRset, Zone, ZoneNode } from '../../src/dns/core/zone/model.ts';
import { keyToName, nameKey } from '../../src/dns/core/wire/name.ts';
import { parseZoneText } from '../../src/dns/core/zone/parser.ts';

const TYPE_CODES: Record<string, number> = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  NAPTR: 35,
  DNAME: 39,
  DS: 43,
};

function canonical(name: string): string {
  return keyToName(nameKey(name.endsWith('.') ? name : `${name}.`));
}

/** One record from dns-packet's structured data (e.g. `{ preference, exchange }` for MX). */
export function rr(owner: string, ttl: number, type: string, data: unknown): ResourceRecord {
  const code = TYPE_CODES[type];
  if (code === undefined) throw new Error(`fixture: unknown type ${type}`);
  const enc = (dnsPacket as unknown as Record<string, { encode(d: unknown): Uint8Array }>)[
    type.toLowerCase()
  ];
  const withLen = enc!.encode(data);
  return {
    owner: canonical(owner),
    type: code,
    class: 1,
    ttl,
    rdata: Uint8Array.from(withLen.subarray(2)),
  };
}

function parentOf(name: string): string | undefined {
  if (name === '.') return undefined;
  const key = nameKey(name);
  const rest = key.slice(1 + key.charCodeAt(0));
  return keyToName(rest);
}

/** Assemble a Zone snapshot from records (origin absolute, lowercase). */
export function buildTestZone(origin: string, records: readonly ResourceRecord[]): Zone {
  origin = canonical(origin);
  const byName = new Map<string, Map<number, ResourceRecord[]>>();
  for (const r of records) {
    let m = byName.get(r.owner);
    if (!m) byName.set(r.owner, (m = new Map()));
    const list = m.get(r.type) ?? [];
    if (
      !list.some(
        (x) => x.rdata.length === r.rdata.length && x.rdata.every((b, i) => b === r.rdata[i]),
      )
    ) {
      list.push(r);
    }
    m.set(r.type, list);
  }
  const names = new Set<string>(byName.keys());
  names.add(origin);
  for (const n of [...names]) {
    let p = parentOf(n);
    while (p !== undefined && p.length >= origin.length && p.endsWith(origin)) {
      names.add(p);
      if (p === origin) break;
      p = parentOf(p);
    }
  }
  const cuts = [...byName.entries()].filter(([n, m]) => n !== origin && m.has(2)).map(([n]) => n);
  const nodes = new Map<string, ZoneNode>();
  let size = 0;
  for (const name of names) {
    const m = byName.get(name) ?? new Map<number, ResourceRecord[]>();
    const rrsets = new Map<number, RRset>();
    for (const [type, list] of m) {
      const ttl = Math.min(...list.map((r) => r.ttl));
      rrsets.set(type, { owner: name, type, ttl, records: list });
      size += list.length;
    }
    const isDelegation = cuts.includes(name);
    const belowCut = cuts.some((c) => name !== c && name.endsWith(`.${c}`));
    nodes.set(name, { name, rrsets, emptyNonTerminal: rrsets.size === 0, isDelegation, belowCut });
  }
  const soa = nodes.get(origin)?.rrsets.get(6);
  if (!soa) throw new Error(`fixture: zone ${origin} has no SOA`);
  return { origin, class: 1, soa, nodes, names: [...names].sort(), cuts, size };
}

/** Parse zone text with the project's parser and assemble it (throws on parse errors). */
export function zoneFromText(text: string, origin: string): Zone {
  const parsed = parseZoneText(text, { origin });
  const errors = parsed.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) throw new Error(`fixture zone: ${errors.map((e) => e.message).join('; ')}`);
  return buildTestZone(origin, parsed.records);
}
