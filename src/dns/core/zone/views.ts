/**
 * The model's objects as views over a `ZoneStore`, made on access: a loaded
 * zone holds no object per record or RRset. Do not rely on a view's identity.
 */
import type { ResourceRecord, RRset, SourcePosition, Zone, ZoneNode } from './model.ts';
import {
  NODE_BELOW_CUT,
  NODE_DELEGATION,
  NODE_ENT,
  NODE_OUT_OF_ZONE,
  REC_OUT_OF_ZONE,
  type ZoneStore,
} from './store.ts';

/** A read-only map made of `size`, `get` and `entries`; the rest of `ReadonlyMap` follows from them. */
export abstract class MapView<K, V> implements ReadonlyMap<K, V> {
  abstract readonly size: number;
  abstract get(key: K): V | undefined;
  abstract entries(): MapIterator<[K, V]>;
  has(key: K): boolean {
    return this.get(key) !== undefined;
  }
  forEach(cb: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) cb.call(thisArg, v, k, this);
  }
  *keys(): MapIterator<K> {
    for (const [k] of this.entries()) yield k;
  }
  *values(): MapIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }
  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }
}

/**
 * A record of the store that behaves as a plain object (spread,
 * `Object.keys`, JSON give its fields); `rdata` and `source` are getters, so
 * a list of views holds no RDATA view and no position object.
 */
export class RecordView implements ResourceRecord {
  readonly owner: string;
  readonly type: number;
  readonly class: number;
  readonly ttl: number;
  declare readonly rdata: Uint8Array;
  declare readonly source?: SourcePosition;
  readonly #store: ZoneStore;
  readonly #r: number;
  constructor(store: ZoneStore, r: number) {
    this.owner = store.name(store.recordNode(r));
    this.type = store.recordType(r);
    this.class = store.classOf(r);
    this.ttl = store.recordTtl(r);
    this.#store = store;
    this.#r = r;
    // Own accessors (one shared descriptor each): a spread calls them.
    Object.defineProperty(this, 'rdata', RDATA);
    if (store.recordLine(r) !== 0) Object.defineProperty(this, 'source', SOURCE);
  }
  static rdataOf(v: RecordView): Uint8Array {
    return v.#store.rdata(v.#r);
  }
  static sourceOf(v: RecordView): SourcePosition | undefined {
    return v.#store.source(v.#r);
  }
}

/** An enumerable accessor, one shared descriptor per field (a spread calls it). */
function accessor<T>(get: (view: T) => unknown): PropertyDescriptor {
  return {
    get(this: T) {
      return get(this);
    },
    enumerable: true,
  };
}

const RDATA = accessor(RecordView.rdataOf);
const SOURCE = accessor(RecordView.sourceOf);

