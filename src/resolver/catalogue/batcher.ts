/**
 * Lookups by key gathered into few statements, for a store behind a round
 * trip (PostgreSQL). Queued keys go out as one batch at the end of the
 * event-loop turn, unless `maxInFlight` batches are out: then the keys asked
 * meanwhile go together, so batches grow with the load. Nothing is cached.
 * A returned batch's callers are answered after the next batch is sent, so
 * the database and this process work at the same time.
 */
export interface BatcherOptions {
  /** Batches out at once (default 2). */
  readonly maxInFlight?: number;
  /** Most keys in one batch (default 256). */
  readonly maxBatch?: number;
}

interface Waiting<K, V> {
  readonly key: K;
  readonly resolve: (v: V | undefined) => void;
  readonly reject: (e: unknown) => void;
}

export class Batcher<K, V> {
  readonly #run: (keys: readonly K[]) => Promise<ReadonlyMap<K, V>>;
  readonly #maxInFlight: number;
  readonly #maxBatch: number;
  #queue: Waiting<K, V>[] = [];
  #inFlight = 0;
  #scheduled = false;
  /** Batches come back whose callers are answered once the next batch is out. */
  #settle: (() => void)[] = [];
  /** Batches sent so far, and the keys they carried (keys / batches: the mean batch size). */
  batches = 0;
  keys = 0;

  /** `run` answers a batch of distinct keys: the value of each key found. */
  constructor(
    run: (keys: readonly K[]) => Promise<ReadonlyMap<K, V>>,
    options: BatcherOptions = {},
  ) {
    this.#run = run;
    this.#maxInFlight = Math.max(1, options.maxInFlight ?? 2);
    this.#maxBatch = Math.max(1, options.maxBatch ?? 256);
  }

  /** The value for `key` (undefined when `run` did not find it). */
  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ key, resolve, reject });
      this.#schedule();
    });
  }

  /** Whether a batch will go out at the end of this turn (scheduled now if it can). */
  #schedule(): boolean {
    if (this.#scheduled) return true;
    if (this.#inFlight >= this.#maxInFlight || this.#queue.length === 0) return false;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      while (this.#inFlight < this.#maxInFlight && this.#queue.length > 0) {
        void this.#send(this.#queue.splice(0, this.#maxBatch));
      }
      const settle = this.#settle;
      this.#settle = [];
      for (const s of settle) s();
    });
    return true;
  }

  async #send(batch: readonly Waiting<K, V>[]): Promise<void> {
    this.#inFlight++;
    this.batches++;
    this.keys += batch.length;
    let settle: () => void;
    try {
      const found = await this.#run([...new Set(batch.map((b) => b.key))]);
      settle = () => {
        for (const b of batch) b.resolve(found.get(b.key));
      };
    } catch (e) {
      settle = () => {
        for (const b of batch) b.reject(e);
      };
    }
    this.#inFlight--;
    // The next batch first, then this one's answers (see above).
    if (this.#schedule()) this.#settle.push(settle);
    else settle();
  }
}
