/**
 * What a resolver worker is told at its start (its environment, as JSON) and
 * the cluster messages between it and the primary (logs, readiness, failure;
 * control and metrics requests and answers).
 */
import type { Worker } from 'node:cluster';
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

/** In a worker: answer the primary's requests of `kind` with `answer`; returns its stop. */
export function answerPrimary<Q, A>(
  kind: string,
  answer: (request: Q) => A | Promise<A>,
): () => void {
  const onMessage = (m: unknown) => {
    const q = m as { type?: string; id?: number; request: Q };
    if (q?.type !== `${kind}?`) return;
    void Promise.resolve(answer(q.request)).then((a) =>
      process.send?.({ type: kind, id: q.id, answer: a }),
    );
  };
  process.on('message', onMessage);
  return () => process.off('message', onMessage);
}

let nextId = 0;

/** In the primary: worker `w`'s answer to a request of `kind`, or `failed` of its silence or a failed send. */
export function askWorker<Q, A>(
  w: Worker,
  kind: string,
  request: Q,
  timeoutMs: number,
  failed: (why: 'timeout' | Error) => A,
): Promise<A> {
  const id = ++nextId;
  return new Promise((resolve) => {
    const done = (a: A) => {
      clearTimeout(timer);
      w.off('message', onMessage);
      resolve(a);
    };
    const timer = setTimeout(() => done(failed('timeout')), timeoutMs);
    const onMessage = (m: unknown) => {
      const a = m as { type?: string; id?: number; answer?: A };
      if (a?.type === kind && a.id === id && a.answer !== undefined) done(a.answer);
    };
    w.on('message', onMessage);
    try {
      w.send({ type: `${kind}?`, id, request });
    } catch (e) {
      done(failed(e as Error));
    }
  });
}
