/**
 * The resolver's plain-HTTP/1.1 fast path: the requests THTTP clients send
 * (`GET` or `HEAD`, HTTP/1.1, a Host header, plain header lines, no body)
 * read straight from the socket's bytes and answered with one write, without
 * node:http's request and response objects, its parser callbacks and its
 * header validation, which cost the resolver more CPU per request than a
 * cache-missing catalogue lookup (bench/resolver.ts).
 *
 * The answer is the app's, as on the node:http path, and its bytes are the
 * ones node:http writes for it: the status line with node's reason phrase,
 * the app's headers in their order, then `Date`, `Connection` and
 * `Keep-Alive` as node:http adds them, and the body unless the method is
 * HEAD (test/resolver/fast-path.test.ts compares both paths byte for byte).
 *
 * A client that pipelines requests without reading the answers is read no
 * further until its socket drains, and no more than 64 KiB of requests wait
 * behind an answer that is pending (node:http applies the same back-pressure).
 *
 * Any other request (another method, HTTP/1.0, a body, Transfer-Encoding,
 * Expect, Upgrade, a repeated header, a byte outside printable ASCII, a head
 * over 8 KiB, or a request not complete in what has arrived) hands the
 * connection, with every byte not yet answered, to node:http for the rest of
 * its life: it answers that request and those after it, malformed ones and
 * timeouts included, as before. Requests on one connection are answered in
 * order, one at a time (an asynchronous answer holds the next).
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { AppRequest, AppResponse } from './types.ts';
import { HTTP_STATUS } from './codes.ts';
import { REASONS } from './respond.ts';
import { HttpDate } from '../../kit/core/http-date.ts';

/** A head longer than this goes to node:http (which answers 431 past its own limit). */
const MAX_FAST_HEAD = 8 * 1024;
/** Bytes of pipelined requests kept while an answer is pending; past it, reading pauses. */
const MAX_PENDING = 64 * 1024;
/** A request line `GET|HEAD <origin-form target of printable ASCII> HTTP/1.1`. */
const REQUEST_LINE = /^(GET|HEAD) (\/[\x21-\x7e]*) HTTP\/1\.1$/;
/** Header lines of printable ASCII (and tab), `name: value`, the name a token. */
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([\t\x20-\x7e]*?)[ \t]*$/;
/** Characters node:http refuses in a response header value (it throws ERR_INVALID_CHAR). */
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

export interface FastHttp {
  /** The app's answer to a request. */
  readonly respond: (req: AppRequest) => AppResponse | Promise<AppResponse>;
  /** Count and log an answered request (as the node:http path does). */
  readonly record: (
    method: string,
    target: string,
    remote: string | undefined,
    out: AppResponse,
    started: number,
  ) => void;
  /** Whether `record` needs the start time (performance.now()). */
  readonly timed: boolean;
  /** Give the connection to node:http, `pending` (bytes not answered here) first. */
  readonly handOver: (socket: Socket, pending: Buffer) => void;
  /** No first request within this long: what node:http does (a 408 answer), ms. */
  readonly headersMs: number;
  readonly onHeadersTimeout: (socket: Socket) => void;
  /** An idle kept-alive connection is closed after this long, ms (node:http's keepAliveTimeout). */
  readonly keepAliveMs: number;
}

/** A complete request in the fast shape. */
interface Taken {
  readonly method: string;
  readonly target: string;
  readonly headers: ReadonlyMap<string, string>;
  /** Bytes of the request in the buffer. */
  readonly length: number;
  readonly close: boolean;
}

