/**
 * `LexClient`, the one DDDS client of every platform (RFC 3402 section 3.3,
 * RFC 3404): a cache, memos and the walk over a `ClientTransport` (DoH
 * through `fetch` here; the Node ones in `resolve.ts`). No Node built-ins.
 */
import type { Dispatcher } from 'undici';
import type { QueryType } from '../dns/core/rr/types.ts';
import type { TransportOptions } from './transport.ts';
import type { ResolveResult } from '../ddds/core/trace.ts';
import type { WalkNeed } from '../ddds/core/walk.ts';
import type { DnssecCrypto } from '../dnssec/core/validate/crypto.ts';
import { webDnssecCrypto } from '../dnssec/webcrypto.ts';
import { dohTransport } from './browser.ts';
import { CachingResolver, DnsCache } from './cache.ts';
import { ClientError } from './errors.ts';
import { ClientMemos } from './memo.ts';
import { resolveWith, type WalkOptions } from './resolution.ts';
import type { DnsLookupResult, DnsResolver } from './stub.ts';
import type { HttpStepResult } from './thttp.ts';
import type { ServerAddress } from './server-address.ts';
import { ValidatingResolver, type ValidateOptions } from './validate.ts';

/** What a transport is asked to set up its lookups with. */
export interface TransportSetup {
  /** Keep each answer's wire form (the validator reads it); DO and CD on every query. */
  readonly keepWire: boolean;
  /** Require AD from the servers (`dnssec`). */
  readonly dnssec: boolean;
  /** The cache's clock, where the transport caches too (iterative). */
  readonly now?: () => number;
}

/** How a client reaches the DNS and the resolvers (`dohTransport`; in Node `udpTransport`, ...). */
export interface ClientTransport {
  readonly mode: 'stub' | 'iterative';
  /** The resolver behind the cache and the servers (or DoH URLs) the trace names. */
  open(setup: TransportSetup): Promise<{ resolver: DnsResolver; servers: readonly string[] }>;
  /** The THTTP exchange of `need`, its S/A hosts pinned where the platform allows it. */
  thttp(
    need: Extract<WalkNeed, { kind: 'http' }>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ): Promise<HttpStepResult>;
  /** True when the servers answer (name, type) with CD set (a SERVFAIL was then bogus data). */
  answersWithCd?(name: string, type: QueryType, signal?: AbortSignal): Promise<boolean>;
  /** The validator's crypto where `validate` names none (default WebCrypto). */
  crypto?(): DnssecCrypto;
  close(): Promise<void>;
}

/** The options of the default transport (`transport` not given): Node's, or DoH through fetch in a page. */
export interface DefaultTransportOptions {
  /** Stub mode: servers to ask (default: /etc/resolv.conf). Node. */
  readonly servers?: readonly (ServerAddress | string)[];
  /** DNS over HTTPS (RFC 8484) URLs tried in turn, instead of `servers`. */
  readonly doh?: string | readonly string[];
  /** HTTP method for DoH queries (default GET). */
  readonly dohMethod?: 'GET' | 'POST';
  /** Iterative mode: the server to start from. Node. */
  readonly root?: ServerAddress | string;
  /** DNS timeout per try, ms (default 2000). */
  readonly timeoutMs?: number;
  /** DNS tries per server (default 2). */
  readonly tries?: number;
  /** resolv.conf path (default /etc/resolv.conf). Node. */
  readonly resolvConf?: string;
  /** The fetch for DoH and THTTP in a page (default: the global one). */
  readonly fetch?: typeof fetch;
  /** undici dispatcher for the HTTP step (a MockAgent in tests). Node. */
  readonly dispatcher?: Dispatcher;
  /** UDP/TCP socket tuning. Node. */
  readonly sockets?: TransportOptions;
  /** Another resolver to ask instead of stub or iterative (named by `mode` and `servers`). Node. */
  readonly resolver?: DnsResolver & {
    readonly mode?: 'stub' | 'iterative';
    readonly servers?: readonly string[];
  };
}

export interface ClientOptions extends DefaultTransportOptions {
  /** How lookups and THTTP requests travel (default: from the options above). */
  readonly transport?: ClientTransport;
  /** HTTP step timeout, ms (default 10,000). */
  readonly httpTimeoutMs?: number;
  /** A cache to share, or false for none (default: a fresh cache per client). */
  readonly cache?: DnsCache | false;
  /** Randomness for SRV weights (default Math.random). */
  readonly random?: () => number;
  /** Require AD from the servers on every lookup, else DNSSEC_INSECURE / DNSSEC_BOGUS. */
  readonly dnssec?: boolean;
  /** Validate DNSSEC here from the trust anchors: verdicts in the trace, bogus fails. */
  readonly validate?: ValidateOptions;
  /** With `validate`: fail (DNSSEC_INSECURE) unless every lookup is secure. */
  readonly requireSecure?: boolean;
}

