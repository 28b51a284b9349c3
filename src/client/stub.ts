/**
 * From a DNS response to a classified lookup result (answer, nxdomain,
 * nodata, referral, unfinished CNAME chain: RFC 1034 section 5.3.3, RFC 2308
 * sections 2 and 5, RFC 2181 section 5.2), and the stub resolver.
 */
import type { QueryType } from '../dns/core/rr/types.ts';
import type { DnsProtocol } from '../ddds/core/trace.ts';
import type { DnsRecord, NameRecord } from '../dns/core/rr/record.ts';
import { DnsError } from './errors.ts';
import { formatServer, type ServerAddress } from './server-address.ts';
import type { DnsTransportLike, Exchange, QueryOptions } from './transport.ts';
import { canonicalName, sameName, type Message } from './wire.ts';
import type { Verdict } from '../dnssec/core/validate/verdict.ts';

export interface DnsLookupResult {
  readonly kind: 'answer' | 'nxdomain' | 'nodata';
  /** The name asked. */
  readonly qname: string;
  readonly qtype: QueryType;
  /** Where the CNAME chain (if any) ended. */
  readonly name: string;
  /** Records of qtype at `name` (empty for nxdomain/nodata). */
  readonly records: readonly DnsRecord[];
  /** CNAME owners followed, in order. */
  readonly cnames: readonly string[];
  /** Seconds this result may be cached; -1 = must not be cached (RFC 2308 section 5). */
  readonly ttl: number;
  /** The server that gave the final answer, e.g. `127.0.0.1:5353`. */
  readonly server: string;
  readonly protocol: DnsProtocol;
  readonly rttMs: number;
  /** Responses ignored on the way (mismatching ID/question, malformed). */
  readonly ignored: number;
  /** The additional section of the final response (hints only, RFC 3403 section 4.2). */
  readonly additionals: readonly DnsRecord[];
  /** With `StubOptions.dnssec`: 'secure' when every response had AD (RFC 4035 section 3.2.3). */
  readonly dnssec?: 'secure' | 'insecure';
  /** The responses as received, one per CNAME restart (`keepWire`: what the validator reads). */
  readonly wires?: readonly Uint8Array[];
  /** With validation (`validate`): the client's own DNSSEC verdict on the lookup. */
  readonly validation?: Verdict;
}

/** Anything that turns (name, type) into a DnsLookupResult (`ClientOptions.resolver`). */
export interface DnsResolver {
  lookup(qname: string, qtype: QueryType, signal?: AbortSignal): Promise<DnsLookupResult>;
}

export type Classified =
  | {
      readonly kind: 'answer' | 'nxdomain' | 'nodata';
      readonly name: string;
      readonly records: readonly DnsRecord[];
      readonly cnames: readonly string[];
      readonly ttl: number;
    }
  | {
      readonly kind: 'cname';
      readonly target: string;
      readonly cnames: readonly string[];
      readonly ttl: number;
    }
  | {
      readonly kind: 'referral';
      readonly cut: string;
      readonly ns: readonly string[];
      readonly glue: readonly DnsRecord[];
      readonly ttl: number;
      readonly cnames: readonly string[];
    }
  | { readonly kind: 'lame'; readonly reason: string };

/** The record is of the type named `qtype` (an opaque record by its `typeName`). */
function isType(a: DnsRecord, qtype: string): boolean {
  return a.type === qtype || (a.type === 'unknown' && a.typeName === qtype);
}

/** RFC 2308 section 5: negative TTL = min(SOA TTL, SOA MINIMUM); -1 without an SOA. */
export function negativeTtl(authorities: readonly DnsRecord[]): number {
  for (const a of authorities) if (a.type === 'SOA') return Math.min(a.ttl, a.minimum);
  return -1;
}

const MAX_CNAMES_IN_MESSAGE = 16;

