/**
 * The HTTP step without its HTTP client: THTTP (RFC 2169) requests, their
 * redirects and each service's answer, one GET through an `HttpGet` (undici
 * or `fetch`). No Node built-ins. N2L: the 30x `Location` is the answer, not
 * followed (RFC 2169 section 3.1); N2Ls: a text/uri-list (RFC 2483 section
 * 5); N2C: the description as received (RFC 2169 section 3.5).
 */
import type { HttpExchange } from '../ddds/core/trace.ts';
import type { ResolutionCode } from '../ddds/core/codes.ts';
import { HttpStepError } from './errors.ts';
import { parseUriList, splitHttpUrl, type ThttpService } from './thttp-url.ts';

export interface HttpStepOptions {
  /** Whole step, all redirects included, in ms (default 10,000). */
  readonly timeoutMs?: number;
  /** Redirects followed for N2Ls/N2C (default 5). N2L never follows. */
  readonly maxRedirects?: number;
  /** Largest body read, in bytes (default 1 MiB). */
  readonly maxBodyBytes?: number;
  readonly signal?: AbortSignal;
  readonly userAgent?: string;
}

export type HttpStepResult =
  | {
      readonly service: Exclude<ThttpService, 'N2C'>;
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

/** One GET as an HTTP client returns it: status, the two headers read, the body. */
export interface HttpGetResponse {
  readonly status: number;
  readonly location: string | undefined;
  readonly contentType: string | undefined;
  readonly body: Uint8Array;
}

/** What one GET needs: the raw path is sent exactly as given (never re-serialised). */
export interface HttpGetRequest {
  readonly origin: string;
  readonly path: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
}

/** One GET, redirects not followed; throws an HttpStepError or the client's own error. */
export type HttpGet = (req: HttpGetRequest) => Promise<HttpGetResponse>;

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** GET `url` through `get`, follow redirects (N2Ls, N2C), and read the answer for `service`. */
export async function thttpWith(
  get: HttpGet,
  url: string,
  service: ThttpService,
  options: HttpStepOptions = {},
): Promise<HttpStepResult> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRedirects = options.maxRedirects ?? 5;
  const timeout = AbortSignal.timeout(timeoutMs);
  const step: Step = {
    get,
    timeout,
    signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
    timeoutMs,
    maxBodyBytes: options.maxBodyBytes ?? 1 << 20,
    headers: {
      accept: service === 'N2Ls' ? 'text/uri-list, text/plain;q=0.5' : '*/*',
      'user-agent': options.userAgent ?? 'lexroute-client',
    },
    exchanges: [],
  };
  let current = url;
  for (let redirects = 0; ; redirects++) {
    const res = await exchange(step, current);
    const next = interpret(step, service, current, res);
    if (typeof next !== 'string') return next;
    if (redirects >= maxRedirects) {
      throw new HttpStepError(
        'HTTP_REDIRECT_LIMIT',
        `more than ${maxRedirects} redirects starting at ${url}`,
        { url: current, status: res.status },
      );
    }
    current = next;
  }
}

interface Step {
  readonly get: HttpGet;
  readonly timeout: AbortSignal;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly maxBodyBytes: number;
  readonly headers: Record<string, string>;
  readonly exchanges: HttpExchange[];
}

/** A response read, its Location resolved against the URL, recorded for the trace. */
interface Answered extends HttpGetResponse {
  readonly resolved: string | undefined;
}

/** One GET of `url`, recorded in the step's exchanges. */
async function exchange(step: Step, url: string): Promise<Answered> {
  const { origin, path } = splitHttpUrl(url);
  const started = performance.now();
  let res: HttpGetResponse;
  try {
    res = await step.get({
      origin,
      path,
      url,
      headers: step.headers,
      signal: step.signal,
      timeoutMs: step.timeoutMs,
      maxBodyBytes: step.maxBodyBytes,
    });
  } catch (e) {
    if (e instanceof HttpStepError) throw e;
    throw networkError(e, url, step.timeoutMs, step.timeout);
  }
  const ms = performance.now() - started;
  const { status, location, contentType, body } = res;
  let resolved: string | undefined;
  if (location !== undefined) {
    try {
      resolved = new URL(location, url).href;
    } catch {
      step.exchanges.push({
        method: 'GET',
        url,
        status,
        location,
        contentType,
        bytes: body.length,
        ms,
      });
      throw new HttpStepError(
        'HTTP_BAD_LOCATION',
        `the resolver at ${url} sent an invalid Location '${location.slice(0, 200)}'`,
        { url, status },
      );
    }
  }
  step.exchanges.push({
    method: 'GET',
    url,
    status,
    ...(resolved !== undefined ? { location: resolved } : {}),
    ...(contentType !== undefined ? { contentType } : {}),
    bytes: body.length,
    ms,
  });
  return { ...res, resolved };
}

