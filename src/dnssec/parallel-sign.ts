/**
 * Making a zone's signatures on several cores: the plan is walked here, the
 * signing inputs go in batches to workers holding the private keys
 * (`sign-worker.ts`); owners come back in plan order, as `signZone` gives them.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ResourceRecord } from '../dns/core/zone/model.ts';
import { completeSignature, type SigningChunk } from './core/sign-zone.ts';
import type { LoadedKey } from './keys.ts';
import type { SignBatch, SignedBatch, SignWorkerInit } from './sign-worker.ts';

export interface ParallelSignOptions {
  /** Signing threads; 0 or 1 signs in this thread. Default: the cores available. */
  readonly threads?: number;
  /** Signatures per batch (default 512): small, so the chunks out (two batches a thread) die young. */
  readonly batch?: number;
}

const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './sign-worker.ts' : './sign-worker.js',
  import.meta.url,
);

export function defaultSigningThreads(): number {
  return availableParallelism();
}

class SignerPool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<
    number,
    { resolve: (r: SignedBatch) => void; reject: (e: Error) => void }
  >();
  private nextId = 1;
  private turn = 0;

  constructor(keys: readonly LoadedKey[], threads: number) {
    const init: SignWorkerInit = {
      keys: keys.map((k) => ({
        algorithm: k.algorithm,
        pkcs8: new Uint8Array(k.privateKey.export({ format: 'der', type: 'pkcs8' })),
      })),
    };
    for (let i = 0; i < threads; i++) {
      const w = new Worker(WORKER_URL, { workerData: init });
      w.on('message', (r: SignedBatch) => {
        const p = this.pending.get(r.id);
        this.pending.delete(r.id);
        if (r.error !== undefined) p?.reject(new Error(`signing thread: ${r.error}`));
        else p?.resolve(r);
      });
      w.on('error', (e) => this.failAll(e));
      w.on('exit', (code) =>
        this.failAll(new Error(`a signing thread stopped (exit code ${code})`)),
      );
      this.workers.push(w);
    }
  }

  private failAll(e: Error): void {
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  sign(batch: Omit<SignBatch, 'id'>): Promise<SignedBatch> {
    const id = this.nextId++;
    const w = this.workers[this.turn++ % this.workers.length]!;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const buffers = [batch.keys.buffer, batch.offsets.buffer, batch.data.buffer] as ArrayBuffer[];
      w.postMessage({ id, ...batch }, buffers);
    });
  }

  async close(): Promise<void> {
    const ws = this.workers.splice(0);
    for (const w of ws) w.removeAllListeners('exit');
    await Promise.all(ws.map((w) => w.terminate()));
  }
}

/** The signing inputs of some chunks, laid out for a thread. */
function packBatch(chunks: readonly SigningChunk[]): Omit<SignBatch, 'id'> {
  let n = 0;
  let size = 0;
  for (const c of chunks)
    for (const j of c.jobs) {
      n++;
      size += j.data.length;
    }
  const keys = new Uint8Array(n);
  const offsets = new Uint32Array(n + 1);
  const data = new Uint8Array(size);
  let i = 0;
  let at = 0;
  for (const c of chunks)
    for (const j of c.jobs) {
      keys[i] = j.key;
      offsets[i++] = at;
      data.set(j.data, at);
      at += j.data.length;
    }
  offsets[n] = at;
  return { keys, offsets, data };
}

function fill(r: ResourceRecord, rdata: Uint8Array): ResourceRecord {
  return { owner: r.owner, type: r.type, class: r.class, ttl: r.ttl, rdata };
}

async function signOnPool(pool: SignerPool, chunks: SigningChunk[]): Promise<SigningChunk[]> {
  const r = await pool.sign(packBatch(chunks));
  let i = 0;
  for (const c of chunks)
    for (const j of c.jobs) {
      const sig = r.data!.subarray(r.offsets![i]!, r.offsets![i + 1]!);
      c.records[j.at] = fill(c.records[j.at]!, completeSignature(j, sig));
      i++;
    }
  return chunks;
}

function signHere(chunks: readonly SigningChunk[], keys: readonly LoadedKey[]): void {
  for (const c of chunks)
    for (const j of c.jobs)
      c.records[j.at] = fill(c.records[j.at]!, completeSignature(j, keys[j.key]!.sign(j.data)));
}

/** Sign a plan's chunks, owners to `emit` in order; the RRsets signed. Threads start once a batch fills. */
export async function signChunks(
  plan: Iterable<SigningChunk>,
  keys: readonly LoadedKey[],
  emit: (records: ResourceRecord[]) => void | Promise<void>,
  o: ParallelSignOptions = {},
): Promise<number> {
  const threads = o.threads ?? defaultSigningThreads();
  const size = o.batch ?? 512;
  let pool: SignerPool | undefined;
  let signed = 0;
  const queue: Promise<SigningChunk[]>[] = [];
  const drainOne = async () => {
    for (const c of await queue.shift()!) await emit(c.records);
  };
  let batch: SigningChunk[] = [];
  let jobs = 0;
  const here = async () => {
    signHere(batch, keys);
    for (const c of batch) await emit(c.records);
    batch = [];
    jobs = 0;
  };
  try {
    for (const c of plan) {
      signed += c.signed;
      batch.push(c);
      jobs += c.jobs.length;
      if (threads > 1 && jobs >= size) {
        pool ??= new SignerPool(keys, threads);
        const p = signOnPool(pool, batch);
        p.catch(() => undefined); // awaited in order by drainOne
        queue.push(p);
        batch = [];
        jobs = 0;
        if (queue.length >= 2 * threads) await drainOne();
      } else if (!pool && (threads <= 1 || batch.length >= 4 * size)) await here();
    }
    // The rest (less than a batch), after the batches on the threads.
    while (queue.length) await drainOne();
    await here();
  } finally {
    await pool?.close();
  }
  return signed;
}
