/**
 * `serve --workers N`: the main thread answers as worker 0 beside N - 1 answering threads on the
 * same ports; zones (shared) and IXFR histories go to each; metrics and stats are summed.
 */
import { Worker } from 'node:worker_threads';
import type { Zone } from '../dns/core/zone/model.ts';
import type { IndexedZone } from './core/zone-lookup.ts';
import { family, type MetricFamily } from '../kit/metrics/prom.ts';
import { indexZone } from './core/zone-lookup.ts';
import { packZone, type PackedZone } from './zones/transfer.ts';
import type { Engine, EngineCounters } from './engine.ts';
import type { PipelineCounters } from './pipeline.ts';
import type { ServerMetricsSource } from './metrics.ts';
import type { RrlCounters } from './rrl.ts';
import type { TcpStats } from './tcp.ts';
import type { ThreadCommand, ThreadInit } from './answer-thread.ts';
import type { ZoneDiff } from '../xfr/core/diff.ts';

const THREAD_URL = new URL(
  import.meta.url.endsWith('.ts') ? './answer-thread.ts' : './answer-thread.js',
  import.meta.url,
);

/** What `ctl stats` sums: one worker's counters as plain data. */
export interface PlainStats {
  readonly queries: EngineCounters & PipelineCounters;
  readonly tcp: readonly TcpStats[];
  readonly rrl: { readonly counters: RrlCounters; readonly size: number } | null;
}

export function plainStats(s: ServerMetricsSource): PlainStats {
  return {
    queries: { ...s.engine.counters, ...s.pipeline.counters },
    tcp: s.tcp.map((l) => ({ ...l.stats })),
    rrl: s.rrl ? { counters: { ...s.rrl.counters }, size: s.rrl.size } : null,
  };
}

/** Queries received by one answering worker (the others' series come from their threads). */
export function workerQueriesFamily(index: number, engine: Engine): MetricFamily {
  return family(
    'lexroute_dns_worker_queries_total',
    'counter',
    'Queries received, by answering worker (serve --workers).',
    [[{ worker: String(index) }, engine.counters.queries]],
  );
}

/** A zone set as it goes to the threads: shared columns, nothing copied. */
function packAll(zones: readonly (Zone | IndexedZone)[]): PackedZone[] {
  const out: PackedZone[] = [];
  for (const z of zones) {
    const indexed = 'originKey' in z ? z : indexZone(z);
    const p = packZone(indexed.zone, indexed);
    if (p) out.push(p.packed);
  }
  return out;
}

/** How long a thread may take to answer a command (a zone swap is one assignment). */
const ASK_TIMEOUT_MS = 30_000;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

class Thread {
  readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Resolves once the thread listens on every address. */
  readonly ready: Promise<void>;
  constructor(init: ThreadInit, onNotify?: (origin: string) => void) {
    this.worker = new Worker(THREAD_URL, { workerData: init });
    let listening!: { resolve: () => void; reject: (e: Error) => void };
    this.ready = new Promise((resolve, reject) => (listening = { resolve, reject }));
    this.ready.catch(() => undefined);
    this.worker.on(
      'message',
      (m: { type: string; id?: number; value?: unknown; origin?: string; error?: string }) => {
        if (m.type === 'ready') listening.resolve();
        else if (m.type === 'failed') listening.reject(new Error(m.error));
        else if (m.type === 'notify' && m.origin !== undefined) onNotify?.(m.origin);
        if (m.type !== 'done' || m.id === undefined) return;
        this.pending.get(m.id)?.resolve(m.value);
        this.pending.delete(m.id);
      },
    );
    const fail = (e: Error) => {
      listening.reject(e);
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`answering thread exited (code ${code})`)));
  }
  /** Send a command; rejects when the thread has not answered within `timeoutMs` (never waits forever). */
  ask<T>(cmd: DistributiveOmit<ThreadCommand, 'id'>, timeoutMs = ASK_TIMEOUT_MS): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`answering thread did not answer '${cmd.type}' within ${timeoutMs} ms`));
      }, timeoutMs);
      const settle =
        <A extends unknown[]>(f: (...a: A) => void) =>
        (...a: A) => {
          clearTimeout(timer);
          f(...a);
        };
      this.pending.set(id, {
        resolve: settle(resolve as (v: unknown) => void),
        reject: settle(reject),
      });
      this.worker.postMessage({ ...cmd, id });
    });
  }
}

export interface AnswerThreadsInit extends Omit<ThreadInit, 'index'> {
  readonly count: number;
  /** A thread accepted a NOTIFY for this secondary zone: check it (main thread). */
  readonly onNotify?: (origin: string) => void;
}

export class AnswerThreads {
  private readonly threads: Thread[];
  private constructor(threads: Thread[]) {
    this.threads = threads;
  }

  /** Start threads 1..count; zones sent before they listen are served from their first query. */
  static start(init: AnswerThreadsInit): AnswerThreads {
    const { count, onNotify, ...rest } = init;
    const threads: Thread[] = [];
    for (let i = 1; i <= count; i++) threads.push(new Thread({ ...rest, index: i }, onNotify));
    return new AnswerThreads(threads);
  }

  /** Resolves when every thread listens (rejects when one cannot). */
  async ready(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.ready));
  }

  get size(): number {
    return this.threads.length;
  }

  /** Every thread swaps in this zone set (the same shared columns for all). */
  async setZones(
    zones: readonly (Zone | IndexedZone)[],
    unavailable: readonly string[] = [],
  ): Promise<void> {
    const packed = packAll(zones);
    await Promise.all(
      this.threads.map((t) => t.ask({ type: 'zones', zones: packed, unavailable })),
    );
  }

  /** Every thread replaces one zone (same origin) by this version; false when one could not. */
  async replaceZone(zone: Zone | IndexedZone): Promise<boolean> {
    const [packed] = packAll([zone]);
    if (packed === undefined) return false;
    const done = await Promise.all(
      this.threads.map((t) => t.ask<boolean>({ type: 'zone', zone: packed })),
    );
    return done.every(Boolean);
  }

  /** Every thread's copy of a zone's IXFR history (each serves transfers). */
  async setHistory(origin: string, diffs: readonly ZoneDiff[]): Promise<void> {
    await Promise.all(this.threads.map((t) => t.ask({ type: 'history', origin, diffs })));
  }

  /** Every thread's copy of the catalog members (member, catalog): it answers their NOTIFYs. */
  async setCatalogMembers(members: readonly (readonly [string, string])[]): Promise<void> {
    await Promise.all(this.threads.map((t) => t.ask({ type: 'members', members })));
  }

  /** Each thread's metric families. */
  metrics(): Promise<MetricFamily[][]> {
    return Promise.all(this.threads.map((t) => t.ask<MetricFamily[]>({ type: 'metrics' })));
  }

  stats(): Promise<PlainStats[]> {
    return Promise.all(this.threads.map((t) => t.ask<PlainStats>({ type: 'stats' })));
  }

  /** Close every thread's sockets (connections in progress end), then stop the threads. */
  async close(): Promise<void> {
    await Promise.all(
      this.threads.map(async (t) => {
        const timeout = new Promise((r) => setTimeout(r, 5000).unref());
        await Promise.race([t.ask({ type: 'close' }).catch(() => undefined), timeout]);
        await t.worker.terminate();
      }),
    );
  }
}
