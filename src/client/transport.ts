/**
 * A stub DNS transport of our own: UDP with a TCP retry on truncation.
 *
 * - Unpredictable query ID (CSPRNG) and source port (RFC 5452 section 9.1): a
 *   small pool of kernel-bound sockets, each replaced after `socketReuse`
 *   queries.
 * - A response is believed only when source, ID, QR, opcode and question
 *   match (RFC 5452 section 4.3); anything else is ignored and counted.
 * - EDNS(0) payload 1232 (RFC 6891 section 6.2.5, no IP fragmentation);
 *   TC=1 means ask again over TCP (RFC 1035 4.2.1, RFC 7766 section 8).
 * - Per-try timeout, several tries per server, servers in turn.
 */
import dgram from 'node:dgram';
import { lookup as dnsLookup } from 'node:dns';
import net from 'node:net';
import { getRandomValues } from 'node:crypto';
import type { QueryType } from '../dns/core/rr/types.ts';
import type { DnsProtocol } from '../ddds/core/trace.ts';
import { abortError, encodeQuery, pickWorse, questionMismatch, rcodeError } from './checks.ts';
import { DnsError } from './errors.ts';
import { BoundedMemo } from '../kit/core/memo.ts';
import { formatServer, type ServerAddress } from './server-address.ts';
import { tcpRoundTrip } from './tcp.ts';
import type { ResolutionCode } from '../ddds/core/codes.ts';
import {
  WireError,
  decodeResponse,
  knownQuestion,
  readHeader,
  type KnownQuestion,
  type Message,
} from './wire.ts';

export interface TransportOptions {
  /** Time to wait for one try, in ms (default 2000). */
  readonly timeoutMs?: number;
  /** Tries per server (default 2). */
  readonly tries?: number;
  /** EDNS(0) UDP payload size (default 1232); 0 disables EDNS. */
  readonly udpPayloadSize?: number;
  /** Largest message accepted over TCP, in bytes (default 65535). */
  readonly maxMessageBytes?: number;
  /** Most records accepted in one response (default 1000). */
  readonly maxRecords?: number;
  /** UDP sockets kept per address family (default 4). */
  readonly poolSize?: number;
  /** Queries sent from one UDP socket before it is replaced (default 16). */
  readonly socketReuse?: number;
  /** DO bit on every query (RFC 3225): DNSSEC records, and AD from a validating resolver. */
  readonly dnssecOk?: boolean;
}

export interface QueryOptions {
  readonly servers: readonly ServerAddress[];
  /** RD bit (default true: a stub asks a recursive server or an authoritative one). */
  readonly recursionDesired?: boolean;
  /** CD bit (RFC 4035 section 3.2.2): a validating resolver answers without validating. */
  readonly checkingDisabled?: boolean;
  readonly signal?: AbortSignal;
}

/** The header flag bits a query sets: RD and CD. */
function queryFlags(o: QueryOptions): number {
  return ((o.recursionDesired ?? true) ? 0x0100 : 0) | (o.checkingDisabled ? 0x0010 : 0);
}

/** One failed try, kept for the trace. */
export interface TryNote {
  readonly server: string;
  readonly code: ResolutionCode;
  readonly message: string;
}

export interface Exchange {
  readonly message: Message;
  readonly server: ServerAddress;
  /** The URL asked, for transports that have one (DoH): the trace names it instead of `server`. */
  readonly via?: string;
  readonly protocol: DnsProtocol;
  readonly bytes: number;
  /** The response as received (what a validator checks signatures over). */
  readonly wire?: Uint8Array;
  readonly rttMs: number;
  /** Responses ignored because they did not match (ID, source, question, malformed). */
  readonly ignored: number;
  /** Failed tries before this answer. */
  readonly failures: readonly TryNote[];
}

export interface TransportStats {
  queries: number;
  udpSent: number;
  tcpSent: number;
  ignored: number;
  timeouts: number;
}

/** Anything that can answer a question: the real transport or a test double. */
export interface DnsTransportLike {
  query(qname: string, qtype: QueryType, options: QueryOptions): Promise<Exchange>;
}

const DEFAULTS = {
  timeoutMs: 2000,
  tries: 2,
  udpPayloadSize: 1232,
  maxMessageBytes: 65535,
  maxRecords: 1000,
  poolSize: 4,
  socketReuse: 16,
  dnssecOk: false,
};

