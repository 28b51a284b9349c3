/**
 * The DDDS client: `LexClient` (one transport, resolver, cache and HTTP
 * agent, reused) and `resolveLexUrn`. A resolution is the pure walk of
 * `core/ddds/walk.ts` (the RFC 3402 loop, loop guard, fallback frames, trace,
 * SRV/A and THTTP steps, partition) driven by `drive.ts` over the lookups
 * behind the client: cache, then a stub or iterative resolver, or any other
 * `DnsResolver` passed in (another transport).
 *
 * @see RFC 3402 section 3.3 (the algorithm), RFC 3403 section 8 ("If a
 *   lookup ... fails ... the client SHOULD report the failure rather than
 *   backing up"), RFC 3404 (URI/URN application), RFC 9676 section 10.1
 *   ("clients MUST perform any necessary punycode conversion")
 */
import type { QueryType } from '../dns/core/rr/types.ts';
import type { Agent, Dispatcher } from 'undici';
import { undici } from './undici-lazy.ts';
import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import type { ResolveResult } from '../ddds/core/trace.ts';
import { CachingResolver, DnsCache } from './cache.ts';
import { DohTransport } from './doh.ts';
import { ClientMemos } from './memo.ts';
import { NodeDoh } from './doh-undici.ts';
import { resolveWith, type WalkOptions } from './resolution.ts';
import { ClientError } from './errors.ts';
import { IterativeResolver } from './iterative.ts';
import { StubResolver, type DnsLookupResult, type DnsResolver } from './stub.ts';
import { parseServerAddress, systemServers, type ServerAddress } from './servers.ts';
import { DnsTransport, type TransportOptions } from './transport.ts';
import { thttpRequest } from './http-step.ts';
import type { HttpStepResult } from './thttp.ts';
import type { WalkNeed } from '../ddds/core/walk.ts';
import { ValidatingResolver, type ValidateOptions } from './validate.ts';
import { nodeDnssecCrypto } from '../dnssec/node-crypto.ts';

export { ResolveError, type WalkOptions } from './resolution.ts';
export type {
  FallbackTraceStep,
  Handoff,
  HandoffResult,
  HttpTraceStep,
  LookupTraceStep,
  NaptrTraceStep,
  PartitionTraceStep,
  ResolvedResult,
  ResolveResult,
  Service,
  Trace,
  TraceStep,
} from '../ddds/core/trace.ts';

// ------------------------------------------------------------------ options

export interface ClientOptions {
  /** Stub mode: servers to ask (default: /etc/resolv.conf). `host:port` text or addresses. */
  readonly servers?: readonly (ServerAddress | string)[];
  /**
   * DNS over HTTPS (RFC 8484): DoH URLs tried in turn (a stub transport: the
   * server behind them recurses). Takes the place of `servers`.
   */
  readonly doh?: string | readonly string[];
  /** HTTP method for DoH queries (default GET, which HTTP caches can keep). */
  readonly dohMethod?: 'GET' | 'POST';
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
  /**
   * Require an authenticated chain: DO on every query, and AD from the
   * servers (a validating resolver) on every NAPTR, SRV and address lookup,
   * else DNSSEC_INSECURE / DNSSEC_BOGUS. Stub mode only: the client does not
   * validate signatures itself (DNSSEC_NEEDS_RESOLVER with `root`).
   */
  readonly dnssec?: boolean;
  /**
   * Validate DNSSEC here, in every mode (stub, iterative, DoH): DO and CD on
   * every query, the chain of trust checked from the trust anchors (the
   * root's built in) down to each NAPTR, SRV and address RRset. Each lookup
   * gets a verdict (secure, insecure with its proof, bogus with its reason,
   * in the trace as `validation`); a bogus one fails with DNSSEC_BOGUS.
   */
  readonly validate?: ValidateOptions;
  /** With `validate`: fail (DNSSEC_INSECURE) unless every lookup is secure. */
  readonly requireSecure?: boolean;
  /**
   * Another transport: a resolver to ask instead of the stub or iterative one
   * (the cache stays in front of it). The trace names it by `mode` and `servers`.
   */
  readonly resolver?: DnsResolver & {
    readonly mode?: 'stub' | 'iterative';
    readonly servers?: readonly string[];
  };
}

export interface ResolveOptions extends ClientOptions, WalkOptions {
  /** Reuse a client (its transport and cache); the other client options are then ignored. */
  readonly client?: LexClient;
}

function uncached(result: DnsLookupResult): { result: DnsLookupResult; cached: boolean } {
  return { result, cached: false };
}

/**
 * A reusable client: one transport (UDP socket pool), one resolver (stub or
 * iterative), one cache, one HTTP agent. `close()` when done.
 */
export class LexClient {
  readonly cache: DnsCache | undefined;
  readonly mode: 'stub' | 'iterative';
  /** This client's memos of the warm path (walk starts, NAPTR records, step results). @internal */
  readonly memos = new ClientMemos();
  private readonly transport: DnsTransport;
  private resolver: DnsResolver | undefined;
  private readonly cached: CachingResolver | undefined;
  private readonly options: ClientOptions;
  private readonly hostMap = new Map<string, { address: string; family: 4 | 6 }>();
  private agent: Agent | undefined;
  private dohHttp: NodeDoh | undefined;
  private serverList: readonly string[] = [];

  constructor(options: ClientOptions = {}) {
    this.options = options;
    this.transport = new DnsTransport({
      ...options.transport,
      ...(options.dnssec || options.validate ? { dnssecOk: true } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.tries !== undefined ? { tries: options.tries } : {}),
    });
    this.mode = options.resolver?.mode ?? (options.root !== undefined ? 'iterative' : 'stub');
    this.cache = options.cache === false ? undefined : (options.cache ?? new DnsCache());
    if (this.cache) {
      const inner: DnsResolver = {
        lookup: (n, t, s) => this.inner().then((r) => r.lookup(n, t, s)),
      };
      this.cached = new CachingResolver(inner, this.cache);
    }
  }

