import { fnv1aText } from './hash.ts';

/**
 * A least-recently-used map of bounded size with O(1) `get`, `set` and
 * eviction: a `Map` from key to slot, the recency order a doubly linked list
 * over slots in typed arrays (a `Map` evicting `keys().next()` is O(size) per
 * eviction in V8: it walks the holes deletes leave at its front).
 */
export class LruCache<V> {
  readonly capacity: number;
  /** Bound on the sum of `sizeOf` over the entries (Infinity: count only). */
  readonly maxBytes: number;
  readonly #sizeOf: (key: string, value: V) => number;
  readonly #sizes: Float64Array;
  #bytes = 0;
  /** Entries dropped to make room (by count or bytes), since construction. */
  evictions = 0;
  /** Slots freed by byte evictions and deletes, reused first. */
  readonly #free: number[] = [];
  /** Slots handed out so far. */
  #used = 0;
  readonly #index = new Map<string, number>();
  readonly #keys: string[] = [];
  readonly #values: V[] = [];
  /** Towards older entries. */
  readonly #next: Int32Array;
  /** Towards newer entries. */
  readonly #prev: Int32Array;
  /** Most recently used slot, or -1. */
  #head = -1;
  /** Least recently used slot, or -1. */
  #tail = -1;

  /** At most `capacity` entries and `maxBytes` bytes by `sizeOf` (a larger entry is not kept). */
  constructor(
    capacity: number,
    maxBytes = Number.POSITIVE_INFINITY,
    sizeOf: (key: string, value: V) => number = () => 0,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`LRU capacity must be a positive integer, got ${capacity}`);
    }
    if (!(maxBytes >= 0)) throw new RangeError(`LRU maxBytes must be >= 0, got ${maxBytes}`);
    this.capacity = capacity;
    this.maxBytes = maxBytes;
    this.#sizeOf = sizeOf;
    this.#next = new Int32Array(capacity);
    this.#prev = new Int32Array(capacity);
    this.#sizes = new Float64Array(capacity);
  }

  get size(): number {
    return this.#index.size;
  }

  /** The sum of `sizeOf` over the entries. */
  get bytes(): number {
    return this.#bytes;
  }

  #evictTail(): number {
    this.evictions++;
    return this.#drop(this.#tail);
  }

  #drop(slot: number): number {
    this.#index.delete(this.#keys[slot] as string);
    this.#unlink(slot);
    this.#bytes -= this.#sizes[slot] as number;
    this.#sizes[slot] = 0;
    this.#values[slot] = undefined as V;
    return slot;
  }

  /** Remove `key`; true when it was there. */
  delete(key: string): boolean {
    const slot = this.#index.get(key);
    if (slot === undefined) return false;
    this.#free.push(this.#drop(slot));
    return true;
  }

  /** The value, marked most recently used; undefined when absent. */
  get(key: string): V | undefined {
    const slot = this.#index.get(key);
    if (slot === undefined) return undefined;
    if (slot !== this.#head) {
      this.#unlink(slot);
      this.#pushFront(slot);
    }
    return this.#values[slot];
  }

  /** Store as most recently used; least recently used entries go when full (by count or bytes). */
  set(key: string, value: V): void {
    const size = this.#sizeOf(key, value);
    let slot = this.#index.get(key);
    if (slot !== undefined) {
      this.#bytes += size - (this.#sizes[slot] as number);
      this.#sizes[slot] = size;
      this.#values[slot] = value;
      if (slot !== this.#head) {
        this.#unlink(slot);
        this.#pushFront(slot);
      }
      this.#shrink(slot);
      return;
    }
    if (size > this.maxBytes) return;
    if (this.#free.length > 0) slot = this.#free.pop() as number;
    else if (this.#used < this.capacity) slot = this.#used++;
    else slot = this.#evictTail();
    this.#keys[slot] = key;
    this.#values[slot] = value;
    this.#sizes[slot] = size;
    this.#bytes += size;
    this.#index.set(key, slot);
    this.#pushFront(slot);
    this.#shrink(slot);
  }

  /** Evict least recently used entries (never `keep`) until within `maxBytes`. */
  #shrink(keep: number): void {
    while (this.#bytes > this.maxBytes && this.#tail !== -1 && this.#tail !== keep) {
      this.#free.push(this.#evictTail());
    }
    if (this.#bytes > this.maxBytes && this.#tail === keep) {
      this.#free.push(this.#evictTail());
    }
  }

  /** Keys from most to least recently used (for tests and diagnostics). */
  keys(): string[] {
    const out: string[] = [];
    for (let s = this.#head; s !== -1; s = this.#next[s] as number)
      out.push(this.#keys[s] as string);
    return out;
  }

  clear(): void {
    this.#index.clear();
    this.#keys.length = 0;
    this.#values.length = 0;
    this.#sizes.fill(0);
    this.#bytes = 0;
    this.#free.length = 0;
    this.#used = 0;
    this.#head = -1;
    this.#tail = -1;
  }

  #unlink(slot: number): void {
    const p = this.#prev[slot] as number;
    const n = this.#next[slot] as number;
    if (p === -1) this.#head = n;
    else this.#next[p] = n;
    if (n === -1) this.#tail = p;
    else this.#prev[n] = p;
  }

  #pushFront(slot: number): void {
    this.#prev[slot] = -1;
    this.#next[slot] = this.#head;
    if (this.#head !== -1) this.#prev[this.#head] = slot;
    this.#head = slot;
    if (this.#tail === -1) this.#tail = slot;
  }
}

/**
 * Cache admission on the second request (TinyLFU's "doorkeeper", without the
 * frequency sketch): a direct-mapped table of 32-bit fingerprints of recently
 * offered keys, so a stream of URNs each asked once leaves the answer cache
 * alone. A collision costs a miss or an early admission, never correctness.
 */
export class Doorkeeper {
  readonly #seen: Int32Array;
  readonly #mask: number;

  /** `slots` is rounded up to a power of two (at least 64). */
  constructor(slots: number) {
    if (!Number.isInteger(slots) || slots < 1) {
      throw new RangeError(`doorkeeper size must be a positive integer, got ${slots}`);
    }
    let size = 64;
    while (size < slots) size *= 2;
    this.#seen = new Int32Array(size);
    this.#mask = size - 1;
  }

  /** True when `key` was offered before; otherwise remembers it and returns false. */
  offer(key: string): boolean {
    // FNV-1a, then a final mix so that the low bits (the slot) depend on every character.
    let h = fnv1aText(key);
    h ^= h >>> 16;
    h = Math.imul(h, 0x7feb352d);
    h ^= h >>> 15;
    // 0 marks an empty slot: never store it as a fingerprint.
    const fingerprint = h | 1;
    const slot = (h >>> 7) & this.#mask;
    if (this.#seen[slot] === fingerprint) return true;
    this.#seen[slot] = fingerprint;
    return false;
  }

  clear(): void {
    this.#seen.fill(0);
  }
}
