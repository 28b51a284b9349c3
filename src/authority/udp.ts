/** UDP listener: one datagram in, at most one out; what to send is the pipeline's to say. */
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import type { Logger } from './log.ts';
import { TRANSPORT_UDP, type QueryPipeline } from './pipeline.ts';

export interface UdpListener {
  readonly address: string;
  readonly port: number;
  /** The socket's receive buffer as the kernel granted it, octets (what the system reports, halved on Linux). */
  readonly receiveBuffer: number;
  close(): Promise<void>;
}

export interface UdpOptions {
  /** SO_REUSEPORT: several answering threads bind the same port (`serve --workers`). */
  readonly reusePort?: boolean;
  /** SO_RCVBUF in octets (`udp.receiveBuffer`); 0 or absent: the system's default. */
  readonly receiveBuffer?: number;
}

/** net.core.rmem_max (Linux), the most SO_RCVBUF an unprivileged process is given. */
function rmemMax(): number | undefined {
  try {
    return Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8').trim());
  } catch {
    return undefined;
  }
}

/** The receive buffer granted (Linux reports the double of what was asked). */
function grantedOf(socket: dgram.Socket): number {
  const got = socket.getRecvBufferSize();
  return process.platform === 'linux' ? Math.floor(got / 2) : got;
}

/**
 * Ask for the socket's receive buffer, which holds the queries that arrive
 * while the thread is busy; a request capped by net.core.rmem_max is logged.
 */
function setReceiveBuffer(socket: dgram.Socket, want: number, log: Logger): number {
  try {
    socket.setRecvBufferSize(want);
  } catch (e) {
    log.warn('udp_receive_buffer_failed', { requested: want, error: (e as Error).message });
    return socket.getRecvBufferSize();
  }
  const granted = grantedOf(socket);
  if (granted >= want) return granted;
  const cap = rmemMax();
  log.warn('udp_receive_buffer_capped', {
    requested: want,
    granted,
    ...(cap !== undefined ? { rmemMax: cap } : {}),
    note: `the kernel capped the UDP receive buffer (udp.receiveBuffer): queries arriving during a pause of the answering thread may be dropped; raise the cap with sysctl -w net.core.rmem_max=${want}`,
  });
  return granted;
}

/** Bind, rejecting with the socket's error (a port in use). */
function bind(socket: dgram.Socket, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    socket.once('error', onError);
    socket.bind(port, host, () => {
      socket.off('error', onError);
      resolve();
    });
  });
}

export async function listenUdp(
  pipeline: QueryPipeline,
  host: string,
  port: number,
  log: Logger,
  options: UdpOptions = {},
): Promise<UdpListener> {
  const type = host.includes(':') ? 'udp6' : 'udp4';
  // An IPv6 socket takes IPv6 only, so [::]:53 and 0.0.0.0:53 can both be listed
  // (one socket per address, as BIND and NSD) instead of colliding.
  const socket = dgram.createSocket({
    type,
    reuseAddr: false,
    reusePort: options.reusePort === true,
    ipv6Only: type === 'udp6',
  });
  socket.on('message', (msg, rinfo) => {
    const o = pipeline.handle(msg, TRANSPORT_UDP, rinfo.address);
    // Over UDP there is no transfer to stream (AXFR is TCP only; IXFR fits one datagram).
    if (o.kind === 'answer' || o.kind === 'notify') socket.send(o.bytes, rinfo.port, rinfo.address);
  });
  socket.on('error', (e) => log.warn('udp_socket_error', { error: e.message }));
  await bind(socket, port, host);
  const want = options.receiveBuffer ?? 0;
  const receiveBuffer = want > 0 ? setReceiveBuffer(socket, want, log) : socket.getRecvBufferSize();
  const addr = socket.address();
  return {
    address: addr.address,
    port: addr.port,
    receiveBuffer,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
