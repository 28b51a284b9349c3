/**
 * Zone loading off the query path: the load worker (`worker.ts`) reads, parses and builds; the
 * zone comes back as transferred columns, put together here in O(1). One worker, restarted after a
 * crash; the loads of one event-loop turn go in one message. A server's first load (unsigned
 * zones) runs in its own thread (`inThreadFirst`): no thread to start, no columns to copy.
 */
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { Zone } from '../../dns/core/zone/model.ts';
import {
  dnssecChainOf,
  indexResigned,
  packZone,
  unpackIndexedZone,
  type PackedZone,
} from './transfer.ts';
import { applyResigned } from '../../dnssec/core/resign-digest.ts';
import { keepSignedJournal } from '../../xfr/served-state.ts';
import type { HotNames } from '../core/answer-pack.ts';
import type * as LoadThreadModule from './worker.ts';
import type {
  GiveBackMessage,
  LoadBatch,
  LoadReply,
  LoadRequest,
  ReplyBatch,
  ThreadIdMessage,
  WorkerLoadOptions,
} from './worker.ts';
import type { WorkerVersionRequest } from './version.ts';

/** A load is abandoned after this long (`ZONE_LOAD_TIMEOUT`): a reload always ends. */
export const LOAD_TIMEOUT_MS = 300_000;
/** The same for a load that signs the zone (`serve --keys`): a large zone signs in minutes. */
export const SIGNED_LOAD_TIMEOUT_MS = 1_800_000;
/**
 * A load thread above nice 0 (`zoneFiles.loadNice`) that ran this long with less than
 * STARVED_SHARE of a core gets nice 0 back (where permitted: root, CAP_SYS_NICE, RLIMIT_NICE).
 */
const STARVED_AFTER_MS = 5000;
const STARVED_SHARE = 0.5;
const WATCH_MS = 1000;

/** CPU time (ms) of one thread of this process (Linux; undefined elsewhere). */
function threadCpuMs(tid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, fields 14 and 15, in clock ticks (USER_HZ: 100 on Linux).
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return undefined;
  }
}

/** A load that exceeded LOAD_TIMEOUT_MS. */
export class ZoneLoadTimeoutError extends Error {
  readonly code = 'ZONE_LOAD_TIMEOUT';
}

/** The version served and the serial policy, as the reloader gives them (the zone itself, not packed). */
export interface VersionRequest extends Omit<WorkerVersionRequest, 'before'> {
  readonly before?: Zone;
}

/** The served zone's columns for the worker: its store and name order (shared when the loader is). */
export function packBefore(zone: Zone | undefined): PackedZone | undefined {
  const p = zone ? packZone(zone)?.packed : undefined;
  if (p === undefined) return undefined;
  const { store, origin, order, cuts, size, patch } = p;
  // A patched zone (a signed zone re-signed by difference) goes with its overlay, a signed one with its chain.
  const dnssec = dnssecChainOf(zone!);
  return {
    store,
    origin,
    order,
    cuts,
    size,
    ...(patch ? { patch } : {}),
    ...(dnssec ? { dnssec } : {}),
  };
}

/** What a load gave: the worker's reply, the zone put together around its columns. */
export interface BackgroundLoadResult extends Pick<
  LoadReply,
  | 'indexed'
  | 'diagnostics'
  | 'hash'
  | 'unchanged'
  | 'signed'
  | 'version'
  | 'phases'
  | 'cpuMs'
  | 'stat'
> {
  readonly zone?: Zone;
  /** Time spent in the worker. */
  readonly workerMs: number;
  /** The load was starved of CPU at its nice value and given nice 0 back after this many ms. */
  readonly unniced?: number;
}

/** A batch's starvation watch (`watchStarvation`): when nice 0 was given back, and how many loads are left. */
interface Watch {
  /** performance.now() when the load thread got nice 0 back, if it did. */
  unnicedAt: number | undefined;
  left: number;
  stop(): void;
}

/** A load posted to the worker, until its reply. */
interface InFlight {
  readonly resolve: (r: { reply: LoadReply; unniced: number | undefined }) => void;
  readonly reject: (e: Error) => void;
  readonly started: number;
  timer: ReturnType<typeof setTimeout>;
  watch?: Watch;
}

