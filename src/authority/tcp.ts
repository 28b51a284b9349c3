/**
 * TCP listener (RFC 7766): length-prefixed, pipelined queries. A message must arrive whole within
 * `messageTimeoutMs`; an idle connection closes after `idleTimeoutMs`, sooner under pressure
 * (section 6.2.3); `maxPerClient` and `maxConnections` bound connections, refusals summarised.
 */
import net from 'node:net';
import type { ServerConfig } from '../config/server.ts';
import type { Logger } from './log.ts';
import type { LogSummary } from './log-summary.ts';
import { FrameReader } from './tcp-frames.ts';
import { TRANSPORT_TCP, type Outcome, type QueryPipeline } from './pipeline.ts';

/** Octets of unsent responses per connection above which reading pauses until the client reads. */
const MAX_PENDING_WRITE = 256 * 1024;
/** Writing time after which a transfer lets the event loop run (UDP and other TCP clients). */
const SLICE_MS = 2;
/** Share of `maxConnections` in use from which the shorter idle timeout applies. */
const PRESSURE_SHARE = 0.75;

type TcpOptions = ServerConfig['tcp'];

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

/** A message with its two-octet length prefix (RFC 7766 section 8). */
function frame(m: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(2 + m.length);
  out.writeUInt16BE(m.length, 0);
  out.set(m, 2);
  return out;
}

/** Answer one whole message; false when the connection was closed. */
function answer(c: Conn, msg: Buffer, pipeline: QueryPipeline): boolean {
  if (c.busy) {
    c.queued.push(Buffer.from(msg));
    return true;
  }
  const o = pipeline.handle(msg, TRANSPORT_TCP, c.source);
  if (o.kind === 'drop') {
    // A message that cannot even be answered with FORMERR: the stream is not DNS.
    c.socket.destroy();
    return false;
  }
  if (o.kind === 'transfer') {
    c.busy = true;
    void stream(c, o.transfer).then(() => afterTransfer(c, pipeline));
    return true;
  }
  // Backpressure: a client that sends but does not read must not make us buffer without bound.
  const s = c.socket;
  if (!s.write(frame(o.bytes)) && s.writableLength > MAX_PENDING_WRITE && !s.isPaused()) {
    s.pause();
    s.once('drain', () => s.resume());
  }
  return true;
}

/** A transfer is written: answer the queries that arrived meanwhile, in order. */
function afterTransfer(c: Conn, pipeline: QueryPipeline): void {
  c.busy = false;
  c.lastQuery = Date.now();
  const queued = c.queued.splice(0);
  for (let i = 0; i < queued.length; i++) {
    if (c.socket.destroyed) return;
    if (!answer(c, queued[i]!, pipeline)) return;
    if (c.busy) {
      c.queued.unshift(...queued.slice(i + 1));
      return;
    }
  }
}

/** Until the socket drains (resolves) or closes (rejects). */
function drained(socket: net.Socket): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', closed);
      resolve();
    };
    const closed = () => {
      socket.off('drain', done);
      reject(new Error('connection closed by the peer'));
    };
    socket.once('drain', done);
    socket.once('close', closed);
  });
}

/** Write a transfer's messages framed, waiting for drain (a slow secondary holds its connection, not our memory). */
async function stream(c: Conn, t: Extract<Outcome, { kind: 'transfer' }>['transfer']) {
  const socket = c.socket;
  let n = 0;
  try {
    let slice = performance.now();
    for (let m = t.next(); m !== undefined; m = t.next()) {
      if (socket.destroyed) throw new Error('connection closed by the peer');
      n++;
      c.lastQuery = Date.now();
      const wrote = socket.write(frame(m));
      // The kernel may take a whole zone at once: yield every few ms so queries keep being answered.
      if (wrote && performance.now() - slice > SLICE_MS) {
        await new Promise<void>((r) => setImmediate(r));
        slice = performance.now();
      }
      if (!wrote) {
        await drained(socket);
        slice = performance.now();
      }
    }
  } catch (e) {
    t.end(n, e instanceof Error ? e : new Error(String(e)));
    return;
  }
  t.end(n);
}

function onData(c: Conn, chunk: Buffer, pipeline: QueryPipeline): void {
  const done = c.frames.push(chunk, (msg) => answer(c, msg, pipeline));
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
  readonly pipeline: QueryPipeline;
}

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
function accept(socket: net.Socket, t: Table, options: TcpOptions, summary: LogSummary): void {
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
  socket.on('data', (chunk: Buffer) => onData(c, chunk, t.pipeline));
}

export async function listenTcp(
  pipeline: QueryPipeline,
  host: string,
  port: number,
  options: TcpOptions,
  log: Logger,
  summary: LogSummary,
  /** SO_REUSEPORT: several answering threads listen on the same port (`serve --workers`). */
  reusePort = false,
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
  const table: Table = { conns, perClient, stats, pipeline };
  const server = net.createServer({ noDelay: true }, (socket) =>
    accept(socket, table, options, summary),
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
