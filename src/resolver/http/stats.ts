/**
 * Per-process counters of the resolver for `/metrics`: requests by service
 * and status, latency, cache hits, the catalogue's size and last change.
 */
import { family, histogram, type MetricFamily } from '../../kit/metrics/prom.ts';
import type { ResolverApp } from './app.ts';

/** Upper bounds of the latency histogram, seconds. */
export const LATENCY_BOUNDS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
] as const;

const SERVICES = ['N2L', 'N2Ls', 'N2C', 'N2Ns'];

/** The service a request target names: `/uri-res/N2L?...` -> N2L; `/health`; else `other`. */
export function serviceOf(target: string): string {
  if (target.startsWith('/uri-res/')) {
    let end = target.indexOf('?', 9);
    if (end < 0) end = target.length;
    const s = target.slice(9, end);
    return SERVICES.includes(s) ? s : 'other';
  }
  if (target === '/health' || target.startsWith('/health?')) return 'health';
  return 'other';
}

export class ResolverStats {
  /** `service status` -> requests. */
  readonly requests = new Map<string, number>();
  readonly latency = new Float64Array(LATENCY_BOUNDS.length + 1);
  latencySum = 0;

  count(target: string, status: number, seconds: number): void {
    const k = `${serviceOf(target)} ${status}`;
    this.requests.set(k, (this.requests.get(k) ?? 0) + 1);
    let i = 0;
    while (i < LATENCY_BOUNDS.length && seconds > LATENCY_BOUNDS[i]!) i++;
    this.latency[i]!++;
    this.latencySum += seconds;
  }

  families(cache: ReturnType<ResolverApp['cacheStats']>): MetricFamily[] {
    return [
      family(
        'lexroute_resolver_requests_total',
        'counter',
        'HTTP requests answered, by service (N2L, N2Ls, N2C, N2Ns, health, other) and status.',
        [...this.requests].map(([k, v]) => {
          const [service, status] = k.split(' ');
          return [{ service: service!, status: status! }, v] as const;
        }),
      ),
      histogram(
        'lexroute_resolver_request_duration_seconds',
        'Time from the request to the response written, seconds.',
        LATENCY_BOUNDS,
        [{ labels: {}, counts: this.latency, sum: this.latencySum }],
      ),
      family(
        'lexroute_resolver_cache_hits_total',
        'counter',
        'Requests answered from the answer cache.',
        [[{}, cache.hits]],
      ),
      family(
        'lexroute_resolver_cache_misses_total',
        'counter',
        'Requests the answer cache did not hold.',
        [[{}, cache.misses]],
      ),
      family('lexroute_resolver_cache_entries', 'gauge', 'Answers in the cache.', [
        [{}, cache.entries],
      ]),
      family('lexroute_resolver_cache_bytes', 'gauge', 'Bytes of the answers in the cache.', [
        [{}, cache.bytes],
      ]),
    ];
  }
}

/** The catalogue's families: size, and when this process last saw it change. */
export function catalogueFamilies(
  counts: Readonly<Record<string, unknown>>,
  changedAt: number,
): MetricFamily[] {
  const size: [Record<string, string>, number][] = [];
  for (const [k, v] of Object.entries(counts))
    if (typeof v === 'number') size.push([{ kind: k }, v]);
  return [
    family(
      'lexroute_resolver_catalogue_size',
      'gauge',
      'Catalogue rows, by kind (works, manifestations, names, ...).',
      size,
    ),
    family(
      'lexroute_resolver_catalogue_changed_timestamp_seconds',
      'gauge',
      'When this process last saw the catalogue change (an import), or started, Unix time.',
      [[{}, changedAt / 1000]],
    ),
  ];
}
