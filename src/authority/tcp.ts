/**
 * TCP listener (RFC 7766): two-octet length prefix, several queries per
 * connection processed as they arrive (pipelining), each response written as
 * soon as it is ready.
 *
 * Slow and hostile clients (slowloris) cannot hold the listener:
 * - a message must arrive whole within `messageTimeoutMs` of its first octet
 *   (a deadline per message, not reset by each octet);
 * - a connection with no complete query for `idleTimeoutMs` is closed, and
 *   for only `pressureIdleTimeoutMs` while three quarters of the slots are
 *   taken (RFC 7766 section 6.2.3);
 * - one client address holds at most `maxPerClient` connections, all clients
 *   together at most `maxConnections`; refusals are counted and summarised in
 *   one log line per interval, never one line per connection.
 * Partial messages are reassembled in one growing buffer per connection:
 * linear in the octets received however they are segmented.
 *
 * @see RFC 7766 section 6.2.1.1: "servers MUST be able to process pipelined
 * queries" and section 7: "the client MUST match responses to outstanding
 * queries [...] using the Message ID".
 * @see RFC 7766 section 6.2.3: "DNS servers SHOULD have a configurable idle
 * timeout [...] Servers MAY use shorter timeouts when under heavy load".
 */
import net from 'node:net';
import { TRANSPORT_TCP, type Engine } from './engine.ts';
import type { Logger } from './log.ts';
import type { LogSummary } from './log-summary.ts';
import { FrameReader } from './tcp-frames.ts';
import type { Transfers } from '../xfr/out.ts';

/** Octets of unsent responses per connection above which reading pauses until the client reads. */
const MAX_PENDING_WRITE = 256 * 1024;
/** Share of `maxConnections` in use from which the shorter idle timeout applies. */
const PRESSURE_SHARE = 0.75;

export interface TcpOptions {
  /** Close a connection with no complete query for this long (RFC 7766 section 6.2.3). */
  readonly idleTimeoutMs: number;
  /** Refuse (close) connections beyond this many. */
  readonly maxConnections: number;
  /** A message must be received whole within this time of its first octet. */
  readonly messageTimeoutMs: number;
  /** Connections one client address may hold at once. */
  readonly maxPerClient: number;
  /** The idle timeout while 75 % of `maxConnections` are in use. */
  readonly pressureIdleTimeoutMs: number;
}

export interface TcpStats {
  /** Connections open now. */
  open: number;
  accepted: number;
  /** Connections refused, by reason. */
  refusedMax: number;
  refusedPerClient: number;
  /** Connections closed by the server for a slow message or idleness. */
  closedMessageTimeout: number;
  closedIdle: number;
}

export interface TcpListener {
  readonly address: string;
  readonly port: number;
  connections(): number;
  readonly stats: TcpStats;
  close(): Promise<void>;
}

interface Conn {
  readonly socket: net.Socket;
  readonly source: string;
  /** Time of the connection or of its last complete query. */
  lastQuery: number;
  /** Time the first octet of the message being received arrived; 0 when none is pending. */
  partialSince: number;
  readonly frames: FrameReader;
  /** A zone transfer is being written: later queries wait in `queued` (its messages stay consecutive). */
  busy: boolean;
  queued: Buffer[];
}

/** Answer one whole message; false when the connection was closed. */
function answer(
  c: Conn,
  msg: Buffer,
  engine: Engine,
  summary: LogSummary,
  transfers: Transfers | undefined,
  notify?: NotifyHook,
): boolean {
  if (c.busy) {
    c.queued.push(Buffer.from(msg));
    return true;
  }
  // NOTIFY (opcode 4) for a secondary zone (Knot sends it over TCP).
  if (notify !== undefined && msg.length >= 12 && (msg[2]! & 0x78) === 0x20) {
    const out = notify(msg, c.source);
    if (out !== undefined) {
      const framed = Buffer.allocUnsafe(2 + out.length);
      framed.writeUInt16BE(out.length, 0);
      framed.set(out, 2);
      c.socket.write(framed);
      return true;
    }
  }
  if (transfers !== undefined) {
    const progress = () => (c.lastQuery = Date.now());
    const t = transfers.serveTcp(c.socket, msg, engine, c.source, summary, progress);
    if (t !== undefined) {
      c.busy = true;
      void t.then(() => {
        c.busy = false;
        c.lastQuery = Date.now();
        const queued = c.queued.splice(0);
        for (let i = 0; i < queued.length; i++) {
          if (c.socket.destroyed) return;
          if (!answer(c, queued[i]!, engine, summary, transfers, notify)) return;
          if (c.busy) {
            c.queued.unshift(...queued.slice(i + 1));
            return;
          }
        }
      });
      return true;
    }
  }
  let out: Buffer | undefined;
  const formerr = engine.counters.formerr;
  try {
    out = engine.respond(msg, TRANSPORT_TCP, c.source);
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    summary.note('query_failed', c.source, 'tcp', 'error', error);
    out = undefined;
  }
  // A TSIG-signed query (a secondary's SOA check) gets a signed answer.
  if (out !== undefined && transfers !== undefined) {
    out = transfers.signAnswer(msg, out, engine.lastQuestionEnd);
  }
  if (out === undefined) {
    // A message that cannot even be answered with FORMERR: the stream is not DNS.
    c.socket.destroy();
    return false;
  }
  if (engine.counters.formerr !== formerr) summary.note('formerr_sent', c.source, 'tcp');
  const frame = Buffer.allocUnsafe(2 + out.length);
  frame.writeUInt16BE(out.length, 0);
  out.copy(frame, 2);
  // Backpressure: a client that sends but does not read must not make us buffer without bound.
  const s = c.socket;
  if (!s.write(frame) && s.writableLength > MAX_PENDING_WRITE && !s.isPaused()) {
    s.pause();
    s.once('drain', () => s.resume());
  }
  return true;
}