/** Random 16-bit IDs from the CSPRNG, drawn in batches. */
class IdSource {
  private readonly pool = new Uint16Array(512);
  private next = this.pool.length;
  take(): number {
    if (this.next >= this.pool.length) {
      getRandomValues(this.pool);
      this.next = 0;
    }
    return this.pool[this.next++] as number;
  }
}

/** What a UDP try gives: the decoded answer, or undefined after TC=1. */
interface UdpOutcome {
  readonly message: Message | undefined;
  readonly wire: Uint8Array;
  readonly ignored: number;
}

/** One UDP try in flight. */
class UdpTry {
  /** Told once when the try ends, however it ends. */
  readonly owner: DnsTransport;
  readonly server: ServerAddress;
  /** The server's address as the kernel reports a source (for the source check). */
  readonly host: string;
  readonly qname: string;
  readonly qtype: string;
  readonly maxRecords: number;
  readonly pool: UdpPool;
  readonly slot: Slot;
  readonly id: number;
  readonly deadline: number;
  readonly signal: AbortSignal | undefined;
  /** The question as we sent it (responses echoing it byte for byte skip its decoding). */
  known: KnownQuestion | undefined = undefined;
  ignored = 0;
  badReason: string | undefined = undefined;
  done = false;
  resolve: (v: UdpOutcome) => void = () => undefined;
  reject: (e: DnsError) => void = () => undefined;
  onAbort: (() => void) | undefined = undefined;

  constructor(
    owner: DnsTransport,
    server: ServerAddress,
    host: string,
    qname: string,
    qtype: string,
    maxRecords: number,
    pool: UdpPool,
    slot: Slot,
    id: number,
    deadline: number,
    signal: AbortSignal | undefined,
  ) {
    this.owner = owner;
    this.server = server;
    this.host = host;
    this.qname = qname;
    this.qtype = qtype;
    this.maxRecords = maxRecords;
    this.pool = pool;
    this.slot = slot;
    this.id = id;
    this.deadline = deadline;
    this.signal = signal;
  }

  fromServer(rinfo: dgram.RemoteInfo): boolean {
    return (
      rinfo.port === this.server.port &&
      (rinfo.address === this.host || normalizeAddress(rinfo.address) === this.host)
    );
  }

  ctx(): { qname: string; qtype: string; server: string } {
    return { qname: this.qname, qtype: this.qtype, server: formatServer(this.server) };
  }

  settle(buf: Buffer, message: Message | undefined): void {
    if (this.done) return;
    this.owner.endTry(this);
    this.resolve({ message, wire: buf, ignored: this.ignored });
  }

  /** End the try with this error (abort, send failure, deadline, bad answer); once. */
  end(error: DnsError): void {
    if (this.done) return;
    this.owner.endTry(this);
    this.reject(error);
  }

  fail(code: ResolutionCode, message: string, cause?: unknown): void {
    const ctx = this.ctx();
    this.end(
      new DnsError(code, `${ctx.server} for ${this.qname} ${this.qtype}: ${message}`, ctx, cause),
    );
  }
}

interface Slot {
  readonly socket: dgram.Socket;
  readonly pending: Map<number, UdpTry>;
  uses: number;
  retired: boolean;
  closed: boolean;
}

type Family = 'udp4' | 'udp6';

/**
 * dgram's `dns.lookup` answers an IP literal only on the next tick: answer it
 * at once, so the datagram leaves during `send`. Names go through `dns.lookup`.
 */
function literalLookup(
  literalKinds: BoundedMemo<string, number>,
  address: string,
  family: unknown,
  callback: (err: NodeJS.ErrnoException | null, address: string, family: number) => void,
): void {
  let kind = literalKinds.get(address);
  if (kind === undefined) {
    kind = literalKinds.set(address, net.isIP(address));
  }
  if (kind !== 0) {
    callback(null, address, kind);
    return;
  }
  dnsLookup(address, family as number, callback);
}

function normalizeAddress(a: string): string {
  const bare = (a.split('%')[0] ?? a).toLowerCase();
  return bare.startsWith('::ffff:') && net.isIPv4(bare.slice(7)) ? bare.slice(7) : bare;
}

/**
 * A rotating pool of UDP sockets for one address family, each bound to a
 * random ephemeral port and replaced after `reuse` queries (the replacement
 * opened at once, so a query never waits for a socket).
 */
