/**
 * The DDDS driver: from a LEX URN to the resolver URL and the document URLs.
 *
 * It only does lookups and calls the pure step function (`dddsStep` in
 * src/core/ddds/): NAPTR at each key, then SRV (`S`) or A/AAAA (`A`) for the
 * terminal rule, then the THTTP request (RFC 2169), then the partition rule.
 * Every step is recorded in the trace.
 *
 * @see RFC 3402 section 3.3 (the algorithm), RFC 3403 section 8 ("If a
 *   lookup ... fails ... the client SHOULD report the failure rather than
 *   backing up"), RFC 3404 (URI/URN application), RFC 9676 section 10.1
 *   ("clients MUST perform any necessary punycode conversion")
 * @see digest section 14 (recommended client algorithm), decisions.md
 */
import type { Answer, RecordType } from 'dns-packet';
import { Agent, type Dispatcher } from 'undici';
import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import {
  DddsLoopGuard,
  DEFAULT_STEP_LIMIT,
  dddsStep,
  type NaptrRecord,
  type RecordFate,
  type StepOutcome,
  type StepResult,
} from '../core/ddds/step.ts';
import { parseServices, protocolInfo } from '../core/ddds/naptr.ts';
import { selectSrv, type SrvRecord } from '../core/ddds/srv.ts';
import { applyPartitionDetailed } from '../core/ddds/partition.ts';
import { toDnsKey } from '../core/urn/index.ts';
import { buildAus } from '../core/ddds/aus.ts';
import { CachingResolver, DnsCache } from './cache.ts';
import { ClientError, DnsError, HttpStepError } from './errors.ts';
import { thttpRequest, thttpUrl, type HttpExchange, type ThttpService } from './http-step.ts';
import { IterativeResolver, type ReferralStep } from './iterative.ts';
import { StubResolver, type LookupResult, type Resolver } from './lookup.ts';
import { parseServerAddress, systemServers, type ServerAddress } from './servers.ts';
import { DnsTransport, type TransportOptions } from './transport.ts';
import { rdataOf } from './wire.ts';

export type Service = 'N2L' | 'N2Ls' | 'N2C';

// ------------------------------------------------------------------ trace

/** One NAPTR lookup and what the step function made of it. */
export interface NaptrTraceStep {
  readonly kind: 'naptr';
  readonly step: number;
  readonly key: string;
  readonly server: string;
  readonly cached: boolean;
  readonly protocol?: 'udp' | 'tcp';
  readonly rttMs?: number;
  readonly result: 'answer' | 'nxdomain' | 'nodata' | 'error';
  readonly ttl?: number;
  readonly cnames?: readonly string[];
  readonly referrals?: readonly ReferralStep[];
  readonly records: readonly RecordFate[];
  readonly outcome?: StepOutcome;
  /** Rewrite output to DNS key, when IDNA/Punycode changed it. */
  readonly punycode?: { readonly from: string; readonly to: string };
  readonly error?: { readonly code: string; readonly message: string };
}

export interface LookupTraceStep {
  readonly kind: 'srv' | 'address';
  readonly name: string;
  readonly qtype: RecordType;
  readonly server: string;
  readonly cached: boolean;
  readonly result: 'answer' | 'nxdomain' | 'nodata' | 'error';
  readonly records: readonly string[];
  readonly selected?: readonly string[];
  readonly error?: { readonly code: string; readonly message: string };
}

