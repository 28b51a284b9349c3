/**
 * The one HTTP/1.1 fast path beside node:http (which it must equal): requests
 * in the plain shape (`core/http1.ts`) answered with one write each, in order.
 * The resolver and DoH say which requests they take and what they answer;
 * this file owns the connection. The first request outside the shape hands
 * the connection, with every byte not yet answered, to node:http.
 *
 * Back-pressure: while the socket is full it is not read until 'drain'; past
 * `maxUnsent` unsent bytes it is closed; at most 64 KiB of requests wait
 * behind a pending answer.
 */
import { STATUS_CODES } from 'node:http';
import type { AddressInfo, Server, Socket } from 'node:net';
import { HttpDate } from './core/http-date.ts';
import { MAX_FAST_HEAD, parseRequestHead, responseHead, type RequestHead } from './core/http1.ts';

export type { RequestHead };

/** Unsent answer bytes past which a connection is closed (default of `maxUnsent`). */
export const MAX_UNSENT = 1024 * 1024;
/** Bytes of pipelined requests kept while an answer is pending; past it, reading pauses. */
const MAX_PENDING = 64 * 1024;

/** A request the service takes: its value, its length in bytes, whether to close after it. */
export type Taken<R> = { readonly request: R; readonly length: number; readonly close: boolean };

export interface Http1Service<R> {
  /**
   * The request whose head is `head` (ending at `bodyStart` in `buf`):
   * taken, `more` (its body has not all arrived), or `other` (outside what
   * the fast path answers: node:http takes the connection).
   */
  take(head: RequestHead, buf: Buffer, bodyStart: number): Taken<R> | 'more' | 'other';
  /** The answer's bytes (`close`: the connection closes after it). */
  answer(request: R, close: boolean): Buffer | Promise<Buffer>;
  /** Give the connection to node:http, `pending` (bytes not answered here) first. */
  handOver(socket: Socket, pending: Buffer): void;
  /** No complete first request (or a started one not complete) within this long, ms. */
  readonly headersMs: number;
  /** What the plain path does then (a 408 answer, or just closing). */
  onHeadersTimeout(socket: Socket): void;
  /** An idle kept-alive connection is closed after this long, ms (node:http's keepAliveTimeout). */
  readonly keepAliveMs: number;
  /** Unsent bytes past which the connection is closed (default MAX_UNSENT). */
  readonly maxUnsent?: number;
}

/** One formatter per process: the Date text is the same for every connection. */
const DATE = new HttpDate();

/**
 * The bytes node:http writes for an answer: head (latin1) and, unless
 * `head` (a HEAD request) or the status has no body, the body (a string is
 * UTF-8). A Content-Length is added when the headers have none. Undefined
 * when a header value cannot be sent (node:http throws ERR_INVALID_CHAR).
 */
export function responseBytes(
  status: number,
  headers: Readonly<Record<string, string>>,
  body: string | Uint8Array,
  o: { readonly head: boolean; readonly close: boolean; readonly keepAliveMs: number },
): Buffer | undefined {
  const bodyless = status === 204 || status === 304;
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  // An answer without its length would end where the next one starts on a kept-alive connection.
  const all =
    bodyless || headers['content-length'] !== undefined
      ? headers
      : { ...headers, 'content-length': String(length) };
  const text = responseHead(
    status,
    STATUS_CODES[status] ?? 'unknown',
    all,
    DATE.at(Date.now()),
    o.close ? 'close' : o.keepAliveMs,
  );
  if (text === undefined) return undefined;
  if (o.head || bodyless || length === 0) return Buffer.from(text, 'latin1');
  const bytes = Buffer.allocUnsafe(text.length + length);
  bytes.write(text, 0, 'latin1');
  if (typeof body === 'string') bytes.write(body, text.length, 'utf8');
  else bytes.set(body, text.length);
  return bytes;
}