class UdpPool {
  private readonly slots: Slot[] = [];
  /** Retired sockets still waiting for answers. */
  private readonly draining = new Set<Slot>();
  private closing = false;
  private cursor = 0;
  private readonly family: Family;
  private readonly size: number;
  private readonly reuse: number;
  private readonly stats: TransportStats;
  /** `net.isIP` per destination text. */
  private readonly literalKinds = new BoundedMemo<string, number>(256);
  private readonly lookup = (
    address: string,
    family: unknown,
    callback: (err: NodeJS.ErrnoException | null, address: string, family: number) => void,
  ): void => literalLookup(this.literalKinds, address, family, callback);

  constructor(family: Family, size: number, reuse: number, stats: TransportStats) {
    this.family = family;
    this.size = Math.max(1, size);
    this.reuse = Math.max(1, reuse);
    this.stats = stats;
  }

  /** The socket for the next query: sequential traffic stays on one; overlapping ones spread (RFC 5452 9.2). */
  slot(): Slot {
    let s = this.slots[this.cursor];
    if (s === undefined || s.retired || s.pending.size > 0) {
      this.cursor = (this.cursor + 1) % this.size;
      s = this.slots[this.cursor];
      if (s === undefined || s.retired) {
        s = this.open();
        this.slots[this.cursor] = s;
      }
    }
    s.uses++;
    if (s.uses >= this.reuse) {
      s.retired = true;
      this.draining.add(s);
      const retired = s;
      const cursor = this.cursor;
      setImmediate(() => {
        if (!this.closing && this.slots[cursor] === retired) this.slots[cursor] = this.open();
        this.closeIfIdle(retired);
      });
    }
    return s;
  }

  private open(): Slot {
    const socket = dgram.createSocket({ type: this.family, lookup: this.lookup });
    const slot: Slot = { socket, pending: new Map(), uses: 0, retired: false, closed: false };
    socket.on('message', (msg, rinfo) => this.receive(slot, msg, rinfo));
    // Unconnected UDP sockets report few errors: the per-try deadlines decide.
    socket.on('error', () => undefined);
    socket.bind(0);
    socket.unref();
    return slot;
  }

  private receive(slot: Slot, msg: Buffer, rinfo: dgram.RemoteInfo): void {
    const h = readHeader(msg);
    const pending = h ? slot.pending.get(h.id) : undefined;
    if (!h || !pending) {
      this.stats.ignored++;
      // Blame the packet on a query to that server, so its error can say why.
      for (const p of slot.pending.values()) {
        if (p.fromServer(rinfo)) {
          p.ignored++;
          p.badReason = h
            ? `response ID ${h.id} matches no query in flight`
            : `${msg.length}-byte packet is shorter than a DNS header`;
        }
      }
      return;
    }
    if (!pending.fromServer(rinfo)) {
      this.ignore(pending, `response from unexpected source ${rinfo.address}:${rinfo.port}`);
      return;
    }
    if (!h.qr || h.opcode !== 0) {
      this.ignore(pending, 'packet is not a response to a standard query (QR/opcode)');
      return;
    }
    if (h.tc) {
      // Truncated: only the header is trusted; the caller retries over TCP.
      pending.settle(msg, undefined);
      return;
    }
    let message: Message;
    try {
      message = decodeResponse(msg, pending.maxRecords, pending.known);
    } catch (e) {
      if (e instanceof WireError && e.code === 'DNS_RRSET_TOO_LARGE') {
        pending.fail(e.code, e.message);
        return;
      }
      this.ignore(pending, (e as Error).message);
      return;
    }
    const mismatch = questionMismatch(message, pending.qname, pending.qtype);
    if (mismatch) {
      this.ignore(pending, mismatch);
      return;
    }
    pending.settle(msg, message);
  }

  private ignore(pending: UdpTry, reason: string): void {
    pending.ignored++;
    this.stats.ignored++;
    pending.badReason = reason;
  }

  release(slot: Slot, id: number): void {
    slot.pending.delete(id);
    if (slot.retired && slot.pending.size === 0) this.closeIfIdle(slot);
  }

  freeId(slot: Slot, ids: IdSource): number {
    for (;;) {
      const id = ids.take();
      if (!slot.pending.has(id)) return id;
    }
  }

  private closeIfIdle(slot: Slot): void {
    if (slot.closed || slot.pending.size > 0) return;
    slot.closed = true;
    this.draining.delete(slot);
    try {
      slot.socket.close();
    } catch {
      // already closed
    }
  }

  close(): void {
    this.closing = true;
    for (const s of [...this.slots, ...this.draining]) {
      if (!s) continue;
      s.retired = true;
      s.pending.clear();
      this.closeIfIdle(s);
    }
    this.slots.length = 0;
  }
}

