/**
 * The pure part of the HTTP/1.1 codec (the connection driver is
 * `kit/http1.ts`): the request head in the plain shape the fast paths take,
 * and the response head as node:http writes it. Anything outside the shape
 * is handed to node:http, which answers it.
 *
 * The plain shape: `METHOD SP origin-form SP HTTP/1.1`; header lines
 * `token ":" OWS value OWS` of printable ASCII, each name at most once; a
 * Host header; Connection, if any, `close` or `keep-alive`; no
 * Transfer-Encoding, Expect, Upgrade or HTTP2-Settings (they change how the
 * bytes after the head are read). RFC 9112 sections 3, 5 and 9.6.
 */

/** A head longer than this is left to node:http (which answers 431 past its own limit). */
export const MAX_FAST_HEAD = 8 * 1024;

export interface RequestHead {
  readonly method: string;
  /** The origin-form target (path and query), as sent. */
  readonly target: string;
  /** Field values by lowercase name (each name at most once). */
  readonly headers: ReadonlyMap<string, string>;
  /** `Connection: close` was asked for. */
  readonly close: boolean;
}

const REQUEST_LINE = /^([A-Z]{1,16}) (\/[\x21-\x7e]*) HTTP\/1\.1$/;
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*([\t\x20-\x7e]*?)[ \t]*$/;
/** Characters node:http refuses in a response header value (it throws ERR_INVALID_CHAR). */
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** The head `text` (the octets before the blank line, as latin1) in the plain shape, else undefined. */
export function parseRequestHead(text: string): RequestHead | undefined {
  let eol = text.indexOf('\r\n');
  if (eol < 0) eol = text.length;
  const m = REQUEST_LINE.exec(text.slice(0, eol));
  if (m === null) return undefined;
  const headers = new Map<string, string>();
  let close = false;
  while (eol < text.length) {
    const start = eol + 2;
    eol = text.indexOf('\r\n', start);
    if (eol < 0) eol = text.length;
    const h = HEADER_LINE.exec(text.slice(start, eol));
    if (h === null) return undefined;
    const name = (h[1] as string).toLowerCase();
    const value = h[2] as string;
    if (headers.has(name)) return undefined;
    switch (name) {
      case 'connection': {
        const v = value.toLowerCase();
        if (v === 'close') close = true;
        else if (v !== 'keep-alive') return undefined;
        break;
      }
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
      case 'http2-settings':
        return undefined;
    }
    headers.set(name, value);
  }
  if (!headers.has('host')) return undefined;
  return { method: m[1] as string, target: m[2] as string, headers, close };
}

/**
 * The response head node:http writes: the status line with `reason`, the
 * given header lines in their order, then `Date`, `Connection` and (kept
 * alive) `Keep-Alive`, and the blank line. Undefined when a header value
 * holds a character node:http refuses to send.
 */
export function responseHead(
  status: number,
  reason: string,
  headers: Readonly<Record<string, string>>,
  date: string,
  keepAliveMs: number | 'close',
): string | undefined {
  let text = `HTTP/1.1 ${status} ${reason}\r\n`;
  for (const k in headers) {
    const v = headers[k] as string;
    if (BAD_VALUE.test(v)) return undefined;
    text += `${k}: ${v}\r\n`;
  }
  return keepAliveMs === 'close'
    ? `${text}Date: ${date}\r\nConnection: close\r\n\r\n`
    : `${text}Date: ${date}\r\nConnection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(keepAliveMs / 1000)}\r\n\r\n`;
}
