/**
 * Iterative resolution (`--root host:port`): from one server down the
 * referrals (glue, or NS names resolved the same way) to the authoritative
 * server, so a chain spread over servers is testable without a recursive
 * resolver. Glue carries no port: every server is asked on the root's port
 * (a local chain on 127.0.0.1, 127.0.0.2, ...).
 *
 * @see RFC 1034 section 5.3.3 (the algorithm; step 4 d: drop a failing
 *   server), section 5.2.2 (bound the work), RFC 2181 section 5.4.1 (glue)
 */
import type { QueryType } from '../dns/core/rr/types.ts';
import type { ReferralStep } from '../ddds/core/trace.ts';
import { DnsError } from './errors.ts';
import type { DnsRecord } from '../dns/core/rr/record.ts';
import { classify, type Classified, type DnsLookupResult, type DnsResolver } from './stub.ts';
import { formatServer, type ServerAddress } from './server-address.ts';
import type { DnsTransportLike, Exchange } from './transport.ts';
import { canonicalName, sameName } from './wire.ts';

/** The addresses of the A and AAAA records among `records`. */
function addressesOf(records: readonly DnsRecord[]): string[] {
  const out: string[] = [];
  for (const a of records) if (a.type === 'A' || a.type === 'AAAA') out.push(a.address);
  return out;
}

export interface IterativeOptions {
  readonly root: ServerAddress;
  /** Referrals followed for one name (default 16). */
  readonly maxReferrals?: number;
  /** CNAME restarts (default 8). */
  readonly maxCnames?: number;
  /** Queries sent for one lookup, NS-name resolution included (default 64). */
  readonly maxQueries?: number;
  /** Name server addresses tried per referral (default 4; a referral may name 100 dead ones). */
  readonly maxServersPerReferral?: number;
  /** Clock for the delegation cache, in ms (default Date.now). */
  readonly now?: () => number;
  /** Keep the final responses' octets in the result (`wires`): the client validates. */
  readonly keepWire?: boolean;
}

/** One referral followed, for the trace. */
export type { ReferralStep };

export interface IterativeResult extends DnsLookupResult {
  readonly referrals: readonly ReferralStep[];
}

interface Delegation {
  readonly servers: readonly ServerAddress[];
  readonly expires: number;
}

interface Budget {
  queries: number;
}

/** Where one name's resolution stands: the zone cut reached and the servers to ask there. */
interface Position {
  cut: string;
  servers: readonly ServerAddress[];
  /** Addresses of the cut's glueless name servers, being looked up meanwhile (RFC 1034 5.3.3). */
  more: Promise<ServerAddress[] | { error: unknown }> | undefined;
  /** The referral that led here (for the trace of a second attempt), when `more` is set. */
  referral: ReferralStep | undefined;
}

/** One lookup's state: the name, the budget and what goes into the trace. */
interface Walk {
  readonly qname: string;
  readonly qtype: QueryType;
  readonly budget: Budget;
  readonly depth: number;
  readonly signal: AbortSignal | undefined;
  readonly referrals: ReferralStep[];
  readonly seenCuts: Set<string>;
  ignored: number;
}

function isUnder(name: string, zone: string): boolean {
  const n = canonicalName(name);
  const z = canonicalName(zone);
  return z === '' || n === z || n.endsWith(`.${z}`);
}

/** Errors that say the servers of a cut do not serve it. */
const LAME_CODES: ReadonlySet<string> = new Set([
  'DNS_REFUSED',
  'DNS_SERVFAIL',
  'DNS_NOTIMP',
  'DNS_RCODE',
]);

export class IterativeResolver implements DnsResolver {
  private readonly transport: DnsTransportLike;
  private readonly root: ServerAddress;
  private readonly maxReferrals: number;
  private readonly maxCnames: number;
  private readonly maxQueries: number;
  private readonly maxServers: number;
  private readonly now: () => number;
  private readonly keepWire: boolean;
  private readonly delegations = new Map<string, Delegation>();

  constructor(transport: DnsTransportLike, options: IterativeOptions) {
    this.transport = transport;
    this.root = options.root;
    this.maxReferrals = options.maxReferrals ?? 16;
    this.maxCnames = options.maxCnames ?? 8;
    this.maxQueries = options.maxQueries ?? 64;
    this.maxServers = Math.max(1, options.maxServersPerReferral ?? 4);
    this.now = options.now ?? Date.now;
    this.keepWire = options.keepWire === true;
  }

  lookup(qname: string, qtype: QueryType, signal?: AbortSignal): Promise<IterativeResult> {
    return this.resolve(qname, qtype, { queries: 0 }, 0, [], signal);
  }

