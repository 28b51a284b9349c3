/**
 * The server's name index of a stored zone, as columns: each name's lookup
 * key (lowercased wire form, `../wire/name.ts`) in one byte arena, found
 * through an open-addressing table in an Int32Array. It replaces a
 * `Map<string, ZoneNode>` of a million entries: no string and no object per
 * name, so it can be built by the thread that loads the zone and handed to
 * the thread that answers by transferring (or sharing) five ArrayBuffers,
 * after which serving the zone costs that thread nothing to prepare.
 *
 * Keys are computed from the store's canonical presentation names, octet by
 * octet (`\X` and `\DDD` escapes decoded, ASCII lowercased), exactly as
 * `nameKey` would (a test compares the two over zones with escapes).
 */
import { fnv1aBytes, fnv1aText } from '../kit/hash.ts';
import type { ZoneNode } from './model.ts';
import { NODE_OUT_OF_ZONE, type ZoneStore } from './store.ts';
import { NodeView } from './views.ts';

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

/**
 * Write the lookup key of the presentation name `src[o, o + len)` at
 * `dst[d]`; returns its length.
 */
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

/** Build the index of a store's in-zone names (O(names), no allocation per name). */
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

/** The zone's names by lookup key, over the store and its key index. */
export class KeyedNodes implements ReadonlyMap<string, ZoneNode> {
  /** The columns (to hand the index to another thread). */
  readonly columns: KeyIndexColumns;
  private readonly store: ZoneStore;
  private readonly c: KeyIndexColumns;
  readonly size: number;
  constructor(store: ZoneStore, columns: KeyIndexColumns) {
    this.store = store;
    this.c = columns;
    this.columns = columns;
    this.size = columns.count;
  }

  /** The name row of a lookup key, or -1. */
  row(key: string): number {
    const { slots, keyOff, keyLen, keyHash, keys } = this.c;
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
    const o = this.c.keyOff[n]!;
    return String.fromCharCode.apply(
      null,
      this.c.keys.subarray(o, o + this.c.keyLen[n]!) as unknown as number[],
    );
  }

  get(key: string): ZoneNode | undefined {
    const n = this.row(key);
    return n < 0 ? undefined : new NodeView(this.store, n);
  }
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
    const len = this.c.keyLen;
    for (let n = 0; n < len.length; n++)
      if (len[n]! > 0) yield [this.keyOf(n), new NodeView(this.store, n)];
  }
  *keys(): MapIterator<string> {
    const len = this.c.keyLen;
    for (let n = 0; n < len.length; n++) if (len[n]! > 0) yield this.keyOf(n);
  }
  *values(): MapIterator<ZoneNode> {
    const len = this.c.keyLen;
    for (let n = 0; n < len.length; n++) if (len[n]! > 0) yield new NodeView(this.store, n);
  }
  [Symbol.iterator](): MapIterator<[string, ZoneNode]> {
    return this.entries();
  }
}