/** Classify a response to (qname, qtype). */
export function classify(m: Message, qname: string, qtype: QueryType): Classified {
  let current = qname;
  const cnames: string[] = [];
  let ttl = Number.POSITIVE_INFINITY;
  for (let hops = 0; hops <= MAX_CNAMES_IN_MESSAGE; hops++) {
    const here = m.answers.filter((a) => sameName(a.name, current));
    const records = here.filter((a) => isType(a, qtype));
    if (records.length > 0) {
      for (const r of records) ttl = Math.min(ttl, r.ttl);
      return { kind: 'answer', name: current, records, cnames, ttl };
    }
    const cname = qtype === 'CNAME' ? undefined : here.find((a) => a.type === 'CNAME');
    if (cname?.type !== 'CNAME') break;
    const target = cname.target;
    if (cnames.some((c) => sameName(c, current))) {
      return { kind: 'lame', reason: `CNAME loop in the answer at ${current}` };
    }
    cnames.push(current);
    ttl = Math.min(ttl, cname.ttl);
    current = target;
  }
  if (cnames.length > MAX_CNAMES_IN_MESSAGE) {
    return { kind: 'lame', reason: `more than ${MAX_CNAMES_IN_MESSAGE} CNAMEs in one answer` };
  }
  const negative = negativeTtl(m.authorities);
  if (m.rcode === 'NXDOMAIN') {
    return {
      kind: 'nxdomain',
      name: current,
      records: [],
      cnames,
      ttl: negative < 0 ? -1 : Math.min(negative, ttl),
    };
  }
  const ns = m.authorities.filter((a): a is NameRecord => a.type === 'NS');
  const hasSoa = m.authorities.some((a) => a.type === 'SOA');
  if (!m.aa && ns.length > 0 && !hasSoa) {
    const cut = ns[0]!.name;
    const names = ns.filter((a) => sameName(a.name, cut)).map((a) => a.target);
    const glue = m.additionals.filter(
      (a) => (a.type === 'A' || a.type === 'AAAA') && names.some((n) => sameName(n, a.name)),
    );
    return {
      kind: 'referral',
      cut,
      ns: names,
      glue,
      ttl: Math.min(...ns.map((a) => a.ttl)),
      cnames,
    };
  }
  if (cnames.length > 0) {
    return { kind: 'cname', target: current, cnames, ttl };
  }
  return {
    kind: 'nodata',
    name: current,
    records: [],
    cnames,
    ttl: negative < 0 ? -1 : negative,
  };
}

/** A stub lookup in progress (CNAME restarts carry it along). */
interface StubState {
  readonly chain: string[];
  name: string;
  ttl: number;
  ignored: number;
  restarts: number;
  /** Every response so far had AD set. */
  secure: boolean;
  /** The responses as received (with `keepWire`). */
  wires: Uint8Array[] | undefined;
}

export interface StubOptions {
  readonly servers: readonly ServerAddress[];
  /** CNAME restarts across responses (default 8). */
  readonly maxCnames?: number;
  /** Report each result's DNSSEC status from the AD bit (the transport sets DO). */
  readonly dnssec?: boolean;
  /** Keep each response's octets in the result (`wires`) and set CD: the client validates. */
  readonly keepWire?: boolean;
}

/** A stub resolver: RD set, CNAME chains followed across responses, referrals refused. */
export class StubResolver implements DnsResolver {
  private readonly transport: DnsTransportLike;
  private readonly servers: readonly ServerAddress[];
  private readonly maxCnames: number;
  private readonly dnssec: boolean;
  private readonly keepWire: boolean;
  /** `formatServer` per server object (servers are long-lived: kept in the client's list). */
  private readonly serverTexts = new WeakMap<ServerAddress, string>();

  constructor(transport: DnsTransportLike, options: StubOptions) {
    this.transport = transport;
    this.servers = options.servers;
    this.maxCnames = options.maxCnames ?? 8;
    this.dnssec = options.dnssec === true;
    this.keepWire = options.keepWire === true;
  }
  private serverText(s: ServerAddress): string {
    let t = this.serverTexts.get(s);
    if (t === undefined) {
      t = formatServer(s);
      this.serverTexts.set(s, t);
    }
    return t;
  }

