/**
 * The DoH transport's requests in Node over a small HTTP/1.1 client of its
 * own (node:net, node:tls with ALPN http/1.1): kept-alive connections per
 * origin, one request at a time on each, the request written in one piece
 * and the response read from the socket's bytes.
 *
 * Why not undici: a DoH exchange is one short request and one short answer,
 * and undici's general machinery (request objects, header lists, abort
 * listeners, the llhttp parser in WebAssembly, body streams) cost about
 * 100 us of CPU per exchange on loopback, four times a UDP query's whole
 * client side (bench/doh.ts, cold resolutions). This client does only what
 * DoH needs: GET or POST, a status line and headers, a body by
 * Content-Length, chunked, or until close. Anything outside that (a bad
 * status line, a head over 16 KiB, a body over 1 MiB) is an error, and the
 * transport reports it like any network failure.
 *
 * A kept-alive connection the server has closed meanwhile is noticed when
 * the request gets no byte back; the request is then sent once more on a
 * new connection (DNS queries are idempotent).
 */
import net from 'node:net';
import tls from 'node:tls';
import { BoundedMemo } from '../kit/core/memo.ts';
import type { DohFetch, DohResponse } from './doh.ts';

const MAX_HEAD = 16 * 1024;
const MAX_BODY = 1024 * 1024;
/** An idle connection is closed after this long (before common servers' 5 s keep-alive). */
const IDLE_MS = 4000;
/** At most this many idle connections kept per origin. */
const MAX_IDLE = 8;

interface Origin {
  readonly key: string;
  readonly host: string;
  readonly port: number;
  readonly tls: boolean;
  readonly hostHeader: string;
}

export class Http1Error extends Error {
  /** True when the connection closed before any byte of the answer came (a stale kept-alive one). */
  readonly beforeAnswer: boolean;
  constructor(message: string, beforeAnswer = false) {
    super(message);
    this.name = 'Http1Error';
    this.beforeAnswer = beforeAnswer;
  }
}

/**
 * A response head: its header fields are found when asked for (a DoH
 * exchange reads four of a dozen), by name in the lowercased text.
 */
export class ResponseHead {
  readonly status: number;
  readonly version: '1.0' | '1.1';
  private readonly text: string;
  private readonly lower: string;

  constructor(text: string) {
    const m = /^HTTP\/1\.([01]) (\d{3})(?: |\r|$)/.exec(text);
    if (!m) {
      const line = text.split('\r\n', 1)[0];
      throw new Http1Error(`not an HTTP/1.x status line: ${JSON.stringify(line)}`);
    }
    this.version = m[1] === '1' ? '1.1' : '1.0';
    this.status = Number(m[2]);
    this.text = text;
    this.lower = text.toLowerCase();
  }

  /** Every value of the field `name` (lowercase), in order. */
  all(name: string): string[] {
    const values: string[] = [];
    const needle = `\r\n${name}:`;
    for (let at = this.lower.indexOf(needle); at >= 0; at = this.lower.indexOf(needle, at + 2)) {
      const start = at + needle.length;
      const end = this.lower.indexOf('\r\n', start);
      values.push(this.text.slice(start, end < 0 ? undefined : end).trim());
    }
    return values;
  }

  /** Every field as [lowercase name, value], in order. */
  fields(): [string, string][] {
    return this.text
      .split('\r\n')
      .slice(1)
      .map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
      });
  }

  /** The field's values joined by ", ", or null when absent. */
  get(name: string): string | null {
    const values = this.all(name.toLowerCase());
    return values.length === 0 ? null : values.join(', ');
  }
}

interface Parsed {
  readonly status: number;
  readonly headers: ResponseHead;
  /** The body, in an ArrayBuffer of its own. */
  readonly body: Uint8Array<ArrayBuffer>;
  readonly keepAlive: boolean;
}

type Step = { done: false } | { done: true; parsed: Parsed; rest: number };

const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * Parse one response from `buf` (all bytes received so far), or say that
 * more are needed. `closed`: the server has closed (a body without length
 * ends there). Throws Http1Error on what is not HTTP/1.x.
 */
export function parseResponse(buf: Buffer, closed: boolean): Step {
  let start = 0;
  for (;;) {
    const end = buf.indexOf(HEAD_END, start);
    if (end < 0) {
      if (buf.length - start > MAX_HEAD) throw new Http1Error('response head over 16 KiB');
      if (closed) throw new Http1Error('connection closed in the response head', buf.length === 0);
      return { done: false };
    }
    if (end - start > MAX_HEAD) throw new Http1Error('response head over 16 KiB');
    const head = new ResponseHead(buf.toString('latin1', start, end));
    const status = head.status;
    // 1xx answers (103 Early Hints, ...) come before the real one.
    if (status >= 100 && status < 200) {
      start = end + 4;
      continue;
    }
    const connection = (head.get('connection') ?? '').toLowerCase();
    const keepAlive =
      head.version === '1.1' ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
    const bodyStart = end + 4;
    if (status === 204 || status === 304) {
      return {
        done: true,
        parsed: { status, headers: head, body: new Uint8Array(0), keepAlive },
        rest: bodyStart,
      };
    }
    return parseBody(buf, bodyStart, closed, { status, headers: head, keepAlive });
  }
}

