/**
 * Iterative resolution (`--root host:port`): start at one server and follow
 * referrals (NS + glue, or the NS names resolved through the same iterative
 * process) down to the authoritative server, as a resolver would. Lets a
 * chain whose zones live on different servers be tested locally without a
 * recursive resolver.
 *
 * Glue carries no port, so every server reached through a referral is asked
 * on the port of the root: a local chain uses one port on 127.0.0.1,
 * 127.0.0.2, ... (Linux routes all of 127.0.0.0/8 to the loopback device).
 *
 * @see RFC 1034 section 5.3.3 (the resolver algorithm: "if the response
 *   shows a delegation, cache the delegation information, and go to step 2")
 * @see RFC 1034 section 5.3.3 step 4 d ("if the response shows a server
 *   failure or other bizarre contents, delete the server from SLIST")
 * @see RFC 1034 section 5.2.2 (bound the work: "a resolver should bound the
 *   amount of work ... to avoid infinite loops")
 * @see RFC 2181 section 5.4.1 (glue is the least trusted data: only used to
 *   reach the servers it names)
 */
import type { RecordType } from 'dns-packet';
import type { ReferralStep } from '../core/ddds/trace.ts';
import { DnsError } from './errors.ts';
import { classify, type LookupResult, type Resolver } from './lookup.ts';
import { formatServer, type ServerAddress } from './servers.ts';
import type { DnsTransportLike } from './transport.ts';
import { canonicalName, rdataOf, sameName } from './wire.ts';

export interface IterativeOptions {
  readonly root: ServerAddress;
  /** Referrals followed for one name (default 16). */
  readonly maxReferrals?: number;
  /** CNAME restarts (default 8). */
  readonly maxCnames?: number;
  /** Queries sent for one lookup, NS-name resolution included (default 64). */
  readonly maxQueries?: number;
  /** Clock for the delegation cache, in ms (default Date.now). */
  readonly now?: () => number;
}

/** One referral followed, for the trace. */
export type { ReferralStep };

export interface IterativeResult extends LookupResult {
  readonly referrals: readonly ReferralStep[];
}

interface Delegation {
  readonly servers: readonly ServerAddress[];
  readonly expires: number;
}

interface Budget {
  queries: number;
}

function isUnder(name: string, zone: string): boolean {
  const n = canonicalName(name);
  const z = canonicalName(zone);
  return z === '' || n === z || n.endsWith(`.${z}`);
}

export class IterativeResolver implements Resolver {
  private readonly transport: DnsTransportLike;
  private readonly root: ServerAddress;
  private readonly maxReferrals: number;
  private readonly maxCnames: number;
  private readonly maxQueries: number;
  private readonly now: () => number;
  private readonly delegations = new Map<string, Delegation>();

  constructor(transport: DnsTransportLike, options: IterativeOptions) {
    this.transport = transport;
    this.root = options.root;
    this.maxReferrals = options.maxReferrals ?? 16;
    this.maxCnames = options.maxCnames ?? 8;
    this.maxQueries = options.maxQueries ?? 64;
    this.now = options.now ?? Date.now;
  }

  lookup(qname: string, qtype: RecordType, signal?: AbortSignal): Promise<IterativeResult> {
    return this.resolve(qname, qtype, { queries: 0 }, 0, [], signal);
  }

  /** The closest cut we hold a live delegation for, else the root. */
  private start(qname: string): { cut: string; servers: readonly ServerAddress[] } {
    const labels = canonicalName(qname).split('.');
    const now = this.now();
    for (let i = 0; i < labels.length; i++) {
      const cut = labels.slice(i).join('.');
      const d = this.delegations.get(cut);
      if (d && d.expires > now) return { cut, servers: d.servers };
      if (d) this.delegations.delete(cut);
    }
    return { cut: '', servers: [this.root] };
  }

