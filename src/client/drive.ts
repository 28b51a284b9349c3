/**
 * The DDDS driver: gets what the pure walk needs (cache, resolver, HTTP
 * step) and feeds it back until the walk is done. All I/O happens here, every
 * decision is the walk's; a cache hit is fed back synchronously.
 */
import type { QueryType } from '../dns/core/rr/types.ts';
import type { SrvRecord } from '../ddds/core/srv.ts';
import type { ResolutionCode } from '../ddds/core/codes.ts';
import type { NaptrRecord } from '../ddds/core/step.ts';
import type { ResolveResult } from '../ddds/core/trace.ts';
import type {
  AddressFeed,
  DddsWalk,
  DnsFeed,
  HttpFeed,
  SrvFeed,
  WalkNeed,
} from '../ddds/core/walk.ts';
import { ClientError, DnsError } from './errors.ts';
import type { HttpStepResult } from './thttp.ts';
import type { DnsLookupResult } from './stub.ts';
import { recordsOfType } from '../dns/core/rr/record.ts';
import { toNaptrRecords, type ClientMemos } from './memo.ts';

/** What the driver needs of the client. */
export interface DriverHost {
  /** Undefined when the answer must not be memoised per result (no cache). */
  readonly cache: unknown;
  /** The client's own memos (none: nothing is memoised). */
  readonly memos?: ClientMemos;
  /** A cached answer, synchronously (the warm path). */
  peek(name: string, type: QueryType): DnsLookupResult | undefined;
  /** The answer from the resolver behind the cache (and into the cache). */
  lookup(name: string, type: QueryType, signal: AbortSignal | undefined): Promise<DnsLookupResult>;
  /** The THTTP exchange of `need`, its S/A hosts pinned where the platform allows it. */
  thttp(
    need: Extract<WalkNeed, { kind: 'http' }>,
    signal: AbortSignal | undefined,
  ): Promise<HttpStepResult>;
  /** Require AD on every lookup (`resolve --dnssec`). */
  readonly dnssec?: boolean;
  /** With the client's own validation: fail unless every lookup is secure (`--require-secure`). */
  readonly requireSecure?: boolean;
  /** True when the servers answer (name, type) with CD set: a SERVFAIL was a validation failure. */
  answersWithCd?(name: string, type: QueryType, signal?: AbortSignal): Promise<boolean>;
}

/** A failed walk: its code, message, trace and cause. */
export type WalkFailure = Extract<WalkNeed, { kind: 'failed' }>;

type End = ResolveResult | WalkFailure;

/** Default overall deadline of one resolution, ms. */
export const DEFAULT_DEADLINE_MS = 8000;

/** One resolution's I/O context: the caller's signal and the deadline (timed from the first I/O). */
class Run {
  readonly host: DriverHost;
  readonly walk: DddsWalk;
  private readonly caller: AbortSignal | undefined;
  private readonly deadlineMs: number;
  private deadline: AbortSignal | undefined;
  private combined: AbortSignal | undefined;

  constructor(
    host: DriverHost,
    walk: DddsWalk,
    signal: AbortSignal | undefined,
    deadlineMs: number,
  ) {
    this.host = host;
    this.walk = walk;
    this.caller = signal;
    this.deadlineMs = deadlineMs;
  }

  /** The signal for I/O: the caller's, combined with the deadline. */
  signal(): AbortSignal | undefined {
    if (this.deadlineMs <= 0 || this.deadlineMs === Number.POSITIVE_INFINITY) return this.caller;
    if (this.combined === undefined) {
      this.deadline = AbortSignal.timeout(this.deadlineMs);
      this.combined =
        this.caller === undefined ? this.deadline : AbortSignal.any([this.caller, this.deadline]);
    }
    return this.combined;
  }

  /** A failure as fed to the walk: the deadline's own code when it is what stopped the I/O. */
  error(e: unknown): { code: ResolutionCode; message: string; cause: unknown } {
    if (this.deadline?.aborted === true && this.caller?.aborted !== true) {
      return {
        code: 'RESOLVE_DEADLINE',
        message: `the resolution's deadline of ${this.deadlineMs} ms passed`,
        cause: e,
      };
    }
    return { ...describeError(e), cause: e };
  }

