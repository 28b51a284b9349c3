/**
 * The zone-load worker thread: reads, parses, builds, validates and indexes zone files and hands
 * each back as transferred columns (`transfer.ts`); a file with the served version's SHA-256 is not
 * parsed. A batch (`LoadBatch`) loads zone after zone, replies (`ReplyBatch`) go back in groups.
 */
import { createHash, hash as hashOnce, type Hash } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort as threadPort, workerData } from 'node:worker_threads';
import type { FileStamp, LoadOptions } from './load.ts';
import { indexPatched, packZone, unpackBefore, sharePacked, type PackedZone } from './transfer.ts';
import { PatchedZone } from '../../dns/core/zone/patch.ts';
import { collectorAfter, COLLECT_AFTER_MS, giveMemoryBack } from './collector.ts';
import { compareVersion, type VersionOutcome, type WorkerVersionRequest } from './version.ts';

export type { VersionOutcome, WorkerVersionRequest };
import { indexZone, type IndexedZone } from '../core/zone-lookup.ts';
import { precomputeAnswers, type HotNames } from '../core/answer-pack.ts';
import type { Zone, ZoneDiagnostic } from '../../dns/core/zone/model.ts';
import {
  contentHash,
  keysFingerprint,
  type InlineSignResult,
  type InlineSigning,
} from '../../dnssec/inline.ts';
import { zoneFromSource } from './servable.ts';

export interface LoadRequest {
  readonly id: number;
  readonly file: string;
  readonly origin?: string;
  readonly previousHash?: string;
  /** SOA serial of the version served (inline signing goes past it). */
  readonly previousSerial?: number;
  readonly options: WorkerLoadOptions;
  /** The names the server is being asked: their answers are encoded here too. */
  readonly hot?: HotNames;
  /** Compare with the version served and choose the serial (IXFR, `serial` policy). */
  readonly version?: WorkerVersionRequest;
  /** Inline signing: the signed version served, whose unchanged RRsets keep their signatures. */
  readonly signedBefore?: PackedZone;
  /** Or the token of the signed version served, when this thread signed it: the reply has `resigned`, or `needBefore`. */
  readonly servedToken?: string;
  /** Loaded in the server's own thread (`loadHere`): the zone is handed over as built, not packed. */
  readonly here?: true;
}

export interface WorkerLoadOptions extends Pick<
  LoadOptions,
  'maxBytes' | 'maxEntryChars' | 'includeDirs'
> {
  /** Inline signing (`serve --keys`): zones with keys in the folder are signed after loading. */
  readonly sign?: InlineSigning;
  /**
   * Columns on SharedArrayBuffers: `all` for several answering threads (`serve --workers`);
   * `unsigned` when only this thread compares versions (transfers, a serial policy), which then
   * gets the version served back without a copy. A signed zone's goes back only when this thread
   * cannot sign against its token (`needBefore`, then copied), so its columns are transferred, not
   * copied into shared memory.
   */
  readonly shared?: 'all' | 'unsigned';
  /** The load thread's nice value (Linux; `zoneFiles.loadNice`, default LOAD_NICE). */
  readonly nice?: number;
  /** Warnings refuse a zone too (`serve --strict`, `zoneFiles.strict`). */
  readonly strict?: boolean;
}

export interface LoadReply {
  readonly id: number;
  readonly hash?: string;
  /** The content hash equals `previousHash`: nothing was parsed. */
  readonly unchanged?: boolean;
  readonly diagnostics: readonly ZoneDiagnostic[];
  readonly zone?: PackedZone;
  /** A `here` load's zone, ready to serve (never posted; `zone` is then absent). */
  readonly indexed?: IndexedZone;
  readonly signed?: InlineSignResult['signed'];
  /** Signed against `servedToken`: the names to put over the version served. */
  readonly resigned?: InlineSignResult['resigned'];
  /** Signed against `servedToken`, and more than content changed: ask again with `signedBefore`. */
  readonly needBefore?: true;
  readonly version?: VersionOutcome;
  /** Time spent in the worker (hash, read, parse, build, validate). */
  readonly ms: number;
  /** Wall time of each step (hash, load, version, index, answers, pack), ms. */
  readonly phases?: Readonly<Record<string, number>>;
  /** CPU time of the load thread (where the runtime tells it). */
  readonly cpuMs?: number;
  /** Size and modification time of the file read (when it was opened). */
  readonly stat?: FileStamp;
}

/** Loads posted together (one message). */
export interface LoadBatch {
  readonly batch: readonly LoadRequest[];
}

/** Replies posted together (one message). */
export interface ReplyBatch {
  readonly replies: readonly LoadReply[];
}

/** This thread's CPU time in ms (Node 23.9+; undefined before). */
function threadCpuMs(): number | undefined {
  const u = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.();
  return u && (u.user + u.system) / 1000;
}

