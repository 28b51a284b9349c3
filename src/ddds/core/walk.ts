/**
 * One DDDS resolution as a pure state machine (sans I/O): from a LEX URN to
 * the resolver and document URLs, a hand-off, or a coded failure. Each call
 * returns what it needs next (NAPTR, SRV, address lookup, HTTP exchange) or
 * that it is done; the driver feeds the answer back. It owns the loop guard,
 * the fallback frames, the trace and the partition step.
 *
 * @see RFC 3402 section 3.3, RFC 3403 section 8 (report a failed lookup
 *   rather than back up), RFC 3404, RFC 2782 (SRV target order), RFC 2169
 */
import { absoluteLowerName } from '../../kit/core/names.ts';
import { buildAus } from './aus.ts';
import { defaultToDnsKey } from './key.ts';
import { parseServices, protocolInfo, sameNaptr } from './naptr.ts';
import { applyPartitionDetailed } from './partition.ts';
import { selectSrv, type SrvRecord } from './srv.ts';
import {
  DddsLoopGuard,
  DEFAULT_STEP_LIMIT,
  dddsStep,
  type NaptrRecord,
  type StepOutcome,
  type StepResult,
} from './step.ts';
import {
  naptrEntry,
  type CodedError,
  type HandoffResult,
  type HttpExchange,
  type LookupMeta,
  type LookupTraceStep,
  type ResolveResult,
  type Service,
  type Trace,
} from './trace.ts';
import type { ResolutionCode } from './codes.ts';
import type { Verdict } from '../../dnssec/core/validate/verdict.ts';

/** The AUS and what the final URL keeps, from the input (`prepareWalk`). */
export interface WalkStart {
  readonly aus: string;
  readonly fragment: string | undefined;
  readonly partition: string | undefined;
  readonly firstKey: string;
}

/** Step results per cached NAPTR RRset (by identity) and key (service and AUS): `dddsStep` is pure. */
export interface StepMemoStore {
  get(rrset: object, key: string): StepResult | undefined;
  set(rrset: object, key: string, step: StepResult): void;
}

export interface WalkOptions {
  /** Wanted resolution service (default N2L). */
  readonly service?: Service | undefined;
  /** Most DDDS steps (default 10). */
  readonly maxSteps?: number | undefined;
  /** After a failure below a delegation, try the referring rule set's next rule. */
  readonly fallback?: boolean | undefined;
  /** Stop at the resolver URL: no HTTP exchange is asked for. */
  readonly noHttp?: boolean | undefined;
  /** For the trace: the resolver mode and the servers it asks. */
  readonly mode: 'stub' | 'iterative';
  readonly servers: readonly string[];
  /** Randomness for SRV weights, in [0, 1). */
  readonly random: () => number;
  /** URL schemes accepted from a resolver (lowercase; default http, https); others: DDDS_URL_SCHEME. */
  readonly urlSchemes?: readonly string[] | undefined;
  /** A step memo and this walk's key in it (service and AUS). */
  readonly memo?: { readonly store: StepMemoStore; readonly key: string } | undefined;
}

/** A host whose address the DNS gave (S and A rules): the HTTP step connects there. */
export interface HostPin {
  readonly host: string;
  readonly address: string;
}

/** What the walk needs next. */
export type WalkNeed =
  | { readonly kind: 'naptr'; readonly key: string }
  | { readonly kind: 'srv'; readonly name: string }
  | { readonly kind: 'address'; readonly name: string; readonly qtype: 'A' | 'AAAA' }
  | {
      readonly kind: 'http';
      readonly url: string;
      readonly service: Service;
      readonly pins: readonly HostPin[];
    }
  | { readonly kind: 'done'; readonly result: ResolveResult }
  | {
      readonly kind: 'failed';
      readonly code: ResolutionCode;
      readonly message: string;
      readonly trace: Trace;
      readonly cause?: unknown;
    };