/** Encoded queries kept as templates (only the ID changes); bounded. */
const TEMPLATE_MAX = 1024;

/** The stub transport. One instance per client; `close()` when done. */
export class DnsTransport implements DnsTransportLike {
  readonly stats: TransportStats = { queries: 0, udpSent: 0, tcpSent: 0, ignored: 0, timeouts: 0 };
  private readonly opts: Required<TransportOptions>;
  private readonly ids = new IdSource();
  private readonly pools: Record<Family, UdpPool>;
  private readonly templates = new BoundedMemo<
    string,
    { qtype: string; rd: number; edns: boolean; known: KnownQuestion }[]
  >(TEMPLATE_MAX);
  /** Per server host: the socket family and the address as a packet source shows it. */
  private readonly hosts = new BoundedMemo<string, { family: Family; source: string }>(256);
  /** UDP tries in flight, in deadline order (= insertion order), and one timer for the earliest. */
  private readonly waiting = new Set<UdpTry>();
  private timer: NodeJS.Timeout | undefined;
  private readonly onTimer = () => this.expire();

  constructor(options: TransportOptions = {}) {
    this.opts = { ...DEFAULTS, ...stripUndefined(options) };
    this.pools = {
      udp4: new UdpPool('udp4', this.opts.poolSize, this.opts.socketReuse, this.stats),
      udp6: new UdpPool('udp6', this.opts.poolSize, this.opts.socketReuse, this.stats),
    };
  }

  /**
   * Ask the servers in turn until one answers NOERROR or NXDOMAIN. Throws the
   * worst DnsError met (rcode, else DNS_BAD_RESPONSE, else DNS_TIMEOUT).
   */
  query(qname: string, qtype: QueryType, options: QueryOptions): Promise<Exchange> {
    const server = options.servers[0];
    this.stats.queries++;
    if (server === undefined || this.opts.tries < 1 || options.signal?.aborted === true) {
      return this.queryLoop(qname, qtype, options, undefined);
    }
    // The common case without the retry loop's async frames: the first UDP try answers.
    const rd = queryFlags(options);
    const edns = this.opts.udpPayloadSize > 0;
    const started = performance.now();
    let udp: Promise<UdpOutcome>;
    try {
      udp = this.udpExchange(server, qname, qtype, rd, edns, options.signal, started);
    } catch (e) {
      // As from an async function: a synchronous throw (a bad port) is a rejection.
      return Promise.reject(e as Error);
    }
    return udp.then(
      (udp): Exchange | Promise<Exchange> => {
        const m = udp.message;
        if (m !== undefined && (m.rcode === 'NOERROR' || m.rcode === 'NXDOMAIN')) {
          return answered(m, server, 'udp', udp.wire, started, udp.ignored, []);
        }
        return this.queryLoop(qname, qtype, options, { udp, started });
      },
      (error: unknown) => this.queryLoop(qname, qtype, options, { error }),
    );
  }