  /**
   * The closest cut with a live delegation, else the root. DS starts above
   * the name's own cut: it lives on the parent side (RFC 4035 section 3.1.4.1).
   */
  private start(qname: string, qtype: QueryType): Position {
    const labels = canonicalName(qname).split('.');
    const now = this.now();
    for (let i = qtype === 'DS' ? 1 : 0; i < labels.length; i++) {
      const cut = labels.slice(i).join('.');
      const d = this.delegations.get(cut);
      if (d && d.expires > now)
        return { cut, servers: d.servers, more: undefined, referral: undefined };
      if (d) this.delegations.delete(cut);
    }
    return { cut: '', servers: [this.root], more: undefined, referral: undefined };
  }

  private async resolve(
    qname: string,
    qtype: QueryType,
    budget: Budget,
    depth: number,
    cnameChain: string[],
    signal: AbortSignal | undefined,
  ): Promise<IterativeResult> {
    const at = this.start(qname, qtype);
    const w: Walk = {
      qname,
      qtype,
      budget,
      depth,
      signal,
      referrals: [],
      seenCuts: new Set([at.cut]),
      ignored: 0,
    };
    for (let hop = 0; ; hop++) {
      const ctx = { qname, qtype, server: at.servers.map(formatServer).join(' ') };
      if (hop > this.maxReferrals) {
        throw new DnsError(
          'DNS_DEPTH_EXCEEDED',
          `more than ${this.maxReferrals} referrals while resolving ${qname} ${qtype}`,
          ctx,
        );
      }
      const ex = await this.ask(w, at, ctx);
      w.ignored += ex.ignored;
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
            ignored: w.ignored,
            additionals: ex.message.additionals,
            referrals: w.referrals,
            ...(this.keepWire && ex.wire ? { wires: [ex.wire] } : {}),
          };
        case 'cname': {
          const rest = await this.restart(w, c, cnameChain, { ...ctx, server });
          return this.keepWire && ex.wire && rest.wires
            ? { ...rest, wires: [ex.wire, ...rest.wires] }
            : rest;
        }
        case 'lame':
          throw new DnsError('DNS_LAME', `${server}: ${c.reason}`, { ...ctx, server });
        case 'referral':
          await this.follow(w, at, c, server, { ...ctx, server });
          continue;
      }
    }
  }

  /**
   * One query at the current cut; when its servers fail, the glueless name
   * servers being looked up meanwhile are asked next (RFC 1034 section 5.3.3).
   */
  private async ask(
    w: Walk,
    at: Position,
    ctx: { qname: string; qtype: QueryType; server: string },
  ): Promise<Exchange> {
    for (;;) {
      if (++w.budget.queries > this.maxQueries) {
        throw new DnsError(
          'DNS_DEPTH_EXCEEDED',
          `more than ${this.maxQueries} queries while resolving ${w.qname} ${w.qtype} (NS lookups included)`,
          ctx,
        );
      }
      try {
        return await this.transport.query(w.qname, w.qtype, {
          servers: at.servers,
          recursionDesired: false,
          signal: w.signal,
        });
      } catch (e) {
        if (!(e instanceof DnsError) || e.code === 'DNS_ABORTED') throw e;
        const next = await this.moreServers(w, at);
        if (next !== undefined) {
          at.servers = next;
          continue;
        }
        if (at.cut !== '' && LAME_CODES.has(e.code)) {
          throw new DnsError(
            'DNS_LAME',
            `lame delegation: the servers for ${at.cut}. (${ctx.server}) do not serve it: ${e.message}`,
            ctx,
            e,
          );
        }
        throw e;
      }
    }
  }

  /** The glueless name servers' addresses not asked yet, once found (undefined: none). */
  private async moreServers(w: Walk, at: Position): Promise<ServerAddress[] | undefined> {
    const pending = at.more;
    if (pending === undefined) return undefined;
    at.more = undefined;
    const found = await pending;
    if (!Array.isArray(found)) throw found.error;
    const asked = new Set(at.servers.map(formatServer));
    const fresh = found.filter((a) => !asked.has(formatServer(a))).slice(0, this.maxServers);
    if (fresh.length === 0) return undefined;
    const r = at.referral as ReferralStep;
    w.referrals.push({ ...r, addresses: fresh.map(formatServer), fromGlue: false });
    if (this.delegations.has(at.cut)) {
      const d = this.delegations.get(at.cut) as Delegation;
      this.delegations.set(at.cut, { servers: [...fresh, ...d.servers], expires: d.expires });
    }
    return fresh;
  }

  /** A CNAME: resolve its target from the root, the chain checked for length and loops. */
  private async restart(
    w: Walk,
    c: Extract<Classified, { kind: 'cname' }>,
    cnameChain: string[],
    ctx: { qname: string; qtype: QueryType; server: string },
  ): Promise<IterativeResult> {
    const chain = [...cnameChain, ...c.cnames];
    if (chain.length > this.maxCnames) {
      throw new DnsError(
        'DNS_CNAME_LOOP',
        `CNAME chain from ${chain[0] ?? w.qname} is longer than ${this.maxCnames}`,
        ctx,
      );
    }
    if (chain.slice(0, -1).some((n) => sameName(n, c.target)) || sameName(c.target, w.qname)) {
      throw new DnsError('DNS_CNAME_LOOP', `CNAME loop: ${[...chain, c.target].join(' -> ')}`, ctx);
    }
    const rest = await this.resolve(c.target, w.qtype, w.budget, w.depth + 1, chain, w.signal);
    return { ...rest, qname: w.qname, referrals: [...w.referrals, ...rest.referrals] };
  }

  /** A referral: checked, then the servers of the new cut (glue, or NS names looked up). */
  private async follow(
    w: Walk,
    at: Position,
    c: Extract<Classified, { kind: 'referral' }>,
    server: string,
    ctx: { qname: string; qtype: QueryType; server: string },
  ): Promise<void> {
    const next = canonicalName(c.cut);
    if (!isUnder(w.qname, next)) {
      throw new DnsError(
        'DNS_LAME',
        `${server} referred ${w.qname} to ${next || '.'}, a zone that does not contain it`,
        ctx,
      );
    }
    if (w.seenCuts.has(next)) {
      throw new DnsError(
        'DNS_REFERRAL_LOOP',
        `referral loop: ${server} referred ${w.qname} back to ${next || '.'} (${[...w.seenCuts].map((s) => s || '.').join(' -> ')})`,
        ctx,
      );
    }
    if (!isUnder(next, at.cut) || next === canonicalName(at.cut)) {
      throw new DnsError(
        'DNS_LAME',
        `${server} gave an upward or sideways referral from ${at.cut || '.'} to ${next || '.'}`,
        ctx,
      );
    }
    w.seenCuts.add(next);
    const port = this.root.port;
    const glue = addressesOf(c.glue)
      .map((host) => ({ host, port }))
      .slice(0, this.maxServers);
    // Name servers without glue (outside the cut: inside it, only glue can reach them).
    const glued = new Set(c.glue.map((g) => canonicalName(g.name)));
    const glueless = c.ns.filter((ns) => !glued.has(canonicalName(ns)) && !isUnder(ns, next));
    let more =
      glueless.length > 0
        ? this.addressesOf(glueless, next, w.budget, w.depth, w.signal)
        : undefined;
    let addresses = glue;
    if (glue.length === 0 && more !== undefined) {
      const found = await more;
      more = undefined;
      if (!Array.isArray(found)) throw found.error;
      addresses = found.slice(0, this.maxServers);
    }
    if (addresses.length === 0) {
      throw new DnsError(
        'DNS_LAME',
        `no address for any name server of ${next}. (${c.ns.join(', ')}): no glue and no A record found`,
        ctx,
      );
    }
    const referral: ReferralStep = {
      server,
      cut: next,
      ns: c.ns,
      addresses: addresses.map(formatServer),
      fromGlue: glue.length > 0,
    };
    w.referrals.push(referral);
    if (c.ttl > 0) {
      this.delegations.set(next, { servers: addresses, expires: this.now() + c.ttl * 1000 });
    }
    at.cut = next;
    at.servers = addresses;
    at.more = more;
    at.referral = referral;
  }

  /**
   * Addresses of the first glueless NS name that has any, found iteratively.
   * Never rejects (nobody may be waiting): an abort or the budget is `{ error }`.
   */
  private async addressesOf(
    names: readonly string[],
    cut: string,
    budget: Budget,
    depth: number,
    signal: AbortSignal | undefined,
  ): Promise<ServerAddress[] | { error: unknown }> {
    if (depth >= this.maxCnames) return [];
    const out: ServerAddress[] = [];
    for (const ns of names) {
      // A name server inside the zone it serves can only be reached by glue.
      if (isUnder(ns, cut)) continue;
      try {
        const r = await this.resolve(ns, 'A', budget, depth + 1, [], signal);
        for (const host of addressesOf(r.records)) out.push({ host, port: this.root.port });
      } catch (e) {
        if (!(e instanceof DnsError) || e.code === 'DNS_ABORTED') return { error: e };
        if (e.code === 'DNS_DEPTH_EXCEEDED') return { error: e };
      }
      if (out.length > 0) break;
    }
    return out;
  }
}
