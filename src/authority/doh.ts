/**
 * DNS over HTTPS (RFC 8484): `/dns-query` by GET and POST over HTTP/1.1 and HTTP/2; HTTPS with a
 * certificate, else plain HTTP on loopback only (h2c told apart by its preface). Answers come from
 * the pipeline as TCP's do. Plain HTTP/1.1 `GET ?dns=` (one unencoded parameter) and `POST` start
 * on the fast path (`kit/http1.ts`, same headers); anything else goes to `handleDohRequest`.
 */
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { readFile } from 'node:fs/promises';
import { base64UrlDecode } from '../dns/core/wire/doh.ts';
import { dohStatus, type DohHttpCode } from '../dns/core/wire/codes.ts';
import { answerQuery, type DohAnswer, type QueryPipeline } from './pipeline.ts';
import {
  clientErrorHandler,
  Http1Connections,
  listenOn,
  problemResponse,
  responseBytes,
  serveHttp1,
  type Http1Service,
  type RequestHead,
  type Taken,
} from '../kit/http1.ts';
import { isLoopback } from '../kit/core/ip.ts';
import type { ListenAddress, ServerConfig } from '../config/server.ts';
import type { Logger } from './log.ts';
import type { LogSummary } from './log-summary.ts';

export const DOH_PATH = '/dns-query';
export const DNS_MESSAGE = 'application/dns-message';
/** A DNS message carried over DoH is at most 65535 octets, as over TCP (RFC 8484 section 6). */
const MAX_MESSAGE = 65535;
const HTTP_TIMEOUT_MS = 10_000;
/** An idle kept-alive connection is closed after this long (node:http's default). */
const KEEP_ALIVE_MS = 5000;

type DohOptions = ListenAddress & Omit<ServerConfig['doh'], 'listen'>;

export interface DohListener {
  readonly address: string;
  readonly port: number;
  readonly url: string;
  readonly tls: boolean;
  close(): Promise<void>;
}

export class DohConfigError extends Error {
  readonly code: 'DOH_PLAIN_NOT_LOOPBACK' | 'DOH_TLS_FILES' | 'DOH_TLS_UNREADABLE';
  constructor(code: DohConfigError['code'], message: string) {
    super(message);
    this.name = 'DohConfigError';
    this.code = code;
  }
}

/** The request and response objects of node:http and node:http2's compatibility API alike. */
type Req = http.IncomingMessage | http2.Http2ServerRequest;
interface Res {
  readonly headersSent: boolean;
  writeHead(status: number, headers: Record<string, string | number>): unknown;
  setHeader(name: string, value: string): unknown;
  end(data?: Uint8Array | string): unknown;
}

/** The CORS headers of every answer (`allowOrigin`: `*`, one origin, or empty for none). */
export function dohCorsHeaders(allowOrigin = '*'): Record<string, string> {
  if (allowOrigin === '') return {};
  return {
    'access-control-allow-origin': allowOrigin,
    'access-control-allow-methods': 'GET, POST, OPTIONS',
    'access-control-allow-headers': 'content-type, accept',
    'access-control-expose-headers': 'cache-control, content-type',
    'access-control-max-age': '86400',
    ...(allowOrigin === '*' ? {} : { vary: 'Origin' }),
  };
}

/** A problem answer (RFC 9457): its status is the code's (`dohStatus`, core/wire/codes.ts). */
function problemOf(code: DohHttpCode, detail: string, inUrl = false) {
  const status = dohStatus(code, inUrl);
  const body = JSON.stringify({
    type: `https://lexroute.dev/problems/${code.toLowerCase().replace(/_/g, '-')}`,
    title: http.STATUS_CODES[status] ?? 'Error',
    ...{ status, code, detail },
  });
  const headers = {
    'content-type': 'application/problem+json',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
  };
  return { status, headers, body };
}

function problem(res: Res, code: DohHttpCode, detail: string, inUrl = false): void {
  const p = problemOf(code, detail, inUrl);
  res.writeHead(p.status, p.headers);
  res.end(p.body);
}

/** The headers of a DNS answer. */
function answerHeaders(answer: Extract<DohAnswer, { ok: true }>): Record<string, string> {
  return {
    'content-type': DNS_MESSAGE,
    'content-length': String(answer.out.length),
    'cache-control': answer.cacheControl,
  };
}

/** Read a POST body up to MAX_MESSAGE octets; undefined when larger (the rest is not read). */
function readBody(req: Req): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > MAX_MESSAGE) {
        done = true;
        resolve(undefined);
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!done) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

