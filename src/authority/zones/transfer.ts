/**
 * A loaded zone between threads, not encoded again: a `StoreZone` is its store's columns plus a few
 * scalars, transferred or shared and put together in O(1); a patched zone adds its overlay.
 */
import { ZoneStore, type StoreTransfer } from '../../dns/core/zone/store.ts';
import { RRsetView, StoreZone } from '../../dns/core/zone/views.ts';
import type { RRset, Zone, ZoneNode } from '../../dns/core/zone/model.ts';
import { OverlayNodes, PatchedZone } from '../../dns/core/zone/patch.ts';
import { nameKey } from '../../dns/core/wire/name.ts';
import { indexZone, type IndexedZone } from '../core/zone-lookup.ts';
import { keyIndexBuffers, KeyedNodes, type KeyIndexColumns } from '../core/key-index.ts';
import type { DnssecIndex } from '../../dns/core/zone/dnssec.ts';
import type { PackedAnswers } from '../core/answer-pack.ts';
import { TYPE_SOA } from '../../dns/core/rr/types.ts';

/** A zone as it travels between threads: structured-clonable, with its buffers listed for transfer. */
export interface PackedZone {
  /** The store as plain data (`ZoneStore.toTransfer`). */
  readonly store: StoreTransfer;
  readonly origin: string;
  readonly order: Int32Array;
  readonly cuts: readonly string[];
  readonly size: number;
  /** The zone was indexed by the sending thread (its DNSSEC chain is `dnssec`): nothing to compute here. */
  readonly indexed?: true;
  /** Key columns (`key-index.ts`), for a store whose names are not all canonical, built by the sending thread. */
  readonly keys?: KeyIndexColumns;
  /** A signed zone's NSEC/NSEC3 chain (plain data, cloned), built by the sending thread. */
  readonly dnssec?: DnssecIndex;
  /** Bodies encoded ahead for the hot names (`core/zone/answer-pack.ts`). */
  readonly answers?: PackedAnswers;
  /** A patched zone: the store is its base, this its difference from it. */
  readonly patch?: PackedPatch;
}

/** What a patched zone holds beside its base: the changed names (null: deleted), the SOA, size and cuts. */
export interface PackedPatch {
  readonly overlay: readonly (readonly [string, ZoneNode | null])[];
  readonly soa: RRset;
  readonly size: number;
  readonly cuts: readonly string[];
}

/** A node as plain data (a base node's views hold the whole store), each RDATA copied to its own octets. */
function plainNode(n: ZoneNode): ZoneNode {
  const rrsets = new Map<number, RRset>();
  for (const [type, s] of n.rrsets) rrsets.set(type, plainSet(s));
  const { name, emptyNonTerminal, isDelegation, belowCut } = n;
  return { name, rrsets, emptyNonTerminal, isDelegation, belowCut };
}

function plainSet(s: RRset): RRset {
  const records = s.records.map((r) => ({
    owner: r.owner,
    type: r.type,
    class: r.class,
    ttl: r.ttl,
    rdata: r.rdata.slice(),
  }));
  return { owner: s.owner, type: s.type, ttl: s.ttl, records };
}

/** A patched zone's base packed with its overlay (the base's key index when `indexed` has one). */
function packPatched(zone: PatchedZone, indexed?: IndexedZone) {
  const baseNodes = indexed?.nodes instanceof OverlayNodes ? indexed.nodes.baseNodes : undefined;
  const keyed = baseNodes instanceof KeyedNodes ? baseNodes : undefined;
  const dnssec = indexed?.dnssec;
  const base = packZone(
    zone.base,
    keyed && { zone: zone.base, originKey: '', nodes: keyed, ...(dnssec ? { dnssec } : {}) },
  );
  if (base === undefined) return undefined;
  const overlay = [...zone.overlay].map(([k, v]) => [k, v && plainNode(v)] as const);
  const patch: PackedPatch = { overlay, soa: plainSet(zone.soa), size: zone.size, cuts: zone.cuts };
  return { packed: { ...base.packed, patch }, transfer: base.transfer };
}

/** The index of each base patched zones stand on: made once (a count of its names, once), not per IXFR. */
const baseIndexes = new WeakMap<StoreZone, IndexedZone>();

/** A patched zone's index: the base's (its key columns when given), the overlay's nodes over it. */
export function indexPatched(
  zone: PatchedZone,
  prepared?: { readonly columns?: KeyIndexColumns; readonly dnssec: DnssecIndex | undefined },
): IndexedZone {
  let base = baseIndexes.get(zone.base);
  if (base === undefined) {
    base = indexZone(zone.base, prepared);
    baseIndexes.set(zone.base, base);
  }
  const overlay = new Map<string, ZoneNode | null>();
  for (const [name, node] of zone.overlay) overlay.set(nameKey(name), node);
  const nodes = new OverlayNodes(base.nodes, overlay);
  // A signed zone is patched only when its names stay (`dnssec/core/resign-difference.ts`): the base's chain holds.
  const { dnssec } = base;
  return { zone, originKey: base.originKey, nodes, ...(dnssec ? { dnssec } : {}) };
}

function collect(v: unknown, out: Set<ArrayBuffer>): void {
  if (ArrayBuffer.isView(v)) {
    if (v.buffer instanceof ArrayBuffer) out.add(v.buffer);
  } else if (Array.isArray(v)) for (const x of v) collect(x, out);
}