/** A copy of `view` in an ArrayBuffer of its own (the socket's buffers are shared slabs). */
function own(view: Uint8Array): Uint8Array<ArrayBuffer> {
  const copy = new Uint8Array(view.length);
  copy.set(view);
  return copy;
}

function parseBody(
  buf: Buffer,
  at: number,
  closed: boolean,
  r: { status: number; headers: ResponseHead; keepAlive: boolean },
): Step {
  const te = (r.headers.get('transfer-encoding') ?? '').toLowerCase();
  if (te !== '') {
    if (!/(^|,)\s*chunked\s*$/.test(te))
      throw new Http1Error(`transfer-encoding ${te} is not read`);
    return parseChunked(buf, at, closed, r);
  }
  const lengths = r.headers.all('content-length');
  if (lengths.some((l) => l !== lengths[0])) {
    throw new Http1Error('two different Content-Length headers');
  }
  const declared = lengths[0];
  if (declared !== undefined) {
    if (!/^\d{1,9}$/.test(declared)) throw new Http1Error(`bad Content-Length ${declared}`);
    const length = Number(declared);
    if (length > MAX_BODY) throw new Http1Error(`a ${length}-byte body is over 1 MiB`);
    if (buf.length - at < length) {
      if (closed) throw new Http1Error('connection closed in the response body');
      return { done: false };
    }
    const body = own(buf.subarray(at, at + length));
    return { done: true, parsed: { ...r, body }, rest: at + length };
  }
  // No length: the body runs to the end of the connection, which cannot be kept.
  if (buf.length - at > MAX_BODY) throw new Http1Error('a body over 1 MiB');
  if (!closed) return { done: false };
  return {
    done: true,
    parsed: { ...r, keepAlive: false, body: own(buf.subarray(at)) },
    rest: buf.length,
  };
}

function parseChunked(
  buf: Buffer,
  at: number,
  closed: boolean,
  r: { status: number; headers: ResponseHead; keepAlive: boolean },
): Step {
  const parts: Buffer[] = [];
  let size = 0;
  let pos = at;
  for (;;) {
    const eol = buf.indexOf('\r\n', pos);
    if (eol < 0) break;
    const m = /^([0-9a-fA-F]{1,8})(?:;.*)?$/.exec(buf.toString('latin1', pos, eol));
    if (!m) throw new Http1Error('bad chunk size line');
    const n = parseInt(m[1] as string, 16);
    if (n === 0) {
      // Trailers, if any, up to an empty line.
      const trailerEnd =
        buf.indexOf('\r\n', eol + 2) === eol + 2 ? eol + 4 : buf.indexOf('\r\n\r\n', eol + 2) + 4;
      if (trailerEnd < 4) break;
      return {
        done: true,
        parsed: { ...r, body: own(Buffer.concat(parts, size)) },
        rest: trailerEnd,
      };
    }
    size += n;
    if (size > MAX_BODY) throw new Http1Error('a chunked body over 1 MiB');
    if (buf.length < eol + 2 + n + 2) break;
    parts.push(buf.subarray(eol + 2, eol + 2 + n));
    pos = eol + 2 + n + 2;
  }
  if (closed) throw new Http1Error('connection closed in a chunked body');
  if (buf.length - at > MAX_BODY + MAX_HEAD) throw new Http1Error('a chunked body over 1 MiB');
  return { done: false };
}

function originOf(u: URL): Origin {
  const secure = u.protocol === 'https:';
  const port = Number(u.port || (secure ? 443 : 80));
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return { key: `${u.protocol}//${u.host}`, host, port, tls: secure, hostHeader: u.host };
}

/** One kept-alive connection: one request at a time. */
class Connection {
  readonly socket: net.Socket;
  /** A request has been answered on it (so a silent close means it went stale). */
  used = false;
  private buf: Buffer = Buffer.alloc(0);
  private closed = false;
  private waiter: { resolve: (p: Parsed) => void; reject: (e: Error) => void } | undefined;
  onIdleClose: (() => void) | undefined;

  constructor(origin: Origin) {
    this.socket = origin.tls
      ? tls.connect({
          host: origin.host,
          port: origin.port,
          ALPNProtocols: ['http/1.1'],
          ...(net.isIP(origin.host) ? {} : { servername: origin.host }),
        })
      : net.connect({ host: origin.host, port: origin.port });
    this.socket.setNoDelay(true);
    this.socket.on('data', (d: Buffer) => {
      this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
      this.step();
    });
    this.socket.on('end', () => this.gone());
    this.socket.on('close', () => this.gone());
    this.socket.on('error', (e) => this.fail(new Http1Error(e.message, this.buf.length === 0)));
    this.socket.setTimeout(IDLE_MS, () => {
      if (this.waiter === undefined) this.socket.destroy();
    });
  }