const utf8 = new TextDecoder();

/** The service's answer in `res`, or the URL a redirect leads to. */
function interpret(
  step: Step,
  service: ThttpService,
  url: string,
  res: Answered,
): HttpStepResult | string {
  const { status, resolved, contentType, body } = res;
  const exchanges = step.exchanges;
  if (status >= 400) {
    const snippet = utf8.decode(body.subarray(0, 200)).replace(/\s+/g, ' ').trim();
    throw statusError(status, url, snippet);
  }
  if (service === 'N2L') {
    // @see RFC 2169 section 3.1: the URL is in Location (30x; 303 for HTTP/1.1).
    if (resolved !== undefined && (REDIRECTS.has(status) || (status >= 200 && status < 300))) {
      return { service, urls: [resolved], exchanges };
    }
    throw new HttpStepError(
      status >= 200 && status < 400 ? 'HTTP_NO_LOCATION' : 'HTTP_UNEXPECTED_STATUS',
      `N2L at ${url} answered HTTP ${status} without a Location header`,
      { url, status },
    );
  }
  if (REDIRECTS.has(status)) {
    if (resolved !== undefined) return resolved;
    throw new HttpStepError(
      'HTTP_NO_LOCATION',
      `${url} answered HTTP ${status} without a Location header`,
      { url, status },
    );
  }
  if (status < 200 || status >= 300) {
    throw new HttpStepError('HTTP_UNEXPECTED_STATUS', `${url} answered HTTP ${status}`, {
      url,
      status,
    });
  }
  const text = utf8.decode(body);
  if (service === 'N2Ls')
    return { service, urls: uriListUrls(url, status, contentType, text), exchanges };
  // N2C: the description as received.
  return {
    service: 'N2C',
    urls: [url],
    contentType: contentType ?? 'application/octet-stream',
    body: text,
    exchanges,
  };
}

/** The URLs of an N2Ls answer: a text/uri-list with at least one URL. */
function uriListUrls(
  url: string,
  status: number,
  contentType: string | undefined,
  text: string,
): string[] {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'text/uri-list' && type !== 'text/plain') {
    throw new HttpStepError(
      'HTTP_BAD_CONTENT_TYPE',
      `N2Ls at ${url} answered '${contentType ?? '(no content type)'}', expected text/uri-list`,
      { url, status },
    );
  }
  const urls = parseUriList(text, url);
  if (urls.length === 0) {
    throw new HttpStepError('HTTP_EMPTY_LIST', `N2Ls at ${url} returned no URL`, { url, status });
  }
  return urls;
}

/** The error for a 4xx/5xx answer. */
export function statusError(status: number, url: string, snippet: string): HttpStepError {
  const [code, what]: [ResolutionCode, string] =
    status === 404 || status === 410
      ? ['HTTP_NOT_FOUND', `does not know this URN (HTTP ${status})`]
      : status >= 500
        ? ['HTTP_SERVER_ERROR', `failed with HTTP ${status}`]
        : status >= 400
          ? ['HTTP_CLIENT_ERROR', `answered HTTP ${status}`]
          : ['HTTP_UNEXPECTED_STATUS', `answered HTTP ${status}`];
  const tail = snippet ? `: ${snippet}` : '';
  return new HttpStepError(code, `the resolver at ${url} ${what}${tail}`, { url, status });
}

/** A failed GET (no answer, or an answer cut short): HTTP_TIMEOUT or HTTP_NETWORK. */
export function networkError(
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
