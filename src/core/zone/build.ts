/**
 * Build an immutable Zone snapshot from parsed records, with the structural
 * validation of `validate.ts`.
 */
import type { ResourceRecord, RRset, Zone, ZoneDiagnostic, ZoneNode } from './model.ts';
import { canonicalSortKey, isSubdomain, nameToText, nameToWire, parentName } from './names.ts';
import { TYPE_NS, TYPE_SOA } from './types.ts';
import { validateZone } from './validate.ts';

export interface BuildOptions {
  /** Zone apex (absolute; a missing trailing dot is added). */
  readonly origin: string;
}

export interface BuildResult {
  /** Undefined when an error makes the zone unusable (no SOA, ...). */
  readonly zone?: Zone;
  readonly diagnostics: ZoneDiagnostic[];
}

/** A ReadonlyMap for the few RRsets of one node, much smaller than a Map. */
export class RRsetMap implements ReadonlyMap<number, RRset> {
  private readonly sets: RRset[];
  constructor(sets: RRset[]) {
    this.sets = sets;
  }
  get size(): number {
    return this.sets.length;
  }
  get(type: number): RRset | undefined {
    const sets = this.sets;
    for (let i = 0; i < sets.length; i++) if (sets[i]!.type === type) return sets[i];
    return undefined;
  }
  has(type: number): boolean {
    return this.get(type) !== undefined;
  }
  forEach(
    cb: (value: RRset, key: number, map: ReadonlyMap<number, RRset>) => void,
    thisArg?: unknown,
  ): void {
    for (const s of this.sets) cb.call(thisArg, s, s.type, this);
  }
  *entries(): MapIterator<[number, RRset]> {
    for (const s of this.sets) yield [s.type, s];
  }
  *keys(): MapIterator<number> {
    for (const s of this.sets) yield s.type;
  }
  *values(): MapIterator<RRset> {
    for (const s of this.sets) yield s;
  }
  [Symbol.iterator](): MapIterator<[number, RRset]> {
    return this.entries();
  }
}

const EMPTY_SETS = new RRsetMap([]);

class Node implements ZoneNode {
  readonly name: string;
  rrsets: ReadonlyMap<number, RRset>;
  emptyNonTerminal: boolean;
  isDelegation = false;
  belowCut = false;
  constructor(name: string, rrsets: ReadonlyMap<number, RRset>, ent: boolean) {
    this.name = name;
    this.rrsets = rrsets;
    this.emptyNonTerminal = ent;
  }
}

class Set_ implements RRset {
  readonly owner: string;
  readonly type: number;
  ttl: number;
  readonly records: ResourceRecord[];
  constructor(owner: string, type: number, ttl: number, records: ResourceRecord[]) {
    this.owner = owner;
    this.type = type;
    this.ttl = ttl;
    this.records = records;
  }
}