export interface ResolveOptions extends ClientOptions, WalkOptions {
  /** Reuse a client (its transport and cache); the other client options are then ignored. */
  readonly client?: LexClient;
}

// eslint-disable-next-line no-restricted-syntax -- set once, at load, by the Node entry (resolve.ts); the same for every client of the process
let defaultTransport: ((options: ClientOptions) => ClientTransport) | undefined;

/** The platform's default transport (the Node entry sets it). @internal */
export function setDefaultTransport(f: (options: ClientOptions) => ClientTransport): void {
  defaultTransport = f;
}

function transportFor(options: ClientOptions): ClientTransport {
  if (options.transport) return options.transport;
  if (defaultTransport) return defaultTransport(options);
  if (options.doh !== undefined) return dohTransport({ ...options, doh: options.doh });
  throw new ClientError(
    'CLIENT_NO_TRANSPORT',
    'no DNS transport here: give `transport` (dohTransport) or `doh` URLs',
  );
}

/** A reusable client: one transport, one cache, the warm-path memos. `close()` when done. */
export class LexClient {
  readonly cache: DnsCache | undefined;
  readonly mode: 'stub' | 'iterative';
  /** This client's memos of the warm path (walk starts, NAPTR records, step results). @internal */
  readonly memos = new ClientMemos();
  readonly transport: ClientTransport;
  private resolver: DnsResolver | undefined;
  private readonly cached: CachingResolver | undefined;
  private readonly options: ClientOptions;
  private serverList: readonly string[] = [];
  private innerPromise: Promise<DnsResolver> | undefined;

  constructor(options: ClientOptions = {}) {
    this.options = options;
    this.transport = transportFor(options);
    this.mode = this.transport.mode;
    this.cache = options.cache === false ? undefined : (options.cache ?? new DnsCache());
    if (this.cache) {
      const inner: DnsResolver = {
        lookup: (n, t, s) => this.inner().then((r) => r.lookup(n, t, s)),
      };
      this.cached = new CachingResolver(inner, this.cache);
    }
  }

  /** The transport's resolver, validating when asked (set up on first use). */
  private inner(): Promise<DnsResolver> {
    if (this.resolver) return Promise.resolve(this.resolver);
    this.innerPromise ??= (async () => {
      const o = this.options;
      const opened = await this.transport.open({
        keepWire: o.validate !== undefined,
        dnssec: o.dnssec === true,
        now: this.cache?.now,
      });
      this.serverList = opened.servers;
      let resolver = opened.resolver;
      if (o.validate) {
        const crypto = o.validate.crypto ?? this.transport.crypto?.() ?? webDnssecCrypto();
        resolver = new ValidatingResolver(resolver, o.validate, crypto);
      }
      this.resolver = resolver;
      return resolver;
    })();
    return this.innerPromise;
  }

  /** Undefined once the resolver is set up; else the promise of it. */
  ready(): Promise<unknown> | undefined {
    return this.resolver ? undefined : this.inner();
  }

  get servers(): readonly string[] {
    return this.serverList;
  }

  get dnssec(): boolean {
    return this.options.dnssec === true;
  }

  get requireSecure(): boolean {
    return this.options.requireSecure === true;
  }

  get random(): () => number {
    return this.options.random ?? Math.random;
  }

  /** Look up (name, type) through the cache; a hit comes back synchronously. */
  lookupCached(
    name: string,
    type: QueryType,
    signal?: AbortSignal,
  ):
    | { result: DnsLookupResult; cached: true }
    | Promise<{ result: DnsLookupResult; cached: boolean }> {
    const hit = this.cached?.peek(name, type);
    if (hit) return { result: hit.result, cached: true };
    return this.lookup(name, type, signal).then((result) => ({ result, cached: false }));
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

  /** The THTTP step of a walk, through the transport. @internal */
  thttp(
    need: Extract<WalkNeed, { kind: 'http' }>,
    signal: AbortSignal | undefined,
  ): Promise<HttpStepResult> {
    return this.transport.thttp(need, signal, this.options.httpTimeoutMs);
  }

  /** Whether the servers answer (name, type) with CD set. @internal */
  answersWithCd(name: string, type: QueryType, signal?: AbortSignal): Promise<boolean> {
    return this.transport.answersWithCd?.(name, type, signal) ?? Promise.resolve(false);
  }

  resolve(urn: string, options: WalkOptions = {}): Promise<ResolveResult> {
    return resolveWith(this, urn, options);
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

/** Resolve a LEX URN: `{ urls, resolverUrl, trace }`, or a ResolveError with the trace so far. */
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
