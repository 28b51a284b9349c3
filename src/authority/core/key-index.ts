/**
 * The name index of a stored zone by lookup key, with no object per name (a thread serves a zone
 * another loaded as it is): the parser's canonical names through the store's own table, others
 * through key columns built as `nameKey` would (a test compares the two).
 */
import { fnv1aBytes, fnv1aText } from '../../kit/core/hash.ts';
import type { ZoneNode } from '../../dns/core/zone/model.ts';
import { NODE_OUT_OF_ZONE, type ZoneStore } from '../../dns/core/zone/store.ts';
import { NodeView } from '../../dns/core/zone/views.ts';

/** Node views kept per lookup index (a power of two). */
const VIEW_CACHE = 64;

/** The index's columns: structured-clonable, every field a typed array or a number. */
export interface KeyIndexColumns {
  /** Name row + 1 per slot, 0 = free; a power of two at least twice the names. */
  readonly slots: Int32Array;
  /** Per name row: where its key starts in `keys`. */
  readonly keyOff: Uint32Array;
  /** Per name row: its key's length (0: the row is not indexed, e.g. out of zone). */
  readonly keyLen: Uint8Array;
  /** Per name row: the FNV-1a hash of its key. */
  readonly keyHash: Uint32Array;
  /** The keys' octets. */
  readonly keys: Uint8Array;
  /** Names indexed. */
  readonly count: number;
}

function lower(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
}

/** Write the lookup key of the presentation name `src[o, o + len)` at `dst[d]`; its length. */
function writeKey(src: Uint8Array, o: number, len: number, dst: Uint8Array, d: number): number {
  if (len === 0 || (len === 1 && src[o] === 0x2e)) {
    dst[d] = 0;
    return 1;
  }
  let lenAt = d;
  let p = d + 1;
  let lastDot = false;
  const end = o + len;
  for (let i = o; i < end; i++) {
    const c = src[i]!;
    lastDot = false;
    if (c === 0x5c) {
      const n = src[i + 1]!;
      if (n >= 0x30 && n <= 0x39) {
        dst[p++] = lower((n - 0x30) * 100 + (src[i + 2]! - 0x30) * 10 + (src[i + 3]! - 0x30));
        i += 3;
      } else {
        dst[p++] = lower(n);
        i += 1;
      }
    } else if (c === 0x2e) {
      dst[lenAt] = p - lenAt - 1;
      lenAt = p++;
      lastDot = true;
    } else dst[p++] = lower(c);
  }
  dst[lenAt] = p - lenAt - 1;
  if (!lastDot) dst[p++] = 0;
  return p - d;
}

/** The key columns of a store whose names are not all canonical (O(names), nothing per name). */
export function buildKeyIndex(store: ZoneStore): KeyIndexColumns {
  const rows = store.nameCount;
  let bound = 0;
  for (let n = 0; n < rows; n++) bound += store.nameLength(n) + 2;
  const keys = new Uint8Array(Math.max(1, bound));
  const keyOff = new Uint32Array(rows);
  const keyLen = new Uint8Array(rows);
  const keyHash = new Uint32Array(rows);
  let count = 0;
  for (let n = 0; n < rows; n++) if (!(store.nameFlags(n) & NODE_OUT_OF_ZONE)) count++;
  let size = 16;
  while (size < count * 2) size *= 2;
  const slots = new Int32Array(size);
  const mask = size - 1;
  let used = 0;
  for (let n = 0; n < rows; n++) {
    if (store.nameFlags(n) & NODE_OUT_OF_ZONE) continue;
    const len = writeKey(store.nameBlockOf(n), store.nameStart(n), store.nameLength(n), keys, used);
    const h = fnv1aBytes(keys, used, used + len) >>> 0;
    keyOff[n] = used;
    keyLen[n] = len;
    keyHash[n] = h;
    used += len;
    let i = h & mask;
    while (slots[i] !== 0) i = (i + 1) & mask;
    slots[i] = n + 1;
  }
  return { slots, keyOff, keyLen, keyHash, keys, count };
}

/** The index's buffers, for `postMessage(..., transfer)`. */
export function keyIndexBuffers(c: KeyIndexColumns): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const a of [c.slots, c.keyOff, c.keyLen, c.keyHash, c.keys]) {
    if (a.buffer instanceof ArrayBuffer) out.push(a.buffer);
  }
  return out;
}

