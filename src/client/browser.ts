/**
 * The DDDS client without sockets (a page, a worker): DoH (RFC 8484) and
 * THTTP through `fetch`. No Node built-ins. What a page cannot do:
 * - read a redirect's `Location` (an opaque redirect): a `/uri-res/N2L?<urn>`
 *   URL is asked as N2Ls and its first URL taken; other redirecting N2L URLs
 *   fail with HTTP_OPAQUE_REDIRECT;
 * - pin S/A hosts to the addresses DoH gave: when the browser cannot resolve
 *   the name and the URL is plain `http:`, it is asked again by address
 *   (`addressedUrl`); `https:` keeps the name its certificate holds;
 * - send a URL unserialised (`fetch` sends `'` as `%27`).
 */
import type { Service } from '../ddds/core/trace.ts';
import type { WalkNeed } from '../ddds/core/walk.ts';
import type { ClientTransport, DefaultTransportOptions } from './client.ts';
import { DohTransport } from './doh.ts';
import { HttpStepError } from './errors.ts';
import { StubResolver } from './stub.ts';
import { webDnssecCrypto } from '../dnssec/webcrypto.ts';
import { thttpWith, type HttpGet, type HttpStepResult } from './thttp.ts';

/** The DoH options of a client (GET by default: no CORS preflight, cacheable). */
export interface DohTransportConfig extends Pick<
  DefaultTransportOptions,
  'dohMethod' | 'timeoutMs' | 'tries' | 'fetch'
> {
  /** DNS over HTTPS URLs (`https://host/dns-query`), tried in turn. */
  readonly doh: string | readonly string[];
}

/** One GET through `fetch`, redirects not followed. */
export function fetchGet(fetchFn: typeof fetch): HttpGet {
  return async (req) => {
    const res = await fetchFn(`${req.origin}${req.path}`, {
      method: 'GET',
      redirect: 'manual',
      // A page may not set user-agent; accept alone keeps the request "simple" (no preflight).
      headers: { accept: req.headers.accept ?? '*/*' },
      signal: req.signal,
    });
    if (res.type === 'opaqueredirect') {
      throw new HttpStepError(
        'HTTP_OPAQUE_REDIRECT',
        `${req.url} redirects, and a browser does not show a page where to: ask the resolver's N2Ls`,
        { url: req.url },
      );
    }
    const declared = Number(res.headers.get('content-length') ?? 0);
    const tooLarge = () =>
      new HttpStepError(
        'HTTP_BODY_TOO_LARGE',
        `response from ${req.url} is over ${req.maxBodyBytes} bytes`,
        { url: req.url },
      );
    if (declared > req.maxBodyBytes) {
      await res.body?.cancel();
      throw tooLarge();
    }
    const body = new Uint8Array(await res.arrayBuffer());
    if (body.length > req.maxBodyBytes) throw tooLarge();
    return {
      status: res.status,
      location: res.headers.get('location') ?? undefined,
      contentType: res.headers.get('content-type') ?? undefined,
      body,
    };
  };
}

const N2L_PATH = /^(https?:\/\/[^/?#]+\/uri-res\/)[NI]2L\?/i;

/** The THTTP step in a page: a `/uri-res/` N2L asked as N2Ls (see the module comment). */
export async function browserThttp(
  get: HttpGet,
  url: string,
  service: Service,
  options: { timeoutMs?: number; signal?: AbortSignal },
): Promise<HttpStepResult> {
  const m = service === 'N2L' ? N2L_PATH.exec(url) : null;
  if (m === null) return thttpWith(get, url, service, options);
  const list = await thttpWith(
    get,
    `${m[1] as string}N2Ls?${url.slice(m[0].length)}`,
    'N2Ls',
    options,
  );
  return { service: 'N2L', urls: list.urls.slice(0, 1), exchanges: list.exchanges };
}

/** A plain-http `url` with its pinned host replaced by the address; else undefined. */
export function addressedUrl(url: string, pins: WalkNeedPins): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:') return undefined;
  const host = u.hostname.toLowerCase().replace(/\.$/, '');
  const pin = pins.find((p) => p.host.toLowerCase().replace(/\.$/, '') === host);
  if (pin === undefined) return undefined;
  u.hostname = pin.address.includes(':') ? `[${pin.address}]` : pin.address;
  return u.href;
}

type WalkNeedPins = Extract<WalkNeed, { kind: 'http' }>['pins'];

/** The THTTP step of a page: by host name, then by DoH's address if that fails to connect. */
export async function pagesThttp(
  get: HttpGet,
  need: Extract<WalkNeed, { kind: 'http' }>,
  options: { timeoutMs?: number; signal?: AbortSignal },
): Promise<HttpStepResult> {
  try {
    return await browserThttp(get, need.url, need.service, options);
  } catch (e) {
    const byAddress = addressedUrl(need.url, need.pins);
    if (!(e instanceof HttpStepError) || e.code !== 'HTTP_NETWORK' || byAddress === undefined)
      throw e;
    return browserThttp(get, byAddress, need.service, options);
  }
}

/** The transport of pages (and any platform with `fetch`): DoH lookups and THTTP through `fetch`. */
export function dohTransport(config: DohTransportConfig): ClientTransport {
  const fetchFn = config.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const get = fetchGet(fetchFn);
  return {
    mode: 'stub',
    open(setup) {
      const doh = new DohTransport({
        urls: typeof config.doh === 'string' ? [config.doh] : config.doh,
        fetch: fetchFn,
        method: config.dohMethod,
        timeoutMs: config.timeoutMs,
        tries: config.tries,
        dnssecOk: setup.keepWire,
      });
      const resolver = new StubResolver(doh, { servers: [], keepWire: setup.keepWire });
      return Promise.resolve({ resolver, servers: doh.urls });
    },
    thttp(need, signal, timeoutMs) {
      return pagesThttp(get, need, { timeoutMs, signal });
    },
    crypto: () => webDnssecCrypto(),
    close: () => Promise.resolve(),
  };
}