function onData(
  c: Conn,
  chunk: Buffer,
  engine: Engine,
  summary: LogSummary,
  transfers: Transfers | undefined,
  notify: NotifyHook | undefined,
): void {
  const done = c.frames.push(chunk, (msg) => answer(c, msg, engine, summary, transfers, notify));
  if (done < 0) return;
  if (done > 0) {
    // The deadline is per message: the next one starts now if its first octets are here.
    c.lastQuery = Date.now();
    c.partialSince = c.frames.pending > 0 ? c.lastQuery : 0;
  } else if (c.partialSince === 0) c.partialSince = Date.now();
}

/** Close connections past their message deadline or idle timeout (one sweep for all, not a timer per octet). */
function sweep(
  conns: ReadonlySet<Conn>,
  options: TcpOptions,
  stats: TcpStats,
  summary: LogSummary,
): void {
  const now = Date.now();
  const pressureAt = Math.max(1, Math.ceil(options.maxConnections * PRESSURE_SHARE));
  const idleMs =
    conns.size >= pressureAt
      ? Math.min(options.pressureIdleTimeoutMs, options.idleTimeoutMs)
      : options.idleTimeoutMs;
  for (const c of conns) {
    if (c.partialSince !== 0 && now - c.partialSince > options.messageTimeoutMs) {
      stats.closedMessageTimeout++;
      summary.note('tcp_connections_closed', c.source, 'messageTimeout', 'info');
      c.socket.destroy();
    } else if (now - c.lastQuery > idleMs) {
      stats.closedIdle++;
      c.socket.destroy();
    }
  }
}

interface Table {
  readonly conns: Set<Conn>;
  readonly perClient: Map<string, number>;
  readonly stats: TcpStats;
  readonly transfers: Transfers | undefined;
  readonly notify: NotifyHook | undefined;
}

/** NOTIFY in for secondary zones: the answer, or undefined for a message that is not a NOTIFY. */
export type NotifyHook = (msg: Uint8Array, source: string) => Uint8Array | undefined;

function refuse(
  socket: net.Socket,
  source: string,
  reason: 'maxConnections' | 'perClient',
  stats: TcpStats,
  summary: LogSummary,
): void {
  if (reason === 'maxConnections') stats.refusedMax++;
  else stats.refusedPerClient++;
  summary.note('tcp_connections_refused', source, reason);
  socket.on('error', () => undefined);
  socket.destroy();
}

/** Admit a new connection, or refuse it when the listener or its client is at the cap. */
function accept(
  socket: net.Socket,
  t: Table,
  options: TcpOptions,
  summary: LogSummary,
  engine: () => Engine,
): void {
  const { conns, perClient, stats } = t;
  const source = socket.remoteAddress ?? '';
  if (conns.size >= options.maxConnections) {
    return refuse(socket, source, 'maxConnections', stats, summary);
  }
  const held = perClient.get(source) ?? 0;
  if (held >= options.maxPerClient) return refuse(socket, source, 'perClient', stats, summary);
  perClient.set(source, held + 1);
  const c: Conn = {
    socket,
    source,
    lastQuery: Date.now(),
    partialSince: 0,
    frames: new FrameReader(),
    busy: false,
    queued: [],
  };
  conns.add(c);
  stats.accepted++;
  stats.open = conns.size;
  socket.on('error', () => socket.destroy());
  socket.on('close', () => {
    if (!conns.delete(c)) return;
    stats.open = conns.size;
    const n = (perClient.get(source) ?? 1) - 1;
    if (n <= 0) perClient.delete(source);
    else perClient.set(source, n);
  });
  socket.on('data', (chunk: Buffer) => onData(c, chunk, engine(), summary, t.transfers, t.notify));
}

export async function listenTcp(
  engine: () => Engine,
  host: string,
  port: number,
  options: TcpOptions,
  log: Logger,
  summary: LogSummary,
  /** SO_REUSEPORT: several answering threads listen on the same port (`serve --workers`). */
  reusePort = false,
  transfers?: Transfers,
  notify?: NotifyHook,
): Promise<TcpListener> {
  const conns = new Set<Conn>();
  const perClient = new Map<string, number>();
  const stats: TcpStats = {
    open: 0,
    accepted: 0,
    refusedMax: 0,
    refusedPerClient: 0,
    closedMessageTimeout: 0,
    closedIdle: 0,
  };
  const table: Table = { conns, perClient, stats, transfers, notify };
  const server = net.createServer({ noDelay: true }, (socket) =>
    accept(socket, table, options, summary, engine),
  );

  const tickMs = Math.max(
    20,
    Math.min(
      250,
      options.messageTimeoutMs / 4,
      options.idleTimeoutMs / 4,
      options.pressureIdleTimeoutMs / 4,
    ),
  );
  const sweeper = setInterval(() => sweep(conns, options, stats, summary), tickMs);
  sweeper.unref();

  server.on('error', (e) => log.warn('tcp_server_error', { error: e.message }));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      const ipv6Only = host.includes(':');
      server.listen({ host, port, exclusive: true, ipv6Only, reusePort }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    clearInterval(sweeper);
    throw e;
  }
  const addr = server.address() as net.AddressInfo;
  return {
    address: addr.address,
    port: addr.port,
    connections: () => conns.size,
    stats,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(sweeper);
        for (const c of conns) c.socket.destroy();
        server.close(() => resolve());
      }),
  };
}
