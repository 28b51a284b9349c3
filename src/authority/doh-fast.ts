/**
 * The plain-HTTP/1.1 fast path of the DoH endpoint: the two requests DoH
 * clients send, `GET /dns-query?dns=...` and `POST /dns-query` with an
 * `application/dns-message` body, read straight from the socket's bytes and
 * answered with one write, without node:http's request and response objects
 * (which cost about 70 us of CPU per query on loopback, three times the
 * engine's answer: bench/doh.ts).
 *
 * Only requests in that exact shape are taken here: HTTP/1.1, the path
 * `/dns-query`, a Host header, plain header lines; for POST a
 * Content-Length of at most 65535 and the DoH content type; for GET one
 * `dns` parameter with no percent-encoding that decodes. Any other request
 * (another method or path, HTTP/1.0, chunked bodies, Expect, Upgrade, a bad
 * `dns` parameter, a head over 8 KiB) hands the connection, with every byte
 * not yet answered, to node:http and `handleDohRequest` for the rest of its
 * life: they answer it, errors and problem+json included, as before. The
 * answer itself is `answerQuery`, the same engine call as on every path.
 */
import type net from 'node:net';
import http from 'node:http';
import { base64UrlDecode } from '../dns/core/wire/doh.ts';
import { dohStatus } from '../dns/core/wire/codes.ts';
import { answerQuery, DNS_MESSAGE, DOH_PATH, problemBody } from './doh-answer.ts';
import type { Engine } from './engine.ts';
import type { LogSummary } from './log-summary.ts';
import { HttpDate } from '../kit/core/http-date.ts';

/** A request head longer than this goes to node:http (which answers 431 past its own limit). */
const MAX_FAST_HEAD = 8 * 1024;
const MAX_MESSAGE = 65535;
/** An idle kept-alive connection is closed after this long (node:http's default). */
const KEEP_ALIVE_MS = 5000;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Control characters other than tab are not allowed in a field value.
const BAD_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/;

export interface FastDoh {
  readonly engine: () => Engine;
  readonly summary: LogSummary;
  /** The CORS header lines (`name: value\r\n`...) of every answer. */
  readonly corsLines: string;
  /** Give the connection to node:http, `pending` (bytes not answered here) first. */
  readonly handOver: (socket: net.Socket, pending: Buffer) => void;
  /** Longest wait for the rest of a started request, ms. */
  readonly requestTimeoutMs: number;
}

/** A complete request in the fast shape: its query, its length in bytes and whether to close after. */
type Taken = { readonly query: Buffer; readonly length: number; readonly close: boolean };

/** One request from the head of `buf`: taken, `more` bytes needed, or `other` (for node:http). */
export function takeRequest(buf: Buffer): Taken | 'more' | 'other' {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return buf.length > MAX_FAST_HEAD ? 'other' : 'more';
  if (end > MAX_FAST_HEAD) return 'other';
  const lines = buf.toString('latin1', 0, end).split('\r\n');
  const m = /^(GET|POST) ([^ ]+) HTTP\/1\.1$/.exec(lines[0] as string);
  if (!m) return 'other';
  const target = m[2] as string;
  const q = target.indexOf('?');
  if ((q < 0 ? target : target.slice(0, q)) !== DOH_PATH) return 'other';
  const h = headersOf(lines);
  if (h === undefined || h.host === undefined) return 'other';
  const bodyStart = end + 4;
  if (m[1] === 'GET') {
    if (h.contentLength !== undefined && h.contentLength !== '0') return 'other';
    const query = dnsParameter(q < 0 ? '' : target.slice(q + 1));
    return query === undefined ? 'other' : { query, length: bodyStart, close: h.close };
  }
  if (h.contentType !== DNS_MESSAGE || h.contentLength === undefined) return 'other';
  if (!/^\d{1,5}$/.test(h.contentLength)) return 'other';
  const length = Number(h.contentLength);
  if (length > MAX_MESSAGE) return 'other';
  if (buf.length < bodyStart + length) return 'more';
  const query = Buffer.from(buf.subarray(bodyStart, bodyStart + length));
  return { query, length: bodyStart + length, close: h.close };
}

