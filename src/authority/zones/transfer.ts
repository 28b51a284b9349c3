/**
 * Handing a loaded zone from one thread to another without encoding it
 * again: a `StoreZone` is its `ZoneStore` columns (typed arrays and 1 MiB
 * byte arenas, handed out as plain data by `ZoneStore.toTransfer()` and taken
 * back by `ZoneStore.fromTransfer()`) plus a few scalars, so the columns' ArrayBuffers are
 * transferred (moved, not copied) in a `postMessage` and the zone is put
 * together again around them on the receiving side in O(1) per column.
 *
 * The sending side's store is unusable afterwards (its buffers are detached).
 * This is the hand-over of the reload worker (`worker.ts`); IXFR and
 * multi-worker serving can move zones between threads the same way (or put
 * the arenas on a SharedArrayBuffer, which the same fields allow).
 */
import { ZoneStore, type StoreTransfer } from '../../dns/core/zone/store.ts';
import { RRsetView, StoreZone } from '../../dns/core/zone/views.ts';
import type { Zone } from '../../dns/core/zone/model.ts';
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

/**
 * The zone again, ready to serve: with the name index and DNSSEC chain the
 * sending thread built (nothing is computed here), or indexed now when the
 * packed zone came without them.
 */
export function unpackIndexedZone(p: PackedZone): IndexedZone {
  const zone = unpackZone(p);
  const indexed = indexZone(
    zone,
    p.indexed ? { ...(p.keys ? { columns: p.keys } : {}), dnssec: p.dnssec } : undefined,
  );
  return p.answers ? { ...indexed, answers: p.answers } : indexed;
}

/** The zone again, around the received columns (no record is decoded or copied). */
export function unpackZone(p: PackedZone): Zone {
  const store = ZoneStore.fromTransfer(p.store);
  const apex = store.findName(p.origin);
  const soa = store.findSet(apex, TYPE_SOA);
  if (apex < 0 || soa < 0) throw new Error(`packed zone ${p.origin} has no SOA at its apex`);
  return new StoreZone(store, p.origin, new RRsetView(store, soa), p.order, p.cuts, p.size);
}

/**
 * The packed zone with every typed array moved onto SharedArrayBuffers (one
 * copy per buffer; views that shared a buffer share its copy): posted to
 * several threads, the zone then exists once in memory (`serve --workers`).
 */
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