/** The DNS query an HTTP request carries, or an HTTP error already sent (undefined). */
async function queryOf(req: Req, res: Res, url: URL): Promise<Buffer | undefined> {
  if (req.method === 'GET' || req.method === 'HEAD') {
    const dns = url.searchParams.getAll('dns');
    if (dns.length !== 1 || dns[0] === '') {
      problem(res, 'DOH_NO_DNS_PARAMETER', 'GET needs exactly one non-empty dns parameter');
      return undefined;
    }
    const text = dns[0] as string;
    if (text.length > Math.ceil((MAX_MESSAGE * 4) / 3) + 2) {
      problem(
        res,
        'DOH_TOO_LARGE',
        `the dns parameter encodes more than ${MAX_MESSAGE} octets`,
        true,
      );
      return undefined;
    }
    const bytes = base64UrlDecode(text);
    if (!(bytes instanceof Uint8Array)) {
      problem(res, bytes.code, `${bytes.message} (at offset ${bytes.offset})`);
      return undefined;
    }
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  }
  if (req.method === 'POST') {
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== DNS_MESSAGE) {
      problem(
        res,
        'DOH_BAD_CONTENT_TYPE',
        `POST needs content-type ${DNS_MESSAGE}, got ${JSON.stringify(type ?? '')}`,
      );
      return undefined;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    const body = declared > MAX_MESSAGE ? undefined : await readBody(req);
    if (body === undefined) {
      problem(res, 'DOH_TOO_LARGE', `the body is larger than ${MAX_MESSAGE} octets`);
      return undefined;
    }
    return body;
  }
  res.setHeader('allow', 'GET, HEAD, POST, OPTIONS');
  problem(res, 'DOH_BAD_METHOD', `method ${req.method ?? ''} is not used by DoH`);
  return undefined;
}

/** One HTTP request: route, decode, answer from the query pipeline, encode. Never throws. */
export async function handleDohRequest(
  pipeline: QueryPipeline,
  req: Req,
  res: Res,
  cors: Record<string, string> = dohCorsHeaders(),
): Promise<void> {
  for (const [k, v] of Object.entries(cors)) res.setHeader(k, v);
  const url = new URL(req.url ?? '/', 'http://doh.invalid');
  if (url.pathname !== DOH_PATH) {
    problem(res, 'DOH_NOT_FOUND', `DoH is served at ${DOH_PATH}`);
    return;
  }
  if (req.method === 'OPTIONS') {
    res.writeHead(204, {});
    res.end();
    return;
  }
  const query = await queryOf(req, res, url);
  if (query === undefined) return;
  const answer = answerQuery(pipeline, query, req.socket?.remoteAddress ?? '');
  if (!answer.ok) {
    problem(res, answer.code, answer.detail);
    return;
  }
  res.writeHead(200, answerHeaders(answer));
  if (req.method === 'HEAD') res.end();
  else res.end(answer.out);
}

async function tlsFiles(o: DohOptions): Promise<{ cert: Buffer; key: Buffer } | undefined> {
  if (o.tlsCert === undefined && o.tlsKey === undefined) return undefined;
  if (o.tlsCert === undefined || o.tlsKey === undefined) {
    throw new DohConfigError(
      'DOH_TLS_FILES',
      'DoH over TLS needs both a certificate and a key file',
    );
  }
  try {
    return { cert: await readFile(o.tlsCert), key: await readFile(o.tlsKey) };
  } catch (e) {
    throw new DohConfigError(
      'DOH_TLS_UNREADABLE',
      `cannot read the TLS files: ${(e as Error).message}`,
    );
  }
}

const H2_PREFACE = Buffer.from('PRI ');

const CLIENT_ERROR_CODE = {
  timeout: 'DOH_REQUEST_TIMEOUT',
  'head-too-large': 'DOH_HEAD_TOO_LARGE',
  malformed: 'DOH_BAD_REQUEST',
} as const;

/** A request node:http could not read: a problem+json answer with its code, then close. */
const dohClientError = clientErrorHandler((kind, detail) => {
  const p = problemOf(CLIENT_ERROR_CODE[kind], detail);
  return problemResponse(p.status, p.body);
});

