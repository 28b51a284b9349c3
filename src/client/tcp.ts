/**
 * One DNS message over TCP (RFC 7766; two-byte length prefix, RFC 1035
 * section 4.2.2): connect, send, read the answer, close. The exchange's end
 * (answer, error, early close, abort, deadline) is decided once.
 */
import net from 'node:net';
import { DnsError } from './errors.ts';

export interface TcpRoundTrip {
  readonly host: string;
  readonly port: number;
  readonly query: Uint8Array;
  readonly timeoutMs: number;
  /** Largest answer accepted (its announced length). */
  readonly maxMessageBytes: number;
  readonly signal: AbortSignal | undefined;
  readonly ctx: { readonly qname: string; readonly qtype: string; readonly server: string };
  /** The error an abort of `signal` ends the exchange with. */
  aborted(): DnsError;
  /** Called when the deadline ends the exchange. */
  onTimeout?(): void;
}

/** The bytes of a length-prefixed answer, as they arrive. */
class Framer {
  private readonly chunks: Buffer[] = [];
  received = 0;
  /** The announced length; -1 until two bytes have come. */
  expected = -1;

  /** Add a chunk: the whole message once it is there, else undefined. */
  push(chunk: Buffer): Buffer | undefined {
    this.chunks.push(chunk);
    this.received += chunk.length;
    if (this.expected < 0 && this.received >= 2) {
      const head = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks);
      this.expected = head.readUInt16BE(0);
    }
    if (this.expected < 0 || this.received < this.expected + 2) return undefined;
    return Buffer.concat(this.chunks, this.received).subarray(2, this.expected + 2);
  }
}

/** Send `o.query` over a fresh TCP connection: the answer's bytes, or a DnsError. */
export function tcpRoundTrip(o: TcpRoundTrip): Promise<Buffer> {
  const { ctx, signal } = o;
  return new Promise((resolve, reject) => {
    let done = false;
    const framer = new Framer();
    const socket = net.connect({ host: o.host, port: o.port });
    /** The exchange is over: false if it already was. */
    const finish = (): boolean => {
      if (done) return false;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      return true;
    };
    const fail = (e: DnsError) => {
      if (finish()) reject(e);
    };
    const onAbort = () => fail(o.aborted());
    const timer = setTimeout(() => {
      o.onTimeout?.();
      fail(
        new DnsError(
          'DNS_TIMEOUT',
          `no complete TCP answer from ${ctx.server} for ${ctx.qname} ${ctx.qtype} within ${o.timeoutMs} ms (${framer.received} bytes received)`,
          ctx,
        ),
      );
    }, o.timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('connect', () => {
      const len = Buffer.alloc(2);
      len.writeUInt16BE(o.query.length);
      socket.write(Buffer.concat([len, o.query]));
    });
    socket.on('data', (chunk: Buffer) => {
      if (done) return;
      const message = framer.push(chunk);
      if (framer.expected > o.maxMessageBytes) {
        fail(tooLarge(framer.expected, o));
      } else if (message !== undefined && finish()) {
        resolve(message);
      }
    });
    socket.on('error', (err: NodeJS.ErrnoException) =>
      fail(
        new DnsError(
          'DNS_NETWORK',
          `TCP connection to ${ctx.server} failed: ${err.code ?? err.message}`,
          ctx,
          err,
        ),
      ),
    );
    socket.on('close', () => fail(closedEarly(framer, ctx)));
  });
}

function tooLarge(expected: number, o: TcpRoundTrip): DnsError {
  const { ctx } = o;
  return new DnsError(
    'DNS_MESSAGE_TOO_LARGE',
    `${ctx.server} announced a ${expected}-byte TCP answer for ${ctx.qname} ${ctx.qtype}, over the ${o.maxMessageBytes}-byte limit`,
    ctx,
  );
}

function closedEarly(framer: Framer, ctx: TcpRoundTrip['ctx']): DnsError {
  const of = framer.expected >= 0 ? ` of a ${framer.expected + 2}-byte answer` : '';
  return new DnsError(
    'DNS_BAD_RESPONSE',
    `${ctx.server} closed the TCP connection after ${framer.received} bytes${of} for ${ctx.qname} ${ctx.qtype}`,
    ctx,
  );
}
