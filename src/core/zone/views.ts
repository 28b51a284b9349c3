/**
 * The model's objects (`Zone`, `ZoneNode`, `RRset`, `ResourceRecord`) as
 * views over a `ZoneStore`: made on access, holding only the store and a row
 * index, so a loaded zone holds no object per record or RRset. Views are
 * cheap and short-lived; do not rely on their identity (`zone.nodes.get(n)`
 * twice gives two equal views).
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

/** A record of the store. `rdata` and `source` are made on access: copy field by field. */
export class RecordView implements ResourceRecord {
  readonly owner: string;
  readonly type: number;
  readonly class: number;
  readonly ttl: number;
  private readonly store: ZoneStore;
  private readonly r: number;
  constructor(store: ZoneStore, r: number) {
    this.store = store;
    this.r = r;
    this.owner = store.name(store.recNode[r]!);
    this.type = store.recType[r]!;
    this.class = store.classOf(r);
    this.ttl = store.recTtl[r]!;
  }
  get rdata(): Uint8Array {
    return this.store.rdata(this.r);
  }
  get source(): SourcePosition | undefined {
    const line = this.store.recLine[this.r]!;
    if (line === 0) return undefined;
    return { file: this.store.fileOf(this.r), line, column: 1 };
  }
}

export class RRsetView implements RRset {
  readonly owner: string;
  readonly type: number;
  readonly ttl: number;
  private readonly store: ZoneStore;
  private readonly s: number;
  private list: ResourceRecord[] | undefined;
  constructor(store: ZoneStore, s: number) {
    this.store = store;
    this.s = s;
    this.owner = store.name(store.setNode[s]!);
    this.type = store.setType[s]!;
    this.ttl = store.setTtl[s]!;
  }
  /** In file order, duplicates removed (made on first access). */
  get records(): readonly ResourceRecord[] {
    if (this.list === undefined) {
      const st = this.store;
      const out = new Array<ResourceRecord>(st.setSize[this.s]!);
      let i = 0;
      for (let r = st.setFirst[this.s]!; r >= 0; r = st.recNext[r]!)
        out[i++] = new RecordView(st, r);
      this.list = out;
    }
    return this.list;
  }
}

/** A name of the zone; it is its own RRset map, keyed by type. */
export class NodeView implements ZoneNode, ReadonlyMap<number, RRset> {
  private readonly store: ZoneStore;
  private readonly n: number;
  constructor(store: ZoneStore, n: number) {
    this.store = store;
    this.n = n;
  }
  /** Made on access: a server keeps a view per name, and needs the name only once. */
  get name(): string {
    return this.store.name(this.n);
  }
  get rrsets(): ReadonlyMap<number, RRset> {
    return this;
  }
  get emptyNonTerminal(): boolean {
    return (this.store.nodeFlags[this.n]! & NODE_ENT) !== 0;
  }
  get isDelegation(): boolean {
    return (this.store.nodeFlags[this.n]! & NODE_DELEGATION) !== 0;
  }
  get belowCut(): boolean {
    return (this.store.nodeFlags[this.n]! & NODE_BELOW_CUT) !== 0;
  }
  get size(): number {
    let k = 0;
    for (let s = this.store.nodeFirstSet[this.n]!; s >= 0; s = this.store.setNext[s]!) k++;
    return k;
  }
  get(type: number): RRset | undefined {
    const s = this.store.findSet(this.n, type);
    return s < 0 ? undefined : new RRsetView(this.store, s);
  }
  has(type: number): boolean {
    return this.store.findSet(this.n, type) >= 0;
  }
  forEach(
    cb: (value: RRset, key: number, map: ReadonlyMap<number, RRset>) => void,
    thisArg?: unknown,
  ): void {
    for (const s of this.values()) cb.call(thisArg, s, s.type, this);
  }
  *entries(): MapIterator<[number, RRset]> {
    for (const s of this.values()) yield [s.type, s];
  }
  *keys(): MapIterator<number> {
    const st = this.store;
    for (let s = st.nodeFirstSet[this.n]!; s >= 0; s = st.setNext[s]!) yield st.setType[s]!;
  }
  *values(): MapIterator<RRset> {
    const st = this.store;
    for (let s = st.nodeFirstSet[this.n]!; s >= 0; s = st.setNext[s]!) yield new RRsetView(st, s);
  }
  [Symbol.iterator](): MapIterator<[number, RRset]> {
    return this.entries();
  }
}

/** The zone's names (out-of-zone owners excluded), keyed by name. */
export class NodeMap implements ReadonlyMap<string, ZoneNode> {
  private readonly store: ZoneStore;
  readonly size: number;
  constructor(store: ZoneStore, size: number) {
    this.store = store;
    this.size = size;
  }
  private index(name: string): number {
    const n = this.store.findName(name);
    return n < 0 || this.store.nodeFlags[n]! & NODE_OUT_OF_ZONE ? -1 : n;
  }
  get(name: string): ZoneNode | undefined {
    const n = this.index(name);
    return n < 0 ? undefined : new NodeView(this.store, n);
  }
  has(name: string): boolean {
    return this.index(name) >= 0;
  }
  forEach(
    cb: (value: ZoneNode, key: string, map: ReadonlyMap<string, ZoneNode>) => void,
    thisArg?: unknown,
  ): void {
    for (const [k, v] of this.entries()) cb.call(thisArg, v, k, this);
  }
  *entries(): MapIterator<[string, ZoneNode]> {
    for (const v of this.values()) yield [v.name, v];
  }
  *keys(): MapIterator<string> {
    const st = this.store;
    for (let n = 0; n < st.nodeCount; n++)
      if (!(st.nodeFlags[n]! & NODE_OUT_OF_ZONE)) yield st.name(n);
  }
  *values(): MapIterator<ZoneNode> {
    const st = this.store;
    for (let n = 0; n < st.nodeCount; n++)
      if (!(st.nodeFlags[n]! & NODE_OUT_OF_ZONE)) yield new NodeView(st, n);
  }
  [Symbol.iterator](): MapIterator<[string, ZoneNode]> {
    return this.entries();
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

/** Every record of the store in file order (out-of-zone ones left out unless asked), as views. */
export function recordViews(store: ZoneStore, outOfZone = false): ResourceRecord[] {
  const out: ResourceRecord[] = [];
  for (let r = 0; r < store.recCount; r++)
    if (outOfZone || !(store.recFlags[r]! & REC_OUT_OF_ZONE)) out.push(new RecordView(store, r));
  return out;
}
