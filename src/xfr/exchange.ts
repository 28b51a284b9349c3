/**
 * One request to a primary over TCP and its framed answer (RFC 1035 section
 * 4.2.2), within the bounds: idle (XFR_TIMEOUT, XFR_CONNECT), deadline
 * (XFR_TIME_LIMIT), octets (XFR_TOO_LARGE, before buffering the message).
 */
import net from 'node:net';
import type { PrimaryAddress } from '../config/server.ts';
import { XfrReadError } from './core/read.ts';

export interface ExchangeBounds {
  /** No data for this long fails the exchange. */
  readonly idleMs: number;
  /** `performance.now()` past which the exchange fails (the refresh's overall deadline). */
  readonly deadline: number;
  /** Octets the answer may carry, length prefixes included. */
  readonly maxBytes: number;
}

export function peerText(p: { host: string; port: number }): string {
  return `${p.host.includes(':') ? `[${p.host}]` : p.host}:${p.port}`;
}

/** One framed request, the answer fed to `onMessage` until it returns true; an early end: XFR_CUT_SHORT. */
export function tcpExchange(
  p: PrimaryAddress,
  request: Uint8Array,
  bounds: ExchangeBounds,
  sockets: Set<net.Socket>,
  onMessage: (msg: Uint8Array, index: number) => boolean,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const left = bounds.deadline - performance.now();
    if (left <= 0) return reject(timeLimit(p, 0));
    const socket = net.connect({ host: p.host, port: p.port });
    sockets.add(socket);
    let connected = false;
    let settled = false;
    let buf: Buffer = Buffer.alloc(0);
    let index = 0;
    let octets = 0;
    const overall = setTimeout(() => finish(timeLimit(p, index)), left);
    const finish = (e?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(overall);
      sockets.delete(socket);
      socket.destroy();
      if (e === undefined) resolve();
      else reject(e);
    };
    socket.setTimeout(bounds.idleMs, () => finish(idle(p, connected, bounds.idleMs)));
    socket.on('connect', () => {
      connected = true;
      const framed = Buffer.alloc(request.length + 2);
      framed.writeUInt16BE(request.length, 0);
      framed.set(request, 2);
      socket.write(framed);
    });
    socket.on('data', (chunk: Buffer) => {
      if (settled) return;
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      try {
        while (buf.length >= 2) {
          const n = buf.readUInt16BE(0);
          if (octets + 2 + n > bounds.maxBytes)
            throw new XfrReadError(
              'XFR_TOO_LARGE',
              `more than ${bounds.maxBytes} octets (maxBytes) from ${peerText(p)}; aborted after ${index} message(s)`,
            );
          if (buf.length < 2 + n) break;
          octets += 2 + n;
          const msg = new Uint8Array(buf.subarray(2, 2 + n));
          buf = buf.subarray(2 + n);
          if (onMessage(msg, index++)) return finish();
        }
      } catch (e) {
        finish(e);
      }
    });
    socket.on('error', (e) =>
      finish(
        new XfrReadError(
          connected ? 'XFR_CUT_SHORT' : 'XFR_CONNECT',
          `${peerText(p)}: ${e.message}`,
        ),
      ),
    );
    socket.on('close', () =>
      finish(
        new XfrReadError(
          'XFR_CUT_SHORT',
          `${peerText(p)} closed the connection after ${index} message(s)`,
        ),
      ),
    );
  });
}

/** No data for `ms`: XFR_TIMEOUT, or XFR_CONNECT while not connected. */
function idle(p: PrimaryAddress, connected: boolean, ms: number): XfrReadError {
  return connected
    ? new XfrReadError('XFR_TIMEOUT', `no data from ${peerText(p)} for ${ms} ms`)
    : new XfrReadError('XFR_CONNECT', `no connection to ${peerText(p)} in ${ms} ms`);
}

function timeLimit(p: PrimaryAddress, messages: number): XfrReadError {
  return new XfrReadError(
    'XFR_TIME_LIMIT',
    `the refresh from ${peerText(p)} passed its deadline (maxSeconds) after ${messages} message(s)`,
  );
}