/** A DNS lookup's result as fed back: records of the asked type, or an error. */
export type DnsFeed<R> =
  | {
      readonly kind: 'answer' | 'nxdomain' | 'nodata';
      readonly records: readonly R[];
      readonly meta: LookupMeta;
      /** From a cache (the trace says `cache` for the server). */
      readonly cached: boolean;
      /** The RRset's identity for the step memo (NAPTR only; omit for no memo). */
      readonly rrset?: object;
    }
  | {
      readonly kind: 'error';
      readonly code: ResolutionCode;
      readonly message: string;
      readonly server: string;
      readonly cause?: unknown;
      /** The client's own DNSSEC verdict that failed the lookup (bogus, or insecure with requireSecure). */
      readonly validation?: Verdict;
    };

/** A DNS lookup that was answered (records, or none). */
type Answered<R> = Extract<DnsFeed<R>, { kind: 'answer' | 'nxdomain' | 'nodata' }>;

/** SRV records with their targets as received (`''` or a name without the final dot). */
export type SrvFeed = DnsFeed<SrvRecord>;
/** Addresses as text. */
export type AddressFeed = DnsFeed<string>;

/** The THTTP exchange's result as fed back. */
export type HttpFeed =
  | {
      readonly kind: 'urls';
      readonly exchanges: readonly HttpExchange[];
      readonly urls: readonly string[];
    }
  | {
      readonly kind: 'description';
      readonly exchanges: readonly HttpExchange[];
      readonly contentType: string;
      readonly body: string;
    }
  | {
      readonly kind: 'error';
      readonly code: ResolutionCode;
      readonly message: string;
      readonly cause?: unknown;
    };

/**
 * The AUS (normalised URN, partition kept), f-component (kept for the final
 * URL, RFC 8141 section 2.3.3) and partition. Pure: a driver may memoise it.
 */
export function prepareWalk(input: string): WalkStart | CodedError {
  const r = buildAus(input.trim());
  if (!r.ok) {
    const e = r.error;
    return { code: e.code, message: `${e.message} at column ${e.span.start + 1}` };
  }
  const v = r.value;
  return { aus: v.aus, fragment: v.fragment, partition: v.partition, firstKey: v.firstKey };
}

/** An IP address literal (an S or A target given as one needs no lookup). */
export function isIpLiteral(host: string): boolean {
  return (
    /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(
      host,
    ) ||
    (host.includes(':') && /^[0-9a-f:.]+$/i.test(host) && host.split(':').length <= 9)
  );
}

/** `http(s)://host:port/uri-res/<service>?<AUS>` for an S or A host (RFC 2169 2.0, RFC 3404 4.4.2). */
export function thttpUrl(
  scheme: 'http' | 'https',
  host: string,
  port: number,
  service: string,
  aus: string,
): string {
  const h = host.endsWith('.') ? host.slice(0, -1) : host;
  const hostPart = h.includes(':') ? `[${h}]` : h;
  const defaultPort = scheme === 'https' ? 443 : 80;
  const portPart = port === defaultPort ? '' : `:${port}`;
  return `${scheme}://${hostPart}${portPart}/uri-res/${service}?${aus}`;
}

/** The excluded set of every frame when fallback is off: never added to. */
// eslint-disable-next-line no-restricted-syntax -- module state: an empty set never added to (fallback off; compared by identity).
const NOTHING_EXCLUDED: Set<number> = new Set();

/** A rule set visited: its key, its step number, and the records used from it (for a fallback). */
interface Frame {
  readonly key: string;
  readonly step: number;
  readonly excluded: Set<number>;
}

type Phase = 'naptr' | 'srv' | 'address' | 'http' | 'end';

export class DddsWalk {
  readonly trace: Trace;
  readonly service: Service;
  private readonly options: WalkOptions;
  private readonly start: WalkStart | CodedError;
  private readonly guard: DddsLoopGuard;
  private phase: Phase = 'naptr';
  private readonly frames: Frame[] = [];
  private key = '';
  private stepNo = 0;
  private excluded: Set<number> | undefined;
  // terminal rule: S or A targets, then the HTTP candidates
  private flag: 'S' | 'A' | 'U' = 'U';
  private scheme: 'http' | 'https' = 'http';
  private port = 80;
  private srvName = '';
  private targets: readonly SrvRecord[] = [];
  private target = 0;
  private host = '';
  private qtype: 'A' | 'AAAA' = 'A';
  private firstResult: string = 'nodata';
  private pins: HostPin[] | undefined;
  /** Resolver URLs to try in order (one for U and A rules, one per SRV target with an address). */
  private candidates: string[] | undefined;
  private candidate = 0;

