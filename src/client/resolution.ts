/** One resolution on any platform: the walk driven over a host's lookups and THTTP step. */
import type { ResolveResult, Service, Trace } from '../ddds/core/trace.ts';
import type { ResolutionCode } from '../ddds/core/codes.ts';
import { DddsWalk } from '../ddds/core/walk.ts';
import type { DnsCache } from './cache.ts';
import { describeError, drive, type DriverHost, type WalkFailure } from './drive.ts';
import { ClientError } from './errors.ts';
import type { ClientMemos } from './memo.ts';

/** A failed resolution: a stable `code`, and the trace up to the failure. */
export class ResolveError extends ClientError {
  readonly trace: Trace;
  constructor(code: ResolutionCode, message: string, trace: Trace, cause?: unknown) {
    super(code, message, cause === undefined ? undefined : { cause });
    this.name = 'ResolveError';
    this.trace = trace;
  }
}

/** The options of one resolution (the client's own options aside). */
export interface WalkOptions {
  /** Wanted resolution service (default N2L). */
  readonly service?: Service;
  /** Stop at the resolver URL; no HTTP request. */
  readonly noHttp?: boolean;
  /** Most DDDS steps (default 10). */
  readonly maxSteps?: number;
  /** After a failure below a delegation, try the referrer's next rule (opt-in; decisions.md 3). */
  readonly fallback?: boolean;
  readonly signal?: AbortSignal;
  /** Reuse step results for a cached RRset and the same AUS (default true). */
  readonly memoSteps?: boolean;
  /** The whole resolution's deadline in ms (default 8000; 0 for none): RESOLVE_DEADLINE. */
  readonly deadlineMs?: number;
  /** URL schemes accepted in a resolver's answer (default http, https); else DDDS_URL_SCHEME. */
  readonly urlSchemes?: readonly string[];
}

/** A client the walk can be driven over. */
export interface WalkHost extends DriverHost {
  readonly cache: DnsCache | undefined;
  readonly memos: ClientMemos;
  readonly mode: 'stub' | 'iterative';
  /** The servers (or DoH URLs) the trace names. */
  readonly servers: readonly string[];
  readonly random: () => number;
  /** Undefined once the host can look up; else the promise of its setup. */
  ready(): Promise<unknown> | undefined;
}

function serviceOf(s: string | undefined): Service {
  return s === 'N2Ls' || s === 'N2C' ? s : 'N2L';
}

/** One resolution: the walk, started from the (memoised) input and driven over the host's lookups. */
export async function resolveWith(
  host: WalkHost,
  urn: string,
  options: WalkOptions,
): Promise<ResolveResult> {
  const service = serviceOf(options.service);
  const setup = host.ready();
  if (setup) {
    try {
      await setup;
    } catch (e) {
      const d = describeError(e);
      const trace: Trace = { input: urn, service, mode: host.mode, servers: [], steps: [] };
      throw new ResolveError(d.code, d.message, trace, e);
    }
  }
  const prepared = host.memos.prepare(urn);
  const memo =
    options.memoSteps !== false && prepared.repeat && host.cache
      ? host.memos.memoFor(prepared, service)
      : undefined;
  const walk = new DddsWalk(
    urn,
    {
      service,
      maxSteps: options.maxSteps,
      fallback: options.fallback,
      noHttp: options.noHttp,
      mode: host.mode,
      servers: host.servers,
      random: host.random,
      urlSchemes: options.urlSchemes?.map((u) => u.toLowerCase()),
      memo,
    },
    prepared.start,
  );
  const end = drive(host, walk, options.signal, options.deadlineMs);
  return end instanceof Promise ? end.then(settle) : settle(end);
}

/** The walk's end as the API gives it: the result, or a thrown ResolveError. */
function settle(end: ResolveResult | WalkFailure): ResolveResult {
  if (end.kind === 'failed') throw new ResolveError(end.code, end.message, end.trace, end.cause);
  return end;
}