/** The request at `bodyStart`-ended `head` in `buf`, in the fast shape: its query. */
function takeQuery(
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

/** The fast path's service for one connection from `source`: each answer in one buffer. */
function fastService(
  pipeline: QueryPipeline,
  cors: Readonly<Record<string, string>>,
  source: string,
  handOver: Http1Service<Buffer>['handOver'],
): Http1Service<Buffer> {
  const answer = (query: Buffer, close: boolean) => {
    const a = answerQuery(pipeline, query, source);
    const o = { head: false, close, keepAliveMs: KEEP_ALIVE_MS };
    if (a.ok) return responseBytes(200, { ...cors, ...answerHeaders(a) }, a.out, o) as Buffer;
    const p = problemOf(a.code, a.detail);
    return responseBytes(p.status, { ...cors, ...p.headers }, p.body, o) as Buffer;
  };
  return {
    take: takeQuery,
    answer,
    handOver,
    headersMs: HTTP_TIMEOUT_MS,
    onHeadersTimeout: (s) => s.destroy(),
    keepAliveMs: KEEP_ALIVE_MS,
  };
}

/** HTTP/1.1 (fast path first) and h2c on one plain port; octets already read are put back. */
function plainServer(
  handler: (req: Req, res: Res) => void,
  pipeline: QueryPipeline,
  cors: Readonly<Record<string, string>>,
): net.Server {
  const h1 = http.createServer(
    { requestTimeout: HTTP_TIMEOUT_MS, headersTimeout: HTTP_TIMEOUT_MS },
    handler,
  );
  h1.on('clientError', dohClientError);
  const h2 = http2.createServer(handler);
  h2.setTimeout(HTTP_TIMEOUT_MS);
  const connections = new Http1Connections();
  const toH1 = (socket: net.Socket, pending: Buffer) => {
    socket.pause();
    if (pending.length > 0) socket.unshift(pending);
    h1.emit('connection', socket);
    socket.resume();
  };
  // node:http2 reads what is buffered on the socket first (it must stay paused until then).
  const toH2 = (socket: net.Socket, pending: Buffer) => {
    socket.pause();
    socket.unshift(pending);
    h2.emit('connection', socket);
  };
  // Small answers must leave at once (Nagle plus delayed ACKs cost ~40 ms a request).
  return net.createServer({ noDelay: true }, (socket) => {
    // Until the first octets come (the listener is removed with the timer, so
    // node:http's or node:http2's own timeouts are the only ones after that).
    const onIdle = () => socket.destroy();
    socket.on('timeout', onIdle);
    socket.setTimeout(HTTP_TIMEOUT_MS);
    let seen: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]);
      const n = Math.min(seen.length, 4);
      if (n < 4 && seen.subarray(0, n).equals(H2_PREFACE.subarray(0, n))) return;
      socket.off('data', onData);
      socket.off('timeout', onIdle);
      socket.setTimeout(0);
      if (seen.subarray(0, 4).equals(H2_PREFACE)) toH2(socket, seen);
      else {
        const service = fastService(pipeline, cors, socket.remoteAddress ?? '', toH1);
        serveHttp1(socket, seen, service, connections);
      }
    };
    socket.on('data', onData);
    socket.on('error', () => socket.destroy());
  });
}

export async function listenDoh(
  pipeline: QueryPipeline,
  options: DohOptions,
  log: Logger,
  summary: LogSummary,
): Promise<DohListener> {
  const tls = await tlsFiles(options);
  if (!tls && !isLoopback(options.host)) {
    throw new DohConfigError(
      'DOH_PLAIN_NOT_LOOPBACK',
      `DoH without TLS is allowed only on loopback addresses, not ${options.host}: give --tls-cert and --tls-key`,
    );
  }
  const cors = dohCorsHeaders(options.allowOrigin);
  const handler = (req: Req, res: Res) => {
    handleDohRequest(pipeline, req, res, cors).catch((e: unknown) => {
      summary.note('query_failed', req.socket?.remoteAddress ?? '', 'doh', 'error', String(e));
      if (!res.headersSent) problem(res, 'DOH_BAD_REQUEST', 'the request could not be read');
      else res.end();
    });
  };
  const server: net.Server = tls
    ? http2.createSecureServer({ ...tls, allowHTTP1: true }, handler)
    : plainServer(handler, pipeline, cors);
  server.on('error', (e) => log.warn('doh_server_error', { error: e.message }));
  const sockets = new Set<net.Socket>();
  server.on(tls ? 'secureConnection' : 'connection', (s: net.Socket) => {
    s.setNoDelay(true);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const { address: addr, urlHost: hostText } = await listenOn(server, options.port, options.host);
  return {
    address: addr.address,
    port: addr.port,
    tls: tls !== undefined,
    url: `${tls ? 'https' : 'http'}://${hostText}:${addr.port}${DOH_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