  private async resolve(
    qname: string,
    qtype: RecordType,
    budget: Budget,
    depth: number,
    cnameChain: string[],
    signal: AbortSignal | undefined,
  ): Promise<IterativeResult> {
    let { cut, servers } = this.start(qname);
    const seenCuts = new Set([cut]);
    const referrals: ReferralStep[] = [];
    let ignored = 0;
    for (let hop = 0; ; hop++) {
      const ctx = { qname, qtype, server: servers.map(formatServer).join(' ') };
      if (hop > this.maxReferrals) {
        throw new DnsError(
          'DNS_DEPTH_EXCEEDED',
          `more than ${this.maxReferrals} referrals while resolving ${qname} ${qtype}`,
          ctx,
        );
      }
      if (++budget.queries > this.maxQueries) {
        throw new DnsError(
          'DNS_DEPTH_EXCEEDED',
          `more than ${this.maxQueries} queries while resolving ${qname} ${qtype} (NS lookups included)`,
          ctx,
        );
      }
      let ex;
      try {
        ex = await this.transport.query(qname, qtype, {
          servers,
          recursionDesired: false,
          signal,
        });
      } catch (e) {
        if (
          e instanceof DnsError &&
          cut !== '' &&
          ['DNS_REFUSED', 'DNS_SERVFAIL', 'DNS_NOTIMP', 'DNS_RCODE'].includes(e.code)
        ) {
          throw new DnsError(
            'DNS_LAME',
            `lame delegation: the servers for ${cut}. (${ctx.server}) do not serve it: ${e.message}`,
            ctx,
            e,
          );
        }
        throw e;
      }
      ignored += ex.ignored;
      const server = formatServer(ex.server);
      const c = classify(ex.message, qname, qtype);
      switch (c.kind) {
        case 'answer':
        case 'nxdomain':
        case 'nodata':
          return {
            kind: c.kind,
            qname,
            qtype,
            name: c.name,
            records: c.records,
            cnames: [...cnameChain, ...c.cnames],
            ttl: c.ttl,
            server,
            protocol: ex.protocol,
            rttMs: ex.rttMs,
            ignored,
            additionals: ex.message.additionals,
            referrals,
          };
        case 'cname': {
          const chain = [...cnameChain, ...c.cnames];
          if (chain.length > this.maxCnames) {
            throw new DnsError(
              'DNS_CNAME_LOOP',
              `CNAME chain from ${chain[0] ?? qname} is longer than ${this.maxCnames}`,
              { ...ctx, server },
            );
          }
          if (chain.slice(0, -1).some((n) => sameName(n, c.target)) || sameName(c.target, qname)) {
            throw new DnsError(
              'DNS_CNAME_LOOP',
              `CNAME loop: ${[...chain, c.target].join(' -> ')}`,
              {
                ...ctx,
                server,
              },
            );
          }
          const rest = await this.resolve(c.target, qtype, budget, depth + 1, chain, signal);
          return { ...rest, qname, referrals: [...referrals, ...rest.referrals] };
        }
        case 'lame':
          throw new DnsError('DNS_LAME', `${server}: ${c.reason}`, { ...ctx, server });
        case 'referral': {
          const next = canonicalName(c.cut);
          if (!isUnder(qname, next)) {
            throw new DnsError(
              'DNS_LAME',
              `${server} referred ${qname} to ${next || '.'}, a zone that does not contain it`,
              { ...ctx, server },
            );
          }
          if (seenCuts.has(next)) {
            throw new DnsError(
              'DNS_REFERRAL_LOOP',
              `referral loop: ${server} referred ${qname} back to ${next || '.'} (${[...seenCuts].map((s) => s || '.').join(' -> ')})`,
              { ...ctx, server },
            );
          }
          if (!isUnder(next, cut) || next === canonicalName(cut)) {
            throw new DnsError(
              'DNS_LAME',
              `${server} gave an upward or sideways referral from ${cut || '.'} to ${next || '.'}`,
              { ...ctx, server },
            );
          }
          seenCuts.add(next);
          let addresses = c.glue.map((g) => ({ host: String(rdataOf(g)), port: this.root.port }));
          const fromGlue = addresses.length > 0;
          if (!fromGlue) {
            addresses = await this.addressesOf(c.ns, next, budget, depth, signal);
          }
          if (addresses.length === 0) {
            throw new DnsError(
              'DNS_LAME',
              `no address for any name server of ${next}. (${c.ns.join(', ')}): no glue and no A record found`,
              { ...ctx, server },
            );
          }
          referrals.push({
            server,
            cut: next,
            ns: c.ns,
            addresses: addresses.map(formatServer),
            fromGlue,
          });
          if (c.ttl > 0) {
            this.delegations.set(next, { servers: addresses, expires: this.now() + c.ttl * 1000 });
          }
          cut = next;
          servers = addresses;
          continue;
        }
      }
    }
  }

  /** Addresses of NS names without glue, found iteratively from the root. */
  private async addressesOf(
    names: readonly string[],
    cut: string,
    budget: Budget,
    depth: number,
    signal: AbortSignal | undefined,
  ): Promise<ServerAddress[]> {
    if (depth >= this.maxCnames) return [];
    const out: ServerAddress[] = [];
    for (const ns of names) {
      // A name server inside the zone it serves can only be reached by glue.
      if (isUnder(ns, cut)) continue;
      try {
        const r = await this.resolve(ns, 'A', budget, depth + 1, [], signal);
        for (const a of r.records) out.push({ host: String(rdataOf(a)), port: this.root.port });
      } catch (e) {
        if (!(e instanceof DnsError) || e.code === 'DNS_ABORTED') throw e;
        if (e.code === 'DNS_DEPTH_EXCEEDED') throw e;
      }
      if (out.length > 0) break;
    }
    return out;
  }
}
