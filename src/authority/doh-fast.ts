/**
 * DoH on the HTTP/1.1 fast path (`kit/http1.ts`): `GET /dns-query?dns=...`
 * (one unencoded `dns` parameter) and `POST /dns-query` (the DoH type, at
 * most 65535 octets), answered with node:http's headers
 * (test/server/doh-fast.test.ts compares both paths; bench/doh.ts). Any other
 * request goes with the connection to node:http and `handleDohRequest`.
 */
import type net from 'node:net';
import { base64UrlDecode } from '../dns/core/wire/doh.ts';
import { dohStatus } from '../dns/core/wire/codes.ts';
import { DNS_MESSAGE, DOH_PATH, problemBody } from './doh-answer.ts';
import { answerQuery, type QueryPipeline } from './pipeline.ts';
import type { Http1Connections } from '../kit/http1.ts';
import {
  responseBytes,
  serveHttp1,
  type Http1Service,
  type RequestHead,
  type Taken,
} from '../kit/http1.ts';

const MAX_MESSAGE = 65535;
/** An idle kept-alive connection is closed after this long (node:http's default). */
const KEEP_ALIVE_MS = 5000;

export interface FastDoh {
  readonly pipeline: QueryPipeline;
  /** The CORS headers of every answer. */
  readonly cors: Readonly<Record<string, string>>;
  /** Give the connection to node:http, `pending` (bytes not answered here) first. */
  readonly handOver: (socket: net.Socket, pending: Buffer) => void;
  /** Longest wait for a complete request, ms. */
  readonly requestTimeoutMs: number;
  /** The connections on the fast path, for the listener's close. */
  readonly connections: Http1Connections;
}

/** The request at `bodyStart`-ended `head` in `buf`, in the fast shape: its query. */
export function takeQuery(
  head: RequestHead,
  buf: Buffer,
  bodyStart: number,
): Taken<Buffer> | 'more' | 'other' {
  const target = head.target;
  const q = target.indexOf('?');
  if ((q < 0 ? target : target.slice(0, q)) !== DOH_PATH) return 'other';
  const contentLength = head.headers.get('content-length');
  if (head.method === 'GET') {
    if (contentLength !== undefined && contentLength !== '0') return 'other';
    const query = dnsParameter(q < 0 ? '' : target.slice(q + 1));
    return query === undefined ? 'other' : { request: query, length: bodyStart, close: head.close };
  }
  if (head.method !== 'POST' || contentLength === undefined) return 'other';
  const type = head.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== DNS_MESSAGE || !/^\d{1,5}$/.test(contentLength)) return 'other';
  const length = Number(contentLength);
  if (length > MAX_MESSAGE) return 'other';
  if (buf.length < bodyStart + length) return 'more';
  const query = Buffer.from(buf.subarray(bodyStart, bodyStart + length));
  return { request: query, length: bodyStart + length, close: head.close };
}

/** The query in the one `dns` parameter (no percent-encoding), or undefined. */
function dnsParameter(search: string): Buffer | undefined {
  if (search.includes('%') || search.includes('+')) return undefined;
  let found: string | undefined;
  for (const pair of search.split('&')) {
    if (pair.startsWith('dns=')) {
      if (found !== undefined) return undefined;
      found = pair.slice(4);
    } else if (pair === 'dns') return undefined;
  }
  if (found === undefined || found === '' || found.length > Math.ceil((MAX_MESSAGE * 4) / 3) + 2) {
    return undefined;
  }
  const bytes = base64UrlDecode(found);
  if (!(bytes instanceof Uint8Array) || bytes.length < 12) return undefined;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** The whole HTTP response to one query, head and body in one buffer. */
function responseTo(fast: FastDoh, query: Buffer, close: boolean, source: string): Buffer {
  const answer = answerQuery(fast.pipeline, query, source);
  const o = { head: false, close, keepAliveMs: KEEP_ALIVE_MS };
  if (!answer.ok) {
    const status = dohStatus(answer.code);
    const body = problemBody(status, answer.code, answer.detail);
    const headers = {
      ...fast.cors,
      'content-type': 'application/problem+json',
      'content-length': String(Buffer.byteLength(body)),
      'cache-control': 'no-store',
    };
    return responseBytes(status, headers, body, o) as Buffer;
  }
  const headers = {
    ...fast.cors,
    'content-type': DNS_MESSAGE,
    'content-length': String(answer.out.length),
    'cache-control': answer.cacheControl,
  };
  return responseBytes(200, headers, answer.out, o) as Buffer;
}

/** Serve a plain HTTP/1.1 connection whose first bytes are `first`. */
export function serveFast(socket: net.Socket, first: Buffer, fast: FastDoh): void {
  const source = socket.remoteAddress ?? '';
  const service: Http1Service<Buffer> = {
    take: takeQuery,
    answer: (query, close) => responseTo(fast, query, close, source),
    handOver: fast.handOver,
    headersMs: fast.requestTimeoutMs,
    onHeadersTimeout: (s) => s.destroy(),
    keepAliveMs: KEEP_ALIVE_MS,
  };
  serveHttp1(socket, first, service, fast.connections);
}
