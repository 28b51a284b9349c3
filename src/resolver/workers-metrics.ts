/**
 * `lexroute resolver --metrics ADDR:PORT`: one `/metrics` endpoint for the
 * whole resolver. A single process serves its own counters; with
 * `--workers N` the primary serves the endpoint and, at each scrape, asks
 * every worker for its families over the cluster channel and sums them
 * (counters are kept per worker, never shared or locked).
 */
import type { Worker } from 'node:cluster';
import { startMetricsEndpoint, type MetricsEndpoint } from '../kit/metrics/http.ts';
import { family, mergeFamilies, type MetricFamily } from '../kit/metrics/prom.ts';
import { answerPrimary, askWorker } from './worker-spec.ts';

/** The metrics' requests and answers between the primary and its workers. */
const KIND = 'lexroute-metrics';
/** A worker that does not answer within this time is left out of the scrape. */
const WORKER_TIMEOUT_MS = 2000;

/** Gauges that are the same in every worker (not summed). */
const SHARED = new Set([
  'lexroute_resolver_catalogue_size',
  'lexroute_resolver_catalogue_changed_timestamp_seconds',
]);

/** In a worker: answer the primary's metrics requests. Returns a function that stops answering. */
export function answerMetricsRequests(collect: () => MetricFamily[]): () => void {
  return answerPrimary(KIND, () => collect());
}

/** In the primary: the endpoint, summing what the live workers report. */
export async function startPrimaryMetrics(
  host: string,
  port: number,
  workers: () => readonly Worker[],
): Promise<MetricsEndpoint> {
  const askOne = (w: Worker) =>
    askWorker<undefined, MetricFamily[] | undefined>(
      w,
      KIND,
      undefined,
      WORKER_TIMEOUT_MS,
      () => undefined,
    );
  return startMetricsEndpoint(host, port, async () => {
    const parts = await Promise.all(workers().map(askOne));
    const got = parts.filter((p): p is MetricFamily[] => p !== undefined);
    return [
      ...mergeFamilies(got, SHARED),
      family(
        'lexroute_resolver_workers',
        'gauge',
        'Resolver worker processes answering this scrape.',
        [[{}, got.length]],
      ),
    ];
  });
}
