/**
 * What a resolver worker process (`startResolver` with `workers` above 1)
 * is told at its start and says back to the primary: the service to start
 * (in its environment, as JSON), and its log entries, readiness or failure
 * (cluster messages).
 */
import type { ResolverConfig } from '../config/resolver.ts';

/** The environment variable holding the worker's `WorkerSpec`. */
export const WORKER_SPEC_ENV = 'LEXROUTE_RESOLVER_SERVICE';
/** The `type` of every message a worker sends about its service. */
export const WORKER_MESSAGE = 'lexroute-resolver-worker';
/** The program each worker runs. */
export const WORKER_MAIN = new URL(
  import.meta.url.endsWith('.ts') ? './worker-main.ts' : './worker-main.js',
  import.meta.url,
);

/** The serialisable part of the service's options (the page's values read once, at start). */
export interface WorkerSpec {
  readonly config: ResolverConfig;
  readonly catalogue: string;
  readonly cwd: string;
  readonly sample: boolean;
  readonly name: string | undefined;
  /** The primary serves `/metrics`: answer its requests for this worker's counters. */
  readonly metrics: boolean;
  readonly pageDoh: string | undefined;
  readonly trustAnchors: string | undefined;
}

/** Why a worker could not start. */
export interface WorkerFailure {
  readonly code: string;
  readonly address: string;
  readonly message: string;
}

/** What a worker says: log entries (batched), its readiness (its URLs), or why it could not start. */
export type WorkerEvent =
  | { event: 'log'; entries: Record<string, unknown>[] }
  | { event: 'ready'; urls: string[] }
  | { event: 'failed'; failure: WorkerFailure };

export type WorkerMessage = WorkerEvent & { type: typeof WORKER_MESSAGE };