const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js',
  import.meta.url,
);

/** A shared load's worker collects its garbage this long after its last load (a load sooner delays it). */
const IDLE_COLLECT_MS = 200;

/**
 * Count ArrayBuffers in the heap's global limit (V8 13+): else a reloaded zone's columns past V8's
 * external-memory threshold start marking steps at the swap. Process-wide: `serve` calls it.
 */
export function countBuffersInHeapLimit(): boolean {
  if (Number(process.versions.v8.split('.')[0]) < 13) return false;
  setFlagsFromString('--external-memory-accounted-in-global-limit');
  return true;
}

export class BackgroundZoneLoader {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, InFlight>();
  /** Loads asked for in this turn of the event loop, posted together (`flush`). */
  private queued: LoadRequest[] = [];
  private flushing: ReturnType<typeof setImmediate> | undefined;
  /** performance.now() of the worker's last reply. */
  private lastReply = 0;
  private readonly options: LoadRequest['options'];
  private readonly timeoutMs: number;
  private closed = false;
  private idleCollect: ReturnType<typeof setTimeout> | undefined;
  /** The names being asked (the engine's hot set, cut to `file`'s zone): the worker encodes their answers too. */
  hot: ((file: string) => HotNames | undefined | Promise<HotNames | undefined>) | undefined;
  /** The worker's kernel thread id (Linux), sent as its first message. */
  private tid = 0;
  /** Loads run in this thread (until `offThread`); signed zones always go to the worker. */
  private inThread: boolean;
  /** The load thread's module, imported here once. */
  private hereModule: Promise<typeof LoadThreadModule> | undefined;
  /** The last load queued in this thread (`loadHere`). */
  private hereTail: Promise<unknown> = Promise.resolve();

  constructor(
    options: WorkerLoadOptions = {},
    limits: { timeoutMs?: number; inThreadFirst?: boolean } = {},
  ) {
    this.options = options;
    this.timeoutMs = limits.timeoutMs ?? LOAD_TIMEOUT_MS;
    this.inThread = (limits.inThreadFirst ?? false) && options.sign === undefined;
  }

  /** From now on every load runs in the worker (the server answers queries: its thread stays free). */
  offThread(): void {
    this.inThread = false;
  }

  /**
   * Loads in this thread, one at a time in the order asked, as in the worker (a start's
   * LOAD_CONCURRENCY files at once held as many reads and parses in memory together).
   */
  private loadHere(req: LoadRequest): Promise<LoadReply> {
    const run = this.hereTail.then(() => this.loadNow(req));
    this.hereTail = run.catch(() => undefined);
    return run;
  }

