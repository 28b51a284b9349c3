/**
 * The resolver's requests on the HTTP/1.1 fast path (`kit/http1.ts`): plain
 * `GET` or `HEAD` with no body, answered with the bytes node:http writes for
 * it (test/resolver/fast-path.test.ts compares both byte for byte). Any
 * other request hands the connection to node:http.
 */
import type { Socket } from 'node:net';
import type { AppRequest, AppResponse } from './types.ts';
import { HTTP_STATUS } from './codes.ts';
import { REASONS } from './respond.ts';
import {
  Http1Connections,
  responseBytes,
  serveHttp1,
  type Http1Service,
  type RequestHead,
  type Taken,
} from '../../kit/http1.ts';

export { Http1Connections as FastSockets };

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

/** A request the fast path answers: GET or HEAD without a body. */
export function takeRequest(head: RequestHead): Taken<RequestHead> | 'other' {
  if (head.method !== 'GET' && head.method !== 'HEAD') return 'other';
  const length = head.headers.get('content-length');
  if (length !== undefined && length !== '0') return 'other';
  return { request: head, length: 0, close: head.close };
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

function appRequest(head: RequestHead): AppRequest {
  const headers = head.headers;
  return {
    method: head.method,
    target: head.target,
    header: (name) => headers.get(name),
    httpVersion: '1.1',
  };
}

/** The resolver as a fast-path service. */
function service(fast: FastHttp, remoteOf: () => string | undefined): Http1Service<RequestHead> {
  const bytesOf = (head: RequestHead, res: AppResponse, close: boolean, started: number) => {
    const o = { head: head.method === 'HEAD', close, keepAliveMs: fast.keepAliveMs };
    let out = res;
    let bytes = responseBytes(res.status, res.headers, res.body, o);
    if (bytes === undefined) {
      out = unsendable();
      bytes = responseBytes(out.status, out.headers, out.body, o) as Buffer;
    }
    fast.record(head.method, head.target, remoteOf(), out, started);
    return bytes;
  };
  return {
    take: (head, _buf, bodyStart) => {
      const t = takeRequest(head);
      return t === 'other' ? t : { ...t, length: bodyStart };
    },
    answer: (head, close) => {
      const started = fast.timed ? performance.now() : 0;
      const res = fast.respond(appRequest(head));
      return res instanceof Promise
        ? res.then((r) => bytesOf(head, r, close, started))
        : bytesOf(head, res, close, started);
    },
    handOver: fast.handOver,
    headersMs: fast.headersMs,
    onHeadersTimeout: fast.onHeadersTimeout,
    keepAliveMs: fast.keepAliveMs,
  };
}

/** Serve a new connection here until a request not in the fast shape hands it to node:http. */
export function serveFast(socket: Socket, fast: FastHttp, sockets: Http1Connections): void {
  const remote = socket.remoteAddress;
  serveHttp1(
    socket,
    Buffer.alloc(0),
    service(fast, () => remote),
    sockets,
  );
}