  /** `prepared`: the driver's memoised `prepareWalk(input)`, if any. */
  constructor(input: string, options: WalkOptions, prepared?: WalkStart | CodedError) {
    this.options = options;
    this.service = options.service ?? 'N2L';
    this.trace = {
      input,
      service: this.service,
      mode: options.mode,
      servers: options.servers,
      steps: [],
    };
    this.start = prepared ?? prepareWalk(input);
    this.guard = new DddsLoopGuard(options.maxSteps ?? DEFAULT_STEP_LIMIT);
  }

  /** The first need: the NAPTR lookup of `<nid>.urn.arpa.`, or a failure for an invalid URN. */
  begin(): WalkNeed {
    const p = this.start;
    if ('code' in p) return this.fail(p.code, `not a valid LEX URN: ${p.message}`);
    this.trace.aus = p.aus;
    if (p.fragment !== undefined) this.trace.fragment = p.fragment;
    if (p.partition !== undefined) this.trace.partition = p.partition;
    const visit = this.guard.visit(p.firstKey);
    if (!visit.ok) return this.fail(visit.error.code, visit.error.message);
    this.key = p.firstKey;
    return this.askNaptr();
  }

  private get aus(): string {
    return (this.start as WalkStart).aus;
  }

  private expect(phase: Phase): void {
    if (this.phase !== phase) {
      throw new Error(`DddsWalk: fed a ${phase} result while waiting for ${this.phase}`);
    }
  }

  private fail(code: ResolutionCode, message: string, cause?: unknown): WalkNeed {
    this.phase = 'end';
    return {
      kind: 'failed',
      code,
      message,
      trace: this.trace,
      ...(cause === undefined ? {} : { cause }),
    };
  }

  private done(result: ResolveResult): WalkNeed {
    this.phase = 'end';
    return { kind: 'done', result };
  }

  private askNaptr(): WalkNeed {
    this.stepNo = this.excluded !== undefined ? this.frames.length + 1 : this.guard.steps;
    this.phase = 'naptr';
    return { kind: 'naptr', key: this.key };
  }

  /** Feed the NAPTR RRset of the key asked for (records in response order). */
  naptr(feed: DnsFeed<NaptrRecord>): WalkNeed {
    this.expect('naptr');
    const key = this.key;
    if (feed.kind === 'error') {
      this.trace.steps.push({ kind: 'naptr', step: this.stepNo, key, ...errorEntry(feed) });
      return this.fail(feed.code, `NAPTR lookup of ${key} failed: ${feed.message}`, feed.cause);
    }
    // Used records are remembered only for a fallback (no Set per step otherwise).
    const frame: Frame = {
      key,
      step: this.stepNo,
      excluded: this.excluded ?? (this.options.fallback ? new Set() : NOTHING_EXCLUDED),
    };
    this.frames.push(frame);
    this.excluded = undefined;
    if (feed.kind !== 'answer') {
      const server = feed.cached ? 'cache' : feed.meta.server;
      const code = feed.kind === 'nxdomain' ? 'DNS_NXDOMAIN' : 'DNS_NODATA';
      const message =
        feed.kind === 'nxdomain'
          ? `not found: ${key} does not exist (NXDOMAIN from ${server})`
          : `not found: ${key} has no NAPTR records (NODATA from ${server})`;
      this.trace.steps.push(
        naptrEntry(this.stepNo, key, feed.kind, feed.meta, feed.cached, [], undefined, undefined, {
          code,
          message,
        }),
      );
      return this.failOrFallBack(code, message);
    }
    const step = this.runStep(feed, frame);
    return this.afterStep(feed, frame, step);
  }