  /** Servers in turn, tries, EDNS fallback, TCP on TC; `first`: the try `query` made. */
  private async queryLoop(
    qname: string,
    qtype: QueryType,
    options: QueryOptions,
    first: { udp: UdpOutcome; started: number } | { error: unknown } | undefined,
  ): Promise<Exchange> {
    const { servers, signal } = options;
    const rd = queryFlags(options);
    if (servers.length === 0) {
      throw new DnsError('DNS_NO_SERVERS', `no DNS server to ask for ${qname} ${qtype}`, {
        qname,
        qtype,
      });
    }
    const failures: TryNote[] = [];
    let last: DnsError | undefined;
    for (const server of servers) {
      let edns = this.opts.udpPayloadSize > 0;
      for (let t = 0; t < this.opts.tries; t++) {
        if (signal?.aborted) throw abortError(qname, qtype);
        try {
          let udp: UdpOutcome;
          let started: number;
          if (first === undefined) {
            started = performance.now();
            udp = await this.udpExchange(server, qname, qtype, rd, edns, signal, started);
          } else {
            const f = first;
            first = undefined;
            if ('error' in f) throw f.error;
            ({ udp, started } = f);
          }
          let ex: Exchange;
          if (udp.message) {
            ex = answered(udp.message, server, 'udp', udp.wire, started, udp.ignored, failures);
          } else {
            // TC=1: the header is all we trust; ask again over TCP.
            const tcp = await this.tcpExchange(server, qname, qtype, rd, edns, signal);
            ex = answered(tcp.message, server, 'tcp', tcp.wire, started, udp.ignored, failures);
          }
          const rcode = ex.message.rcode;
          if (rcode === 'NOERROR' || rcode === 'NXDOMAIN') return ex;
          const hadOpt = ex.message.additionals.some((a) => a.type === 'OPT');
          if (rcode === 'FORMERR' && edns && !hadOpt) {
            // @see RFC 6891 section 7: a responder without EDNS answers FORMERR;
            // "the requestor SHOULD retry without EDNS".
            edns = false;
            failures.push({
              server: formatServer(server),
              code: 'DNS_FORMERR',
              message: 'FORMERR to an EDNS query: retrying without EDNS',
            });
            t--;
            continue;
          }
          throw rcodeError(rcode, qname, qtype, formatServer(server));
        } catch (e) {
          if (!(e instanceof DnsError)) throw e;
          if (e.code === 'DNS_ABORTED') throw e;
          failures.push({ server: formatServer(server), code: e.code, message: e.message });
          last = pickWorse(last, e);
          // Only timeouts and bad packets are worth another try of the same server.
          if (e.code !== 'DNS_TIMEOUT' && e.code !== 'DNS_BAD_RESPONSE') break;
        }
      }
    }
    const summary = failures.map((f) => `${f.server}: ${f.code}`).join(', ');
    const base = last as DnsError;
    throw new DnsError(
      base.code,
      servers.length === 1 && failures.length <= 1
        ? base.message
        : `${base.message} (tries: ${summary})`,
      { qname, qtype, server: base.server },
      base,
    );
  }

  /** The query in wire form with this ID: its template (encoded once per question) copied. */
  private static stamped(known: KnownQuestion, id: number): Buffer {
    const query = Buffer.from(known.wire);
    query.writeUInt16BE(id, 0);
    return query;
  }

  /** The encoded query with ID 0, and its question decoded (kept per question, bounded). */
  private template(qname: string, qtype: QueryType, rd: number, edns: boolean): KnownQuestion {
    let list = this.templates.get(qname);
    if (list !== undefined) {
      for (const t of list) {
        if (t.qtype === qtype && t.rd === rd && t.edns === edns) return t.known;
      }
    }
    const wire = encodeQuery(
      qname,
      qtype,
      rd,
      edns ? this.opts.udpPayloadSize : 0,
      this.opts.dnssecOk,
    );
    const known = knownQuestion(wire);
    list ??= this.templates.set(qname, []);
    list.push({ qtype, rd, edns, known });
    return known;
  }

  private hostInfo(host: string): { family: Family; source: string } {
    let info = this.hosts.get(host);
    if (info === undefined) {
      info = {
        family: net.isIPv6(host.split('%')[0] ?? '') ? 'udp6' : 'udp4',
        source: normalizeAddress(host),
      };
      this.hosts.set(host, info);
    }
    return info;
  }

  private udpExchange(
    server: ServerAddress,
    qname: string,
    qtype: QueryType,
    rd: number,
    edns: boolean,
    signal: AbortSignal | undefined,
    started: number,
  ): Promise<UdpOutcome> {
    const info = this.hostInfo(server.host);
    const pool = this.pools[info.family];
    const slot = pool.slot();
    const id = pool.freeId(slot, this.ids);
    const known = this.template(qname, qtype, rd, edns);
    const query = DnsTransport.stamped(known, id);
    const t = new UdpTry(
      this,
      server,
      info.source,
      qname,
      qtype,
      this.opts.maxRecords,
      pool,
      slot,
      id,
      started + this.opts.timeoutMs,
      signal,
    );
    t.known = known;
    const promise = new Promise<UdpOutcome>((resolve, reject) => {
      t.resolve = resolve;
      t.reject = reject;
    });
    if (signal !== undefined) {
      const onAbort = () => t.end(abortError(qname, qtype));
      t.onAbort = onAbort;
      signal.addEventListener('abort', onAbort, { once: true });
    }
    slot.pending.set(id, t);
    this.waiting.add(t);
    if (this.timer === undefined) {
      this.timer = setTimeout(this.onTimer, this.opts.timeoutMs);
    } else if (this.waiting.size === 1) {
      this.timer.ref();
    }
    this.stats.udpSent++;
    try {
      slot.socket.send(query, server.port, server.host, (err) => {
        if (err && !t.done) {
          const ctx = t.ctx();
          t.end(
            new DnsError('DNS_NETWORK', `cannot send to ${ctx.server}: ${err.message}`, ctx, err),
          );
        }
      });
    } catch (e) {
      // A synchronous refusal (a bad port): the try is over; the caller gets the error.
      this.endTry(t);
      throw e;
    }
    return promise;
  }

