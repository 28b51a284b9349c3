/**
 * A zone changed by difference (an IXFR applied, RFC 1995): the loaded zone
 * stays as it is and the names the difference touched are kept in one
 * overlay beside it, so a change costs what it changes (plus the names under
 * a cut it adds or removes). Zones with DNSSEC records, or a base that is not
 * a loaded zone, are `unsupported`: the caller loads the whole zone.
 */
import type { ResourceRecord, RRset, Zone, ZoneDiagnostic, ZoneNode } from './model.ts';
import { MapView, StoreZone } from './views.ts';
import { sameBytes } from '../../../kit/core/bytes.ts';
import { sortCanonical } from './build.ts';
import { AT_CUT_TYPES, GLUE_TYPES, glueFinding, occluded } from './validate.ts';
import { isSubdomain, nameToText, parentName, wireNameLength } from './names.ts';
import {
  TYPE_A,
  TYPE_AAAA,
  TYPE_CNAME,
  TYPE_DNSKEY,
  TYPE_NS,
  TYPE_NSEC,
  TYPE_NSEC3,
  TYPE_NSEC3PARAM,
  TYPE_RRSIG,
  TYPE_SOA,
} from '../rr/types.ts';

/** One version's difference: the records deleted, those added, and the new SOA. */
export interface ZoneChanges {
  readonly soa: ResourceRecord;
  readonly removed: readonly ResourceRecord[];
  readonly added: readonly ResourceRecord[];
}

export type PatchOutcome =
  | { readonly kind: 'patched'; readonly zone: PatchedZone; readonly touched: readonly string[] }
  /** A deleted record the zone does not hold. */
  | { readonly kind: 'mismatch'; readonly message: string }
  /** Not applicable by difference (see the module comment): load the whole zone. */
  | { readonly kind: 'unsupported'; readonly message: string };

const DNSSEC_TYPES: ReadonlySet<number> = new Set([
  TYPE_DNSKEY,
  TYPE_NSEC,
  TYPE_NSEC3,
  TYPE_NSEC3PARAM,
  TYPE_RRSIG,
]);

/** Each base name row's place in canonical order (-1: none). */
function positionsOf(base: StoreZone): Int32Array {
  const p = new Int32Array(base.store.nameCount).fill(-1);
  for (let i = 0; i < base.order.length; i++) p[base.order[i]!] = i;
  return p;
}

/** `name` strictly below `ancestor` (presentation names, lowercased, trailing dot). */
function strictlyUnder(name: string, ancestor: string): boolean {
  return name !== ancestor && isSubdomain(name, ancestor);
}

/** The nodes of a patched zone: the overlay's (null: deleted) over the base's. */
export class OverlayNodes<K> extends MapView<K, ZoneNode> {
  private readonly base: ReadonlyMap<K, ZoneNode>;
  private readonly overlay: ReadonlyMap<K, ZoneNode | null>;
  private count = -1;
  constructor(base: ReadonlyMap<K, ZoneNode>, overlay: ReadonlyMap<K, ZoneNode | null>) {
    super();
    this.base = base;
    this.overlay = overlay;
  }
  /** The nodes under the overlay. */
  get baseNodes(): ReadonlyMap<K, ZoneNode> {
    return this.base;
  }
  /** Counted on first use (the base's count can cost a pass over its names: not on the IXFR's path). */
  get size(): number {
    if (this.count < 0) {
      let size = this.base.size;
      for (const [k, v] of this.overlay) {
        const had = this.base.has(k);
        if (v === null && had) size--;
        else if (v !== null && !had) size++;
      }
      this.count = size;
    }
    return this.count;
  }
  get(k: K): ZoneNode | undefined {
    const o = this.overlay.get(k);
    if (o !== undefined) return o ?? undefined;
    return this.base.get(k);
  }
  *entries(): MapIterator<[K, ZoneNode]> {
    for (const [k, v] of this.base) if (!this.overlay.has(k)) yield [k, v];
    for (const [k, v] of this.overlay) if (v !== null) yield [k, v];
  }
}

