/**
 * The DDDS driver: asks the pure walk (`core/ddds/walk.ts`) what it needs,
 * gets it from the lookups behind the client (cache, then the stub,
 * iterative or any other `Resolver`) or from the HTTP step, and feeds it
 * back, until the walk is done. All I/O of a resolution happens here; every
 * decision is the walk's.
 *
 * A cache hit is fed back synchronously (no promise on the warm path).
 */
import type { RecordType } from 'dns-packet';
import type { Dispatcher } from 'undici';
import type { SrvRecord } from '../core/ddds/srv.ts';
import type { NaptrRecord } from '../core/ddds/step.ts';
import type { ResolveResult } from '../core/ddds/trace.ts';
import type {
  AddressFeed,
  DddsWalk,
  DnsFeed,
  HttpFeed,
  SrvFeed,
  WalkNeed,
} from '../core/ddds/walk.ts';
import { ClientError, DnsError } from './errors.ts';
import { thttpRequest } from './http-step.ts';
import type { LookupResult } from './lookup.ts';
import { naptrRecords } from './memo.ts';
import { rdataOf } from './wire.ts';

/** What the driver needs of the client. */
export interface DriverHost {
  /** Undefined when the answer must not be memoised per result (no cache). */
  readonly cache: unknown;
  lookupRaw(
    name: string,
    type: RecordType,
    signal?: AbortSignal,
  ): { result: LookupResult; cached: true } | Promise<LookupResult>;
  dispatcher(): Dispatcher;
  pinHost(host: string, address: string): void;
  readonly httpTimeoutMs: number | undefined;
}

/** A failed walk: its code, message, trace and cause. */
export type WalkFailure = Extract<WalkNeed, { kind: 'failed' }>;

type End = ResolveResult | WalkFailure;

/**
 * Drive `walk` to its end: the result, or the failure (never thrown here).
 * Synchronous while every answer comes from the cache (the warm path makes
 * no promise); from the first lookup that goes out, asynchronous.
 */
export function drive(
  host: DriverHost,
  walk: DddsWalk,
  signal: AbortSignal | undefined,
): End | Promise<End> {
  let need = walk.begin();
  while (need.kind !== 'done' && need.kind !== 'failed') {
    const next = advance(host, walk, need, signal);
    if (next instanceof Promise) return driveAsync(host, walk, next, signal);
    need = next;
  }
  return need.kind === 'done' ? need.result : need;
}

async function driveAsync(
  host: DriverHost,
  walk: DddsWalk,
  pending: Promise<WalkNeed>,
  signal: AbortSignal | undefined,
): Promise<End> {
  let need = await pending;
  while (need.kind !== 'done' && need.kind !== 'failed') {
    const next = advance(host, walk, need, signal);
    need = next instanceof Promise ? await next : next;
  }
  return need.kind === 'done' ? need.result : need;
}

/** Get what `need` asks for and feed it to the walk: the next need (a promise when it went out). */
function advance(
  host: DriverHost,
  walk: DddsWalk,
  need: Exclude<WalkNeed, { kind: 'done' | 'failed' }>,
  signal: AbortSignal | undefined,
): WalkNeed | Promise<WalkNeed> {
  switch (need.kind) {
    case 'naptr': {
      const l = host.lookupRaw(need.key, 'NAPTR', signal);
      if (!('then' in l)) return walk.naptr(naptrFeed(l.result, true, host));
      return l.then(
        (r) => walk.naptr(naptrFeed(r, false, host)),
        (e: unknown) => walk.naptr(errorFeed(e)),
      );
    }
    case 'srv': {
      const l = host.lookupRaw(need.name, 'SRV', signal);
      if (!('then' in l)) return walk.srv(srvFeed(l.result, true));
      return l.then(
        (r) => walk.srv(srvFeed(r, false)),
        (e: unknown) => walk.srv(errorFeed(e)),
      );
    }
    case 'address': {
      const l = host.lookupRaw(need.name, need.qtype, signal);
      if (!('then' in l)) return walk.address(addressFeed(l.result, true));
      return l.then(
        (r) => walk.address(addressFeed(r, false)),
        (e: unknown) => walk.address(errorFeed(e)),
      );
    }
    case 'http':
      return httpStep(host, need, signal).then((f) => walk.http(f));
  }
}

export function describeError(e: unknown): { code: string; message: string } {
  if (e instanceof ClientError) return { code: e.code, message: e.message };
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };
}

/** A lookup that failed (timeout, SERVFAIL, lame delegation, ...): its error feed. */
function errorFeed(e: unknown): Extract<DnsFeed<never>, { kind: 'error' }> {
  const d = describeError(e);
  const server = e instanceof DnsError ? (e.server ?? '') : '';
  return { kind: 'error', code: d.code, message: d.message, server, cause: e };
}

export function naptrFeed(
  r: LookupResult,
  cached: boolean,
  host: { readonly cache: unknown },
): DnsFeed<NaptrRecord> {
  const records = naptrRecords(r, cached || host.cache !== undefined);
  return { kind: r.kind, records, meta: r, cached, rrset: r };
}

export function srvFeed(r: LookupResult, cached: boolean): SrvFeed {
  const records = r.records.map((a) => rdataOf(a) as SrvRecord);
  return { kind: r.kind, records, meta: r, cached };
}

export function addressFeed(r: LookupResult, cached: boolean): AddressFeed {
  const records = r.records.map((a) => String(rdataOf(a)));
  return { kind: r.kind, records, meta: r, cached };
}

/** The THTTP exchange (RFC 2169) to a resolver URL, S/A hosts connected to the addresses found. */
async function httpStep(
  host: DriverHost,
  need: Extract<WalkNeed, { kind: 'http' }>,
  signal: AbortSignal | undefined,
): Promise<HttpFeed> {
  for (const pin of need.pins) host.pinHost(pin.host, pin.address);
  try {
    const res = await thttpRequest(need.url, need.service, {
      dispatcher: host.dispatcher(),
      ...(host.httpTimeoutMs !== undefined ? { timeoutMs: host.httpTimeoutMs } : {}),
      ...(signal ? { signal } : {}),
    });
    if (res.service === 'N2C') {
      const { exchanges, contentType, body } = res;
      return { kind: 'description', exchanges, contentType, body };
    }
    return { kind: 'urls', exchanges: res.exchanges, urls: res.urls };
  } catch (e) {
    return { kind: 'error', ...describeError(e), cause: e };
  }
}