/** The zone's names by lookup key: the store's own table, or the key columns above. */
export class KeyedNodes implements ReadonlyMap<string, ZoneNode> {
  /** The key columns, for a store whose names are not all canonical (to hand them to another thread). */
  readonly columns: KeyIndexColumns | undefined;
  private readonly store: ZoneStore;
  private count = -1;
  /** Scratch for `keyOf` (a key is at most 255 octets; a presentation name at most 4 x 255). */
  private scratch: Uint8Array | undefined;
  /** The zone's apex key and node (null: not looked up yet); every lookup starts at the apex. */
  private readonly apexKey: string | undefined;
  private apex: ZoneNode | undefined | null = null;
  constructor(store: ZoneStore, columns?: KeyIndexColumns, apexKey?: string) {
    this.store = store;
    this.columns = store.canonicalNames ? undefined : (columns ?? buildKeyIndex(store));
    this.apexKey = apexKey;
  }

  /** Name rows of the store (indexed or not). */
  get rows(): number {
    return this.store.nameCount;
  }

  /** Names indexed (the store's names but those out of zone). */
  get size(): number {
    if (this.columns) return this.columns.count;
    if (this.count < 0) {
      let count = 0;
      for (let n = 0; n < this.store.nameCount; n++) if (this.indexed(n)) count++;
      this.count = count;
    }
    return this.count;
  }

  private indexed(n: number): boolean {
    return this.columns
      ? this.columns.keyLen[n]! > 0
      : !this.store.hasNameFlag(n, NODE_OUT_OF_ZONE);
  }

  /** The name row of a lookup key, or -1. */
  row(key: string): number {
    if (this.columns === undefined) {
      const n = this.store.findKey(key);
      return n >= 0 && !this.store.hasNameFlag(n, NODE_OUT_OF_ZONE) ? n : -1;
    }
    const { slots, keyOff, keyLen, keyHash, keys } = this.columns;
    const h = fnv1aText(key) >>> 0;
    const mask = slots.length - 1;
    const len = key.length;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const v = slots[i]!;
      if (v === 0) return -1;
      const n = v - 1;
      if (keyHash[n] !== h || keyLen[n] !== len) continue;
      const o = keyOff[n]!;
      let k = 0;
      while (k < len && keys[o + k] === key.charCodeAt(k)) k++;
      if (k === len) return n;
    }
  }

  /** The lookup key of name row n. */
  keyOf(n: number): string {
    let bytes: Uint8Array;
    if (this.columns) {
      const o = this.columns.keyOff[n]!;
      bytes = this.columns.keys.subarray(o, o + this.columns.keyLen[n]!);
    } else {
      const st = this.store;
      this.scratch ??= new Uint8Array(1024);
      const len = writeKey(st.nameBlockOf(n), st.nameStart(n), st.nameLength(n), this.scratch, 0);
      bytes = this.scratch.subarray(0, len);
    }
    return String.fromCharCode.apply(null, bytes as unknown as number[]);
  }

  get(key: string): ZoneNode | undefined {
    if (key !== this.apexKey) return this.find(key);
    if (this.apex === null) this.apex = this.find(key);
    return this.apex;
  }
  private find(key: string): ZoneNode | undefined {
    const n = this.row(key);
    if (n < 0) return undefined;
    // A small direct-mapped cache of views by row: every lookup gets the apex
    // and its way down, and making a view (own getters, views.ts) costs more
    // than the search. Views are immutable over an immutable store.
    const slot = n & (VIEW_CACHE - 1);
    if (this.viewRows[slot] === n + 1) return this.views[slot]!;
    const v = new NodeView(this.store, n);
    this.viewRows[slot] = n + 1;
    this.views[slot] = v;
    return v;
  }
  private readonly viewRows = new Int32Array(VIEW_CACHE);
  private readonly views = new Array<NodeView | undefined>(VIEW_CACHE);
  has(key: string): boolean {
    return this.row(key) >= 0;
  }
  forEach(
    cb: (value: ZoneNode, key: string, map: ReadonlyMap<string, ZoneNode>) => void,
    thisArg?: unknown,
  ): void {
    for (const [k, v] of this.entries()) cb.call(thisArg, v, k, this);
  }
  *entries(): MapIterator<[string, ZoneNode]> {
    for (let n = 0; n < this.rows; n++)
      if (this.indexed(n)) yield [this.keyOf(n), new NodeView(this.store, n)];
  }
  *keys(): MapIterator<string> {
    for (let n = 0; n < this.rows; n++) if (this.indexed(n)) yield this.keyOf(n);
  }
  *values(): MapIterator<ZoneNode> {
    for (let n = 0; n < this.rows; n++) if (this.indexed(n)) yield new NodeView(this.store, n);
  }
  [Symbol.iterator](): MapIterator<[string, ZoneNode]> {
    return this.entries();
  }
}