  /** `dddsStep` on the RRset (less the records a fallback excluded), through the memo when given. */
  private runStep(feed: Answered<NaptrRecord>, frame: Frame): StepResult {
    const { aus, key, service } = this;
    const excluded = frame.excluded;
    const records =
      excluded.size > 0 ? feed.records.filter((_, i) => !excluded.has(i)) : feed.records;
    const step = () => dddsStep({ aus, key, records, service, toDnsKey: defaultToDnsKey });
    const memo = this.options.memo;
    const rrset = feed.rrset;
    if (excluded.size > 0 || memo === undefined || rrset === undefined) return step();
    const memoised = feed.cached ? memo.store.get(rrset, memo.key) : undefined;
    if (memoised !== undefined) return memoised;
    const fresh = step();
    // Fresh from the DNS: seed the memo for the next warm resolution (when it may be cached).
    if (feed.cached || feed.meta.ttl > 0) memo.store.set(rrset, memo.key, fresh);
    return fresh;
  }

  private afterStep(feed: Answered<NaptrRecord>, frame: Frame, step: StepResult): WalkNeed {
    const { key, stepNo, trace } = this;
    const outcome = step.outcome;
    const punycode =
      outcome.kind === 'next' && absoluteLowerName(outcome.rewritten) !== outcome.key
        ? { from: outcome.rewritten, to: outcome.key }
        : undefined;
    trace.steps.push(
      naptrEntry(stepNo, key, 'answer', feed.meta, feed.cached, step.considered, outcome, punycode),
    );
    if (outcome.kind === 'next') {
      // Remember which record was used, for a fallback.
      if (frame.excluded !== NOTHING_EXCLUDED) {
        const used = feed.records.findIndex((r) => sameNaptr(r, outcome.record));
        if (used >= 0) frame.excluded.add(used);
      }
      const visit = this.guard.visit(outcome.key);
      if (!visit.ok) return this.fail(visit.error.code, visit.error.message);
      this.key = outcome.key;
      return this.askNaptr();
    }
    if (outcome.kind === 'failure') return this.failOrFallBack(outcome.code, outcome.message);
    if (outcome.kind === 'handoff') return this.done(handoffResult(key, stepNo, outcome, trace));
    return this.toTerminal(outcome);
  }

  /** On a failure: fall back to the referring rule set when asked to, else report. */
  private failOrFallBack(code: ResolutionCode, message: string): WalkNeed {
    const frames = this.frames;
    if (!this.options.fallback || frames.length < 2) return this.fail(code, message);
    // The last frame is the key that failed; go back to its referrer.
    frames.pop();
    const referrer = frames.at(-1) as Frame;
    this.trace.steps.push({
      kind: 'fallback',
      from: this.key,
      to: referrer.key,
      reason: `${code}: ${message}`,
    });
    this.key = referrer.key;
    this.excluded = referrer.excluded;
    frames.pop();
    return this.askNaptr();
  }

  private toTerminal(t: Extract<StepOutcome, { kind: 'terminal' }>): WalkNeed {
    const info = protocolInfo(t.protocol);
    this.flag = t.flag;
    if (t.flag === 'U') {
      this.candidates = [t.output];
      return this.afterCandidates();
    }
    this.scheme = info?.scheme ?? 'http';
    if (t.flag === 'S') {
      // RFC 2782: SRV at the output exactly as given.
      this.srvName = t.output;
      this.phase = 'srv';
      return { kind: 'srv', name: t.output };
    }
    // `A`: A/AAAA at the output, the protocol's default port (RFC 2168 "Advice").
    this.port = info?.defaultPort ?? 80;
    return this.seekAddress(t.output.replace(/\.$/, ''));
  }