  /** A lookup that failed (timeout, SERVFAIL, lame delegation, ...): its error feed. */
  errorFeed(e: unknown): Extract<DnsFeed<never>, { kind: 'error' }> {
    const server = e instanceof DnsError ? (e.server ?? '') : '';
    return { kind: 'error', ...this.error(e), server };
  }
}

/** Drive `walk` to its result or failure (never thrown), synchronously while the cache answers. */
export function drive(
  host: DriverHost,
  walk: DddsWalk,
  signal: AbortSignal | undefined,
  deadlineMs: number = DEFAULT_DEADLINE_MS,
): End | Promise<End> {
  let need = walk.begin();
  while (need.kind !== 'done' && need.kind !== 'failed') {
    const hit = cachedFeed(host, walk, need);
    if (hit !== undefined) {
      need = hit;
      continue;
    }
    const run = new Run(host, walk, signal, deadlineMs);
    return driveAsync(run, advance(run, need));
  }
  return need.kind === 'done' ? need.result : need;
}

async function driveAsync(run: Run, pending: Promise<WalkNeed>): Promise<End> {
  let need = await pending;
  while (need.kind !== 'done' && need.kind !== 'failed') {
    need = cachedFeed(run.host, run.walk, need) ?? (await advance(run, need));
  }
  return need.kind === 'done' ? need.result : need;
}

/** The need answered from the cache, fed to the walk: the next need; undefined on a miss. */
function cachedFeed(
  host: DriverHost,
  walk: DddsWalk,
  need: Exclude<WalkNeed, { kind: 'done' | 'failed' }>,
): WalkNeed | undefined {
  switch (need.kind) {
    case 'naptr': {
      const r = host.peek(need.key, 'NAPTR');
      return r === undefined ? undefined : walk.naptr(secured(host, r) ?? naptrFeed(r, true, host));
    }
    case 'srv': {
      const r = host.peek(need.name, 'SRV');
      return r === undefined ? undefined : walk.srv(secured(host, r) ?? srvFeed(r, true));
    }
    case 'address': {
      const r = host.peek(need.name, need.qtype);
      return r === undefined ? undefined : walk.address(secured(host, r) ?? addressFeed(r, true));
    }
    case 'http':
      return undefined;
  }
}

/** Get what `need` asks for over the network and feed it to the walk: the next need. */
function advance(
  run: Run,
  need: Exclude<WalkNeed, { kind: 'done' | 'failed' }>,
): Promise<WalkNeed> {
  const { host, walk } = run;
  const signal = run.signal();
  const fail = (name: string, type: QueryType) => (e: unknown) =>
    failed(run, name, type, e, signal);
  switch (need.kind) {
    case 'naptr':
      return host.lookup(need.key, 'NAPTR', signal).then(
        (r) => walk.naptr(secured(host, r) ?? naptrFeed(r, false, host)),
        (e: unknown) => fail(need.key, 'NAPTR')(e).then((f) => walk.naptr(f)),
      );
    case 'srv':
      return host.lookup(need.name, 'SRV', signal).then(
        (r) => walk.srv(secured(host, r) ?? srvFeed(r, false)),
        (e: unknown) => fail(need.name, 'SRV')(e).then((f) => walk.srv(f)),
      );
    case 'address':
      return host.lookup(need.name, need.qtype, signal).then(
        (r) => walk.address(secured(host, r) ?? addressFeed(r, false)),
        (e: unknown) => fail(need.name, need.qtype)(e).then((f) => walk.address(f)),
      );
    case 'http':
      return httpStep(run, need, signal).then((f) => walk.http(f));
  }
}

export function describeError(e: unknown): { code: ResolutionCode; message: string } {
  if (e instanceof ClientError) return { code: e.code, message: e.message };
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };
}

