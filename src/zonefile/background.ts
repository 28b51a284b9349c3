/**
 * Zone loading off the query path: a worker thread (`worker.ts`) reads,
 * parses, builds and validates; the zone comes back as transferred columns
 * and is put together here in O(1). One worker serves the loads of one
 * server, one file at a time (a reload is serial anyway); it is started on
 * the first load and restarted after a crash.
 */
import { Worker } from 'node:worker_threads';
import type { Zone, ZoneDiagnostic } from '../core/zone/model.ts';
import { unpackIndexedZone } from './transfer.ts';
import type { IndexedZone } from '../core/zone/lookup.ts';
import type { LoadReply, LoadRequest, WorkerLoadOptions } from './worker.ts';

export interface BackgroundLoadResult {
  readonly zone?: Zone;
  /** The zone with its name index (and DNSSEC chain), as the worker built them. */
  readonly indexed?: IndexedZone;
  readonly diagnostics: readonly ZoneDiagnostic[];
  /** SHA-256 of the file read (absent when it could not be read). */
  readonly hash?: string;
  /** The content equals the version whose hash was given: not parsed. */
  readonly unchanged?: boolean;
  /** What inline signing did (when the zone was signed). */
  readonly signed?: LoadReply['signed'];
  /** Time spent in the worker. */
  readonly workerMs: number;
}

const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js',
  import.meta.url,
);

export class BackgroundZoneLoader {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (r: LoadReply) => void; reject: (e: Error) => void }
  >();
  private readonly options: LoadRequest['options'];
  private closed = false;

  constructor(options: WorkerLoadOptions = {}) {
    this.options = options;
  }

  private start(): Worker {
    const w = new Worker(WORKER_URL);
    w.unref();
    w.on('message', (reply: LoadReply) => {
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      p?.resolve(reply);
    });
    const fail = (e: Error) => {
      if (this.worker === w) this.worker = undefined;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`the zone-load worker stopped (exit code ${code})`)));
    return w;
  }

  /** Load one zone file in the worker; `previousHash` lets an unchanged file skip the parse. */
  async load(
    file: string,
    origin?: string,
    previousHash?: string,
    previousSerial?: number,
  ): Promise<BackgroundLoadResult> {
    if (this.closed) throw new Error('the zone loader is closed');
    const w = (this.worker ??= this.start());
    const id = this.nextId++;
    const req: LoadRequest = {
      id,
      file,
      options: this.options,
      ...(origin !== undefined ? { origin } : {}),
      ...(previousHash !== undefined ? { previousHash } : {}),
      ...(previousSerial !== undefined ? { previousSerial } : {}),
    };
    const reply = await new Promise<LoadReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      w.ref(); // a load in progress keeps the process alive
      w.postMessage(req);
    }).finally(() => {
      if (this.pending.size > 0) return;
      w.unref();
      // A shared load leaves the worker's own copy of the columns as garbage
      // (a zone's size) until its next GC: end the worker, the next load starts one.
      if (this.options.shared && this.worker === w) {
        this.worker = undefined;
        void w.terminate();
      }
    });
    const indexed = reply.zone ? unpackIndexedZone(reply.zone) : undefined;
    return {
      ...(indexed ? { zone: indexed.zone, indexed } : {}),
      diagnostics: reply.diagnostics,
      ...(reply.hash !== undefined ? { hash: reply.hash } : {}),
      ...(reply.unchanged ? { unchanged: true } : {}),
      ...(reply.signed ? { signed: reply.signed } : {}),
      workerMs: reply.ms,
    };
  }

  /** Stop the worker (a load in progress is abandoned). */
  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}