/** Pack a loaded zone for `postMessage(packed, transfer)`. Undefined for zones not backed by a store. */
export function packZone(
  zone: Zone,
  indexed?: IndexedZone,
): { packed: PackedZone; transfer: ArrayBuffer[] } | undefined {
  if (zone instanceof PatchedZone) return packPatched(zone, indexed);
  if (!(zone instanceof StoreZone)) return undefined;
  const keys = indexed?.nodes instanceof KeyedNodes ? indexed.nodes.columns : undefined;
  const store = zone.store.toTransfer();
  const buffers = new Set<ArrayBuffer>(store.buffers);
  collect(zone.order, buffers);
  if (keys) for (const b of keyIndexBuffers(keys)) buffers.add(b);
  const answers = indexed?.answers;
  if (answers) collect([answers.at, answers.rows, answers.data], buffers);
  return {
    packed: {
      store: store.data,
      origin: zone.origin,
      order: zone.order,
      cuts: zone.cuts,
      size: zone.size,
      ...(indexed ? { indexed: true as const } : {}),
      ...(keys ? { keys } : {}),
      ...(indexed?.dnssec ? { dnssec: indexed.dnssec } : {}),
      ...(answers ? { answers } : {}),
    },
    transfer: [...buffers],
  };
}

/** The zone again, ready to serve, with the sender's name index and DNSSEC chain (or indexed now). */
export function unpackIndexedZone(p: PackedZone): IndexedZone {
  const zone = unpackZone(p);
  const prepared = p.indexed
    ? { ...(p.keys ? { columns: p.keys } : {}), dnssec: p.dnssec }
    : undefined;
  const indexed =
    zone instanceof PatchedZone ? indexPatched(zone, prepared) : indexZone(zone, prepared);
  if (indexed.dnssec) chains.set(zone, indexed.dnssec);
  // A signed zone's index is the base of the versions re-signed over it here (`indexResigned`).
  if (indexed.dnssec && zone instanceof StoreZone && !baseIndexes.has(zone))
    baseIndexes.set(zone, indexed);
  return p.answers ? { ...indexed, answers: p.answers } : indexed;
}

/** The DNSSEC chain of each signed zone unpacked here: a version re-signed goes back to the load worker with it. */
const chains = new WeakMap<Zone, DnssecIndex>();

/** A version re-signed over the one served here (`applyResigned`): indexed over its base's index, its chain that one. */
export function indexResigned(zone: PatchedZone): IndexedZone {
  const indexed = indexPatched(zone);
  if (indexed.dnssec) chains.set(zone, indexed.dnssec);
  return indexed;
}

/** The DNSSEC chain a zone was unpacked with (`unpackIndexedZone`), if signed. */
export function dnssecChainOf(zone: Zone): DnssecIndex | undefined {
  return chains.get(zone);
}

/**
 * A signed version sent to the load worker, unpacked with its base's index made from its chain: a
 * version re-signed by difference (names unchanged) then keeps that index.
 */
export function unpackBefore(p: PackedZone): Zone {
  const zone = unpackZone(p);
  const base = zone instanceof PatchedZone ? zone.base : zone;
  if (p.dnssec && base instanceof StoreZone && !baseIndexes.has(base))
    baseIndexes.set(base, indexZone(base, { dnssec: p.dnssec }));
  return zone;
}

/** The zone again, around the received columns (no record is decoded or copied). */
export function unpackZone(p: PackedZone): Zone {
  const store = ZoneStore.fromTransfer(p.store);
  const apex = store.findName(p.origin);
  const soa = store.findSet(apex, TYPE_SOA);
  if (apex < 0 || soa < 0) throw new Error(`packed zone ${p.origin} has no SOA at its apex`);
  const base = new StoreZone(store, p.origin, new RRsetView(store, soa), p.order, p.cuts, p.size);
  const d = p.patch;
  if (d === undefined) return base;
  return new PatchedZone(base, new Map(d.overlay), d.soa, d.size, undefined, d.cuts);
}

/** The packed zone with every typed array on SharedArrayBuffers, so it exists once for every thread. */
export function sharePacked(p: PackedZone): PackedZone {
  const copies = new Map<ArrayBuffer, SharedArrayBuffer>();
  const share = (v: unknown): unknown => {
    if (ArrayBuffer.isView(v) && v.buffer instanceof ArrayBuffer) {
      let sab = copies.get(v.buffer);
      if (sab === undefined) {
        sab = new SharedArrayBuffer(v.buffer.byteLength);
        new Uint8Array(sab).set(new Uint8Array(v.buffer));
        copies.set(v.buffer, sab);
      }
      const View = v.constructor as new (b: SharedArrayBuffer, at: number, n: number) => unknown;
      return new View(sab, v.byteOffset, v.byteLength / (v as Uint8Array).BYTES_PER_ELEMENT);
    }
    return Array.isArray(v) ? v.map(share) : v;
  };
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p.store)) fields[k] = share(v);
  const store = fields as unknown as StoreTransfer;
  const keys = p.keys
    ? (Object.fromEntries(
        Object.entries(p.keys).map(([k, v]) => [k, share(v)]),
      ) as unknown as KeyIndexColumns)
    : undefined;
  const a = p.answers;
  const answers = a && {
    ...a,
    at: share(a.at) as Int32Array,
    rows: share(a.rows) as Int32Array,
    data: share(a.data) as Uint8Array,
  };
  return {
    ...p,
    store,
    order: share(p.order) as Int32Array,
    ...(keys ? { keys } : {}),
    ...(answers ? { answers } : {}),
  };
}
