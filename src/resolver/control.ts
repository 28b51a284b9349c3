/**
 * `lexroute resolver --control PATH`: the resolver's control channel (the
 * server's socket protocol, `authority/control.ts`) with `status`, `reload`
 * (keys needing a restart are reported, not applied; an invalid
 * configuration keeps the previous one), `stats`, `flush-cache` and `stop`.
 * With `--workers N` the primary forwards each command to every worker and
 * sums their answers; a `reload` carries the configuration it read, so every
 * worker applies the same one.
 */
import type { Worker } from 'node:cluster';
import type { ControlAnswer, ControlRequest } from '../authority/control.ts';
import type { LoadedConfig } from './service.ts';
import { answerPrimary, askWorker } from './worker-spec.ts';

/** A command as the primary forwards it (`loaded`: a reload's configuration). */
type ForwardedRequest = ControlRequest & { readonly loaded?: LoadedConfig };

export const RESOLVER_CONTROL_COMMANDS = [
  'status',
  'stats',
  'reload',
  'flush-cache',
  'stop',
] as const;

/** The control commands' requests and answers between the primary and its workers. */
const KIND = 'lexroute-ctl';
/** A worker must answer a forwarded command within this time (a reload reads the registries). */
const WORKER_TIMEOUT_MS = 20_000;

/** What one resolver process offers its control channel. */
export interface ResolverControlTarget {
  status(): Record<string, unknown>;
  /** Re-read the configuration (or apply `given`); `ok: false` keeps the previous one. */
  reload(given?: LoadedConfig): Promise<ControlAnswer>;
  flushCache(): { entries: number; bytes: number };
  /** Counters since the start (`ResolverStats` and the answer cache). */
  stats(): ResolverStatsReport;
  stop(): void;
}

/** What `ctl stats` reports of one resolver process (or the sum of the workers). */
export interface ResolverStatsReport {
  readonly kind: 'resolver';
  readonly uptimeSeconds: number;
  /** `"N2L 301"` -> requests. */
  readonly requests: Record<string, number>;
  /** Histogram of request durations: `counts[i]` requests took at most `bounds[i]` seconds (the last: more). */
  readonly latency: { readonly bounds: readonly number[]; readonly counts: readonly number[] };
  readonly cache: { readonly hits: number; readonly misses: number };
}

/** The upper bound (s) of the bucket holding the `q` quantile (null: no request; Infinity: past the last). */
export function histogramQuantile(
  bounds: readonly number[],
  counts: readonly number[],
  q: number,
): number | null {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i]!;
    if (seen >= q * total) return bounds[i] ?? Infinity;
  }
  return Infinity;
}

/** The workers' reports summed into one. */
export function sumStats(parts: readonly ResolverStatsReport[]): ResolverStatsReport {
  const counts: number[] = [];
  for (const p of parts) p.latency.counts.forEach((c, i) => (counts[i] = (counts[i] ?? 0) + c));
  const uptimeSeconds = Math.max(0, ...parts.map((p) => p.uptimeSeconds));
  const latency = { bounds: parts[0]?.latency.bounds ?? [], counts };
  const requests = sumKeys(parts, 'requests');
  const cache = { hits: 0, misses: 0, ...sumKeys(parts, 'cache') };
  return { kind: 'resolver', uptimeSeconds, requests, latency, cache };
}

/** Each number under `key` summed over `parts`. */
function sumKeys(parts: readonly object[], key: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of parts) {
    for (const [k, v] of Object.entries((p as Record<string, object>)[key] ?? {})) {
      if (typeof v === 'number') out[k] = (out[k] ?? 0) + v;
    }
  }
  return out;
}

/** A stats report with its percentiles, as `ctl stats` answers it. */
function withPercentiles(r: ResolverStatsReport): Record<string, unknown> {
  const q = (x: number) => histogramQuantile(r.latency.bounds, r.latency.counts, x);
  return { ...r, latencyUpperBoundSeconds: { p50: q(0.5), p90: q(0.9), p99: q(0.99) } };
}

