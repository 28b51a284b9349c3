/**
 * Lookups by key gathered into few statements, for a store behind a round
 * trip (PostgreSQL). A key asked for is queued; the queue goes out as one
 * batch (one statement for many keys) at the end of the event-loop turn,
 * unless `maxInFlight` batches are already out: then it waits for one of
 * them to come back, and the keys asked for meanwhile go out together.
 *
 * So the batches grow with the load by themselves: one key per statement
 * when the resolver is idle (no added latency beyond the turn), and under
 * load each statement answers every request that arrived during the
 * previous round trip. That divides the per-statement cost (the driver's
 * bind/execute/sync messages, a write and a read on the socket, the
 * server's executor start-up) by the batch size, on both sides of the
 * socket. Every key is still looked up in the database: nothing is kept
 * once its batch has answered.
 *
 * When a batch comes back while keys wait, the next batch is sent first
 * (at the end of that event-loop turn, with the keys read meanwhile), and
 * only then are the returned batch's callers answered: the database works
 * on the next batch while this process renders the answers of the last one,
 * instead of the two waiting for each other in turn.
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