/** An RRset of the store that behaves as a plain object; `records` are made on first access. */
export class RRsetView implements RRset {
  readonly owner: string;
  readonly type: number;
  readonly ttl: number;
  declare readonly records: readonly ResourceRecord[];
  readonly #store: ZoneStore;
  readonly #s: number;
  #list: ResourceRecord[] | undefined;
  constructor(store: ZoneStore, s: number) {
    this.#store = store;
    this.#s = s;
    this.owner = store.name(store.rrsetNode(s));
    this.type = store.rrsetType(s);
    this.ttl = store.rrsetTtl(s);
    Object.defineProperty(this, 'records', RECORDS);
  }
  /** In file order, duplicates removed (made on first access). */
  static recordsOf(v: RRsetView): readonly ResourceRecord[] {
    if (v.#list === undefined) {
      const st = v.#store;
      const out = new Array<ResourceRecord>(st.rrsetSize(v.#s));
      let i = 0;
      for (let r = st.firstRecord(v.#s); r >= 0; r = st.nextRecord(r))
        out[i++] = new RecordView(st, r);
      v.#list = out;
    }
    return v.#list;
  }
}

const RECORDS = accessor(RRsetView.recordsOf);

/**
 * A name of the zone, its own RRset map by type, that behaves as a plain
 * `ZoneNode` (`name` a getter: the string is made only when asked).
 */
export class NodeView extends MapView<number, RRset> implements ZoneNode {
  // Assigned in the constructor after `name`, so the keys come in ZoneNode's order.
  declare readonly name: string;
  declare readonly rrsets: ReadonlyMap<number, RRset>;
  declare readonly emptyNonTerminal: boolean;
  declare readonly isDelegation: boolean;
  declare readonly belowCut: boolean;
  readonly #store: ZoneStore;
  readonly #n: number;
  #lastSet = -1;
  #lastView: RRsetView | undefined;
  constructor(store: ZoneStore, n: number) {
    super();
    this.#store = store;
    this.#n = n;
    Object.defineProperty(this, 'name', NAME);
    (this as { rrsets: ReadonlyMap<number, RRset> }).rrsets = this;
    this.emptyNonTerminal = store.hasNameFlag(n, NODE_ENT);
    this.isDelegation = store.hasNameFlag(n, NODE_DELEGATION);
    this.belowCut = store.hasNameFlag(n, NODE_BELOW_CUT);
  }
  static nameOf(v: NodeView): string {
    return v.#store.name(v.#n);
  }
  toJSON(): Omit<ZoneNode, 'rrsets'> & { rrsets: RRset[] } {
    return {
      name: this.name,
      rrsets: [...this.values()],
      emptyNonTerminal: this.emptyNonTerminal,
      isDelegation: this.isDelegation,
      belowCut: this.belowCut,
    };
  }
  get size(): number {
    const st = this.#store;
    let k = 0;
    for (let s = st.firstRRset(this.#n); s >= 0; s = st.nextRRset(s)) k++;
    return k;
  }
  get(type: number): RRset | undefined {
    const s = this.#store.findSet(this.#n, type);
    if (s < 0) return undefined;
    // The last RRset asked is kept: a lookup index keeps its hot node views
    // (key-index.ts), and a wildcard answers the same RRset query after query.
    if (s === this.#lastSet) return this.#lastView;
    const v = new RRsetView(this.#store, s);
    this.#lastSet = s;
    this.#lastView = v;
    return v;
  }
  override has(type: number): boolean {
    return this.#store.findSet(this.#n, type) >= 0;
  }
  *entries(): MapIterator<[number, RRset]> {
    for (const s of this.values()) yield [s.type, s];
  }
  override *keys(): MapIterator<number> {
    const st = this.#store;
    for (let s = st.firstRRset(this.#n); s >= 0; s = st.nextRRset(s)) yield st.rrsetType(s);
  }
  override *values(): MapIterator<RRset> {
    const st = this.#store;
    for (let s = st.firstRRset(this.#n); s >= 0; s = st.nextRRset(s)) yield new RRsetView(st, s);
  }
}

const NAME = accessor(NodeView.nameOf);

/** The zone's names (out-of-zone owners excluded), keyed by name. */
export class NodeMap extends MapView<string, ZoneNode> {
  readonly #store: ZoneStore;
  readonly size: number;
  constructor(store: ZoneStore, size: number) {
    super();
    this.#store = store;
    this.size = size;
  }
  private index(name: string): number {
    const n = this.#store.findName(name);
    return n < 0 || this.#store.hasNameFlag(n, NODE_OUT_OF_ZONE) ? -1 : n;
  }
  get(name: string): ZoneNode | undefined {
    const n = this.index(name);
    return n < 0 ? undefined : new NodeView(this.#store, n);
  }
  override has(name: string): boolean {
    return this.index(name) >= 0;
  }
  *entries(): MapIterator<[string, ZoneNode]> {
    for (const v of this.values()) yield [v.name, v];
  }
  override *keys(): MapIterator<string> {
    const st = this.#store;
    for (let n = 0, count = st.nameCount; n < count; n++)
      if (!st.hasNameFlag(n, NODE_OUT_OF_ZONE)) yield st.name(n);
  }
  override *values(): MapIterator<ZoneNode> {
    const st = this.#store;
    for (let n = 0, count = st.nameCount; n < count; n++)
      if (!st.hasNameFlag(n, NODE_OUT_OF_ZONE)) yield new NodeView(st, n);
  }
}

/** A built zone over its store. */
export class StoreZone implements Zone {
  readonly origin: string;
  readonly class: number;
  readonly soa: RRset;
  readonly nodes: ReadonlyMap<string, ZoneNode>;
  readonly cuts: readonly string[];
  readonly size: number;
  /** The columns behind the views (for code in this module's package that reads them directly). */
  readonly store: ZoneStore;
  /** Name rows in canonical order. */
  readonly order: Int32Array;
  private readonly memo: { names?: readonly string[] } = {};
  constructor(
    store: ZoneStore,
    origin: string,
    soa: RRset,
    order: Int32Array,
    cuts: readonly string[],
    size: number,
  ) {
    this.store = store;
    this.origin = origin;
    this.class = store.zoneClass || 1;
    this.soa = soa;
    this.nodes = new NodeMap(store, order.length);
    this.order = order;
    this.cuts = cuts;
    this.size = size;
    Object.freeze(this);
  }
  /** Node names in canonical order (the strings are made on first access). */
  get names(): readonly string[] {
    if (this.memo.names === undefined) {
      const out = new Array<string>(this.order.length);
      for (let i = 0; i < out.length; i++) out[i] = this.store.name(this.order[i]!);
      this.memo.names = out;
    }
    return this.memo.names;
  }
}

/**
 * Every record of the store in file order (out-of-zone ones left out unless
 * asked), as views; with `type`, only the records of that type.
 */
export function recordViews(store: ZoneStore, outOfZone = false, type?: number): ResourceRecord[] {
  const out: ResourceRecord[] = [];
  for (let r = 0, count = store.recordCount; r < count; r++) {
    if (type !== undefined && store.recordType(r) !== type) continue;
    if (outOfZone || !(store.recordFlags(r) & REC_OUT_OF_ZONE)) out.push(new RecordView(store, r));
  }
  return out;
}