  private innerPromise: Promise<DnsResolver> | undefined;

  /** The stub or iterative resolver (resolv.conf is read on first use). */
  private inner(): Promise<DnsResolver> {
    if (this.resolver) return Promise.resolve(this.resolver);
    this.innerPromise ??= (async () => {
      const o = this.options;
      const keepWire = o.validate !== undefined;
      if (o.resolver !== undefined) {
        this.serverList = o.resolver.servers ?? [];
        this.resolver = o.resolver;
      } else if (o.doh !== undefined) {
        const doh = new DohTransport({
          urls: typeof o.doh === 'string' ? [o.doh] : o.doh,
          fetch: (this.dohHttp = new NodeDoh()).fetch,
          ...(o.dohMethod !== undefined ? { method: o.dohMethod } : {}),
          ...(keepWire ? { dnssecOk: true } : {}),
          ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
          ...(o.tries !== undefined ? { tries: o.tries } : {}),
        });
        this.serverList = doh.urls;
        this.resolver = new StubResolver(doh, { servers: [], keepWire });
      } else if (o.root !== undefined) {
        if (o.dnssec)
          throw new ClientError(
            'DNSSEC_NEEDS_RESOLVER',
            'DNSSEC needs a validating resolver to ask (--server): iterative mode does not validate signatures',
          );
        const root = typeof o.root === 'string' ? parseServerAddress(o.root) : o.root;
        this.serverList = [`${root.host}:${root.port}`];
        this.resolver = new IterativeResolver(this.transport, {
          root,
          ...(this.cache ? { now: this.cache.now } : {}),
          keepWire,
        });
      } else {
        const servers =
          o.servers && o.servers.length > 0
            ? o.servers.map((s) => (typeof s === 'string' ? parseServerAddress(s) : s))
            : await systemServers(o.resolvConf);
        this.serverList = servers.map((s) => `${s.host}:${s.port}`);
        this.resolver = new StubResolver(this.transport, {
          servers,
          ...(o.dnssec ? { dnssec: true } : {}),
          keepWire,
        });
      }
      if (o.validate)
        this.resolver = new ValidatingResolver(
          this.resolver,
          o.validate,
          o.validate.crypto ?? nodeDnssecCrypto(),
        );
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
    type: QueryType,
    signal?: AbortSignal,
  ):
    | { result: DnsLookupResult; cached: true }
    | Promise<{ result: DnsLookupResult; cached: boolean }> {
    const hit = this.cached?.peek(name, type);
    if (hit) return { result: hit.result, cached: true };
    return this.lookup(name, type, signal).then(uncached);
  }

  /** A cached answer, synchronously (the warm path: no promise). @internal */
  peek(name: string, type: QueryType): DnsLookupResult | undefined {
    return this.cached?.peek(name, type)?.result;
  }

  /** The answer from the resolver behind the cache (stored in the cache). @internal */
  lookup(name: string, type: QueryType, signal: AbortSignal | undefined): Promise<DnsLookupResult> {
    if (this.cached) return this.cached.lookup(name, type, signal);
    const resolver = this.resolver;
    if (resolver) return resolver.lookup(name, type, signal);
    return this.inner().then((r) => r.lookup(name, type, signal));
  }

  /** The HTTP dispatcher: the injected one, or an agent that connects S/A hosts to the addresses found in the DNS. */
  dispatcher(): Dispatcher {
    if (this.options.dispatcher) return this.options.dispatcher;
    this.agent ??= new (undici().Agent)({
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

  get dnssec(): boolean {
    return this.options.dnssec === true;
  }

  get requireSecure(): boolean {
    return this.options.requireSecure === true;
  }

  /** Whether the stub servers answer (name, type) with CD set (a SERVFAIL was then bogus data). */
  async answersWithCd(name: string, type: QueryType, signal?: AbortSignal): Promise<boolean> {
    const servers = (this.options.servers ?? []).map((s) =>
      typeof s === 'string' ? parseServerAddress(s) : s,
    );
    if (servers.length === 0) return false;
    try {
      const ex = await this.transport.query(name, type, {
        servers,
        checkingDisabled: true,
        ...(signal ? { signal } : {}),
      });
      return ex.message.rcode === 'NOERROR' || ex.message.rcode === 'NXDOMAIN';
    } catch {
      return false;
    }
  }

  get httpTimeoutMs(): number | undefined {
    return this.options.httpTimeoutMs;
  }

  /** The THTTP step of a walk: its S/A hosts pinned, then the request through the dispatcher. @internal */
  thttp(
    need: Extract<WalkNeed, { kind: 'http' }>,
    signal: AbortSignal | undefined,
  ): Promise<HttpStepResult> {
    for (const pin of need.pins) this.pinHost(pin.host, pin.address);
    return thttpRequest(need.url, need.service, {
      dispatcher: this.dispatcher(),
      ...(this.options.httpTimeoutMs !== undefined
        ? { timeoutMs: this.options.httpTimeoutMs }
        : {}),
      ...(signal ? { signal } : {}),
    });
  }

  get random(): () => number {
    return this.options.random ?? Math.random;
  }

  async resolve(urn: string, options: Omit<ResolveOptions, keyof ClientOptions | 'client'> = {}) {
    return resolveWith(this, urn, options);
  }

  async close(): Promise<void> {
    this.transport.close();
    await this.dohHttp?.close();
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