export interface HttpTraceStep {
  readonly kind: 'http';
  readonly url: string;
  readonly exchanges: readonly HttpExchange[];
  readonly error?: { readonly code: string; readonly message: string };
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

// ------------------------------------------------------------------ results and errors

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

/**
 * What a `P` rule hands over. RFC 3404 section 4.3: "The "P" flag says that
 * the remainder of the DDDS Algorithm is ignored and that the rest of the
 * process is application specific ... An application can use the Protocol
 * part found in the Services field to identify which Application specific
 * set of rules that should be followed next." Its pseudo-code (section 4.3
 * figure, "Leave rest to another protocol?") returns "key as host to talk to".
 */
export interface Handoff {
  /** The key whose NAPTR RRset held the `P` rule. */
  readonly key: string;
  /** The DDDS step (1-based) that found it. */
  readonly step: number;
  /** The rule's output as given (REGEXP result or REPLACEMENT): what the protocol starts from. */
  readonly output: string;
  readonly via: 'regexp' | 'replacement';
  /** The protocol named in SERVICES (RFC 3404 section 4.4), as written: whom to hand over to. */
  readonly protocol: string;
  /** The resolution services listed after the protocol, as written (e.g. `['N2L', 'N2C']`). */
  readonly services: readonly string[];
  /** The NAPTR record itself. */
  readonly record: NaptrRecord;
}

/**
 * The chain ended at a `P` rule: DDDS stops and the rest belongs to another
 * protocol. A successful resolution of its own kind (not an error): there is
 * no resolver URL and no document URL; `handoff` says what to hand over.
 */
export interface HandoffResult {
  readonly kind: 'handoff';
  /** Always empty: no document URL was reached. */
  readonly urls: readonly [];
  /** Always empty: no resolver was reached. */
  readonly resolverUrl: '';
  readonly description?: undefined;
  readonly handoff: Handoff;
  readonly trace: Trace;
}

/**
 * A resolution: `kind: 'resolved'` (URLs, resolver URL, N2C description) or
 * `kind: 'handoff'` (a `P` rule handed the rest to another protocol). Failures
 * are thrown as `ResolveError`.
 */
export type ResolveResult = ResolvedResult | HandoffResult;

/** A failed resolution: a stable `code`, and the trace up to the failure. */
export class ResolveError extends ClientError {
  readonly trace: Trace;
  constructor(code: string, message: string, trace: Trace, cause?: unknown) {
    super(code, message, cause === undefined ? undefined : { cause });
    this.name = 'ResolveError';
    this.trace = trace;
  }
}

// ------------------------------------------------------------------ options

export interface ClientOptions {
  /** Stub mode: servers to ask (default: /etc/resolv.conf). `host:port` text or addresses. */
  readonly servers?: readonly (ServerAddress | string)[];
  /** Iterative mode: the server to start from; referrals are followed on its port. */
  readonly root?: ServerAddress | string;
  /** DNS timeout per try, ms (default 2000). */
  readonly timeoutMs?: number;
  /** DNS tries per server (default 2). */
  readonly tries?: number;
  /** HTTP step timeout, ms (default 10,000). */
  readonly httpTimeoutMs?: number;
  /** A cache to share, or false for none (default: a fresh cache per client). */
  readonly cache?: DnsCache | false;
  /** undici dispatcher for the HTTP step (a MockAgent in tests). */
  readonly dispatcher?: Dispatcher;
  /** Randomness for SRV weights (default Math.random). */
  readonly random?: () => number;
  /** Transport tuning. */
  readonly transport?: TransportOptions;
  /** resolv.conf path (default /etc/resolv.conf). */
  readonly resolvConf?: string;
}

export interface ResolveOptions extends ClientOptions {
  /** Wanted resolution service (default N2L). */
  readonly service?: Service;
  /** Stop at the resolver URL; no HTTP request. */
  readonly noHttp?: boolean;
  /** Most DDDS steps (default 10). */
  readonly maxSteps?: number;
  /**
   * After a failure below a delegation, return to the referring rule set and
   * try its next rule (opt-in; RFC 3403 section 8 says report; decisions.md 3).
   */
  readonly fallback?: boolean;
  readonly signal?: AbortSignal;
  /**
   * Reuse step results for a cached RRset and the same AUS (default true;
   * the step function is pure and the memo dies with the cache entry).
   */
  readonly memoSteps?: boolean;
  /** Reuse a client (its transport and cache); the other client options are then ignored. */
  readonly client?: LexClient;
}

// ------------------------------------------------------------------ helpers

/** The NAPTR records of a lookup result, in response order. */
function toNaptrRecords(r: LookupResult): NaptrRecord[] {
  const out: NaptrRecord[] = new Array<NaptrRecord>(r.records.length);
  for (let i = 0; i < r.records.length; i++) {
    const a = r.records[i] as Answer;
    const d = rdataOf(a) as {
      order: number;
      preference: number;
      flags: string;
      services: string;
      regexp: string;
      replacement: string;
    };
    out[i] = {
      order: d.order,
      preference: d.preference,
      flags: d.flags,
      services: d.services,
      regexp: d.regexp,
      // dns-packet drops the final dot; REPLACEMENT is always fully qualified.
      replacement: d.replacement === '' || d.replacement === '.' ? '.' : `${d.replacement}.`,
      ttl: (a as { ttl?: number }).ttl,
    };
  }
  return out;
}

/**
 * NAPTR records of a lookup result, converted once per cached result. Only
 * results that live in the cache are memoised: a WeakMap entry per
 * short-lived result would cost more in garbage collection than it saves.
 */
const naptrMemo = new WeakMap<LookupResult, readonly NaptrRecord[]>();

function naptrRecords(r: LookupResult, memo: boolean): readonly NaptrRecord[] {
  if (!memo) return toNaptrRecords(r);
  let out = naptrMemo.get(r);
  if (out === undefined) {
    out = toNaptrRecords(r);
    naptrMemo.set(r, out);
  }
  return out;
}

/**
 * Step results per cached NAPTR RRset and AUS. `dddsStep` is pure, so its
 * result for the same RRset object (one cache entry, dropped when its TTL
 * expires) and the same AUS and service is the same: the warm path reuses it
 * instead of running the regexp engine again.
 */
const stepMemo = new WeakMap<LookupResult, Map<string, StepResult>>();
const STEP_MEMO_PER_RRSET = 4096;

function memoStep(
  r: LookupResult,
  prepared: Prepared,
  key: string,
  service: Service,
  records: readonly NaptrRecord[],
): StepResult {
  let memo = stepMemo.get(r);
  if (memo === undefined) {
    memo = new Map();
    stepMemo.set(r, memo);
  }
  const k = memoKey(prepared, service);
  let step = memo.get(k);
  if (step === undefined) {
    step = dddsStep({ aus: prepared.aus, key, records, service, toDnsKey });
    if (memo.size >= STEP_MEMO_PER_RRSET) memo.clear();
    memo.set(k, step);
  }
  return step;
}

/** The step memo's key for this AUS and service (one string per input, so its hash is computed once). */
function memoKey(p: Prepared, service: Service): string {
  let k = p.memoKeys[service];
  if (k === undefined) {
    k = `${service}\n${p.aus}`;
    p.memoKeys[service] = k;
  }
  return k;
}

interface Prepared {
  readonly aus: string;
  readonly fragment: string | undefined;
  readonly partition: string | undefined;
  readonly firstKey: string;
  /**
   * The same input was resolved before (while its entry was kept): only then
   * are step results memoised, so a stream of distinct URNs does not fill the
   * memo with results that are never asked for again.
   */
  repeat: boolean;
  readonly memoKeys: Partial<Record<Service, string>>;
}

/**
 * The AUS from the input: the canonical LEX URN (RFC 8141 section 3.1 and
 * RFC 9676 section 3.3 normalisation) without its f-component, which is kept
 * for the final URL (RFC 8141 section 2.3.3; digest 10.4). The partition
 * stays in the AUS and is also noted for the final URL.
 */
const prepared = new Map<string, Prepared | { code: string; message: string }>();
const PREPARED_MAX = 4096;

/** Inputs seen once, in a direct-mapped table (a cheap hash of the text picks the slot). */
const SEEN_SLOTS = 4096;
const seen: (string | undefined)[] = new Array<string | undefined>(SEEN_SLOTS);

function seenSlot(text: string): number {
  const n = text.length;
  let h = n;
  // The end of a URN varies most (numbers, dates); mix the last characters and a few others.
  for (let i = Math.max(0, n - 12); i < n; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
  h = (h * 31 + text.charCodeAt(n >> 1)) | 0;
  h = (h * 31 + text.charCodeAt(n >> 2)) | 0;
  return (h ^ (h >>> 13)) & (SEEN_SLOTS - 1);
}

/** `prepareUncached` memoised on the input text (it is pure), from its second sighting. */
function prepare(input: string): Prepared | { code: string; message: string } {
  let p = prepared.get(input);
  if (p !== undefined) {
    if ('aus' in p) p.repeat = true;
    return p;
  }
  p = prepareUncached(input);
  // Memoise from the second sighting on: a stream of distinct URNs then costs
  // one slot write each, not a Map entry (a slot collision only delays it).
  const slot = seenSlot(input);
  if (seen[slot] === input) {
    if ('aus' in p) p.repeat = true;
    if (prepared.size >= PREPARED_MAX) prepared.clear();
    prepared.set(input, p);
  } else {
    seen[slot] = input;
  }
  return p;
}

/**
 * The AUS, f-component and partition, from the DDDS core's `buildAus`
 * (normalised LEX URN; the f-component removed from the AUS and kept for the
 * final URL, RFC 8141 section 2.3.3; the partition stays in the AUS).
 */
function prepareUncached(input: string): Prepared | { code: string; message: string } {
  const r = buildAus(input.trim());
  if (!r.ok) {
    const e = r.errors[0];
    const at = e?.span ? ` at ${e.span.start}` : '';
    return { code: e?.code ?? 'URN_INVALID', message: `${e?.message ?? 'invalid URN'}${at}` };
  }
  const v = r.value;
  return {
    aus: v.aus,
    fragment: v.fragment,
    partition: v.partition,
    firstKey: v.firstKey,
    repeat: false,
    memoKeys: {},
  };
}

function uncached(result: LookupResult): { result: LookupResult; cached: boolean } {
  return { result, cached: false };
}

function serviceOf(s: string | undefined): Service {
  return s === 'N2Ls' || s === 'N2C' ? s : 'N2L';
}

// ------------------------------------------------------------------ client

/**
 * A reusable client: one transport (UDP socket pool), one resolver (stub or
 * iterative), one cache, one HTTP agent. `close()` when done.
 */
export class LexClient {
  readonly cache: DnsCache | undefined;
  readonly mode: 'stub' | 'iterative';
  private readonly transport: DnsTransport;
  private resolver: Resolver | undefined;
  private readonly cached: CachingResolver | undefined;
  private readonly options: ClientOptions;
  private readonly hostMap = new Map<string, { address: string; family: 4 | 6 }>();
  private agent: Agent | undefined;
  private serverList: readonly string[] = [];

  constructor(options: ClientOptions = {}) {
    this.options = options;
    this.transport = new DnsTransport({
      ...options.transport,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.tries !== undefined ? { tries: options.tries } : {}),
    });
    this.mode = options.root !== undefined ? 'iterative' : 'stub';
    this.cache = options.cache === false ? undefined : (options.cache ?? new DnsCache());
    if (this.cache) {
      this.cached = new CachingResolver(
        { lookup: (n, t, s) => this.inner().then((r) => r.lookup(n, t, s)) },
        this.cache,
      );
    }
  }

  private innerPromise: Promise<Resolver> | undefined;

  /** The stub or iterative resolver (resolv.conf is read on first use). */
  private inner(): Promise<Resolver> {
    if (this.resolver) return Promise.resolve(this.resolver);
    this.innerPromise ??= (async () => {
      const o = this.options;
      if (o.root !== undefined) {
        const root = typeof o.root === 'string' ? parseServerAddress(o.root) : o.root;
        this.serverList = [`${root.host}:${root.port}`];
        this.resolver = new IterativeResolver(this.transport, {
          root,
          ...(this.cache ? { now: this.cache.now } : {}),
        });
      } else {
        const servers =
          o.servers && o.servers.length > 0
            ? o.servers.map((s) => (typeof s === 'string' ? parseServerAddress(s) : s))
            : await systemServers(o.resolvConf);
        this.serverList = servers.map((s) => `${s.host}:${s.port}`);
        this.resolver = new StubResolver(this.transport, { servers });
      }
      return this.resolver;
    })();
    return this.innerPromise;
  }

  /** Undefined once the resolver is set up; else the promise of it (reads resolv.conf). */
  ready(): Promise<unknown> | undefined {
    return this.resolver ? undefined : this.inner();
  }

  get servers(): readonly string[] {
    return this.serverList;
  }

  /**
   * Look up (name, type) through the cache. The synchronous cache hit is the
   * warm path: no promise is created for it.
   */
  lookupCached(
    name: string,
    type: RecordType,
    signal?: AbortSignal,
  ): { result: LookupResult; cached: true } | Promise<{ result: LookupResult; cached: boolean }> {
    const l = this.lookupRaw(name, type, signal);
    return 'then' in l ? l.then(uncached) : l;
  }

  /**
   * `lookupCached` without wrapping a fresh result (one promise hop less on
   * the cold path): a cache hit, or the promise of a result that was not cached.
   * @internal
   */
  lookupRaw(
    name: string,
    type: RecordType,
    signal?: AbortSignal,
  ): { result: LookupResult; cached: true } | Promise<LookupResult> {
    if (this.cached) {
      const hit = this.cached.peek(name, type);
      if (hit) return { result: hit.result, cached: true };
      return this.cached.lookup(name, type, signal);
    }
    const resolver = this.resolver;
    if (resolver) return resolver.lookup(name, type, signal);
    return this.inner().then((r) => r.lookup(name, type, signal));
  }

  /** The HTTP dispatcher: the injected one, or an agent that connects S/A hosts to the addresses found in the DNS. */
  dispatcher(): Dispatcher {
    if (this.options.dispatcher) return this.options.dispatcher;
    this.agent ??= new Agent({
      connect: {
        lookup: (hostname: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
          const known = this.hostMap.get(hostname.toLowerCase());
          if (!known) {
            (dnsLookup as (h: string, o: object, c: (...args: unknown[]) => void) => void)(
              hostname,
              opts,
              cb,
            );
            return;
          }
          if (opts.all) cb(null, [{ address: known.address, family: known.family }]);
          else cb(null, known.address, known.family);
        },
      } as never,
    });
    return this.agent;
  }

  /** Remember that `host` is at `address` (from an S/A lookup) for the HTTP step. */
  pinHost(host: string, address: string): void {
    const h = host.endsWith('.') ? host.slice(0, -1) : host;
    this.hostMap.set(h.toLowerCase(), { address, family: isIP(address) === 6 ? 6 : 4 });
  }

  get httpTimeoutMs(): number | undefined {
    return this.options.httpTimeoutMs;
  }

  get random(): () => number {
    return this.options.random ?? Math.random;
  }

  async resolve(urn: string, options: Omit<ResolveOptions, keyof ClientOptions | 'client'> = {}) {
    return resolveWith(this, urn, options);
  }

  async close(): Promise<void> {
    this.transport.close();
    if (this.agent) await this.agent.close();
  }
}

/**
 * Resolve a LEX URN: `{ urls, resolverUrl, trace }`, or a ResolveError with a
 * stable code and the trace so far.
 */
export async function resolveLexUrn(
  urn: string,
  options: ResolveOptions = {},
): Promise<ResolveResult> {
  if (options.client) return resolveWith(options.client, urn, options);
  const client = new LexClient(options);
  try {
    return await resolveWith(client, urn, options);
  } finally {
    await client.close();
  }
}

function describeError(e: unknown): { code: string; message: string } {
  if (e instanceof ClientError) return { code: e.code, message: e.message };
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e) };
}

