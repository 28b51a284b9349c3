/**
 * Build an immutable Zone snapshot from parsed records, with the structural
 * validation of `validate.ts`.
 */
import type { ResourceRecord, RRset, Zone, ZoneDiagnostic, ZoneNode } from './model.ts';
import { canonicalSortKey, isSubdomain, nameToText, nameToWire, parentName } from './names.ts';
import { TYPE_NS, TYPE_SOA } from './types.ts';
import { sameRdata } from './parser.ts';
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

const ENT = 1;
const DELEGATION = 2;
const BELOW_CUT = 4;
const NO_SETS: readonly Set_[] = [];

/**
 * One name of the zone. Kept small (a zone may hold a million names): the
 * node is its own RRset map (`node.rrsets === node`) and the three flags
 * share one integer.
 */
class Node implements ZoneNode, ReadonlyMap<number, RRset> {
  readonly name: string;
  sets: Set_[] | readonly Set_[];
  private flags: number;
  constructor(name: string, sets: Set_[] | readonly Set_[], ent: boolean) {
    this.name = name;
    this.sets = sets;
    this.flags = ent ? ENT : 0;
  }
  get rrsets(): ReadonlyMap<number, RRset> {
    return this;
  }
  get emptyNonTerminal(): boolean {
    return (this.flags & ENT) !== 0;
  }
  get isDelegation(): boolean {
    return (this.flags & DELEGATION) !== 0;
  }
  set isDelegation(v: boolean) {
    this.flags = v ? this.flags | DELEGATION : this.flags & ~DELEGATION;
  }
  get belowCut(): boolean {
    return (this.flags & BELOW_CUT) !== 0;
  }
  set belowCut(v: boolean) {
    this.flags = v ? this.flags | BELOW_CUT : this.flags & ~BELOW_CUT;
  }
  // ReadonlyMap<number, RRset>, keyed by type.
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

class Set_ implements RRset {
  readonly owner: string;
  readonly type: number;
  ttl: number;
  records: ResourceRecord[];
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

/** Up to this length arrays are grown by exact copies (push would leave 16 spare slots each). */
const EXACT = 8;

function appendExact<T>(list: T[], item: T): T[] {
  if (list.length >= EXACT) {
    list.push(item);
    return list;
  }
  const out = new Array<T>(list.length + 1);
  for (let i = 0; i < list.length; i++) out[i] = list[i]!;
  out[list.length] = item;
  return out;
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
  const nodes = new Map<string, Node>();
  let size = 0;
  let zoneClass = 0;
  for (const rr of records) {
    if (!isSubdomain(rr.owner, origin)) {
      // As BIND ("ignoring out-of-zone data"): a record outside the zone is
      // never served, so it is reported and left out, and the zone loads.
      // `zone check --strict` fails on it (warnings fail there).
      diagnostics.push({
        code: 'ZONE_OUT_OF_ZONE',
        message: `ignoring out-of-zone data: ${rr.owner} is not in the zone ${origin}`,
        severity: 'warning',
        ...(rr.source ? { position: rr.source } : {}),
        token: rr.owner,
      });
      continue;
    }
    if (zoneClass === 0) zoneClass = rr.class;
    let node = nodes.get(rr.owner);
    if (node === undefined) {
      node = new Node(rr.owner, [], false);
      nodes.set(rr.owner, node);
    }
    const sets = node.sets as Set_[];
    let set: Set_ | undefined;
    for (let i = 0; i < sets.length; i++)
      if (sets[i]!.type === rr.type) {
        set = sets[i];
        break;
      }
    if (set === undefined) {
      node.sets = appendExact(sets, new Set_(rr.owner, rr.type, rr.ttl, [rr]));
      size++;
      continue;
    }
    // Duplicates: RFC 2181 section 5: "it is meaningless for two RRs of an
    // RRset to have the same RDATA"; the copy is dropped.
    const recs = set.records;
    let dup = false;
    if (recs.length < 32) {
      for (let i = 0; i < recs.length; i++)
        if (sameRdata(recs[i]!, rr)) {
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
    set.records = appendExact(recs, rr);
    size++;
  }
  bigSets = new WeakMap();
  mixedReported = new WeakSet();

  // Arrays grown by push keep spare capacity: copy them to their exact size
  // (a zone may hold a million of them).
  const owners = [...nodes.keys()];
  for (const owner of owners) {
    const node = nodes.get(owner)!;
    if (node.sets.length > EXACT) node.sets = node.sets.slice();
    for (const set of node.sets) if (set.records.length > EXACT) set.records = set.records.slice();
  }
  // Empty non-terminals between each owner and the apex.
  if (!nodes.has(origin)) nodes.set(origin, new Node(origin, NO_SETS, true));
  for (const owner of owners) {
    let name = owner;
    while (name !== origin) {
      name = parentName(name);
      if (nodes.has(name)) break;
      nodes.set(name, new Node(name, NO_SETS, true));
    }
  }

  // Zone cuts: NS below the apex. Names under a cut are glue or occluded.
  const cuts: string[] = [];
  for (const owner of owners) {
    if (owner === origin) continue;
    const node = nodes.get(owner)!;
    if (node.has(TYPE_NS)) {
      cuts.push(owner);
      node.isDelegation = true;
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
  const problems = validateZone(zoneLike, records, owners, (owner) => nodes.get(owner)!.sets);
  diagnostics.push(...problems);
  // Like BIND, a zone with any error is not loaded (a bad file never replaces a good zone).
  if (!soa || diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  const zone: Zone = Object.freeze({ ...zoneLike, soa });
  return { zone, diagnostics };
}

let bigSets = new WeakMap<Set_, Set<string>>();
let mixedReported = new WeakSet<Set_>();

/**
 * Names sorted in DNSSEC canonical order. The result holds the given string
 * objects (no copies): each sort key carries the name's index after a run of
 * four NULs, which no key contains (labels are never empty and an octet 0 is
 * written \0\1), so it never changes the order of two different keys.
 */
export function sortCanonical(names: readonly string[]): string[] {
  const keyed: string[] = new Array<string>(names.length);
  for (let i = 0; i < names.length; i++)
    keyed[i] =
      canonicalSortKey(names[i]!) +
      '\u0000\u0000\u0000\u0000' +
      String.fromCharCode(i >>> 16, i & 0xffff);
  keyed.sort();
  const out: string[] = new Array<string>(names.length);
  for (let i = 0; i < keyed.length; i++) {
    const k = keyed[i]!;
    out[i] = names[(k.charCodeAt(k.length - 2) << 16) | k.charCodeAt(k.length - 1)]!;
  }
  return out;
}
