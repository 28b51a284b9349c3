/**
 * The first part of the request path: a THTTP service request about a URN
 * (RFC 2169 section 2: the URN after the `?` as is), or answered here at
 * once (preflight, health, the index, malformed requests with their code).
 */
import type { Responder } from './respond.ts';
import type { AppRequest, AppResponse, Service } from './types.ts';

/** A request for a service about a URN (raw: as it stands in the request-target). */
export interface ServiceRequest {
  readonly service: Service;
  readonly rawUrn: string;
}

const SERVICES: Record<string, Service> = {
  n2l: 'N2L',
  i2l: 'N2L',
  n2ls: 'N2Ls',
  i2ls: 'N2Ls',
  n2c: 'N2C',
  i2c: 'N2C',
  n2ns: 'N2Ns',
  i2ns: 'N2Ns',
};

/** RFC 2168/2169/2483 services this resolver knows but does not offer. */
const NOT_IMPLEMENTED = new Set([
  'n2r',
  'n2rs',
  'i2r',
  'i2rs',
  'i2cs',
  'i2n',
  'l2r',
  'l2l',
  'l2ls',
  'l2ns',
  'l2c',
  'i=i',
]);

const MAX_TARGET = 8192;

const INDEX_TEXT =
  'lexroute jurisdiction resolver (THTTP, RFC 2169)\n' +
  'GET /uri-res/N2L?<urn>   redirect to the best URL\n' +
  'GET /uri-res/N2Ls?<urn>  all URLs (text/uri-list, or JSON with Accept: application/json)\n' +
  'GET /uri-res/N2C?<urn>   catalogue description (JSON)\n' +
  'GET /uri-res/N2Ns?<urn>  the names (URNs) of the work\n' +
  'GET /<urn>               same as N2L\n' +
  'GET /health\n';

export interface RouteOptions {
  /** Extra fields for /health. */
  readonly health?: () => Record<string, unknown>;
}

/** The service and URN a request asks about, or the answer to give at once. */
export function route(
  req: AppRequest,
  out: Responder,
  options: RouteOptions,
): ServiceRequest | AppResponse {
  const method = req.method.toUpperCase();
  if (method === 'OPTIONS') return out.preflight();
  if (method !== 'GET' && method !== 'HEAD') {
    return out.problem(
      'METHOD_NOT_ALLOWED',
      `${method} is not supported; use GET or HEAD`,
      {},
      { allow: 'GET, HEAD, OPTIONS' },
    );
  }
  const target = req.target;
  if (target.length > MAX_TARGET) {
    return out.problem(
      'TARGET_TOO_LONG',
      `the request-target is longer than ${MAX_TARGET} characters`,
    );
  }
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  if (path.startsWith('/uri-res/')) return serviceRoute(target, path, q, out);
  if (/^\/urn(:|%3a)/i.test(path)) return { service: 'N2L', rawUrn: target.slice(1) };
  if (path === '/health') {
    return out.send(
      200,
      { 'content-type': 'application/json' },
      `${JSON.stringify({ status: 'ok', ...(options.health?.() ?? {}) })}\n`,
      'no-store',
    );
  }
  if (path === '/') {
    return out.send(
      200,
      { 'content-type': 'text/plain; charset=utf-8' },
      INDEX_TEXT,
      out.config.cacheControl.found,
    );
  }
  return out.problem('NO_SUCH_ROUTE', `nothing at ${path.slice(0, 200)}; use /uri-res/N2L?<urn>`);
}

/** `/uri-res/<service>?<urn>`. */
function serviceRoute(
  target: string,
  path: string,
  q: number,
  out: Responder,
): ServiceRequest | AppResponse {
  const name = path.slice('/uri-res/'.length).toLowerCase();
  const service = SERVICES[name];
  if (!service) {
    if (NOT_IMPLEMENTED.has(name)) {
      return out.problem(
        'SERVICE_NOT_IMPLEMENTED',
        `this resolver does not offer ${path.slice(9)}; it offers N2L, N2Ls, N2C and N2Ns`,
      );
    }
    return out.problem(
      'UNKNOWN_SERVICE',
      `no resolution service '${path.slice(9)}' (services: N2L, N2Ls, N2C, N2Ns)`,
    );
  }
  if (q < 0 || q === target.length - 1) {
    return out.problem('MISSING_URN', `put the URN after '?': /uri-res/${service}?urn:lex:...`);
  }
  return { service, rawUrn: target.slice(q + 1) };
}