/** One request from the head of `buf`: taken, `more` bytes needed, or `other` (for node:http). */
export function takeRequest(buf: Buffer): Taken | 'more' | 'other' {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return buf.length > MAX_FAST_HEAD ? 'other' : 'more';
  if (end > MAX_FAST_HEAD) return 'other';
  const head = buf.toString('latin1', 0, end);
  let eol = head.indexOf('\r\n');
  if (eol < 0) eol = head.length;
  const m = REQUEST_LINE.exec(head.slice(0, eol));
  if (m === null) return 'other';
  const headers = new Map<string, string>();
  let close = false;
  while (eol < head.length) {
    const start = eol + 2;
    eol = head.indexOf('\r\n', start);
    if (eol < 0) eol = head.length;
    const h = HEADER_LINE.exec(head.slice(start, eol));
    if (h === null) return 'other';
    const name = (h[1] as string).toLowerCase();
    const value = h[2] as string;
    if (headers.has(name)) return 'other';
    switch (name) {
      case 'content-length':
        if (value !== '0') return 'other';
        break;
      case 'connection': {
        const v = value.toLowerCase();
        if (v === 'close') close = true;
        else if (v !== 'keep-alive') return 'other';
        break;
      }
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
      case 'http2-settings':
        return 'other';
    }
    headers.set(name, value);
  }
  if (!headers.has('host')) return 'other';
  return { method: m[1] as string, target: m[2] as string, headers, length: end + 4, close };
}

/** One formatter per process: the Date text is the same for every connection. */
const DATE = new HttpDate();
const httpDate = () => DATE.at(Date.now());

/** The bytes node:http writes for `out`: head (latin1) and, unless HEAD, the body (UTF-8). */
export function responseBytes(
  out: AppResponse,
  head: boolean,
  close: boolean,
  keepAliveMs: number,
): Buffer | undefined {
  let text = `HTTP/1.1 ${out.status} ${STATUS_CODES[out.status] ?? 'unknown'}\r\n`;
  const headers = out.headers;
  for (const k in headers) {
    const v = headers[k] as string;
    if (BAD_VALUE.test(v)) return undefined;
    text += `${k}: ${v}\r\n`;
  }
  // The app's answers carry their length (respond.ts); one that does not
  // would end where the next answer starts on a kept-alive connection.
  const bodyless = out.status === 204 || out.status === 304;
  if (!bodyless && headers['content-length'] === undefined) {
    text += `content-length: ${Buffer.byteLength(out.body)}\r\n`;
  }
  text += close
    ? `Date: ${httpDate()}\r\nConnection: close\r\n\r\n`
    : `Date: ${httpDate()}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(keepAliveMs / 1000)}\r\n\r\n`;
  const noBody = head || bodyless || out.body === '';
  if (noBody) return Buffer.from(text, 'latin1');
  const headLength = text.length;
  const bytes = Buffer.allocUnsafe(headLength + Buffer.byteLength(out.body));
  bytes.write(text, 0, 'latin1');
  bytes.write(out.body, headLength, 'utf8');
  return bytes;
}

/** The fast-path sockets of one server, for its close. */
export class FastSockets {
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

/** The answer node:http cannot give (it throws ERR_INVALID_CHAR for such a header value). */
function unsendable(): AppResponse {
  const status = HTTP_STATUS.INTERNAL_ERROR;
  const body = `${JSON.stringify({
    type: 'about:blank',
    title: REASONS[status],
    status,
    code: 'INTERNAL_ERROR',
    detail: 'internal error: a header value of the answer cannot be sent',
  })}\n`;
  return {
    status,
    headers: {
      'content-type': 'application/problem+json',
      'cache-control': 'no-store',
      'content-length': String(Buffer.byteLength(body)),
    },
    body,
    code: 'INTERNAL_ERROR',
  };
}

function appRequest(taken: Taken): AppRequest {
  const headers = taken.headers;
  return {
    method: taken.method,
    target: taken.target,
    header: (name) => headers.get(name),
    httpVersion: '1.1',
  };
}

/** The bytes for `res`, or for the 500 answer when node:http could not send it either. */
function answerBytes(
  res: AppResponse,
  head: boolean,
  close: boolean,
  keepAliveMs: number,
): { out: AppResponse; bytes: Buffer } {
  const bytes = responseBytes(res, head, close, keepAliveMs);
  if (bytes !== undefined) return { out: res, bytes };
  const out = unsendable();
  return { out, bytes: responseBytes(out, head, close, keepAliveMs) as Buffer };
}

/** One connection on the fast path (see the file's comment). */
class FastConnection {
  readonly #socket: Socket;
  readonly #fast: FastHttp;
  readonly #sockets: FastSockets;
  readonly #remote: string | undefined;
  #buf: Buffer = Buffer.alloc(0);
  /** An answer is pending (the next request waits for it). */
  readonly state = { busy: false };
  #served = false;
  #done = false;
  /**
   * The socket's timeout as last set: set again only when it changes (each
   * setTimeout makes a new timer; reads and writes refresh the one there).
   */
  #armed = -1;

