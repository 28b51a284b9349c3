/**
 * The zone-load worker thread: reads, parses, builds, validates and indexes
 * zone files away from the thread that answers queries, and hands each zone
 * back as its transferred columns and name index (`transfer.ts`). Before parsing, the file's
 * SHA-256 is compared with the hash of the version being served: a file that
 * was only touched is recognised without parsing it.
 *
 * Messages in: `LoadRequest`; out: `LoadReply` (see `background.ts`).
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { LoadOptions } from './load.ts';
import { packZone, sharePacked, type PackedZone } from './transfer.ts';
import {
  compareVersion,
  hashFile,
  type VersionOutcome,
  type WorkerVersionRequest,
} from './version.ts';

export type { VersionOutcome, WorkerVersionRequest };
import { indexZone } from '../core/zone/zone-lookup.ts';
import { precomputeAnswers, type HotNames } from '../core/zone/answer-pack.ts';
import type { ZoneDiagnostic } from '../core/zone/model.ts';
import {
  keysFingerprint,
  loadAndSign,
  type InlineSignResult,
  type InlineSigning,
} from '../dnssec/inline.ts';

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
}

export interface WorkerLoadOptions extends Pick<
  LoadOptions,
  'maxBytes' | 'maxEntryChars' | 'includeDirs'
> {
  /** Inline signing (`serve --keys`): zones with keys in the folder are signed after loading. */
  readonly sign?: InlineSigning;
  /** Columns on SharedArrayBuffers, for several answering threads (`serve --workers`). */
  readonly shared?: boolean;
}

export interface LoadReply {
  readonly id: number;
  readonly hash?: string;
  /** The content hash equals `previousHash`: nothing was parsed. */
  readonly unchanged?: boolean;
  readonly diagnostics: readonly ZoneDiagnostic[];
  readonly zone?: PackedZone;
  readonly signed?: InlineSignResult['signed'];
  readonly version?: VersionOutcome;
  /** Time spent in the worker (hash, read, parse, build, validate). */
  readonly ms: number;
}

async function handle(req: LoadRequest): Promise<{ reply: LoadReply; transfer: ArrayBuffer[] }> {
  const t0 = performance.now();
  // Each load starts at the lowered priority (a starved load may have been given its normal one back).
  lowerPriority();
  const sign = req.options.sign;
  let hash = await hashFile(req.file);
  if (hash !== undefined && sign) hash += `+keys:${await keysFingerprint(sign.keysDir)}`;
  if (hash !== undefined && hash === req.previousHash) {
    return {
      reply: { id: req.id, hash, unchanged: true, diagnostics: [], ms: performance.now() - t0 },
      transfer: [],
    };
  }
  const r = await loadAndSign(req.file, req.origin, req.options, req.previousSerial);
  const version =
    r.zone && req.version ? compareVersion(r.zone, req.version, hash, !!r.signed) : undefined;
  // The server's name index and a signed zone's NSEC/NSEC3 chain are built
  // here too: the answering thread receives the zone ready to serve.
  // So are the answers of the names the server is being asked (its hot set):
  // after the swap their first queries find them encoded (answer-pack.ts).
  let indexed = r.zone ? indexZone(r.zone) : undefined;
  const ok = !r.diagnostics.some((d) => d.severity === 'error');
  const answers = indexed && req.hot && ok ? precomputeAnswers(indexed, req.hot) : undefined;
  if (indexed && answers) indexed = { ...indexed, answers };
  const packed = indexed ? packZone(indexed.zone, indexed) : undefined;
  const reply: LoadReply = {
    id: req.id,
    ...(hash !== undefined ? { hash } : {}),
    diagnostics: r.diagnostics,
    ...(packed ? { zone: req.options.shared ? sharePacked(packed.packed) : packed.packed } : {}),
    ...(r.signed ? { signed: r.signed } : {}),
    ...(version ? { version } : {}),
    ms: performance.now() - t0,
  };
  return { reply, transfer: packed && !req.options.shared ? packed.transfer : [] };
}

/**
 * Linux: this thread's scheduling priority lowered (nice 10; a thread is its
 * own task, named by its TID in /proc/thread-self), so on a busy machine the
 * threads that answer queries get the CPU before a reload does. Best effort:
 * elsewhere, or when not permitted, the thread keeps its priority.
 */
function lowerPriority(): void {
  try {
    if (tid > 0) setPriority(tid, LOAD_NICE);
  } catch {
    // not Linux, or not permitted
  }
}

/** The nice value of a load (see `background.ts`: a load starved for long gets 0 back). */
export const LOAD_NICE = 10;

/** This thread's id as the kernel knows it (Linux; 0 elsewhere). */
function ownTid(): number {
  try {
    return Number(/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}
const tid = parentPort ? ownTid() : 0;
// The parent watches this thread's CPU time while it loads (a starved load is given its priority back).
if (parentPort) parentPort.postMessage({ tid } satisfies ThreadIdMessage);

/** The first message of the worker: its kernel thread id. */
export interface ThreadIdMessage {
  readonly tid: number;
}

parentPort?.on('message', (req: LoadRequest) => {
  handle(req).then(
    ({ reply, transfer }) => parentPort!.postMessage(reply, transfer),
    (e: unknown) =>
      parentPort!.postMessage({
        id: req.id,
        diagnostics: [
          {
            code: 'ZONE_LOAD_FAILED',
            message: `loading ${req.file} failed: ${e instanceof Error ? e.message : String(e)}`,
            severity: 'error',
          },
        ],
        ms: 0,
      } satisfies LoadReply),
  );
});
