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
  /** Require AD on every lookup (`resolve --dnssec`). */
  readonly dnssec?: boolean;
  /** True when the servers answer (name, type) with CD set: a SERVFAIL was a validation failure. */
  answersWithCd?(name: string, type: RecordType, signal?: AbortSignal): Promise<boolean>;
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
      if (!('then' in l))
        return walk.naptr(secured(host, l.result) ?? naptrFeed(l.result, true, host));
      return l.then(
        (r) => walk.naptr(secured(host, r) ?? naptrFeed(r, false, host)),
        (e: unknown) => failed(host, need.key, 'NAPTR', e, signal).then((f) => walk.naptr(f)),
      );
    }
    case 'srv': {
      const l = host.lookupRaw(need.name, 'SRV', signal);
      if (!('then' in l)) return walk.srv(secured(host, l.result) ?? srvFeed(l.result, true));
      return l.then(
        (r) => walk.srv(secured(host, r) ?? srvFeed(r, false)),
        (e: unknown) => failed(host, need.name, 'SRV', e, signal).then((f) => walk.srv(f)),
      );
    }
    case 'address': {
      const l = host.lookupRaw(need.name, need.qtype, signal);
      const q = need.qtype;
      if (!('then' in l))
        return walk.address(secured(host, l.result) ?? addressFeed(l.result, true));
      return l.then(
        (r) => walk.address(secured(host, r) ?? addressFeed(r, false)),
        (e: unknown) => failed(host, need.name, q, e, signal).then((f) => walk.address(f)),
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

/**
 * With DNSSEC required, a lookup without AD fails (RFC 4035 section 3.2.3:
 * the validating resolver sets AD only when "all the RRsets in the Answer
 * and Authority sections are authentic"); undefined when it may go on.
 */
function secured(
  host: DriverHost,
  r: LookupResult,
): Extract<DnsFeed<never>, { kind: 'error' }> | undefined {
  if (!host.dnssec || r.dnssec === 'secure') return undefined;
  return errorFeed(
    new DnsError(
      'DNSSEC_INSECURE',
      `${r.qname} ${r.qtype}: ${r.server} answered without AD: the answer is not authenticated (an unsigned zone, or no chain of trust to it)`,
      { qname: r.qname, qtype: r.qtype, server: r.server },
    ),
  );
}

/**
 * A failed lookup's error feed; with DNSSEC required, a SERVFAIL that the
 * servers answer once CD is set was a validation failure (RFC 4035 section
 * 3.2.2): DNSSEC_BOGUS.
 */
async function failed(
  host: DriverHost,
  name: string,
  type: RecordType,
  e: unknown,
  signal: AbortSignal | undefined,
): Promise<Extract<DnsFeed<never>, { kind: 'error' }>> {
  if (host.dnssec && e instanceof DnsError && e.code === 'DNS_SERVFAIL' && host.answersWithCd) {
    if (await host.answersWithCd(name, type, signal)) {
      return errorFeed(
        new DnsError(
          'DNSSEC_BOGUS',
          `${name} ${type}: validation failed (SERVFAIL, but the data comes with CD set): a bad or expired signature, or a broken chain of trust`,
          { qname: name, qtype: type, server: e.server ?? '' },
          e,
        ),
      );
    }
  }
  return errorFeed(e);
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
