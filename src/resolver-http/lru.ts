/**
 * A least-recently-used map of bounded size with O(1) `get`, `set` and
 * eviction: a `Map` from key to slot, and the recency order as a doubly
 * linked list over slot numbers in typed arrays.
 *
 * (A plain `Map` used as an LRU, evicting `keys().next()`, is O(size) per
 * eviction in V8: deleted entries stay as holes at the front of the
 * insertion-ordered table until it is rehashed, and every `keys().next()`
 * walks over them.)
 */
export class LruCache<V> {
  readonly capacity: number;
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

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`LRU capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
    this.#next = new Int32Array(capacity);
    this.#prev = new Int32Array(capacity);
  }

  get size(): number {
    return this.#index.size;
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

  /** Store as most recently used; the least recently used entry goes when full. */
  set(key: string, value: V): void {
    let slot = this.#index.get(key);
    if (slot !== undefined) {
      this.#values[slot] = value;
      if (slot !== this.#head) {
        this.#unlink(slot);
        this.#pushFront(slot);
      }
      return;
    }
    if (this.#index.size < this.capacity) {
      slot = this.#index.size;
    } else {
      slot = this.#tail;
      this.#index.delete(this.#keys[slot] as string);
      this.#unlink(slot);
    }
    this.#keys[slot] = key;
    this.#values[slot] = value;
    this.#index.set(key, slot);
    this.#pushFront(slot);
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