/** A loaded zone with the names a difference touched kept beside it. */
export class PatchedZone implements Zone {
  readonly origin: string;
  readonly class: number;
  readonly soa: RRset;
  readonly nodes: OverlayNodes<string>;
  readonly cuts: readonly string[];
  readonly size: number;
  readonly base: StoreZone;
  /** Changed names (null: deleted), by name. */
  readonly overlay: ReadonlyMap<string, ZoneNode | null>;
  /** The base's canonical positions by name row, once made (kept from patch to patch). */
  readonly positions: Int32Array | undefined;
  private memo: readonly string[] | undefined;
  constructor(
    base: StoreZone,
    overlay: ReadonlyMap<string, ZoneNode | null>,
    soa: RRset,
    size: number,
    positions?: Int32Array,
    cuts: readonly string[] = base.cuts,
  ) {
    this.base = base;
    this.positions = positions;
    this.overlay = overlay;
    this.origin = base.origin;
    this.class = base.class;
    this.soa = soa;
    this.cuts = cuts;
    this.size = size;
    this.nodes = new OverlayNodes(base.nodes, overlay);
  }
  /** Node names in canonical order (sorted on first access: O(zone), for AXFR out and printing). */
  get names(): readonly string[] {
    this.memo ??= sortCanonical([...this.nodes.keys()]);
    return this.memo;
  }
}

interface WorkSet {
  ttl: number;
  records: ResourceRecord[];
}

const plain = (r: ResourceRecord): ResourceRecord => ({
  owner: r.owner,
  type: r.type,
  class: r.class,
  ttl: r.ttl,
  rdata: r.rdata,
});

/** The change being made: the base, the overlay so far and the RRsets of the touched names. */
class Patch {
  readonly overlay: Map<string, ZoneNode | null>;
  readonly work = new Map<string, Map<number, WorkSet>>();
  readonly created = new Set<string>();
  /** Touched names that were zone cuts before the change. */
  readonly wasCut = new Set<string>();
  size: number;
  readonly base: StoreZone;
  positions: Int32Array | undefined;
  constructor(base: StoreZone, from: Zone) {
    this.base = base;
    this.positions = from instanceof PatchedZone ? from.positions : undefined;
    this.overlay = new Map(from instanceof PatchedZone ? from.overlay : []);
    this.size = from.size;
  }
  node(name: string): ZoneNode | undefined {
    const o = this.overlay.get(name);
    return o !== undefined ? (o ?? undefined) : this.base.nodes.get(name);
  }
  /** The touched name's RRsets, copied from its node on first touch. */
  sets(name: string): Map<number, WorkSet> {
    let w = this.work.get(name);
    if (w === undefined) {
      w = new Map();
      const n = this.node(name);
      if (n === undefined || n.emptyNonTerminal) this.created.add(name);
      if (n?.isDelegation) this.wasCut.add(name);
      if (n !== undefined)
        for (const s of n.rrsets.values())
          w.set(s.type, { ttl: s.ttl, records: s.records.map(plain) });
      this.work.set(name, w);
    }
    return w;
  }
  /** Whether a name below `name` is in the zone (the base's, but those deleted, or the overlay's). */
  hasDescendants(name: string): boolean {
    for (const [k, v] of this.overlay)
      if (v !== null && this.work.get(k)?.size !== 0 && strictlyUnder(k, name)) return true;
    for (const [k, w] of this.work) if (w.size > 0 && strictlyUnder(k, name)) return true;
    for (const n of this.baseDescendants(name))
      if (this.overlay.get(n) !== null && this.work.get(n)?.size !== 0) return true;
    return false;
  }
  /** The base's names strictly below `name`, in canonical order (the base's order from its row). */
  *baseDescendants(name: string): Generator<string> {
    const row = this.base.store.findName(name);
    if (row >= 0) this.positions ??= positionsOf(this.base);
    const pos = row < 0 ? -1 : this.positions![row]!;
    if (pos < 0) return;
    const { order, store } = this.base;
    for (let i = pos + 1; i < order.length && store.isUnder(order[i]!, name); i++)
      yield store.name(order[i]!);
  }
  belowCut(name: string): boolean {
    for (let p = parentName(name); p !== this.base.origin && p !== '.'; p = parentName(p))
      if (this.node(p)?.isDelegation) return true;
    return false;
  }
  ent(name: string): ZoneNode {
    const b = this.belowCut(name);
    return { name, rrsets: new Map(), emptyNonTerminal: true, isDelegation: false, belowCut: b };
  }
}

