/**
 * The trace of one DDDS resolution and its results: the shapes the walk
 * (`walk.ts`) writes and the client returns. Plain data, printed as JSON by
 * `lexroute resolve --json --trace` in the key order the builders below use.
 */
import type { QueryType } from '../../dns/core/rr/types.ts';
import type { NaptrRecord, RecordFate, StepOutcome } from './step.ts';
import type { ResolutionCode } from './codes.ts';
import type { Verdict } from '../../dnssec/core/validate/verdict.ts';

/** The RFC 2483 resolution services the client asks for over THTTP (RFC 2169). */
export type Service = 'N2L' | 'N2Ls' | 'N2C';

/** The services the jurisdiction resolver answers: the client's, and N2Ns. */
export type ResolverService = Service | 'N2Ns';

/** One referral followed by an iterative resolver, for the trace. */
export interface ReferralStep {
  readonly server: string;
  readonly cut: string;
  readonly ns: readonly string[];
  readonly addresses: readonly string[];
  readonly fromGlue: boolean;
}

/** One HTTP request/response of the THTTP step. */
export interface HttpExchange {
  readonly method: 'GET';
  readonly url: string;
  readonly status: number;
  readonly location?: string;
  readonly contentType?: string;
  readonly bytes: number;
  readonly ms: number;
}

/** A failure as the trace and the results carry it: a stable code and a message. */
export interface CodedError {
  readonly code: ResolutionCode;
  readonly message: string;
}

/** How a DNS answer travelled: UDP, TCP (after TC=1), or DNS over HTTPS (`doh`, RFC 8484). */
export type DnsProtocol = 'udp' | 'tcp' | 'doh';

/** What every DNS lookup of the trace says: who answered, how, and the failure if any. */
interface LookupFacts {
  readonly server: string;
  readonly cached: boolean;
  readonly result: 'answer' | 'nxdomain' | 'nodata' | 'error';
  /** With DNSSEC required: the validating resolver's verdict. */
  readonly dnssec?: 'secure' | 'insecure';
  /** With the client's own validation (`--validate`): its verdict. */
  readonly validation?: Verdict;
  readonly error?: CodedError;
}

/** One NAPTR lookup and what the step function made of it. */
export interface NaptrTraceStep extends LookupFacts {
  readonly kind: 'naptr';
  readonly step: number;
  readonly key: string;
  readonly protocol?: DnsProtocol;
  readonly rttMs?: number;
  readonly ttl?: number;
  readonly cnames?: readonly string[];
  readonly referrals?: readonly ReferralStep[];
  readonly records: readonly RecordFate[];
  readonly outcome?: StepOutcome;
  /** Rewrite output to DNS key, when IDNA/Punycode changed it. */
  readonly punycode?: { readonly from: string; readonly to: string };
}

export interface LookupTraceStep extends LookupFacts {
  readonly kind: 'srv' | 'address';
  readonly name: string;
  readonly qtype: QueryType;
  readonly records: readonly string[];
  readonly selected?: readonly string[];
}

export interface HttpTraceStep {
  readonly kind: 'http';
  readonly url: string;
  readonly exchanges: readonly HttpExchange[];
  readonly error?: CodedError;
}

export interface PartitionTraceStep {
  readonly kind: 'partition';
  readonly applied: 'fragment' | 'partition' | 'kept' | 'none';
  readonly before: string;
  readonly after: string;
}

export interface FallbackTraceStep {
  readonly kind: 'fallback';
  readonly from: string;
  readonly to: string;
  readonly reason: string;
}

export type TraceStep =
  NaptrTraceStep | LookupTraceStep | HttpTraceStep | PartitionTraceStep | FallbackTraceStep;

export interface Trace {
  readonly input: string;
  /** The Application Unique String the rules were applied to. */
  aus?: string;
  fragment?: string;
  partition?: string;
  readonly service: Service;
  readonly mode: 'stub' | 'iterative';
  readonly servers: readonly string[];
  readonly steps: TraceStep[];
}

/** The chain reached a resolver (a `U`, `S` or `A` rule). */
export interface ResolvedResult {
  readonly kind: 'resolved';
  /** Document URL(s), partition/fragment applied (empty with noHttp or N2C). */
  readonly urls: readonly string[];
  /** The resolver URL the HTTP step asks (or would ask, with noHttp). */
  readonly resolverUrl: string;
  /** N2C: the description as received. */
  readonly description?: { readonly contentType: string; readonly body: string };
  readonly trace: Trace;
}

/** What a `P` rule hands over to the protocol in its SERVICES (RFC 3404 section 4.3). */
export interface Handoff {
  /** The key whose NAPTR RRset held the `P` rule. */
  readonly key: string;
  /** The DDDS step (1-based) that found it. */
  readonly step: number;
  /** The rule's output as given (REGEXP result or REPLACEMENT). */
  readonly output: string;
  readonly via: 'regexp' | 'replacement';
  /** The protocol named in SERVICES, as written. */
  readonly protocol: string;
  /** The resolution services after the protocol, as written. */
  readonly services: readonly string[];
  readonly record: NaptrRecord;
}

/** The chain ended at a `P` rule: a success without resolver or document URL. */
export interface HandoffResult {
  readonly kind: 'handoff';
  readonly urls: readonly [];
  readonly resolverUrl: '';
  readonly description?: undefined;
  readonly handoff: Handoff;
  readonly trace: Trace;
}

export type ResolveResult = ResolvedResult | HandoffResult;

/** What a DNS lookup reports besides its records (a client's LookupResult has these fields). */
export interface LookupMeta extends Pick<LookupFacts, 'dnssec' | 'validation'> {
  /** The server that answered, e.g. `127.0.0.1:5353`. */
  readonly server: string;
  readonly protocol: DnsProtocol;
  readonly rttMs: number;
  /** Seconds the answer may be cached; -1 = must not be. */
  readonly ttl: number;
  readonly cnames: readonly string[];
  /** Referrals an iterative resolver followed. */
  readonly referrals?: readonly ReferralStep[];
}

/** The trace entry of one NAPTR lookup, its keys in the order the JSON trace prints them. */
export function naptrEntry(
  stepNo: number,
  key: string,
  result: 'answer' | 'nxdomain' | 'nodata',
  meta: LookupMeta,
  cached: boolean,
  records: readonly RecordFate[],
  outcome: StepOutcome | undefined,
  punycode: { from: string; to: string } | undefined,
  error?: CodedError,
): NaptrTraceStep {
  const e: Record<string, unknown> = {
    kind: 'naptr',
    step: stepNo,
    key,
    server: cached ? 'cache' : meta.server,
    cached,
    result,
    ttl: meta.ttl,
  };
  if (meta.dnssec !== undefined) e.dnssec = meta.dnssec;
  if (meta.validation !== undefined) e.validation = meta.validation;
  if (!cached) {
    e.protocol = meta.protocol;
    e.rttMs = meta.rttMs;
  }
  if (meta.cnames.length > 0) e.cnames = meta.cnames;
  if (!cached && meta.referrals !== undefined && meta.referrals.length > 0) {
    e.referrals = meta.referrals;
  }
  e.records = records;
  if (outcome !== undefined) e.outcome = outcome;
  if (punycode !== undefined) e.punycode = punycode;
  if (error !== undefined) e.error = error;
  return e as unknown as NaptrTraceStep;
}
