/**
 * `startResolver({ workers: N })` (node:cluster): N processes sharing the
 * sockets and the catalogue; the primary restarts a worker that dies and
 * serves the summed `/metrics` and the control channel.
 */
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import {
  ControlSocketError,
  serveControlSocket,
  type ControlServer,
} from '../authority/control.ts';
import { endpointText, type ControlEndpoint } from '../authority/control-endpoint.ts';
import { metricsExposure, type MetricsEndpoint } from '../kit/metrics/http.ts';
import { runPrimaryCommand } from './control.ts';
import { startPrimaryMetrics } from './workers-metrics.ts';
import type { LoadedConfig } from './service.ts';
import { WORKER_MAIN, WORKER_SPEC_ENV, type WorkerSpec } from './worker-spec.ts';

/** The exit code of a worker that could not start. */
const WORKER_FAILED = 1;

export interface WorkersOptions {
  /** The service each worker starts (`worker-main.ts`). */
  readonly spec: WorkerSpec;
  readonly workers: number;
  readonly metrics?: { host: string; port: number } | undefined;
  readonly control?: ControlEndpoint | undefined;
  /** A log line of the primary. */
  readonly log: (level: string, event: string, fields: Record<string, unknown>) => void;
  /** A failure to report (one line). */
  readonly err: (text: string) => void;
  /** Read the configuration again for a `ctl reload` (handed to every worker). */
  readonly reloadConfig?: (() => Promise<LoadedConfig>) | undefined;
  /** A message a worker sent (besides the control and metrics answers). */
  readonly onMessage?: (worker: Worker, message: unknown) => void;
}

/** The worker processes of a resolver, as `startWorkers` returns them. */
export interface RunningWorkers {
  /** The live workers. */
  alive(): Worker[];
  /** Resolves when the workers should stop: `stopped`, or `failed` (a worker, metrics or control could not start). */
  readonly ended: Promise<'stopped' | 'failed'>;
  /** Ask for the end (as `ctl stop`). */
  stop(): void;
  /** Stop every worker and the primary's endpoints; whether all went well. */
  close(): Promise<boolean>;
}

/** Fork the workers (each running `worker-main.ts`); one that cannot start (exit code 1) ends them all. */
export async function startWorkers(o: WorkersOptions): Promise<RunningWorkers> {
  cluster.setupPrimary({ exec: fileURLToPath(WORKER_MAIN), args: [] });
  let end = (_why: 'stopped' | 'failed') => {};
  const ended = new Promise<'stopped' | 'failed'>((r) => (end = r));
  const pool = workerPool(o, () => end('failed'));
  for (let i = 0; i < o.workers; i++) pool.start();
  const endpoint = await primaryMetrics(o, pool);
  if (endpoint === null) pool.fail();
  const stop = () => end('stopped');
  const info = { pid: process.pid, workers: o.workers, stop, reloadConfig: o.reloadConfig };
  const ctl = pool.failed() ? undefined : await primaryControl(o, pool.alive, info);
  if (ctl === null) pool.fail();
  if (pool.failed()) end('failed');
  o.log('info', 'workers', { workers: o.workers });
  let closing: Promise<boolean> | undefined;
  const close = () =>
    (closing ??= (async () => {
      stop();
      await endpoint?.close();
      await ctl?.close();
      await pool.stop();
      return !pool.failed();
    })());
  return { alive: pool.alive, ended, stop, close };
}

/** The workers: forked, restarted when they die, all stopped on a failure to start. */
function workerPool(o: WorkersOptions, onFailure: () => void) {
  let stopping = false;
  let failed = false;
  const alive = new Set<Worker>();
  const start = () => {
    const w = cluster.fork({ [WORKER_SPEC_ENV]: JSON.stringify(o.spec) });
    alive.add(w);
    if (o.onMessage) w.on('message', (m: unknown) => o.onMessage?.(w, m));
    w.once('exit', (code, signal) => {
      alive.delete(w);
      if (stopping) return;
      o.log('error', 'worker_exited', { pid: w.process.pid, code, signal });
      if (code === WORKER_FAILED) {
        stopping = true;
        failed = true;
        for (const other of alive) other.process.kill('SIGTERM');
        onFailure();
        return;
      }
      setTimeout(() => {
        if (!stopping) start();
      }, 500).unref();
    });
  };
  return {
    start,
    alive: () => [...alive],
    failed: () => failed,
    fail: () => void (failed = true),
    stop: async () => {
      stopping = true;
      await Promise.all(
        [...alive].map(
          (w) =>
            new Promise<void>((res) => {
              w.once('exit', () => res());
              w.process.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}

/** The summed `/metrics` of the workers (undefined: none asked; null: it cannot listen, reported). */
async function primaryMetrics(
  o: WorkersOptions,
  pool: { alive: () => Worker[] },
): Promise<MetricsEndpoint | undefined | null> {
  if (!o.metrics) return undefined;
  try {
    const endpoint = await startPrimaryMetrics(o.metrics.host, o.metrics.port, pool.alive);
    o.log('info', 'metrics', { url: endpoint.url });
    const exposed = metricsExposure(o.metrics.host);
    if (exposed) o.log('warn', 'metrics', { url: endpoint.url, ...exposed });
    return endpoint;
  } catch (e) {
    o.err(`cannot listen for metrics: ${(e as Error).message}`);
    return null;
  }
}

/** The primary's control socket (undefined: none asked; null: it cannot listen, reported). */
async function primaryControl(
  o: WorkersOptions,
  workers: () => readonly Worker[],
  info: Parameters<typeof runPrimaryCommand>[1],
): Promise<ControlServer | undefined | null> {
  const control = o.control;
  if (control === undefined) return undefined;
  try {
    return await serveControlSocket(control, (req) => runPrimaryCommand(workers, info, req));
  } catch (e) {
    const code = e instanceof ControlSocketError ? e.code : 'LISTEN_FAILED';
    const where = endpointText(control);
    o.err(`${code}: cannot listen on ${where}: ${(e as Error).message}`);
    return null;
  }
}