function remove(p: Patch, r: ResourceRecord): string | undefined {
  const set = p.sets(r.owner).get(r.type);
  const i = set ? set.records.findIndex((x) => sameBytes(x.rdata, r.rdata)) : -1;
  if (i < 0) return `deletes a record the zone does not hold (${r.owner} type ${r.type})`;
  set!.records.splice(i, 1);
  if (set!.records.length === 0) p.sets(r.owner).delete(r.type);
  p.size--;
  return undefined;
}

function add(p: Patch, r: ResourceRecord): void {
  const sets = p.sets(r.owner);
  const set = sets.get(r.type);
  if (set === undefined) sets.set(r.type, { ttl: r.ttl, records: [plain(r)] });
  else if (!set.records.some((x) => sameBytes(x.rdata, r.rdata))) {
    set.records.push(plain(r));
    set.ttl = Math.min(set.ttl, r.ttl);
  } else return;
  p.size++;
}

/** Why the changes cannot be applied by difference, if they cannot. */
function unsupported(from: Zone, c: ZoneChanges): string | undefined {
  if (!(from instanceof StoreZone || from instanceof PatchedZone)) return 'not a loaded zone';
  const apex = from.nodes.get(from.origin);
  if (apex?.rrsets.has(TYPE_DNSKEY)) return 'a signed zone';
  for (const r of [...c.removed, ...c.added]) {
    if (DNSSEC_TYPES.has(r.type)) return `a DNSSEC record (type ${r.type})`;
    if (r.owner !== from.origin && !strictlyUnder(r.owner, from.origin))
      return `a record out of the zone (${r.owner})`;
  }
  return undefined;
}

/** The nodes of the touched names, ENTs made and removed above them. */
function settle(p: Patch): string[] {
  const touched = [...p.work.keys()];
  for (const [name, w] of p.work) {
    if (w.size === 0) continue;
    const rrsets = new Map<number, RRset>();
    for (const [type, s] of w)
      rrsets.set(type, {
        owner: name,
        type,
        ttl: s.ttl,
        records: s.records.map((r) => ({ ...r, ttl: s.ttl })),
      });
    const isDelegation = name !== p.base.origin && rrsets.has(TYPE_NS);
    p.overlay.set(name, {
      name,
      rrsets,
      emptyNonTerminal: false,
      isDelegation,
      belowCut: p.belowCut(name),
    });
    if (!p.created.has(name)) continue;
    for (
      let a = parentName(name);
      a !== p.base.origin && p.node(a) === undefined;
      a = parentName(a)
    )
      p.overlay.set(a, p.ent(a));
  }
  for (const [name, w] of p.work) {
    if (w.size > 0) continue;
    if (p.hasDescendants(name)) {
      p.overlay.set(name, p.ent(name));
      continue;
    }
    p.overlay.set(name, null);
    for (let a = parentName(name); a !== p.base.origin; a = parentName(a)) {
      if (!p.node(a)?.emptyNonTerminal || p.hasDescendants(a)) break;
      p.overlay.set(a, null);
    }
  }
  return touched;
}