  get usable(): boolean {
    return !this.closed && !this.socket.destroyed;
  }

  send(request: Buffer | string): Promise<Parsed> {
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
      if (typeof request === 'string') this.socket.write(request, 'latin1');
      else this.socket.write(request);
    });
  }

  /** Close it; a request waiting on it fails. */
  destroy(): void {
    this.closed = true;
    this.socket.destroy();
    const w = this.waiter;
    this.waiter = undefined;
    w?.reject(new Http1Error('connection closed by the client'));
  }

  private gone(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.waiter) this.step();
    else this.onIdleClose?.();
  }

  private fail(e: Error): void {
    this.closed = true;
    this.socket.destroy();
    const w = this.waiter;
    this.waiter = undefined;
    if (w) w.reject(e);
    else this.onIdleClose?.();
  }

  private step(): void {
    const w = this.waiter;
    if (!w) {
      // Bytes nobody asked for: the connection cannot be trusted any more.
      if (this.buf.length > 0) this.destroy();
      return;
    }
    let s: Step;
    try {
      s = parseResponse(this.buf, this.closed);
    } catch (e) {
      this.fail(e as Error);
      return;
    }
    if (!s.done) return;
    this.waiter = undefined;
    this.buf = this.buf.subarray(s.rest);
    this.used = true;
    if (!s.parsed.keepAlive || this.buf.length > 0) this.destroy();
    w.resolve(s.parsed);
  }
}

/** Kept-alive connections per origin; `close()` ends them. */
export class Http1Pool {
  private readonly idle = new Map<string, Connection[]>();
  private readonly origins = new BoundedMemo<string, Origin>(64);

  async request(url: string, init: Parameters<DohFetch>[1]): Promise<Parsed> {
    // The origin of each URL prefix is parsed once (the transport's URLs are normalized hrefs).
    const slash = url.indexOf('/', url.indexOf('//') + 2);
    const prefix = slash < 0 ? url : url.slice(0, slash);
    const origin = this.origins.getOrCompute(prefix, () => originOf(new URL(url)));
    const path = slash < 0 ? '/' : url.slice(slash);
    let head = `${init.method} ${path} HTTP/1.1\r\nhost: ${origin.hostHeader}\r\n`;
    for (const name in init.headers) head += `${name}: ${init.headers[name]}\r\n`;
    // A GET goes out as the string itself (no buffer to allocate); a POST in one buffer with its body.
    const request =
      init.body === undefined
        ? `${head}\r\n`
        : Buffer.concat([
            Buffer.from(`${head}content-length: ${init.body.length}\r\n\r\n`, 'latin1'),
            init.body,
          ]);
    for (let attempt = 0; ; attempt++) {
      init.signal.throwIfAborted();
      const conn = this.take(origin) ?? new Connection(origin);
      const reused = conn.used;
      const abort = () => conn.destroy();
      init.signal.addEventListener('abort', abort, { once: true });
      try {
        const parsed = await conn.send(request);
        if (conn.usable) this.put(origin, conn);
        return parsed;
      } catch (e) {
        init.signal.throwIfAborted();
        // A kept-alive connection closed by the server meanwhile: once more on a new one.
        if (reused && attempt === 0 && e instanceof Http1Error && e.beforeAnswer) continue;
        throw e;
      } finally {
        init.signal.removeEventListener('abort', abort);
      }
    }
  }

  close(): void {
    for (const list of this.idle.values()) for (const c of list) c.destroy();
    this.idle.clear();
  }

  private take(origin: Origin): Connection | undefined {
    const list = this.idle.get(origin.key);
    while (list && list.length > 0) {
      const c = list.pop() as Connection;
      if (c.usable) {
        c.socket.ref();
        c.onIdleClose = undefined;
        return c;
      }
    }
    return undefined;
  }

  private put(origin: Origin, conn: Connection): void {
    let list = this.idle.get(origin.key);
    if (!list) this.idle.set(origin.key, (list = []));
    if (list.length >= MAX_IDLE) {
      conn.destroy();
      return;
    }
    // An idle connection does not keep the process alive.
    conn.socket.unref();
    conn.onIdleClose = () => {
      const i = list.indexOf(conn);
      if (i >= 0) list.splice(i, 1);
    };
    list.push(conn);
  }
}

/** The DohFetch of a pool (Node's side of the DoH transport). */
export function http1DohFetch(pool: Http1Pool): DohFetch {
  return async (url, init) => {
    const r = await pool.request(url, init);
    const response: DohResponse = {
      status: r.status,
      headers: r.headers,
      body: { cancel: () => Promise.resolve() },
      arrayBuffer: () => Promise.resolve(r.body.buffer),
    };
    return response;
  };
}
