/**
 * The HTTP step: THTTP (RFC 2169) requests to a jurisdiction's resolver.
 *
 * - N2L: the redirect is not followed; the 30x `Location` (resolved against
 *   the request URL) is the answer.
 * - N2Ls: a `text/uri-list` body (comments, CRLF/LF/CR line ends).
 * - N2C: the description as received (content type and body).
 *
 * The URN goes after `?` unchanged: the request path is sent exactly as the
 * NAPTR rule (or the THTTP template) produced it, never re-serialised by a
 * URL parser (which would percent-encode `'` in a query, for example).
 *
 * @see RFC 2169 section 2.0 ("GET /uri-res/N2L?urn:foo:12345-54321"; the URN
 *   is "encoded ... as is" after the "?")
 * @see RFC 2169 section 3.1 (N2L: "The request MUST result in a redirect ...
 *   the URL MUST be in the Location: header")
 * @see RFC 2169 section 3.2 and RFC 2483 section 5 (text/uri-list: "lines
 *   beginning with the '#' character are comments"; CRLF line ends)
 * @see RFC 2169 section 3.5 (N2C: "the result MUST be labelled by Content-Type")
 */
import { getGlobalDispatcher, type Dispatcher } from 'undici';
import type { HttpExchange } from '../core/ddds/trace.ts';
import { HttpStepError } from './errors.ts';
import { parseUriList, splitHttpUrl, type ThttpService } from './thttp-url.ts';

export { parseUriList, splitHttpUrl, thttpUrl, type ThttpService } from './thttp-url.ts';

export interface HttpStepOptions {
  /** Whole step, all redirects included, in ms (default 10,000). */
  readonly timeoutMs?: number;
  /** Redirects followed for N2Ls/N2C (default 5). N2L never follows. */
  readonly maxRedirects?: number;
  /** Largest body read, in bytes (default 1 MiB). */
  readonly maxBodyBytes?: number;
  /** undici dispatcher (an Agent, or a MockAgent in tests). */
  readonly dispatcher?: Dispatcher;
  readonly signal?: AbortSignal;
  readonly userAgent?: string;
}

/** One HTTP request and its response, for the trace. */
export type { HttpExchange };

export type HttpStepResult =
  | {
      readonly service: 'N2L';
      readonly urls: readonly string[];
      readonly exchanges: readonly HttpExchange[];
    }
  | {
      readonly service: 'N2Ls';
      readonly urls: readonly string[];
      readonly exchanges: readonly HttpExchange[];
    }
  | {
      readonly service: 'N2C';
      readonly urls: readonly string[];
      readonly contentType: string;
      readonly body: string;
      readonly exchanges: readonly HttpExchange[];
    };

function header(
  h: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

async function readBody(
  body: Dispatcher.ResponseData['body'],
  max: number,
  url: string,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > max) {
      body.destroy();
      throw new HttpStepError('HTTP_BODY_TOO_LARGE', `response from ${url} is over ${max} bytes`, {
        url,
      });
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks, size);
}

function statusError(status: number, url: string, snippet: string): HttpStepError {
  const tail = snippet ? `: ${snippet}` : '';
  if (status === 404 || status === 410) {
    return new HttpStepError(
      'HTTP_NOT_FOUND',
      `the resolver at ${url} does not know this URN (HTTP ${status})${tail}`,
      { url, status },
    );
  }
  if (status >= 400 && status < 500) {
    return new HttpStepError(
      'HTTP_CLIENT_ERROR',
      `the resolver at ${url} answered HTTP ${status}${tail}`,
      {
        url,
        status,
      },
    );
  }
  if (status >= 500) {
    return new HttpStepError(
      'HTTP_SERVER_ERROR',
      `the resolver at ${url} failed with HTTP ${status}${tail}`,
      {
        url,
        status,
      },
    );
  }
  return new HttpStepError(
    'HTTP_UNEXPECTED_STATUS',
    `the resolver at ${url} answered HTTP ${status}${tail}`,
    {
      url,
      status,
    },
  );
}