  /** Feed the SRV RRset of the `S` rule's output. */
  srv(feed: SrvFeed): WalkNeed {
    this.expect('srv');
    const name = this.srvName;
    if (feed.kind === 'error') {
      this.trace.steps.push({ kind: 'srv', name, qtype: 'SRV', ...errorEntry(feed) });
      return this.fail(feed.code, `SRV lookup of ${name} failed: ${feed.message}`, feed.cause);
    }
    const entry = lookupEntry('srv', name, 'SRV', feed, formatSrv);
    if (feed.kind !== 'answer') {
      this.trace.steps.push(entry);
      const code = feed.kind === 'nxdomain' ? 'DNS_NXDOMAIN' : 'DNS_NODATA';
      return this.fail(code, `not found: no SRV records at ${name} (${feed.kind})`);
    }
    const selection = selectSrv(feed.records, this.options.random);
    if (selection.kind !== 'targets') {
      this.trace.steps.push(entry);
      return this.fail(
        selection.kind === 'unavailable' ? 'SRV_UNAVAILABLE' : 'SRV_NONE',
        `SRV at ${name}: ${selection.reason}`,
      );
    }
    this.trace.steps.push({
      ...entry,
      selected: selection.targets.map((s) => `${s.target}:${s.port}`),
    });
    this.targets = selection.targets;
    this.target = -1;
    return this.nextTarget();
  }

  /** The next SRV target's address (RFC 2782: from A/AAAA lookups), or the HTTP step. */
  private nextTarget(): WalkNeed {
    this.target++;
    const t = this.targets[this.target];
    if (t !== undefined) return this.seekAddress(t.target.replace(/\.$/, ''));
    if (this.candidates === undefined) {
      return this.fail('ADDRESS_NONE', `no SRV target of ${this.srvName} has an address`);
    }
    return this.afterCandidates();
  }

  private seekAddress(host: string): WalkNeed {
    this.host = host;
    if (isIpLiteral(host)) return this.gotAddress(host);
    this.qtype = 'A';
    this.phase = 'address';
    return { kind: 'address', name: host, qtype: 'A' };
  }

  /** Feed the A (then, when empty, AAAA) RRset of the host asked for. */
  address(feed: AddressFeed): WalkNeed {
    this.expect('address');
    const { host, qtype } = this;
    if (feed.kind === 'error') {
      this.trace.steps.push({ kind: 'address', name: host, qtype, ...errorEntry(feed) });
      return this.noAddress(
        feed.code,
        `${qtype} lookup of ${host} failed: ${feed.message}`,
        feed.cause,
      );
    }
    this.trace.steps.push(lookupEntry('address', host, qtype, feed, String));
    const first = feed.records[0];
    if (first !== undefined) return this.gotAddress(first);
    if (qtype === 'A') {
      this.firstResult = feed.kind;
      this.qtype = 'AAAA';
      return { kind: 'address', name: host, qtype: 'AAAA' };
    }
    const code = this.firstResult === 'nxdomain' ? 'DNS_NXDOMAIN' : 'DNS_NODATA';
    return this.noAddress(code, `not found: ${host} has no A or AAAA record`);
  }

  /** A target without an address: the next SRV target when there are several, else the failure. */
  private noAddress(code: ResolutionCode, message: string, cause?: unknown): WalkNeed {
    if (this.flag === 'S' && this.targets.length > 1) return this.nextTarget();
    return this.fail(code, message, cause);
  }

  private gotAddress(address: string): WalkNeed {
    const host = this.host;
    (this.pins ??= []).push({ host, address });
    const srv = this.flag === 'S' ? (this.targets[this.target] as SrvRecord) : undefined;
    const port = srv?.port ?? this.port;
    (this.candidates ??= []).push(thttpUrl(this.scheme, host, port, this.service, this.aus));
    return srv ? this.nextTarget() : this.afterCandidates();
  }

  private afterCandidates(): WalkNeed {
    const resolverUrl = (this.candidates as string[])[0] as string;
    if (this.options.noHttp) {
      return this.done({ kind: 'resolved', urls: [], resolverUrl, trace: this.trace });
    }
    this.candidate = 0;
    return this.askHttp();
  }

  /** The message about the first URL whose scheme is not accepted, if any. */
  private refusedUrl(urls: readonly string[]): string | undefined {
    const accepted = this.options.urlSchemes ?? DEFAULT_URL_SCHEMES;
    for (const url of urls) {
      const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
      if (scheme === undefined || !accepted.includes(scheme)) {
        const what = scheme === undefined ? 'no scheme' : `the scheme ${scheme}:`;
        return `the resolver answered ${JSON.stringify(url.slice(0, 200))}, with ${what}; accepted: ${accepted.map((a) => `${a}:`).join(', ')}`;
      }
    }
    return undefined;
  }