/**
 * The trace entry of one NAPTR lookup. Keys in a fixed order (the JSON trace
 * prints them in this order): kind, step, key, server, cached, result, ttl,
 * protocol and rttMs (fresh answers), cnames, referrals, records, then
 * outcome and punycode, or error.
 */
function naptrEntry(
  stepNo: number,
  key: string,
  lookup: { result: LookupResult; cached: boolean },
  records: readonly RecordFate[],
  outcome: StepOutcome | undefined,
  punycode: { from: string; to: string } | undefined,
  error?: { code: string; message: string },
): NaptrTraceStep {
  const r = lookup.result;
  const cached = lookup.cached;
  const e: Record<string, unknown> = {
    kind: 'naptr',
    step: stepNo,
    key,
    server: cached ? 'cache' : r.server,
    cached,
    result: r.kind,
    ttl: r.ttl,
  };
  if (!cached) {
    e.protocol = r.protocol;
    e.rttMs = r.rttMs;
  }
  if (r.cnames.length > 0) e.cnames = r.cnames;
  if ('referrals' in r && !cached && (r.referrals as ReferralStep[]).length > 0) {
    e.referrals = r.referrals;
  }
  e.records = records;
  if (outcome !== undefined) e.outcome = outcome;
  if (punycode !== undefined) e.punycode = punycode;
  if (error !== undefined) e.error = error;
  return e as unknown as NaptrTraceStep;
}

