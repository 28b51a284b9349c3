/**
 * TCP listener (RFC 7766): two-octet length prefix, several queries per
 * connection processed as they arrive (pipelining), each response written as
 * soon as it is ready; an idle timeout and a cap on connections.
 *
 * @see RFC 7766 section 6.2.1.1: "servers MUST be able to process pipelined
 * queries" and section 7: "the client MUST match responses to outstanding
 * queries [...] using the Message ID".
 */
import net from 'node:net';
import { TRANSPORT_TCP, type Engine } from './engine.ts';
import type { Logger } from './log.ts';

/** Octets of unsent responses per connection above which reading pauses until the client reads. */
const MAX_PENDING_WRITE = 256 * 1024;

export interface TcpOptions {
  /** Close a connection with no complete query for this long (RFC 7766 section 6.2.3). */
  readonly idleTimeoutMs: number;
  /** Refuse (close) connections beyond this many. */
  readonly maxConnections: number;
}

export interface TcpListener {
  readonly address: string;
  readonly port: number;
  connections(): number;
  close(): Promise<void>;
}

export async function listenTcp(
  engine: () => Engine,
  host: string,
  port: number,
  options: TcpOptions,
  log: Logger,
): Promise<TcpListener> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.setTimeout(options.idleTimeoutMs);
    socket.on('timeout', () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let off = 0;
      while (pending.length - off >= 2) {
        const len = pending.readUInt16BE(off);
        if (pending.length - off - 2 < len) break;
        const msg = pending.subarray(off + 2, off + 2 + len);
        off += 2 + len;
        let out: Buffer | undefined;
        try {
          out = engine().respond(msg, TRANSPORT_TCP);
        } catch (e) {
          log.error('query_failed', {
            transport: 'tcp',
            error: e instanceof Error ? e.message : String(e),
          });
          out = undefined;
        }
        if (out === undefined) {
          // A message that cannot even be answered with FORMERR: the stream is not DNS.
          socket.destroy();
          return;
        }
        const frame = Buffer.allocUnsafe(2 + out.length);
        frame.writeUInt16BE(out.length, 0);
        out.copy(frame, 2);
        // Backpressure: a client that sends but does not read must not make us buffer without bound.
        if (
          !socket.write(frame) &&
          socket.writableLength > MAX_PENDING_WRITE &&
          !socket.isPaused()
        ) {
          socket.pause();
          socket.once('drain', () => socket.resume());
        }
      }
      pending = off === pending.length ? Buffer.alloc(0) : pending.subarray(off);
    });
  });
  server.maxConnections = options.maxConnections;
  server.on('drop', () => log.warn('tcp_connection_refused', { reason: 'maxConnections' }));
  server.on('error', (e) => log.warn('tcp_server_error', { error: e.message }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as net.AddressInfo;
  return {
    address: addr.address,
    port: addr.port,
    connections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