  private askHttp(): WalkNeed {
    this.phase = 'http';
    const url = (this.candidates as string[])[this.candidate] as string;
    return { kind: 'http', url, service: this.service, pins: this.pins ?? [] };
  }

  /** Feed the THTTP exchange's result for the URL asked for. */
  http(feed: HttpFeed): WalkNeed {
    this.expect('http');
    const candidates = this.candidates as string[];
    const url = candidates[this.candidate] as string;
    const trace = this.trace;
    if (feed.kind === 'error') {
      trace.steps.push({
        kind: 'http',
        url,
        exchanges: [],
        error: { code: feed.code, message: feed.message },
      });
      // RFC 2782: an unreachable target is followed by the next one.
      const retryable = feed.code === 'HTTP_NETWORK' || feed.code === 'HTTP_TIMEOUT';
      if (retryable && ++this.candidate < candidates.length) return this.askHttp();
      return this.fail(feed.code, feed.message, feed.cause);
    }
    trace.steps.push({ kind: 'http', url, exchanges: feed.exchanges });
    if (feed.kind === 'description') {
      return this.done({
        kind: 'resolved',
        urls: [],
        resolverUrl: url,
        description: { contentType: feed.contentType, body: feed.body },
        trace,
      });
    }
    const refused = this.refusedUrl(feed.urls);
    if (refused !== undefined) return this.fail('DDDS_URL_SCHEME', refused);
    const start = this.start as WalkStart;
    const urls = feed.urls.map((u) => {
      const p = applyPartitionDetailed(u, { fragment: start.fragment, partition: start.partition });
      trace.steps.push({ kind: 'partition', applied: p.applied, before: u, after: p.url });
      return p.url;
    });
    return this.done({ kind: 'resolved', urls, resolverUrl: url, trace });
  }
}

/** URL schemes accepted from a resolver by default. */
export const DEFAULT_URL_SCHEMES: readonly string[] = ['http', 'https'];

/** The trace entry's fields of a lookup that failed. */
function errorEntry(feed: Extract<DnsFeed<unknown>, { kind: 'error' }>) {
  return {
    server: feed.server,
    cached: false,
    result: 'error' as const,
    ...(feed.validation !== undefined ? { validation: feed.validation } : {}),
    records: [],
    error: { code: feed.code, message: feed.message },
  };
}

function formatSrv(s: SrvRecord): string {
  return `${s.priority} ${s.weight} ${s.port} ${s.target}`;
}

function lookupEntry<R>(
  kind: 'srv' | 'address',
  name: string,
  qtype: 'SRV' | 'A' | 'AAAA',
  feed: Answered<R>,
  format: (r: R) => string,
): LookupTraceStep {
  return {
    kind,
    name,
    qtype,
    server: feed.cached ? 'cache' : feed.meta.server,
    cached: feed.cached,
    result: feed.kind,
    ...(feed.meta.dnssec !== undefined ? { dnssec: feed.meta.dnssec } : {}),
    ...(feed.meta.validation !== undefined ? { validation: feed.meta.validation } : {}),
    records: feed.records.map(format),
  };
}

/** A `P` rule: the output handed over to the protocol in SERVICES (RFC 3404 section 4.3). */
function handoffResult(
  key: string,
  step: number,
  outcome: Extract<StepOutcome, { kind: 'handoff' }>,
  trace: Trace,
): HandoffResult {
  const record = outcome.record;
  const parsed = parseServices(record.services);
  const services = parsed.ok ? parsed.value.services : [];
  const protocol = outcome.protocol ?? (parsed.ok ? parsed.value.protocol : undefined) ?? '';
  return {
    kind: 'handoff',
    urls: [],
    resolverUrl: '',
    handoff: {
      key,
      step,
      output: outcome.output,
      // The step rewrites with the REGEXP when there is one, else takes the REPLACEMENT.
      via: record.regexp === '' ? 'replacement' : 'regexp',
      protocol,
      services,
      record,
    },
    trace,
  };
}