  /** A try ends (answer, failure, abort or deadline): forget it everywhere. */
  endTry(t: UdpTry): void {
    t.done = true;
    this.waiting.delete(t);
    // An idle transport must not keep the process alive.
    if (this.waiting.size === 0) this.timer?.unref();
    if (t.onAbort !== undefined) t.signal?.removeEventListener('abort', t.onAbort);
    t.pool.release(t.slot, t.id);
  }

  /** The timer: fail the tries whose deadline passed, and wait for the next deadline. */
  private expire(): void {
    this.timer = undefined;
    const now = performance.now();
    for (const t of this.waiting) {
      if (t.deadline > now) break;
      this.stats.timeouts++;
      const ctx = t.ctx();
      const within = `from ${ctx.server} for ${t.qname} ${t.qtype} within ${this.opts.timeoutMs} ms`;
      t.end(
        t.badReason === undefined
          ? new DnsError('DNS_TIMEOUT', `no answer ${within}`, ctx)
          : new DnsError(
              'DNS_BAD_RESPONSE',
              `no valid answer ${within}; ignored ${t.ignored} bad response(s), last: ${t.badReason}`,
              ctx,
            ),
      );
    }
    const next = this.waiting.values().next();
    if (!next.done) {
      this.timer = setTimeout(this.onTimer, Math.max(1, Math.ceil(next.value.deadline - now)));
    }
  }

  private tcpExchange(
    server: ServerAddress,
    qname: string,
    qtype: QueryType,
    rd: number,
    edns: boolean,
    signal: AbortSignal | undefined,
  ): Promise<{ message: Message; wire: Uint8Array }> {
    const id = this.ids.take();
    const serverText = formatServer(server);
    this.stats.tcpSent++;
    return tcpRoundTrip({
      host: server.host,
      port: server.port,
      query: DnsTransport.stamped(this.template(qname, qtype, rd, edns), id),
      timeoutMs: this.opts.timeoutMs,
      maxMessageBytes: this.opts.maxMessageBytes,
      signal,
      ctx: { qname, qtype, server: serverText },
      aborted: () => abortError(qname, qtype),
      onTimeout: () => this.stats.timeouts++,
    }).then((all) => ({
      message: this.checkTcp(all, id, qname, qtype, serverText),
      wire: all,
    }));
  }

  private checkTcp(buf: Buffer, id: number, qname: string, qtype: string, server: string): Message {
    const ctx = { qname, qtype, server };
    let message: Message;
    try {
      message = decodeResponse(buf, this.opts.maxRecords);
    } catch (e) {
      const w = e as WireError;
      throw new DnsError(w.code ?? 'DNS_BAD_RESPONSE', `${server} over TCP: ${w.message}`, ctx, e);
    }
    if (message.id !== id || !message.qr || message.opcode !== 'QUERY') {
      throw new DnsError(
        'DNS_BAD_RESPONSE',
        `${server} over TCP answered with ID ${message.id} (expected ${id}) or a non-response`,
        ctx,
      );
    }
    const mismatch = questionMismatch(message, qname, qtype);
    if (mismatch) throw new DnsError('DNS_BAD_RESPONSE', `${server} over TCP: ${mismatch}`, ctx);
    if (message.tc) {
      // RFC 7766 section 8: over TCP the whole answer fits (65,535 bytes); a
      // truncated one is not an answer (its sections may be cut anywhere).
      throw new DnsError(
        'DNS_BAD_RESPONSE',
        `${server} over TCP answered with TC=1 (truncated): not a usable answer`,
        ctx,
      );
    }
    return message;
  }

  /** Close the UDP sockets. Queries in flight fail with their timers. */
  close(): void {
    this.pools.udp4.close();
    this.pools.udp6.close();
  }
}

/** A usable answer, over UDP or over TCP after TC=1. */
function answered(
  message: Message,
  server: ServerAddress,
  protocol: 'udp' | 'tcp',
  wire: Uint8Array,
  started: number,
  ignored: number,
  failures: readonly TryNote[],
): Exchange {
  return {
    message,
    server,
    protocol,
    bytes: wire.length,
    wire,
    rttMs: performance.now() - started,
    ignored,
    failures,
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o))
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
