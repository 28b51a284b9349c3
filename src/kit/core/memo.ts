/**
 * A bounded memo: a Map emptied when it is full and a new entry comes.
 * Cheaper than an LRU, and enough for memos of pure functions, whose working
 * set is small and repeats (after a clear the hot entries come back at once).
 */
export class BoundedMemo<K, V> {
  /** Entries held at most; the next new entry first empties the memo. */
  readonly limit: number;
  readonly #map = new Map<K, V>();

  constructor(limit: number) {
    this.limit = limit;
  }

  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** Remember `value` for `key` (emptying the memo first when it is full); returns `value`. */
  set(key: K, value: V): V {
    if (this.#map.size >= this.limit) this.#map.clear();
    this.#map.set(key, value);
    return value;
  }

  /** The value for `key`, computed and remembered on a miss. */
  getOrCompute(key: K, compute: (key: K) => V): V {
    const hit = this.#map.get(key);
    return hit !== undefined ? hit : this.set(key, compute(key));
  }

  get size(): number {
    return this.#map.size;
  }

  clear(): void {
    this.#map.clear();
  }
}
