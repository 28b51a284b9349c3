/**
 * The Node transports of `LexClient`: UDP/TCP stub, iterative, DoH over
 * undici; THTTP on undici with S/A hosts pinned. Loading this module makes
 * them the default (`new LexClient()` reads resolv.conf).
 */
import type { QueryType } from '../dns/core/rr/types.ts';
import type { Agent, Dispatcher } from 'undici';
import { undici } from './undici-lazy.ts';
import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import {
  setDefaultTransport,
  type ClientTransport,
  type DefaultTransportOptions,
  type TransportSetup,
} from './client.ts';
import { DohTransport } from './doh.ts';
import { NodeDoh } from './doh-undici.ts';
import { ClientError } from './errors.ts';
import { IterativeResolver } from './iterative.ts';
import { StubResolver, type DnsResolver } from './stub.ts';
import { parseServerAddress, type ServerAddress } from './server-address.ts';
import { systemServers } from './servers.ts';
import { DnsTransport } from './transport.ts';
import { thttpRequest } from './http-step.ts';
import type { HttpStepResult } from './thttp.ts';
import type { WalkNeed } from '../ddds/core/walk.ts';
import { nodeDnssecCrypto } from '../dnssec/node-crypto.ts';

export { ResolveError } from './resolution.ts';
export { LexClient, resolveLexUrn } from './client.ts';
export type { Handoff, ResolveResult, Service, Trace, TraceStep } from '../ddds/core/trace.ts';

/** The options of the Node transports (those of `ClientOptions` without `transport`). */
export type NodeTransportOptions = DefaultTransportOptions;

function addresses(list: readonly (ServerAddress | string)[] | undefined): ServerAddress[] {
  return (list ?? []).map((s) => (typeof s === 'string' ? parseServerAddress(s) : s));
}

/** The Node transports: one UDP/TCP socket pool, DoH over undici, THTTP over undici with pinned hosts. */
class NodeTransport implements ClientTransport {
  readonly mode: 'stub' | 'iterative';
  private socketPool: DnsTransport | undefined;
  private readonly hostMap = new Map<string, { address: string; family: 4 | 6 }>();
  private agent: Agent | undefined;
  private dohHttp: NodeDoh | undefined;

  private readonly o: NodeTransportOptions;

  constructor(o: NodeTransportOptions) {
    this.o = o;
    this.mode = o.resolver?.mode ?? (o.root !== undefined ? 'iterative' : 'stub');
  }

  /** The UDP/TCP sockets, made on first use (DO set when the setup asks for DNSSEC). */
  private sockets(dnssecOk = false): DnsTransport {
    this.socketPool ??= new DnsTransport({
      ...this.o.sockets,
      ...(dnssecOk ? { dnssecOk: true } : {}),
      // Undefined ones are left to the transport's defaults.
      timeoutMs: this.o.timeoutMs,
      tries: this.o.tries,
    });
    return this.socketPool;
  }

  async open(
    setup: TransportSetup,
  ): Promise<{ resolver: DnsResolver; servers: readonly string[] }> {
    const o = this.o;
    const keepWire = setup.keepWire;
    const dnssecOk = setup.keepWire || setup.dnssec;
    if (o.resolver !== undefined)
      return { resolver: o.resolver, servers: o.resolver.servers ?? [] };
    if (o.doh !== undefined) {
      const doh = new DohTransport({
        urls: typeof o.doh === 'string' ? [o.doh] : o.doh,
        fetch: (this.dohHttp = new NodeDoh()).fetch,
        method: o.dohMethod,
        dnssecOk: keepWire,
        timeoutMs: o.timeoutMs,
        tries: o.tries,
      });
      return { resolver: new StubResolver(doh, { servers: [], keepWire }), servers: doh.urls };
    }
    if (o.root !== undefined) {
      if (setup.dnssec)
        throw new ClientError(
          'DNSSEC_NEEDS_RESOLVER',
          'DNSSEC needs a validating resolver to ask (--server): iterative mode does not validate signatures',
        );
      const root = typeof o.root === 'string' ? parseServerAddress(o.root) : o.root;
      const resolver = new IterativeResolver(this.sockets(dnssecOk), {
        root,
        now: setup.now,
        keepWire,
      });
      return { resolver, servers: [`${root.host}:${root.port}`] };
    }
    const given = addresses(o.servers);
    const servers = given.length > 0 ? given : await systemServers(o.resolvConf);
    const resolver = new StubResolver(this.sockets(dnssecOk), {
      servers,
      dnssec: setup.dnssec,
      keepWire,
    });
    return { resolver, servers: servers.map((s) => `${s.host}:${s.port}`) };
  }

  /** The HTTP dispatcher: the injected one, or an agent that connects S/A hosts to the addresses found in the DNS. */
  dispatcher(): Dispatcher {
    if (this.o.dispatcher) return this.o.dispatcher;
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

  thttp(
    need: Extract<WalkNeed, { kind: 'http' }>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ): Promise<HttpStepResult> {
    for (const pin of need.pins) this.pinHost(pin.host, pin.address);
    return thttpRequest(need.url, need.service, {
      dispatcher: this.dispatcher(),
      timeoutMs,
      signal,
    });
  }

  async answersWithCd(name: string, type: QueryType, signal?: AbortSignal): Promise<boolean> {
    const servers = addresses(this.o.servers);
    if (servers.length === 0) return false;
    try {
      const ex = await this.sockets().query(name, type, {
        servers,
        checkingDisabled: true,
        signal,
      });
      return ex.message.rcode === 'NOERROR' || ex.message.rcode === 'NXDOMAIN';
    } catch {
      return false;
    }
  }

  crypto() {
    return nodeDnssecCrypto();
  }

  async close(): Promise<void> {
    this.socketPool?.close();
    await this.dohHttp?.close();
    if (this.agent) await this.agent.close();
  }
}

/** UDP/TCP stub: the servers given, or resolv.conf's. */
export function udpTransport(
  options: Omit<NodeTransportOptions, 'doh' | 'root' | 'resolver'> = {},
): ClientTransport {
  return new NodeTransport(options);
}

/** Iterative from `root` over UDP/TCP. */
export function iterativeTransport(
  options: Omit<NodeTransportOptions, 'doh' | 'servers' | 'resolver'> & {
    root: ServerAddress | string;
  },
): ClientTransport {
  return new NodeTransport(options);
}

/** DNS over HTTPS on undici (HTTP/2 or HTTP/1.1); THTTP on undici with pinned hosts. */
export function nodeDohTransport(
  options: Omit<NodeTransportOptions, 'servers' | 'root' | 'resolver'> & {
    doh: string | readonly string[];
  },
): ClientTransport {
  return new NodeTransport(options);
}

/** Any `DnsResolver` as the transport (the THTTP step on undici). */
export function resolverTransport(
  resolver: NonNullable<NodeTransportOptions['resolver']>,
  options: Pick<NodeTransportOptions, 'dispatcher'> = {},
): ClientTransport {
  return new NodeTransport({ ...options, resolver });
}

setDefaultTransport((o) => new NodeTransport(o));