  lookup(qname: string, qtype: QueryType, signal?: AbortSignal): Promise<DnsLookupResult> {
    const state: StubState = {
      chain: [],
      name: qname,
      ttl: Number.POSITIVE_INFINITY,
      ignored: 0,
      restarts: 0,
      secure: true,
      wires: this.keepWire ? [] : undefined,
    };
    // The first query without an async frame; CNAME restarts continue in `restart`.
    let first: Promise<Exchange>;
    try {
      first = this.transport.query(qname, qtype, this.queryOptions(signal));
    } catch (e) {
      return Promise.reject(e as Error);
    }
    return first.then(
      (ex) => this.settle(state, qname, qtype, ex) ?? this.restart(state, qname, qtype, signal),
    );
  }

  private queryOptions(signal: AbortSignal | undefined): QueryOptions {
    return this.keepWire
      ? { servers: this.servers, signal, checkingDisabled: true }
      : { servers: this.servers, signal };
  }

  private async restart(
    state: StubState,
    qname: string,
    qtype: QueryType,
    signal: AbortSignal | undefined,
  ): Promise<DnsLookupResult> {
    for (;;) {
      state.restarts++;
      const ex = await this.transport.query(state.name, qtype, this.queryOptions(signal));
      const r = this.settle(state, qname, qtype, ex);
      if (r !== undefined) return r;
    }
  }

  /** One response: the result, undefined to follow a CNAME (state updated), or a DnsError thrown. */
  private settle(
    state: StubState,
    qname: string,
    qtype: QueryType,
    ex: Exchange,
  ): DnsLookupResult | undefined {
    const { chain } = state;
    const name = state.name;
    state.ignored += ex.ignored;
    state.secure &&= ex.message.ad;
    if (state.wires && ex.wire) state.wires.push(ex.wire);
    const server = ex.via ?? this.serverText(ex.server);
    const c = classify(ex.message, name, qtype);
    switch (c.kind) {
      case 'answer':
      case 'nxdomain':
      case 'nodata': {
        const all = [...chain, ...c.cnames];
        const t = Math.min(state.ttl, c.ttl < 0 ? Number.POSITIVE_INFINITY : c.ttl);
        return {
          kind: c.kind,
          qname,
          qtype,
          name: c.name,
          records: c.records,
          cnames: all,
          ttl: c.ttl < 0 ? -1 : t,
          server,
          protocol: ex.protocol,
          rttMs: ex.rttMs,
          ignored: state.ignored,
          additionals: ex.message.additionals,
          ...(this.dnssec ? { dnssec: state.secure ? 'secure' : 'insecure' } : {}),
          ...(state.wires ? { wires: state.wires } : {}),
        } as DnsLookupResult;
      }
      case 'cname': {
        const ctx = { qname: name, qtype, server };
        chain.push(...c.cnames);
        state.ttl = Math.min(state.ttl, c.ttl);
        if (state.restarts + 1 > this.maxCnames) {
          throw new DnsError(
            'DNS_CNAME_LOOP',
            `CNAME chain from ${qname} is longer than ${this.maxCnames} lookups (${chain.join(' -> ')})`,
            ctx,
          );
        }
        if (chain.some((n) => sameName(n, c.target)) || sameName(c.target, qname)) {
          throw new DnsError(
            'DNS_CNAME_LOOP',
            `CNAME loop: ${[...chain, c.target].join(' -> ')}`,
            ctx,
          );
        }
        state.name = c.target;
        return undefined;
      }
      case 'referral':
        throw new DnsError(
          'DNS_REFERRAL',
          `${server} is not authoritative for ${name} and refers to ${canonicalName(c.cut) || '.'} (${c.ns.join(', ')}); query a server for that zone, or use --root ${server} to follow referrals`,
          { qname: name, qtype, server },
        );
      case 'lame':
        throw new DnsError('DNS_BAD_RESPONSE', `${server}: ${c.reason}`, {
          qname: name,
          qtype,
          server,
        });
    }
  }
}