function networkError(
  e: unknown,
  url: string,
  timeoutMs: number,
  signal: AbortSignal,
): HttpStepError {
  const err = e as { code?: string; name?: string; message?: string };
  if (
    signal.aborted ||
    err.name === 'TimeoutError' ||
    err.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    err.code === 'UND_ERR_BODY_TIMEOUT' ||
    err.code === 'UND_ERR_CONNECT_TIMEOUT'
  ) {
    return new HttpStepError(
      'HTTP_TIMEOUT',
      `no complete answer from ${url} within ${timeoutMs} ms`,
      { url },
      e,
    );
  }
  const detail = err.code ?? err.message ?? String(e);
  return new HttpStepError('HTTP_NETWORK', `cannot reach ${url}: ${detail}`, { url }, e);
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GET `url` (the resolver URL from a `U` rule, or built by `thttpUrl`) and
 * interpret the answer for `service`.
 */
export async function thttpRequest(
  url: string,
  service: ThttpService,
  options: HttpStepOptions = {},
): Promise<HttpStepResult> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRedirects = options.maxRedirects ?? 5;
  const maxBody = options.maxBodyBytes ?? 1 << 20;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const exchanges: HttpExchange[] = [];
  let current = url;
  for (let redirects = 0; ; redirects++) {
    const { origin, path } = splitHttpUrl(current);
    const started = performance.now();
    let res: Dispatcher.ResponseData;
    try {
      // Dispatcher.request with origin + path sends the path as given;
      // undici's top-level request() would re-serialise it through new URL().
      res = await (options.dispatcher ?? getGlobalDispatcher()).request({
        origin,
        path,
        method: 'GET',
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        headers: {
          accept: service === 'N2Ls' ? 'text/uri-list, text/plain;q=0.5' : '*/*',
          'user-agent': options.userAgent ?? 'lexroute-client',
        },
      });
    } catch (e) {
      throw networkError(e, current, timeoutMs, timeout);
    }
    const status = res.statusCode;
    const location = header(res.headers, 'location');
    const contentType = header(res.headers, 'content-type');
    let body: Buffer;
    try {
      body = await readBody(res.body, maxBody, current);
    } catch (e) {
      if (e instanceof HttpStepError) throw e;
      throw networkError(e, current, timeoutMs, timeout);
    }
    const ms = performance.now() - started;
    let resolved: string | undefined;
    if (location !== undefined) {
      try {
        resolved = new URL(location, current).href;
      } catch {
        exchanges.push({
          method: 'GET',
          url: current,
          status,
          location,
          contentType,
          bytes: body.length,
          ms,
        });
        throw new HttpStepError(
          'HTTP_BAD_LOCATION',
          `the resolver at ${current} sent an invalid Location '${location.slice(0, 200)}'`,
          { url: current, status },
        );
      }
    }
    exchanges.push({
      method: 'GET',
      url: current,
      status,
      ...(resolved !== undefined ? { location: resolved } : {}),
      ...(contentType !== undefined ? { contentType } : {}),
      bytes: body.length,
      ms,
    });
    const snippet = body
      .toString('utf8', 0, Math.min(body.length, 200))
      .replace(/\s+/g, ' ')
      .trim();
    if (status >= 400) throw statusError(status, current, snippet);

    if (service === 'N2L') {
      // @see RFC 2169 section 3.1: the URL is in Location (30x; 303 for HTTP/1.1).
      if (resolved !== undefined && (REDIRECTS.has(status) || (status >= 200 && status < 300))) {
        return { service, urls: [resolved], exchanges };
      }
      throw new HttpStepError(
        status >= 200 && status < 400 ? 'HTTP_NO_LOCATION' : 'HTTP_UNEXPECTED_STATUS',
        `N2L at ${current} answered HTTP ${status} without a Location header`,
        { url: current, status },
      );
    }

    if (REDIRECTS.has(status)) {
      if (resolved === undefined) {
        throw new HttpStepError(
          'HTTP_NO_LOCATION',
          `${current} answered HTTP ${status} without a Location header`,
          {
            url: current,
            status,
          },
        );
      }
      if (redirects >= maxRedirects) {
        throw new HttpStepError(
          'HTTP_REDIRECT_LIMIT',
          `more than ${maxRedirects} redirects starting at ${url}`,
          { url: current, status },
        );
      }
      current = resolved;
      continue;
    }
    if (status < 200 || status >= 300) {
      throw new HttpStepError('HTTP_UNEXPECTED_STATUS', `${current} answered HTTP ${status}`, {
        url: current,
        status,
      });
    }
    const text = body.toString('utf8');
    if (service === 'N2Ls') {
      const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== 'text/uri-list' && type !== 'text/plain') {
        throw new HttpStepError(
          'HTTP_BAD_CONTENT_TYPE',
          `N2Ls at ${current} answered '${contentType ?? '(no content type)'}', expected text/uri-list`,
          { url: current, status },
        );
      }
      const urls = parseUriList(text, current);
      if (urls.length === 0) {
        throw new HttpStepError('HTTP_EMPTY_LIST', `N2Ls at ${current} returned no URL`, {
          url: current,
          status,
        });
      }
      return { service, urls, exchanges };
    }
    // N2C: the description as received.
    return {
      service: 'N2C',
      urls: [current],
      contentType: contentType ?? 'application/octet-stream',
      body: text,
      exchanges,
    };
  }
}