/** The excluded set of every frame when fallback is off: never added to. */
const NOTHING_EXCLUDED: Set<number> = new Set();

interface Frame {
  readonly key: string;
  readonly step: number;
  readonly excluded: Set<number>;
}

async function resolveWith(
  client: LexClient,
  urn: string,
  options: Omit<ResolveOptions, keyof ClientOptions | 'client'>,
): Promise<ResolveResult> {
  const service = serviceOf(options.service);
  const setup = client.ready();
  if (setup) {
    try {
      await setup;
    } catch (e) {
      const d = describeError(e);
      throw new ResolveError(
        d.code,
        d.message,
        { input: urn, service, mode: client.mode, servers: [], steps: [] },
        e,
      );
    }
  }
  const trace: Trace = {
    input: urn,
    service,
    mode: client.mode,
    servers: client.servers,
    steps: [],
  };
  const fail = (code: string, message: string, cause?: unknown): never => {
    throw new ResolveError(code, message, trace, cause);
  };
  const prepared = prepare(urn);
  if ('code' in prepared) return fail(prepared.code, `not a valid LEX URN: ${prepared.message}`);
  const { aus } = prepared;
  trace.aus = aus;
  if (prepared.fragment !== undefined) trace.fragment = prepared.fragment;
  if (prepared.partition !== undefined) trace.partition = prepared.partition;

  const guard = new DddsLoopGuard(options.maxSteps ?? DEFAULT_STEP_LIMIT);
  const frames: Frame[] = [];
  let key = prepared.firstKey;
  let excluded: Set<number> | undefined;
  let terminal: Extract<StepOutcome, { kind: 'terminal' }> | undefined;

  /** On a failure: fall back to the referring rule set when asked to, else report. */
  const failOrFallBack = (code: string, message: string, cause?: unknown): boolean => {
    const previous = frames.at(-1);
    if (!options.fallback || frames.length < 2 || !previous) {
      fail(code, message, cause);
    }
    // The last frame is the key that failed; go back to its referrer.
    frames.pop();
    const referrer = frames.at(-1) as Frame;
    trace.steps.push({
      kind: 'fallback',
      from: key,
      to: referrer.key,
      reason: `${code}: ${message}`,
    });
    key = referrer.key;
    excluded = referrer.excluded;
    frames.pop();
    return true;
  };

  /** The lookup of `key` when it was started ahead (see the end of the loop). */
  let ahead: ReturnType<LexClient['lookupRaw']> | undefined;
  for (;;) {
    const revisit = excluded !== undefined;
    if (!revisit && ahead === undefined) {
      const visit = guard.visit(key);
      if (!visit.ok) fail(visit.code, visit.message);
    }
    const stepNo = revisit ? frames.length + 1 : guard.steps;
    let lookup: { result: LookupResult; cached: boolean };
    try {
      const l = ahead ?? client.lookupRaw(key, 'NAPTR', options.signal);
      ahead = undefined;
      lookup = 'then' in l ? { result: await l, cached: false } : l;
    } catch (e) {
      const d = describeError(e);
      trace.steps.push({
        kind: 'naptr',
        step: stepNo,
        key,
        server: e instanceof DnsError ? (e.server ?? '') : '',
        cached: false,
        result: 'error',
        records: [],
        error: d,
      });
      throw new ResolveError(d.code, `NAPTR lookup of ${key} failed: ${d.message}`, trace, e);
    }
    const r = lookup.result;
    const server = lookup.cached ? 'cache' : r.server;
    // Used records are remembered only for a fallback (no Set per step otherwise).
    const frame: Frame = {
      key,
      step: stepNo,
      excluded: excluded ?? (options.fallback ? new Set() : NOTHING_EXCLUDED),
    };
    frames.push(frame);
    excluded = undefined;
    if (r.kind !== 'answer') {
      const code = r.kind === 'nxdomain' ? 'DNS_NXDOMAIN' : 'DNS_NODATA';
      const message =
        r.kind === 'nxdomain'
          ? `not found: ${key} does not exist (NXDOMAIN from ${server})`
          : `not found: ${key} has no NAPTR records (NODATA from ${server})`;
      trace.steps.push(
        naptrEntry(stepNo, key, lookup, [], undefined, undefined, { code, message }),
      );
      if (failOrFallBack(code, message)) continue;
    }
    const all = naptrRecords(r, lookup.cached || client.cache !== undefined);
    let records = all;
    let step: StepResult;
    if (frame.excluded.size > 0) {
      records = records.filter((_, i) => !frame.excluded.has(i));
      step = dddsStep({ aus, key, records, service, toDnsKey });
    } else if (options.memoSteps === false || !prepared.repeat || !lookup.cached) {
      step = dddsStep({ aus, key, records, service, toDnsKey });
      if (options.memoSteps !== false && prepared.repeat && r.ttl > 0 && client.cache) {
        // Fresh from the DNS: seed the memo for the next warm resolution.
        const k = memoKey(prepared, service);
        let memo = stepMemo.get(r);
        if (memo === undefined) stepMemo.set(r, (memo = new Map()));
        if (memo.size < STEP_MEMO_PER_RRSET) memo.set(k, step);
      }
    } else {
      step = memoStep(r, prepared, key, service, records);
    }
    const outcome = step.outcome;
    let punycode: { from: string; to: string } | undefined;
    if (outcome.kind === 'next') {
      const lower = outcome.rewritten.toLowerCase();
      const plain = lower.endsWith('.') ? lower : `${lower}.`;
      if (plain !== outcome.key) punycode = { from: outcome.rewritten, to: outcome.key };
      // Remember which record was used, for a fallback.
      const used = options.fallback ? all.indexOf(outcome.record) : -1;
      if (used >= 0 && frame.excluded !== NOTHING_EXCLUDED) frame.excluded.add(used);
    }
    if (outcome.kind === 'next') {
      // The next query goes out first (the datagram leaves during the call);
      // this step's trace entry is written while it travels.
      const visit = guard.visit(outcome.key);
      if (visit.ok) ahead = client.lookupRaw(outcome.key, 'NAPTR', options.signal);
      trace.steps.push(naptrEntry(stepNo, key, lookup, step.considered, outcome, punycode));
      if (!visit.ok) fail(visit.code, visit.message);
      key = outcome.key;
      continue;
    }
    trace.steps.push(naptrEntry(stepNo, key, lookup, step.considered, outcome, punycode));
    if (outcome.kind === 'failure') {
      if (failOrFallBack(outcome.code, outcome.message)) continue;
    }
    if (outcome.kind === 'handoff') return handoffResult(key, stepNo, outcome, trace);
    if (outcome.kind === 'terminal') {
      terminal = outcome;
      break;
    }
  }

  const t = terminal;
  const info = protocolInfo(t.protocol);
  let candidates: string[];
  if (t.flag === 'U') {
    candidates = [t.output];
  } else if (t.flag === 'S') {
    candidates = await srvTargets(
      client,
      t.output,
      info?.scheme ?? 'http',
      service,
      aus,
      trace,
      options.signal,
    );
  } else {
    candidates = await addressTarget(
      client,
      t.output,
      info ?? { scheme: 'http', defaultPort: 80 },
      service,
      aus,
      trace,
      options.signal,
    );
  }
  const resolverUrl = candidates[0] as string;
  if (options.noHttp) return { kind: 'resolved', urls: [], resolverUrl, trace };

  let lastError: unknown;
  for (const url of candidates) {
    try {
      const res = await thttpRequest(url, service as ThttpService, {
        dispatcher: client.dispatcher(),
        ...(client.httpTimeoutMs !== undefined ? { timeoutMs: client.httpTimeoutMs } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      trace.steps.push({ kind: 'http', url, exchanges: res.exchanges });
      if (res.service === 'N2C') {
        return {
          kind: 'resolved',
          urls: [],
          resolverUrl: url,
          description: { contentType: res.contentType, body: res.body },
          trace,
        };
      }
      const urls = res.urls.map((u) => {
        const p = applyPartitionDetailed(u, {
          fragment: prepared.fragment,
          partition: prepared.partition,
        });
        trace.steps.push({ kind: 'partition', applied: p.applied, before: u, after: p.url });
        return p.url;
      });
      return { kind: 'resolved', urls, resolverUrl: url, trace };
    } catch (e) {
      const d = describeError(e);
      trace.steps.push({ kind: 'http', url, exchanges: [], error: d });
      lastError = e;
      // RFC 2782: an unreachable target is followed by the next one.
      const retryable =
        e instanceof HttpStepError && (e.code === 'HTTP_NETWORK' || e.code === 'HTTP_TIMEOUT');
      if (!retryable) break;
    }
  }
  const d = describeError(lastError);
  return fail(d.code, d.message, lastError);
}

/**
 * A `P` rule: the result hands the output over to the protocol in SERVICES.
 * The step accepted the rule only with a protocol named (RFC 3404 section
 * 4.3, "The protocol to be used is specified in the Services field"), so the
 * services parse here.
 */
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

async function lookupStep(
  client: LexClient,
  name: string,
  qtype: RecordType,
  kind: 'srv' | 'address',
  trace: Trace,
  signal: AbortSignal | undefined,
): Promise<{ records: readonly Answer[]; entry: LookupTraceStep }> {
  try {
    const l = client.lookupCached(name, qtype, signal);
    const { result, cached } = 'then' in l ? await l : l;
    const entry: LookupTraceStep = {
      kind,
      name,
      qtype,
      server: cached ? 'cache' : result.server,
      cached,
      result: result.kind,
      records: result.records.map((a) => formatRdata(a)),
    };
    return { records: result.records, entry };
  } catch (e) {
    const d = describeError(e);
    trace.steps.push({
      kind,
      name,
      qtype,
      server: e instanceof DnsError ? (e.server ?? '') : '',
      cached: false,
      result: 'error',
      records: [],
      error: d,
    });
    throw new ResolveError(d.code, `${qtype} lookup of ${name} failed: ${d.message}`, trace, e);
  }
}

function formatRdata(a: Answer): string {
  const d = rdataOf(a);
  if (a.type === 'SRV') {
    const s = d as SrvRecord;
    return `${s.priority} ${s.weight} ${s.port} ${s.target}`;
  }
  return typeof d === 'string' ? d : JSON.stringify(d);
}

/** `S`: SRV at the output exactly as given, RFC 2782 order, THTTP URL per target. */
async function srvTargets(
  client: LexClient,
  name: string,
  scheme: 'http' | 'https',
  service: Service,
  aus: string,
  trace: Trace,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const { records, entry } = await lookupStep(client, name, 'SRV', 'srv', trace, signal);
  const srv: SrvRecord[] = records.map((a) => {
    const d = rdataOf(a) as { priority: number; weight: number; port: number; target: string };
    return {
      priority: d.priority,
      weight: d.weight,
      port: d.port,
      target: d.target === '' ? '.' : d.target,
    };
  });
  if (entry.result !== 'answer') {
    trace.steps.push(entry);
    const code = entry.result === 'nxdomain' ? 'DNS_NXDOMAIN' : 'DNS_NODATA';
    throw new ResolveError(code, `not found: no SRV records at ${name} (${entry.result})`, trace);
  }
  const selection = selectSrv(srv, client.random);
  if (selection.kind !== 'targets') {
    trace.steps.push(entry);
    throw new ResolveError(
      selection.kind === 'unavailable' ? 'SRV_UNAVAILABLE' : 'SRV_NONE',
      `SRV at ${name}: ${selection.reason}`,
      trace,
    );
  }
  trace.steps.push({
    ...entry,
    selected: selection.targets.map((s) => `${s.target}:${s.port}`),
  });
  const urls: string[] = [];
  for (const target of selection.targets) {
    const host = target.target.replace(/\.$/, '');
    // RFC 2782: the target's addresses come from A/AAAA lookups.
    try {
      const address = await firstAddress(client, host, trace, signal);
      client.pinHost(host, address);
      urls.push(thttpUrl(scheme, host, target.port, service, aus));
    } catch (e) {
      if (selection.targets.length === 1) throw e;
    }
  }
  if (urls.length === 0) {
    throw new ResolveError('ADDRESS_NONE', `no SRV target of ${name} has an address`, trace);
  }
  return urls;
}

async function firstAddress(
  client: LexClient,
  host: string,
  trace: Trace,
  signal: AbortSignal | undefined,
): Promise<string> {
  if (isIP(host)) return host;
  const a = await lookupStep(client, host, 'A', 'address', trace, signal);
  trace.steps.push(a.entry);
  if (a.records.length > 0) return String(rdataOf(a.records[0] as Answer));
  const aaaa = await lookupStep(client, host, 'AAAA', 'address', trace, signal);
  trace.steps.push(aaaa.entry);
  if (aaaa.records.length > 0) return String(rdataOf(aaaa.records[0] as Answer));
  const code = a.entry.result === 'nxdomain' ? 'DNS_NXDOMAIN' : 'DNS_NODATA';
  throw new ResolveError(code, `not found: ${host} has no A or AAAA record`, trace);
}

/** `A`: A/AAAA at the output, the protocol's default port (RFC 2168 "Advice"). */
async function addressTarget(
  client: LexClient,
  name: string,
  info: { scheme: 'http' | 'https'; defaultPort: number },
  service: Service,
  aus: string,
  trace: Trace,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  const host = name.replace(/\.$/, '');
  const address = await firstAddress(client, host, trace, signal);
  client.pinHost(host, address);
  return [thttpUrl(info.scheme, host, info.defaultPort, service, aus)];
}