function unknownCommand(command: string): ControlAnswer {
  return {
    ok: false,
    code: 'CTL_UNKNOWN_COMMAND',
    message: `unknown resolver command '${command}' (${RESOLVER_CONTROL_COMMANDS.join(', ')})`,
  };
}

/** Run one command in this process. */
export async function runResolverCommand(
  t: ResolverControlTarget,
  req: ForwardedRequest,
): Promise<ControlAnswer> {
  switch (req.command) {
    case 'status':
      return { ok: true, result: t.status() };
    case 'reload':
      if ((req.args ?? []).length > 0) {
        return { ok: false, code: 'CTL_USAGE', message: "the resolver's reload takes no ZONE" };
      }
      return t.reload(req.loaded);
    case 'flush-cache':
      return { ok: true, result: { kind: 'resolver', flushed: t.flushCache() } };
    case 'stats':
      return { ok: true, result: withPercentiles(t.stats()) };
    case 'stop':
      setImmediate(() => t.stop());
      return { ok: true, result: { kind: 'resolver', stopping: true } };
    default:
      return unknownCommand(req.command);
  }
}

/** In a worker process: answer the commands the primary forwards. Returns a function that stops. */
export function answerControlRequests(t: ResolverControlTarget): () => void {
  return answerPrimary(KIND, (request: ForwardedRequest) => runResolverCommand(t, request));
}

/** In the primary: one worker's answer to a forwarded command (an error answer on timeout). */
function askCommand(w: Worker, request: ForwardedRequest): Promise<ControlAnswer> {
  return askWorker(w, KIND, request, WORKER_TIMEOUT_MS, (why): ControlAnswer =>
    why === 'timeout'
      ? {
          ok: false,
          code: 'CTL_WORKER_TIMEOUT',
          message: `worker ${w.process.pid} did not answer '${request.command}' in ${WORKER_TIMEOUT_MS} ms`,
        }
      : { ok: false, code: 'CTL_FAILED', message: why.message },
  );
}

/**
 * In the primary of `--workers N`: forward to every live worker. `status`
 * and `flush-cache` sum the workers' caches; `reload` fails when one worker
 * failed (each says why); `stop` stops the primary, which stops the workers.
 */
export async function runPrimaryCommand(
  workers: () => readonly Worker[],
  primary: {
    pid: number;
    workers: number;
    stop: () => void;
    reloadConfig?: (() => Promise<LoadedConfig>) | undefined;
  },
  req: ControlRequest,
): Promise<ControlAnswer> {
  if (!(RESOLVER_CONTROL_COMMANDS as readonly string[]).includes(req.command)) {
    return unknownCommand(req.command);
  }
  if (req.command === 'stop') {
    setImmediate(primary.stop);
    return { ok: true, result: { kind: 'resolver', stopping: true } };
  }
  const forwarded: ForwardedRequest =
    req.command === 'reload' && primary.reloadConfig
      ? { ...req, loaded: await primary.reloadConfig() }
      : req;
  const live = workers();
  const answers = await Promise.all(live.map((w) => askCommand(w, forwarded)));
  const failed = answers.filter((a) => !a.ok);
  const results = answers.map((a) => a.result ?? {});
  const perWorker = results.map((r, i) => ({ pid: live[i]!.process.pid, ...r }));
  if (failed.length > 0) {
    const first = failed[0] as Extract<ControlAnswer, { ok: false }>;
    return {
      ok: false,
      code: first.code,
      message: failed.map((a) => (a.ok ? '' : a.message)).join('; '),
      result: { kind: 'resolver', processes: perWorker },
    };
  }
  const base = { ...(results[0] ?? {}), kind: 'resolver', processes: perWorker };
  if (req.command === 'stats') {
    const summed = sumStats(results as unknown as ResolverStatsReport[]);
    return { ok: true, result: { ...withPercentiles(summed), processes: perWorker } };
  }
  if (req.command === 'flush-cache') {
    return { ok: true, result: { kind: 'resolver', flushed: sumKeys(results, 'flushed') } };
  }
  if (req.command === 'status') {
    const pid = primary.pid;
    const cache = sumKeys(results, 'cache');
    return { ok: true, result: { ...base, pid, workers: primary.workers, cache } };
  }
  return { ok: true, result: base };
}