/** The request at the start of `buf`: its head and where its body starts, `more`, or `other`. */
export function requestAt(
  buf: Buffer,
): { head: RequestHead; bodyStart: number } | 'more' | 'other' {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return buf.length > MAX_FAST_HEAD ? 'other' : 'more';
  if (end > MAX_FAST_HEAD) return 'other';
  const head = parseRequestHead(buf.toString('latin1', 0, end));
  return head === undefined ? 'other' : { head, bodyStart: end + 4 };
}

/** The fast-path connections of one server, for its close. */
export class Http1Connections {
  readonly #all = new Map<Socket, { busy: boolean }>();
  closing = false;
  add(socket: Socket, state: { busy: boolean }): void {
    this.#all.set(socket, state);
    socket.once('close', () => this.#all.delete(socket));
  }
  delete(socket: Socket): void {
    this.#all.delete(socket);
  }
  /** Stop: idle connections now, busy ones after their answer (or `destroyAll`). */
  closeIdle(): void {
    this.closing = true;
    for (const [socket, state] of this.#all) if (!state.busy) socket.destroy();
  }
  destroyAll(): void {
    for (const socket of this.#all.keys()) socket.destroy();
  }
}

/** One connection on the fast path (see the file's comment). */
class Connection<R> {
  readonly #socket: Socket;
  readonly #service: Http1Service<R>;
  readonly #connections: Http1Connections;
  readonly #maxUnsent: number;
  #buf: Buffer;
  /** An answer is pending (the next request waits for it). */
  readonly state = { busy: false };
  #served = false;
  #done = false;
  /** The deadline of a started request (absolute, unlike the socket's idle timer). */
  #partial: ReturnType<typeof setTimeout> | undefined;
  /** The socket's timeout as last set: set again only when it changes. */
  #armed = -1;

  constructor(socket: Socket, first: Buffer, service: Http1Service<R>, all: Http1Connections) {
    this.#socket = socket;
    this.#service = service;
    this.#connections = all;
    this.#maxUnsent = service.maxUnsent ?? MAX_UNSENT;
    this.#buf = first;
    all.add(socket, this.state);
    socket.on('data', this.#onData);
    socket.on('timeout', this.#onTimeout);
    socket.on('error', this.#onError);
    this.#arm(service.headersMs);
    this.#drain();
  }

  #arm(ms: number): void {
    if (ms === this.#armed) return;
    this.#armed = ms;
    this.#socket.setTimeout(ms);
  }

  #clearPartial(): void {
    if (this.#partial !== undefined) clearTimeout(this.#partial);
    this.#partial = undefined;
  }

  readonly #onTimeout = (): void => {
    // Waiting for an answer is not idleness; the timer is set again after it.
    if (this.state.busy) {
      this.#armed = -1;
      return;
    }
    if (this.#served && this.#buf.length === 0) this.#socket.destroy();
    else this.#headersTimeout();
  };

  readonly #headersTimeout = (): void => {
    this.#stop();
    this.#service.onHeadersTimeout(this.#socket);
  };

  readonly #onError = (): void => {
    this.#socket.destroy();
  };

  #stop(): void {
    this.#done = true;
    const socket = this.#socket;
    socket.off('data', this.#onData);
    socket.off('timeout', this.#onTimeout);
    socket.off('error', this.#onError);
    socket.setTimeout(0);
    this.#clearPartial();
    this.#connections.delete(socket);
  }

  /** Write one answer; false when the connection is done with. */
  #send(taken: Taken<R>, bytes: Buffer, close: boolean): boolean {
    this.state.busy = false;
    const socket = this.#socket;
    if (socket.destroyed) return false;
    socket.write(bytes);
    this.#served = true;
    this.#buf = this.#buf.subarray(taken.length);
    if (socket.writableLength > this.#maxUnsent) {
      // The client reads far slower than it asks: not worth the memory.
      this.#stop();
      socket.destroy();
      return false;
    }
    if (!close) return true;
    this.#stop();
    socket.end();
    return false;
  }

  /** The next request of `buf`, or why there is none to answer now. */
  #next(): Taken<R> | 'wait' | 'handed' {
    const h = requestAt(this.#buf);
    const taken = typeof h === 'string' ? h : this.#service.take(h.head, this.#buf, h.bodyStart);
    if (taken === 'other') {
      this.#stop();
      this.#service.handOver(this.#socket, this.#buf);
      return 'handed';
    }
    if (taken === 'more') {
      // A started request must be complete within the headers timeout.
      this.#partial ??= setTimeout(this.#headersTimeout, this.#service.headersMs);
      return 'wait';
    }
    this.#clearPartial();
    return taken;
  }

  #drain(): void {
    const socket = this.#socket;
    const service = this.#service;
    while (!this.#done) {
      // A client that sends requests without reading the answers: read no
      // more until its socket has taken what was written (as node:http).
      if (socket.writableNeedDrain) {
        socket.pause();
        socket.once('drain', this.#resume);
        return;
      }
      if (this.#buf.length === 0) {
        this.#clearPartial();
        this.#arm(this.#served ? service.keepAliveMs : service.headersMs);
        return;
      }
      const taken = this.#next();
      if (typeof taken === 'string') return;
      const close = taken.close || this.#connections.closing;
      const out = service.answer(taken.request, close);
      if (out instanceof Promise) {
        this.state.busy = true;
        void out.then((bytes) => {
          if (!this.#send(taken, bytes, close)) return;
          if (socket.isPaused() && !socket.writableNeedDrain) socket.resume();
          this.#drain();
        });
        return;
      }
      if (!this.#send(taken, out, close)) return;
    }
  }

  readonly #resume = (): void => {
    if (this.#done || this.#socket.destroyed) return;
    this.#socket.resume();
    if (!this.state.busy) this.#drain();
  };

  readonly #onData = (d: Buffer): void => {
    if (this.#done) return;
    this.#buf = this.#buf.length === 0 ? d : Buffer.concat([this.#buf, d]);
    // Pipelined requests held behind a pending answer: bounded, as the head size is.
    if (this.state.busy && this.#buf.length > MAX_PENDING) this.#socket.pause();
    if (!this.state.busy && !this.#socket.writableNeedDrain) this.#drain();
  };
}

/**
 * Serve a connection whose first bytes (already read) are `first`: requests
 * in the fast shape here, the connection handed to node:http at the first
 * one that is not.
 */
export function serveHttp1<R>(
  socket: Socket,
  first: Buffer,
  service: Http1Service<R>,
  connections: Http1Connections,
): void {
  new Connection(socket, first, service, connections);
}

/** Why node:http refused a request (its `clientError`). */
export type ClientErrorKind = 'timeout' | 'head-too-large' | 'malformed';

/**
 * node:http's `clientError`: the edge's problem answer (`answer` gives the
 * whole response text) when the socket still takes data, then the socket is
 * destroyed (a half-close would leave its descriptor to a slow client).
 */
export function clientErrorHandler(
  answer: (kind: ClientErrorKind, detail: string) => string,
  onError?: (code: string) => void,
) {
  return (err: Error & { code?: string }, socket: Socket): void => {
    const code = err.code ?? err.message;
    if (socket.writable && err.code !== 'ECONNRESET') {
      const kind: ClientErrorKind =
        err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'timeout'
          : err.code === 'HPE_HEADER_OVERFLOW'
            ? 'head-too-large'
            : 'malformed';
      const detail =
        kind === 'timeout'
          ? 'the request was not received in time'
          : `malformed HTTP request (${code})`;
      socket.write(answer(kind, detail));
      socket.destroySoon();
      // A client that reads nothing cannot keep it open either.
      setTimeout(() => socket.destroy(), 1_000).unref();
    } else {
      socket.destroy();
    }
    onError?.(code);
  };
}

/** A problem+json answer (RFC 9457) as a whole HTTP/1.1 response that closes the connection. */
export function problemResponse(status: number, body: string): string {
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/problem+json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * Listen on `host:port` (0: a free port): the address bound, and its host
 * as a URL writes it (an IPv6 address in brackets).
 */
export async function listenOn(
  server: Server,
  port: number,
  host: string,
): Promise<{ address: AddressInfo; urlHost: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { address, urlHost };
}