/** The thread's CPU time at the end of the last load, the next one's start (reset per batch). */
let lastCpu: number | undefined;

/** Wall time of each step of a load, in ms (one decimal), as `zone_loaded` reports it. */
function phaseClock(): { lap(name: string): void; phases: Record<string, number> } {
  const phases: Record<string, number> = {};
  let t = performance.now();
  return {
    phases,
    lap(name) {
      const now = performance.now();
      phases[name] = Math.round((now - t) * 10) / 10;
      t = now;
    },
  };
}

/** Compare hashes first when the served version's is given (same size); else hash during the parse's read. */
async function sameContent(
  req: LoadRequest,
): Promise<{ hash: string | undefined; unchanged: boolean }> {
  if (req.previousHash === undefined) return { hash: undefined, unchanged: false };
  const hash = await contentHash(req.file, req.options.sign);
  return { hash, unchanged: hash !== undefined && hash === req.previousHash };
}

/** The SHA-256 of a file's blocks as the parse reads them (one block: hashed in one call at the end). */
function blockDigest(): { update: (b: Uint8Array) => void; hex: () => string } {
  let first: Uint8Array | undefined;
  let stream: Hash | undefined;
  return {
    update: (b) => {
      if (stream) stream.update(b);
      else if (first === undefined) first = Uint8Array.prototype.slice.call(b);
      else stream = createHash('sha256').update(first).update(b);
    },
    hex: () => stream?.digest('hex') ?? hashOnce('sha256', first ?? new Uint8Array(0), 'hex'),
  };
}

/** One load's reply, the buffers it transfers, and the zone's record count. */
interface Handled {
  readonly reply: LoadReply;
  readonly transfer: ArrayBuffer[];
  readonly records: number;
}

/** The name index, NSEC/NSEC3 chain and the hot names' answers, built here: the zone comes ready. */
function readyToServe(
  zone: Zone,
  hot: HotNames | undefined,
  clock: ReturnType<typeof phaseClock>,
): IndexedZone {
  const indexed = zone instanceof PatchedZone ? indexPatched(zone) : indexZone(zone);
  clock.lap('index');
  const answers = hot ? precomputeAnswers(indexed, hot) : undefined;
  if (!answers) return indexed;
  clock.lap('answers');
  return { ...indexed, answers };
}

async function handle(req: LoadRequest): Promise<Handled> {
  const t0 = performance.now();
  const cpu0 = lastCpu ?? threadCpuMs();
  lastCpu = undefined; // set again only by a load that runs to its end
  const clock = phaseClock();
  const sign = req.options.sign;
  const first = await sameContent(req);
  if (req.previousHash !== undefined) clock.lap('hash');
  if (first.unchanged)
    return alone({
      id: req.id,
      hash: first.hash!,
      unchanged: true,
      diagnostics: [],
      ms: performance.now() - t0,
    });
  const digest = first.hash === undefined ? blockDigest() : undefined;
  const options = digest ? { ...req.options, onBlock: digest.update } : req.options;
  const { nice: _nice, shared: _shared, ...pathOptions } = options;
  const r = await zoneFromSource(req.file, {
    ...pathOptions,
    ...(req.origin !== undefined ? { origin: req.origin } : {}),
    previousSerial: req.previousSerial,
    ...(req.signedBefore ? { signedBefore: unpackBefore(req.signedBefore) } : {}),
    ...(req.servedToken !== undefined ? { servedToken: req.servedToken } : {}),
  });
  let hash = first.hash;
  if (r.needBefore) return alone({ id: req.id, needBefore: true, diagnostics: [], ms: 0 });
  if (digest && (r.zone || r.resigned)) {
    hash = digest.hex();
    if (sign) hash += `+keys:${await keysFingerprint(sign.keysDir)}`;
  }
  clock.lap(sign ? 'loadAndSign' : 'load');
  const version =
    r.zone && req.version ? compareVersion(r.zone, req.version, hash, !!r.signed) : undefined;
  if (version) clock.lap('version');
  const ok = !r.diagnostics.some((d) => d.severity === 'error');
  const indexed = r.zone && readyToServe(r.zone, ok ? req.hot : undefined, clock);
  const shared = req.options.shared === 'all' || (req.options.shared === 'unsigned' && !r.signed);
  // In the server's own thread, a zone not shared with other threads is served as built.
  const kept = req.here && !shared ? indexed : undefined;
  const packed = indexed && !kept ? packZone(indexed.zone, indexed) : undefined;
  const zone = packed && (shared ? sharePacked(packed.packed) : packed.packed);
  clock.lap('pack');
  const cpu1 = (lastCpu = threadCpuMs());
  const reply: LoadReply = {
    id: req.id,
    ...(hash !== undefined ? { hash } : {}),
    diagnostics: r.diagnostics,
    ...(zone ? { zone } : {}),
    ...(kept ? { indexed: kept } : {}),
    ...(r.signed ? { signed: r.signed } : {}),
    ...(r.resigned ? { resigned: r.resigned } : {}),
    ...(version ? { version } : {}),
    ms: performance.now() - t0,
    phases: clock.phases,
    ...(cpu0 !== undefined && cpu1 !== undefined ? { cpuMs: Math.round(cpu1 - cpu0) } : {}),
    ...(r.stat ? { stat: r.stat } : {}),
  };
  // A small zone's columns are copied with the message: detaching its few dozen buffers for a
  // transfer costs more than copying their few kilobytes.
  const records = indexed?.zone.size ?? 0;
  const small = records <= COPY_BELOW_RECORDS;
  return {
    reply,
    transfer: packed && !shared && !small ? packed.transfer : [],
    records,
  };
}

