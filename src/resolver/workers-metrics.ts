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

const ASK = 'lexroute-metrics?';
const ANSWER = 'lexroute-metrics';
/** A worker that does not answer within this time is left out of the scrape. */
const WORKER_TIMEOUT_MS = 2000;

/** Gauges that are the same in every worker (not summed). */
const SHARED = new Set([
  'lexroute_resolver_catalogue_size',
  'lexroute_resolver_catalogue_changed_timestamp_seconds',
]);

/** In a worker: answer the primary's metrics requests. Returns a function that stops answering. */
export function answerMetricsRequests(collect: () => MetricFamily[]): () => void {
  const onMessage = (m: unknown) => {
    if (typeof m === 'object' && m !== null && (m as { type?: string }).type === ASK) {
      process.send?.({ type: ANSWER, id: (m as { id: number }).id, families: collect() });
    }
  };
  process.on('message', onMessage);
  return () => process.off('message', onMessage);
}

/** In the primary: the endpoint, summing what the live workers report. */
export async function startPrimaryMetrics(
  host: string,
  port: number,
  workers: () => readonly Worker[],
): Promise<MetricsEndpoint> {
  let next = 0;
  const askOne = (w: Worker, id: number) =>
    new Promise<MetricFamily[] | undefined>((resolve) => {
      const timer = setTimeout(() => done(undefined), WORKER_TIMEOUT_MS);
      const onMessage = (m: unknown) => {
        const a = m as { type?: string; id?: number; families?: MetricFamily[] };
        if (a?.type === ANSWER && a.id === id) done(a.families);
      };
      const done = (f: MetricFamily[] | undefined) => {
        clearTimeout(timer);
        w.off('message', onMessage);
        resolve(f);
      };
      w.on('message', onMessage);
      try {
        w.send({ type: ASK, id });
      } catch {
        done(undefined);
      }
    });
  return startMetricsEndpoint(host, port, async () => {
    const id = ++next;
    const live = workers();
    const parts = await Promise.all(live.map((w) => askOne(w, id)));
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