  /** A load in this thread, bounded by the same time-out (the load is then abandoned, not stopped). */
  private async loadNow(req: LoadRequest): Promise<LoadReply> {
    const { loadHere } = await (this.hereModule ??= import(WORKER_URL.href));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const message = `loading ${req.file} took longer than ${this.timeoutMs} ms: abandoned`;
        reject(new ZoneLoadTimeoutError(message));
      }, this.timeoutMs);
    });
    return Promise.race([loadHere(req), bound]).finally(() => clearTimeout(timer));
  }

  /** While a batch runs: a load thread starved past STARVED_AFTER_MS gets nice 0 back. */
  private watchStarvation(left: number): Watch {
    const t0 = performance.now();
    let last = { at: t0, cpu: this.tid > 0 ? threadCpuMs(this.tid) : undefined };
    let tried = false;
    const watch: Watch = { unnicedAt: undefined, left, stop: () => clearInterval(timer) };
    const timer = setInterval(() => {
      const at = performance.now();
      const cpu = this.tid > 0 ? threadCpuMs(this.tid) : undefined;
      if (cpu === undefined || last.cpu === undefined) {
        last = { at, cpu }; // the thread id arrives with the worker's first message
        return;
      }
      const share = (cpu - last.cpu) / (at - last.at);
      last = { at, cpu };
      if (tried || at - t0 < STARVED_AFTER_MS || share >= STARVED_SHARE) return;
      if (this.options.nice === 0) return; // already at the normal priority
      tried = true;
      try {
        setPriority(this.tid, 0);
        watch.unnicedAt = at;
      } catch {
        // not permitted: the loads go on at their nice value (bounded by the timeout)
      }
    }, WATCH_MS);
    timer.unref();
    return watch;
  }

  private start(): Worker {
    const w = new Worker(WORKER_URL, { workerData: { zoneLoad: true } });
    w.unref();
    this.tid = 0;
    w.on('message', (m: ReplyBatch | ThreadIdMessage) => {
      if ('tid' in m) {
        if (this.worker === w) this.tid = m.tid;
        return;
      }
      this.lastReply = performance.now();
      for (const reply of m.replies) this.settle(reply);
    });
    const fail = (e: Error) => {
      // Only this worker's loads fail (a worker ended after its load must not fail the next one's).
      if (this.worker !== w) return;
      this.worker = undefined;
      this.failAll(e);
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`the zone-load worker stopped (exit code ${code})`)));
    return w;
  }

  /** A reply arrived: its load resolves (with when, into it, the batch's thread got nice 0 back). */
  private settle(reply: LoadReply): void {
    const p = this.pending.get(reply.id);
    if (p === undefined) return;
    this.pending.delete(reply.id);
    clearTimeout(p.timer);
    const w = p.watch;
    const at = w?.unnicedAt;
    if (w && --w.left === 0) w.stop();
    p.resolve({
      reply,
      unniced: at !== undefined && at >= p.started ? Math.round(at - p.started) : undefined,
    });
  }

  /** Every load in flight or queued fails with `e`. */
  private failAll(e: Error): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.watch?.stop();
      p.reject(e);
    }
    this.pending.clear();
    this.queued = [];
  }

  /** Post the loads asked for in this turn of the event loop, in one message. */
  private flush(): void {
    this.flushing = undefined;
    const batch = this.queued.filter((r) => this.pending.has(r.id));
    this.queued = [];
    if (batch.length === 0 || this.closed) return;
    const w = (this.worker ??= this.start());
    const watch = this.watchStarvation(batch.length);
    for (const r of batch) this.pending.get(r.id)!.watch = watch;
    w.ref(); // loads in progress keep the process alive
    w.postMessage({ batch } satisfies LoadBatch);
  }

  /**
   * A load's time-out: the worker is stopped, its loads fail, the next load
   * starts a worker. The time-out starts again while the worker replies to others.
   */
  private timedOut(id: number, file: string): void {
    const p = this.pending.get(id);
    if (p === undefined) return;
    const quiet = performance.now() - Math.max(this.lastReply, p.started);
    if (quiet < this.timeoutMs) {
      p.timer = setTimeout(() => this.timedOut(id, file), this.timeoutMs - quiet);
      return;
    }
    this.pending.delete(id);
    p.watch?.stop();
    p.reject(
      new ZoneLoadTimeoutError(
        `loading ${file} took longer than ${this.timeoutMs} ms: stopped (the previous version is kept)`,
      ),
    );
    const w = this.worker;
    if (w === undefined) return;
    this.worker = undefined;
    this.failAll(new Error('the zone-load worker was stopped'));
    void w.terminate();
  }

  /**
   * Load one zone file in the worker; `previousHash` lets an unchanged file skip the parse.
   * `signedBefore`, the signed version served: when the worker signed it (its token), it is not
   * sent; the worker signs what changed against what it kept of it and the names re-signed are put
   * over it here, or it asks for it (more than content changed).
   */
  async load(
    file: string,
    origin?: string,
    previousHash?: string,
    previousSerial?: number,
    version?: VersionRequest,
    signedBefore?: Zone,
    byToken = true,
  ): Promise<BackgroundLoadResult> {
    if (this.closed) throw new Error('the zone loader is closed');
    const hot = await this.hot?.(file);
    if (this.closed) throw new Error('the zone loader is closed');
    clearTimeout(this.idleCollect);
    const id = this.nextId++;
    // Signed by this thread: only what changed is signed and sent back, and the IXFR difference is
    // read from the names re-signed, after the swap (`diffZones`), not from the whole version here.
    const token =
      byToken && signedBefore && (!version || version.before === signedBefore)
        ? signedTokens.get(signedBefore)
        : undefined;
    const compared = token === undefined ? version : undefined;
    let req: LoadRequest = {
      id,
      file,
      options: this.options,
      ...(origin !== undefined ? { origin } : {}),
      ...(previousHash !== undefined ? { previousHash } : {}),
      ...(previousSerial !== undefined ? { previousSerial } : {}),
      ...(compared ? { version: { ...compared, before: packBefore(compared.before) } } : {}),
    };
    if (token !== undefined) req = { ...req, servedToken: token };
    else if (signedBefore) req = { ...req, signedBefore: packBefore(signedBefore)! };
    if (hot !== undefined && hot.count > 0) req = { ...req, hot };
    if (this.inThread) return resultOf(await this.loadHere(req), undefined);
    const { reply, unniced } = await new Promise<{ reply: LoadReply; unniced: number | undefined }>(
      (resolve, reject) => {
        const timer = setTimeout(() => this.timedOut(id, file), this.timeoutMs);
        this.pending.set(id, { resolve, reject, timer, started: performance.now() });
        this.queued.push(req);
        this.flushing ??= setImmediate(() => this.flush());
      },
    ).finally(() => this.afterLoad());
    const again = () =>
      this.load(file, origin, previousHash, previousSerial, version, signedBefore, false);
    if (reply.needBefore) return again();
    if (reply.resigned === undefined) return resultOf(reply, unniced);
    const zone = signedBefore && applyResigned(signedBefore, reply.resigned);
    const stateDir = this.options.sign?.stateDir;
    // With a state folder, the names re-signed are kept as the journal over the whole version kept.
    if (!zone || (stateDir && !(await keepSignedJournal(stateDir, zone).catch(() => false))))
      return again();
    const result = { ...resultOf(reply, unniced), zone, indexed: indexResigned(zone) };
    if (reply.signed?.token !== undefined) signedTokens.set(zone, reply.signed.token);
    return result;
  }

  /** After each load: with none left, the worker no longer keeps the process alive (and a shared one collects when idle). */
  private afterLoad(): void {
    const w = this.worker;
    if (this.pending.size > 0 || w === undefined) return;
    w.unref();
    // A shared load leaves the worker's copy of the columns as garbage until
    // its next GC: collect it after IDLE_COLLECT_MS without a load.
    if (this.options.shared) this.giveBackWhenIdle(w);
  }

  /**
   * Unless a load starts within IDLE_COLLECT_MS, the shared worker `w` collects
   * its garbage and gives the pages back; it stays, so the next reload (one
   * zone by `ctl reload ZONE`) does not pay a thread's start.
   */
  private giveBackWhenIdle(w: Worker): void {
    clearTimeout(this.idleCollect);
    this.idleCollect = setTimeout(() => {
      if (this.worker !== w || this.pending.size > 0) return;
      this.giveMemoryBack();
    }, IDLE_COLLECT_MS);
    this.idleCollect.unref();
  }

  /** The load thread collects its garbage and gives the pages back, after the loads before (`giveMemoryBack`). */
  giveMemoryBack(): void {
    this.worker?.postMessage({ giveBack: true } satisfies GiveBackMessage);
  }

  /** Stop the worker (a load in progress is abandoned). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleCollect);
    if (this.flushing) clearImmediate(this.flushing);
    this.queued = [];
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}

/** The token of each signed version the worker signed (`LoadRequest.servedToken`). */
const signedTokens = new WeakMap<Zone, string>();

/** What a load gave, from the worker's reply (the zone put together around its columns). */
function resultOf(reply: LoadReply, unniced: number | undefined): BackgroundLoadResult {
  const indexed = reply.indexed ?? (reply.zone ? unpackIndexedZone(reply.zone) : undefined);
  if (indexed && reply.signed?.token !== undefined)
    signedTokens.set(indexed.zone, reply.signed.token);
  const { diagnostics, hash, unchanged, signed, version, phases, cpuMs, stat } = reply;
  const found = { diagnostics, hash, unchanged, signed, version, phases, cpuMs, stat };
  return { ...found, unniced, zone: indexed?.zone, indexed, workerMs: reply.ms };
}
