/**
 * A worker process of `startResolver({ workers })`: starts the service its
 * environment describes, sends its log entries (request lines batched) and
 * readiness to the primary, and stops on SIGTERM or when the primary goes.
 * A failure to start is sent, then the process exits with 1.
 */
import { ResolverStartError, startResolver, type RunningResolverService } from './service.ts';
import {
  WORKER_MESSAGE,
  WORKER_SPEC_ENV,
  type WorkerEvent,
  type WorkerSpec,
} from './worker-spec.ts';

const tell = (m: WorkerEvent) =>
  new Promise<void>((r) =>
    process.send?.({ type: WORKER_MESSAGE, ...m }, undefined, {}, () => r()),
  );

/** Request lines wait at most this long (ms) before they are sent ... */
const LOG_FLUSH_MS = 50;
/** ... or until this many are waiting. */
const LOG_FLUSH_ENTRIES = 256;

let pending: Record<string, unknown>[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;
const flush = () => {
  clearTimeout(timer);
  timer = undefined;
  const entries = pending;
  pending = [];
  return entries.length > 0 ? tell({ event: 'log', entries }) : Promise.resolve();
};
const log = (entry: Readonly<Record<string, unknown>>) => {
  pending.push({ ...entry });
  if (entry.msg !== 'request' || pending.length >= LOG_FLUSH_ENTRIES) void flush();
  else timer ??= setTimeout(() => void flush(), LOG_FLUSH_MS);
};

const spec = JSON.parse(process.env[WORKER_SPEC_ENV] ?? 'null') as WorkerSpec;
const page = {
  ...(spec.pageDoh !== undefined ? { doh: () => spec.pageDoh! } : {}),
  ...(spec.trustAnchors !== undefined ? { trustAnchors: () => spec.trustAnchors! } : {}),
};
let service: RunningResolverService | undefined;
try {
  service = await startResolver({
    ...{ config: spec.config, catalogue: spec.catalogue, cwd: spec.cwd, sample: spec.sample },
    ...(spec.name !== undefined ? { name: spec.name } : {}),
    page,
    answerPrimary: spec.metrics,
    answerControl: true,
    log,
  });
} catch (e) {
  const failure =
    e instanceof ResolverStartError
      ? { code: e.code, address: e.address, message: (e.cause as Error | undefined)?.message ?? '' }
      : {
          code: (e as { code?: string }).code ?? 'RESOLVER_WORKER_FAILED',
          address: '',
          message: String(e),
        };
  await flush();
  await tell({ event: 'failed', failure });
  process.exit(1);
}
const running = service;
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await running.close();
  await flush();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('disconnect', () => void stop());
await tell({ event: 'ready', urls: [...running.urls] });