interface Head {
  host?: string;
  contentLength?: string;
  contentType?: string;
  close: boolean;
}

/** The header lines DoH needs, or undefined when one is outside the fast shape. */
function headersOf(lines: readonly string[]): Head | undefined {
  const h: Head = { close: false };
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    const name = line.slice(0, colon).toLowerCase();
    if (!TOKEN.test(name)) return undefined;
    const value = line.slice(colon + 1).trim();
    if (BAD_VALUE.test(value)) return undefined;
    switch (name) {
      case 'host':
        if (h.host !== undefined) return undefined;
        h.host = value;
        break;
      case 'content-length':
        if (h.contentLength !== undefined) return undefined;
        h.contentLength = value;
        break;
      case 'content-type':
        h.contentType = (value.split(';')[0] as string).trim().toLowerCase();
        break;
      case 'connection': {
        const v = value.toLowerCase();
        if (v.includes('upgrade')) return undefined;
        h.close = /\bclose\b/.test(v);
        break;
      }
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
      case 'http2-settings':
        return undefined;
    }
  }
  return h;
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

/** One formatter per process: the Date text is the same for every connection. */
const DATE = new HttpDate();
const httpDate = () => DATE.at(Date.now());

/** The whole HTTP response to one taken request, head and body in one buffer. */
function responseTo(fast: FastDoh, taken: Taken, source: string): Buffer {
  const answer = answerQuery(fast.engine, taken.query, fast.summary, source);
  const connection = taken.close
    ? 'connection: close\r\n'
    : `connection: keep-alive\r\nkeep-alive: timeout=${KEEP_ALIVE_MS / 1000}\r\n`;
  const tail = `${fast.corsLines}date: ${httpDate()}\r\n${connection}\r\n`;
  if (!answer.ok) {
    const status = dohStatus(answer.code);
    const body = problemBody(status, answer.code, answer.detail);
    return Buffer.from(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/problem+json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\n${tail}${body}`,
    );
  }
  const head =
    `HTTP/1.1 200 OK\r\ncontent-type: ${DNS_MESSAGE}\r\ncontent-length: ${answer.out.length}\r\n` +
    `cache-control: ${answer.cacheControl}\r\n${tail}`;
  // Head and body in one buffer, for one write.
  const bytes = Buffer.allocUnsafe(head.length + answer.out.length);
  bytes.write(head, 0, 'latin1');
  answer.out.copy(bytes, head.length);
  return bytes;
}

/**
 * Serve a plain HTTP/1.1 connection whose first bytes are `first`: requests
 * in the fast shape here, the connection handed to node:http at the first
 * one that is not.
 */
export function serveFast(socket: net.Socket, first: Buffer, fast: FastDoh): void {
  let buf = first;
  let partial: ReturnType<typeof setTimeout> | undefined;
  const source = socket.remoteAddress ?? '';
  const onIdle = () => socket.destroy();
  const stop = () => {
    socket.off('data', onData);
    socket.setTimeout(0);
    socket.off('timeout', onIdle);
    if (partial !== undefined) clearTimeout(partial);
    partial = undefined;
  };
  const drain = () => {
    for (;;) {
      const taken = buf.length === 0 ? 'more' : takeRequest(buf);
      if (taken === 'other') {
        stop();
        fast.handOver(socket, buf);
        return;
      }
      if (taken === 'more') {
        // A started request must be complete within the request timeout.
        if (buf.length > 0) {
          partial ??= setTimeout(() => socket.destroy(), fast.requestTimeoutMs);
        } else if (partial !== undefined) {
          clearTimeout(partial);
          partial = undefined;
        }
        return;
      }
      socket.write(responseTo(fast, taken, source));
      buf = buf.subarray(taken.length);
      if (partial !== undefined) clearTimeout(partial);
      partial = undefined;
      if (taken.close) {
        stop();
        socket.end();
        return;
      }
    }
  };
  function onData(d: Buffer): void {
    buf = buf.length === 0 ? d : Buffer.concat([buf, d]);
    drain();
  }
  socket.on('data', onData);
  socket.on('timeout', onIdle);
  socket.setTimeout(KEEP_ALIVE_MS);
  drain();
}