/** Re-mark the names under the cuts the change added or removed; the cuts after, and the names re-marked. */
function recut(p: Patch, from: Zone, touched: readonly string[]) {
  const changed = touched.filter(
    (n) => p.wasCut.has(n) !== (p.overlay.get(n)?.isDelegation ?? false),
  );
  if (changed.length === 0) return { cuts: from.cuts, remarked: [] };
  const under = new Set<string>();
  for (const cut of changed) {
    for (const n of p.baseDescendants(cut)) under.add(n);
    for (const k of p.overlay.keys()) if (strictlyUnder(k, cut)) under.add(k);
  }
  for (const name of under) {
    const node = p.node(name);
    const belowCut = p.belowCut(name);
    if (node === undefined || node.belowCut === belowCut) continue;
    const { rrsets, emptyNonTerminal, isDelegation } = node;
    p.overlay.set(name, { name, rrsets, emptyNonTerminal, isDelegation, belowCut });
  }
  const cuts = new Set(from.cuts);
  for (const c of changed) {
    if (p.overlay.get(c)?.isDelegation) cuts.add(c);
    else cuts.delete(c);
  }
  return { cuts: sortCanonical([...cuts]), remarked: [...under] };
}

/** Apply one version's changes to `from` (a loaded or patched zone); the SOA becomes `changes.soa`. */
export function patchZone(from: Zone, changes: ZoneChanges): PatchOutcome {
  const why = unsupported(from, changes);
  if (why !== undefined) return { kind: 'unsupported', message: why };
  const base = from instanceof PatchedZone ? from.base : (from as StoreZone);
  const p = new Patch(base, from);
  for (const r of changes.removed) {
    if (r.type === TYPE_SOA) continue;
    const fault = remove(p, r);
    if (fault !== undefined) return { kind: 'mismatch', message: fault };
  }
  for (const r of changes.added) if (r.type !== TYPE_SOA) add(p, r);
  const soa = plain(changes.soa);
  p.sets(base.origin).set(TYPE_SOA, { ttl: soa.ttl, records: [soa] });
  const touched = settle(p);
  const { cuts, remarked } = recut(p, from, touched);
  const soaSet: RRset = { owner: base.origin, type: TYPE_SOA, ttl: soa.ttl, records: [soa] };
  return {
    kind: 'patched',
    zone: new PatchedZone(base, p.overlay, soaSet, p.size, p.positions, cuts),
    touched: remarked.length > 0 ? [...touched, ...remarked] : touched,
  };
}

/**
 * `validate.ts`'s zone-cut findings (occluded data, glue, NS targets without
 * an address) for the names a difference touched.
 */
export function touchedCutFindings(zone: Zone, touched: readonly string[]): ZoneDiagnostic[] {
  const out: ZoneDiagnostic[] = [];
  for (const name of touched) {
    const node = zone.nodes.get(name);
    if (node === undefined) continue;
    for (const type of node.rrsets.keys()) {
      if (node.belowCut ? GLUE_TYPES.has(type) : !node.isDelegation || AT_CUT_TYPES.has(type))
        continue;
      out.push(occluded(type, name, node.belowCut));
    }
    const ns = node.rrsets.get(TYPE_NS);
    if (ns !== undefined && !node.belowCut) out.push(...glueFindings(zone, name, ns));
  }
  return out;
}

function glueFindings(zone: Zone, owner: string, ns: RRset): ZoneDiagnostic[] {
  const out: ZoneDiagnostic[] = [];
  for (const r of ns.records) {
    if (wireNameLength(r.rdata, 0) !== r.rdata.length) continue;
    const target = nameToText(r.rdata, 0, true);
    if (!isSubdomain(target, zone.origin)) continue;
    const t = zone.nodes.get(target);
    const found = glueFinding(target, owner, owner === zone.origin, {
      cname: t?.rrsets.has(TYPE_CNAME) ?? false,
      address: (t?.rrsets.has(TYPE_A) || t?.rrsets.has(TYPE_AAAA)) ?? false,
      inChild: () => t?.belowCut ?? false,
    });
    if (found) out.push(found);
  }
  return out;
}
