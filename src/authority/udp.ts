/**
 * UDP listener: one datagram in, at most one datagram out (one `send` per
 * query). Errors on a socket never end the process. With response-rate
 * limiting on (`rrl.ts`), a limited response is dropped or sent truncated.
 */
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import { TRANSPORT_UDP, type Engine } from './engine.ts';
import type { Logger } from './log.ts';
import type { LogSummary } from './log-summary.ts';
import { RRL_SEND, RRL_SLIP, slipResponse, type Rrl } from './rrl.ts';
import { QTYPE_IXFR, type Transfers } from '../xfr/out.ts';

export interface UdpListener {
  readonly address: string;
  readonly port: number;
  /** The socket's receive buffer as the kernel granted it, octets (what the system reports, halved on Linux). */
  readonly receiveBuffer: number;
  close(): Promise<void>;
}

export interface UdpOptions {
  /** Response-rate limiting, when on. */
  readonly rrl?: Rrl | undefined;
  /** SO_REUSEPORT: several answering threads bind the same port (`serve --workers`). */
  readonly reusePort?: boolean;
  /** Zone transfers: IXFR over UDP (RFC 1995 section 2) for the peers they allow. */
  readonly transfers?: Transfers | undefined;
  /** NOTIFY in for secondary zones (RFC 1996): the answer, or undefined for a message that is not a NOTIFY. */
  readonly notify?: ((msg: Uint8Array, source: string) => Uint8Array | undefined) | undefined;
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

/**
 * The receive buffer granted to a request: Linux doubles the value asked for
 * (its bookkeeping) and reports the double; the system default is reported as is.
 */
function grantedOf(socket: dgram.Socket): number {
  const got = socket.getRecvBufferSize();
  return process.platform === 'linux' ? Math.floor(got / 2) : got;
}

/**
 * Ask for the socket's receive buffer: it holds the queries that arrive while
 * the thread is busy (a GC pause, a reload's swap, another process on the
 * core); when it is full the kernel drops them (RcvbufErrors). The kernel caps
 * the request at net.core.rmem_max: a capped request is logged, with the cap.
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
  engine: () => Engine,
  host: string,
  port: number,
  log: Logger,
  summary: LogSummary,
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
  const rrl = options.rrl;
  const transfers = options.transfers;
  const notify = options.notify;
  socket.on('message', (msg, rinfo) => {
    // NOTIFY (opcode 4) for a secondary zone: answered by the secondary service, off the engine's path.
    if (notify !== undefined && msg.length >= 12 && (msg[2]! & 0x78) === 0x20) {
      const answer = notify(msg, rinfo.address);
      if (answer !== undefined) {
        socket.send(answer, rinfo.port, rinfo.address);
        return;
      }
    }
    let out: Buffer | undefined;
    const eng = engine();
    const formerr = eng.counters.formerr;
    try {
      out = eng.respond(msg, TRANSPORT_UDP, rinfo.address);
    } catch (e) {
      // Nothing a client sends may crash the server: count (one summary line per interval) and drop.
      const error = e instanceof Error ? e.message : String(e);
      summary.note('query_failed', rinfo.address, 'udp', 'error', error);
      return;
    }
    if (eng.counters.formerr !== formerr) summary.note('formerr_sent', rinfo.address, 'udp');
    if (out === undefined) return;
    // The engine refuses IXFR; the transfer service answers it for allowed peers (no cost on other queries).
    if (transfers !== undefined) {
      if (eng.lastQtype === QTYPE_IXFR) {
        out = transfers.answerUdp(msg, eng, rinfo.address, summary, 512) ?? out;
      } else out = transfers.signAnswer(msg, out, eng.lastQuestionEnd);
    }
    if (rrl !== undefined) {
      const would = rrl.counters.wouldLimit;
      const action = rrl.check(rinfo.address, eng, rrl.nowSecond());
      if (rrl.counters.wouldLimit !== would) {
        summary.note('rrl_would_limit', rrl.prefix(rinfo.address), undefined, 'info');
      } else if (action !== RRL_SEND) {
        const slip = action === RRL_SLIP;
        summary.note('rrl_limited', rrl.prefix(rinfo.address), slip ? 'slip' : 'drop');
        if (slip) socket.send(slipResponse(out, eng.lastQuestionEnd), rinfo.port, rinfo.address);
        return;
      }
    }
    socket.send(out, rinfo.port, rinfo.address);
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