function normaliseOrigin(origin: string): string | undefined {
  try {
    const abs = origin.endsWith('.') ? origin : origin + '.';
    return nameToText(nameToWire(abs), 0, true);
  } catch {
    return undefined;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function bytesKey(a: Uint8Array): string {
  let s = '';
  for (let i = 0; i < a.length; i++) s += String.fromCharCode(a[i]!);
  return s;
}

export function buildZone(records: readonly ResourceRecord[], options: BuildOptions): BuildResult {
  const diagnostics: ZoneDiagnostic[] = [];
  const origin = normaliseOrigin(options.origin);
  if (origin === undefined) {
    diagnostics.push({
      code: 'ZONE_BAD_ORIGIN',
      message: `origin ${JSON.stringify(options.origin)} is not a valid domain name`,
      severity: 'error',
      token: options.origin,
    });
    return { diagnostics };
  }
  // Group by owner, then type. Owners are mostly shared strings from the parser.
  const byOwner = new Map<string, Set_[]>();
  let size = 0;
  let zoneClass = 0;
  for (const rr of records) {
    if (!isSubdomain(rr.owner, origin)) {
      diagnostics.push({
        code: 'ZONE_OUT_OF_ZONE',
        message: `${rr.owner} is outside the zone ${origin}; record ignored`,
        severity: 'error',
        ...(rr.source ? { position: rr.source } : {}),
        token: rr.owner,
      });
      continue;
    }
    if (zoneClass === 0) zoneClass = rr.class;
    let sets = byOwner.get(rr.owner);
    if (sets === undefined) {
      sets = [];
      byOwner.set(rr.owner, sets);
    }
    let set: Set_ | undefined;
    for (let i = 0; i < sets.length; i++)
      if (sets[i]!.type === rr.type) {
        set = sets[i];
        break;
      }
    if (set === undefined) {
      sets.push(new Set_(rr.owner, rr.type, rr.ttl, [rr]));
      size++;
      continue;
    }
    // Duplicates: RFC 2181 section 5: "it is meaningless for two RRs of an
    // RRset to have the same RDATA"; the copy is dropped.
    const recs = set.records;
    let dup = false;
    if (recs.length < 32) {
      for (let i = 0; i < recs.length; i++)
        if (sameBytes(recs[i]!.rdata, rr.rdata)) {
          dup = true;
          break;
        }
    } else {
      let seen = bigSets.get(set);
      if (!seen) {
        seen = new Set(recs.map((r) => bytesKey(r.rdata)));
        bigSets.set(set, seen);
      }
      const k = bytesKey(rr.rdata);
      dup = seen.has(k);
      if (!dup) seen.add(k);
    }
    if (dup) {
      diagnostics.push({
        code: 'ZONE_DUPLICATE_RECORD',
        message: `duplicate record for ${rr.owner}; the copy is ignored (RFC 2181 section 5)`,
        severity: 'warning',
        ...(rr.source ? { position: rr.source } : {}),
        token: rr.owner,
      });
      continue;
    }
    if (rr.ttl !== set.ttl) {
      // RFC 2181 section 5.2: "the TTLs of all RRs in an RRSet must be the same";
      // a client treats differing TTLs as the smallest; so does this server.
      if (!mixedReported.has(set)) {
        mixedReported.add(set);
        diagnostics.push({
          code: 'ZONE_MIXED_TTL',
          message: `RRset ${rr.owner} has records with different TTLs (${set.ttl} and ${rr.ttl}); the smallest is used (RFC 2181 section 5.2)`,
          severity: 'warning',
          ...(rr.source ? { position: rr.source } : {}),
          token: String(rr.ttl),
        });
      }
      if (rr.ttl < set.ttl) set.ttl = rr.ttl;
    }
    recs.push(rr);
    size++;
  }
  bigSets = new WeakMap();
  mixedReported = new WeakSet();

  // Nodes, with empty non-terminals between each owner and the apex.
  const nodes = new Map<string, Node>();
  for (const [owner, sets] of byOwner) {
    nodes.set(owner, new Node(owner, new RRsetMap(sets), false));
  }
  if (!nodes.has(origin)) nodes.set(origin, new Node(origin, EMPTY_SETS, true));
  for (const owner of byOwner.keys()) {
    let name = owner;
    while (name !== origin) {
      name = parentName(name);
      if (nodes.has(name)) break;
      nodes.set(name, new Node(name, EMPTY_SETS, true));
    }
  }

  // Zone cuts: NS below the apex. Names under a cut are glue or occluded.
  const cuts: string[] = [];
  for (const [owner, sets] of byOwner) {
    if (owner === origin) continue;
    for (const s of sets)
      if (s.type === TYPE_NS) {
        cuts.push(owner);
        nodes.get(owner)!.isDelegation = true;
      }
  }
  if (cuts.length > 0) {
    for (const node of nodes.values()) {
      let name = node.name;
      while (name !== origin) {
        name = parentName(name);
        const n = nodes.get(name);
        if (n && n.isDelegation) {
          node.belowCut = true;
          break;
        }
      }
    }
  }

  // Canonical order (RFC 4034 section 6.1).
  const names = sortCanonical([...nodes.keys()]);
  cuts.sort((a, b) => {
    const ka = canonicalSortKey(a);
    const kb = canonicalSortKey(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });

  const apex = nodes.get(origin)!;
  const soa = apex.rrsets.get(TYPE_SOA);
  const zoneLike = { origin, class: zoneClass || 1, nodes, names, cuts, size };
  const problems = validateZone(zoneLike, records, byOwner);
  diagnostics.push(...problems);
  // Like BIND, a zone with any error is not loaded (a bad file never replaces a good zone).
  if (!soa || diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  const zone: Zone = Object.freeze({ ...zoneLike, soa });
  return { zone, diagnostics };
}

let bigSets = new WeakMap<Set_, Set<string>>();
let mixedReported = new WeakSet<Set_>();

/** Names sorted in DNSSEC canonical order. */
export function sortCanonical(names: string[]): string[] {
  const plain: string[] = [];
  const special = new Map<string, string>();
  for (const n of names) {
    const key = canonicalSortKey(n);
    if (n.indexOf('\\') >= 0) special.set(key, n);
    plain.push(key);
  }
  plain.sort();
  for (let i = 0; i < plain.length; i++) {
    const key = plain[i]!;
    const s = special.get(key);
    plain[i] =
      s !== undefined ? s : key === '' ? '.' : key.split('\u0000\u0000').reverse().join('.') + '.';
  }
  return plain;
}