/** One load in the calling thread (before anything is served): the load thread's steps. */
export function loadHere(req: LoadRequest): Promise<LoadReply> {
  lastCpu = undefined;
  return handle({ ...req, here: true }).then(
    (h) => h.reply,
    (e: unknown) => failed(req, e).reply,
  );
}

/** Zones of at most this many records travel by copy, larger ones by transfer. */
const COPY_BELOW_RECORDS = 256;

/**
 * Linux: this thread's priority set to `nice` (`zoneFiles.loadNice`: above 0, the answering
 * threads get the CPU first). Best effort: elsewhere, or when not permitted, it stays.
 */
function lowerPriority(nice: number): void {
  try {
    if (tid > 0) setPriority(tid, nice);
  } catch {
    // not Linux, or not permitted
  }
}

/** The default nice of a load (`zoneFiles.loadNice`): that of the answering threads. */
export const LOAD_NICE = 0;

/** This thread's id as the kernel knows it (Linux; 0 elsewhere). */
function ownTid(): number {
  try {
    return Number(/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}
/** The port to the server, in the load thread only (a thread that imports this module for `loadHere` has none). */
const parentPort = (workerData as { zoneLoad?: boolean } | undefined)?.zoneLoad ? threadPort : null;
const tid = parentPort ? ownTid() : 0;
// The parent watches this thread's CPU time while it loads (a starved load is given its priority back).
if (parentPort) parentPort.postMessage({ tid } satisfies ThreadIdMessage);

/** The first message of the worker: its kernel thread id. */
export interface ThreadIdMessage {
  readonly tid: number;
}

// Collected soon after each hand-over (collector.ts), once no batch is waiting.
const collectSoon = parentPort ? collectorAfter(COLLECT_AFTER_MS, () => waiting > 0) : () => {};

/** Replies are posted in groups of at most this many zones (each of at most COPY_BELOW_RECORDS records). */
const REPLY_GROUP = 64;

/** A load that failed unexpectedly, as a reply. */
function failed(req: LoadRequest, e: unknown): Handled {
  const message = `loading ${req.file} failed: ${e instanceof Error ? e.message : String(e)}`;
  return alone({
    id: req.id,
    diagnostics: [{ code: 'ZONE_LOAD_FAILED', message, severity: 'error' }],
    ms: 0,
  });
}

/** A reply that carries no zone. */
const alone = (reply: LoadReply): Handled => ({ reply, transfer: [], records: 0 });

/** Load a batch's zones one after the other, posting their replies in groups. */
async function handleBatch(batch: readonly LoadRequest[]): Promise<void> {
  let replies: LoadReply[] = [];
  let transfer: ArrayBuffer[] = [];
  let changed = false;
  const flush = () => {
    if (replies.length === 0) return;
    parentPort!.postMessage({ replies } satisfies ReplyBatch, transfer);
    replies = [];
    transfer = [];
  };
  // Each batch starts at the lowered priority (a starved load may have been given its normal one back).
  if (batch[0]) lowerPriority(batch[0].options.nice ?? LOAD_NICE);
  lastCpu = undefined;
  for (const req of batch) {
    const h = await handle(req).catch((e: unknown) => failed(req, e));
    replies.push(h.reply);
    for (const b of h.transfer) transfer.push(b);
    if (!h.reply.unchanged) changed = true;
    if (replies.length >= REPLY_GROUP || h.records > COPY_BELOW_RECORDS) flush();
  }
  flush();
  if (changed) collectSoon();
}

// Batches are loaded in the order they arrive, one at a time.
let queue: Promise<void> = Promise.resolve();
/** Batches received and not yet loaded to their end. */
let waiting = 0;

/** Asked after a first load of thousands of zones: this thread's garbage collected, its pages given back. */
export interface GiveBackMessage {
  readonly giveBack: true;
}

parentPort?.on('message', (m: LoadBatch | GiveBackMessage) => {
  if ('giveBack' in m) {
    queue = queue.then(giveMemoryBack);
    return;
  }
  waiting++;
  queue = queue.then(() => handleBatch(m.batch)).finally(() => waiting--);
});