/**
 * The DNSSEC gate of a lookup (undefined: go on). Own validation: bogus
 * fails (RFC 4035 section 5.5), insecure too with `requireSecure`. With
 * `dnssec`, a lookup without AD fails (RFC 4035 section 3.2.3).
 */
function secured(
  host: DriverHost,
  r: DnsLookupResult,
): Extract<DnsFeed<never>, { kind: 'error' }> | undefined {
  const v = r.validation;
  const ctx = { qname: r.qname, qtype: r.qtype, server: r.server };
  let e: DnsError | undefined;
  if (v !== undefined) {
    if (v.status === 'bogus')
      e = new DnsError(
        'DNSSEC_BOGUS',
        `${r.qname} ${r.qtype}: bogus (${v.code}): ${v.detail}`,
        ctx,
      );
    else if (v.status === 'insecure' && host.requireSecure)
      e = new DnsError(
        'DNSSEC_INSECURE',
        `${r.qname} ${r.qtype}: insecure (${v.code}): ${v.detail}`,
        ctx,
      );
  } else if (host.dnssec && r.dnssec !== 'secure') {
    e = new DnsError(
      'DNSSEC_INSECURE',
      `${r.qname} ${r.qtype}: ${r.server} answered without AD: the answer is not authenticated (an unsigned zone, or no chain of trust to it)`,
      ctx,
    );
  }
  if (e === undefined) return undefined;
  return {
    kind: 'error',
    code: e.code,
    message: e.message,
    server: r.server,
    cause: e,
    ...(v !== undefined ? { validation: v } : {}),
  };
}

/** A failed lookup's feed; with DNSSEC, a SERVFAIL answered under CD is DNSSEC_BOGUS (RFC 4035 3.2.2). */
async function failed(
  run: Run,
  name: string,
  type: QueryType,
  e: unknown,
  signal: AbortSignal | undefined,
): Promise<Extract<DnsFeed<never>, { kind: 'error' }>> {
  const host = run.host;
  if (host.dnssec && e instanceof DnsError && e.code === 'DNS_SERVFAIL' && host.answersWithCd) {
    if (await host.answersWithCd(name, type, signal)) {
      return run.errorFeed(
        new DnsError(
          'DNSSEC_BOGUS',
          `${name} ${type}: validation failed (SERVFAIL, but the data comes with CD set): a bad or expired signature, or a broken chain of trust`,
          { qname: name, qtype: type, server: e.server ?? '' },
          e,
        ),
      );
    }
  }
  return run.errorFeed(e);
}

export function naptrFeed(
  r: DnsLookupResult,
  cached: boolean,
  host: { readonly cache: unknown; readonly memos?: ClientMemos },
): DnsFeed<NaptrRecord> {
  const memos = host.memos;
  const records =
    memos === undefined
      ? toNaptrRecords(r)
      : memos.naptrRecords(r, cached || host.cache !== undefined);
  return { kind: r.kind, records, meta: r, cached, rrset: r };
}

export function srvFeed(r: DnsLookupResult, cached: boolean): SrvFeed {
  const records: readonly SrvRecord[] = recordsOfType(r.records, 'SRV');
  return { kind: r.kind, records, meta: r, cached };
}

export function addressFeed(r: DnsLookupResult, cached: boolean): AddressFeed {
  const records: string[] = [];
  for (const a of r.records) if (a.type === 'A' || a.type === 'AAAA') records.push(a.address);
  return { kind: r.kind, records, meta: r, cached };
}

/** The THTTP exchange (RFC 2169) to a resolver URL, as the walk's HTTP feed. */
async function httpStep(
  run: Run,
  need: Extract<WalkNeed, { kind: 'http' }>,
  signal: AbortSignal | undefined,
): Promise<HttpFeed> {
  try {
    const res = await run.host.thttp(need, signal);
    if (res.service === 'N2C') {
      const { exchanges, contentType, body } = res;
      return { kind: 'description', exchanges, contentType, body };
    }
    return { kind: 'urls', exchanges: res.exchanges, urls: res.urls };
  } catch (e) {
    return { kind: 'error', ...run.error(e) };
  }
}
