/**
 * UDP listener: one datagram in, at most one datagram out (one `send` per
 * query). Errors on a socket never end the process.
 */
import dgram from 'node:dgram';
import { TRANSPORT_UDP, type Engine } from './engine.ts';
import type { Logger } from './log.ts';

export interface UdpListener {
  readonly address: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function listenUdp(
  engine: () => Engine,
  host: string,
  port: number,
  log: Logger,
): Promise<UdpListener> {
  const type = host.includes(':') ? 'udp6' : 'udp4';
  const socket = dgram.createSocket({ type, reuseAddr: false });
  socket.on('message', (msg, rinfo) => {
    let out: Buffer | undefined;
    try {
      out = engine().respond(msg, TRANSPORT_UDP);
    } catch (e) {
      // Nothing a client sends may crash the server: log and drop.
      log.error('query_failed', {
        transport: 'udp',
        error: e instanceof Error ? e.message : String(e),
      });
      return;
    }
    if (out !== undefined) socket.send(out, rinfo.port, rinfo.address);
  });
  socket.on('error', (e) => log.warn('udp_socket_error', { error: e.message }));
  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    socket.once('error', onError);
    socket.bind(port, host, () => {
      socket.off('error', onError);
      resolve();
    });
  });
  const addr = socket.address();
  return {
    address: addr.address,
    port: addr.port,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