  constructor(socket: Socket, fast: FastHttp, sockets: FastSockets) {
    this.#socket = socket;
    this.#fast = fast;
    this.#sockets = sockets;
    this.#remote = socket.remoteAddress;
    sockets.add(socket, this.state);
    socket.on('data', this.#onData);
    socket.on('timeout', this.#onTimeout);
    socket.on('error', this.#onError);
    this.#arm(fast.headersMs);
  }

  #arm(ms: number): void {
    if (ms === this.#armed) return;
    this.#armed = ms;
    this.#socket.setTimeout(ms);
  }

  readonly #onTimeout = (): void => {
    // Waiting for an answer is not idleness; the timer is set again after it.
    if (this.state.busy) {
      this.#armed = -1;
      return;
    }
    if (this.#served) this.#socket.destroy();
    else this.#fast.onHeadersTimeout(this.#socket);
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
    this.#sockets.delete(socket);
  }

  /** Write one answer; false when the connection is done with. */
  #answer(taken: Taken, res: AppResponse, started: number): boolean {
    this.state.busy = false;
    const socket = this.#socket;
    if (socket.destroyed) return false;
    const close = taken.close || this.#sockets.closing;
    const head = taken.method === 'HEAD';
    const { out, bytes } = answerBytes(res, head, close, this.#fast.keepAliveMs);
    socket.write(bytes);
    this.#fast.record(taken.method, taken.target, this.#remote, out, started);
    this.#served = true;
    this.#buf = this.#buf.subarray(taken.length);
    if (!close) return true;
    this.#stop();
    socket.end();
    return false;
  }

  #drain(): void {
    const socket = this.#socket;
    const fast = this.#fast;
    for (;;) {
      // A client that sends requests without reading the answers: read no
      // more until its socket has taken what was written (as node:http).
      if (socket.writableNeedDrain) {
        socket.pause();
        socket.once('drain', this.#resume);
        return;
      }
      if (this.#buf.length === 0) {
        this.#arm(this.#served ? fast.keepAliveMs : fast.headersMs);
        return;
      }
      const taken = takeRequest(this.#buf);
      if (taken === 'other' || taken === 'more') {
        // A request that is not complete yet goes to node:http too, with its timeouts.
        this.#stop();
        fast.handOver(socket, this.#buf);
        return;
      }
      const started = fast.timed ? performance.now() : 0;
      const out = fast.respond(appRequest(taken));
      if (out instanceof Promise) {
        this.state.busy = true;
        void out.then((o) => {
          if (!this.#answer(taken, o, started)) return;
          if (socket.isPaused() && !socket.writableNeedDrain) socket.resume();
          this.#drain();
        });
        return;
      }
      if (!this.#answer(taken, out, started)) return;
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
    if (!this.state.busy) this.#drain();
  };
}

/**
 * Serve a new connection: requests in the fast shape here, the connection
 * handed to node:http at the first one that is not.
 */
export function serveFast(socket: Socket, fast: FastHttp, sockets: FastSockets): void {
  new FastConnection(socket, fast, sockets);
}
