/**
 * The jurisdiction resolver's HTTP application: THTTP (RFC 2169) URN
 * resolution over the catalogue. Transport-free: `handle` maps a plain
 * request (method, raw request-target, headers, HTTP version) to a plain
 * response; `fetch` wraps it as a `fetch(Request) -> Response` handler, and
 * `server.ts` adapts it to `node:http` without building WHATWG objects on the
 * hot path.
 *
 * Routes:
 *   GET|HEAD /uri-res/N2L?<urn>   303 (302 to HTTP/1.0) Location: best URL
 *   GET|HEAD /uri-res/N2Ls?<urn>  200 text/uri-list (or JSON, HTML, plain text by Accept)
 *   GET|HEAD /uri-res/N2C?<urn>   200 application/json description
 *   GET|HEAD /uri-res/N2Ns?<urn>  200 text/uri-list of the work's names
 *   GET|HEAD /<urn>               as N2L
 *   GET|HEAD /health              200 application/json
 *   OPTIONS *                     204 CORS preflight
 * `I2L`, `I2Ls`, `I2C`, `I2Ns` are synonyms (docs/decisions.md item 5).
 *
 * @see RFC 2169 section 2: "the URN goes after the ? as is" (percent-encoded
 *   characters stay encoded).
 * @see RFC 2169 section 3.1 (N2L): "On success, a 30x SHOULD be sent: 303 to
 *   HTTP/1.1 clients, 302 to HTTP/1.0 clients".
 * @see RFC 9457 for application/problem+json.
 */
import type {
  CatalogueReader,
  CatalogueWork,
  MatchQuery,
  UrnAnalyser,
} from '../core/catalogue/model.ts';
import {
  resolveQuery,
  effectiveDate,
  type Found,
  type Location,
  type MatchOptions,
  type MatchReason,
  type Resolution,
} from '../core/catalogue/match.ts';
import type { Registry, RegistryResult } from '../core/catalogue/registry.ts';
import { chooseMediaType, parsePreferences } from '../core/catalogue/negotiate.ts';
import { exactLookup } from '../core/catalogue/exact.ts';
import type { ResolverConfig } from '../config/resolver.ts';
import { Doorkeeper, LruCache } from './lru.ts';
import { withScratch, type AsyncCatalogueSource } from '../catalogue/prefetch.ts';

export interface AppRequest {
  readonly method: string;
  /** The request-target exactly as received: path and raw query, never decoded. */
  readonly target: string;
  /** Header value by lowercase name. */
  header(name: string): string | undefined;
  /** `1.1`, `1.0`, `2.0`. */
  readonly httpVersion: string;
}

export interface AppResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Sent unless the method is HEAD. */
  readonly body: string;
  /** The stable code of a problem answer, for the request log. */
  readonly code?: string;
}

export interface ResolverAppOptions {
  /** A catalogue read synchronously (SQLite, memory). */
  readonly reader?: CatalogueReader;
  /**
   * A catalogue read over the network (PostgreSQL): requests are answered
   * asynchronously (`respond`), each from the few statements it needs (see
   * `src/catalogue/prefetch.ts`). Give `reader` or `source`.
   */
  readonly source?: AsyncCatalogueSource;
  readonly analyse: UrnAnalyser;
  readonly config: Pick<ResolverConfig, 'cacheControl' | 'cors' | 'matching'>;
  /**
   * Look a plain canonical work URN up before parsing it (default true; the
   * answers are the same either way, as the tests check).
   */
  readonly exactFastPath?: boolean;
  /** Registries that rewrite acronyms and alternative labels before matching (`core/catalogue/registry.ts`). */
  readonly registry?: Registry;
  /** Extra fields for /health (catalogue path, counts). */
  readonly health?: () => Record<string, unknown>;
  /**
   * Keep answers in memory. `version` changes when the catalogue changes
   * (SqliteCatalogue.dataVersion); it is read at most every `checkMs`, so an
   * import shows after at most that long. `now` is the clock (ms).
   */
  readonly cache?: {
    readonly entries: number;
    /** At most about this many bytes of answers and keys (default: no bound beyond `entries`). */
    readonly maxBytes?: number;
    readonly checkMs: number;
    readonly version: () => number;
    readonly now?: () => number;
    /**
     * `second-request` (the default): an answer is kept only when its
     * request was seen recently (Doorkeeper), so URNs asked once do not
     * evict popular answers. `first-request`: every answer is kept.
     */
    readonly admission?: CacheAdmission;
  };
}

export interface ResolverApp {
  /** Answer at once (a `reader` app; throws for a `source` app). */
  handle(req: AppRequest): AppResponse;
  /** Answer, asynchronously when the catalogue is a `source`. */
  respond(req: AppRequest): AppResponse | Promise<AppResponse>;
  /** The answer cache's size: entries and their bytes (as `cache.maxBytes` counts them). */
  cacheStats(): { entries: number; bytes: number; hits: number; misses: number };
  /** WHATWG-style handler; `info.httpVersion` defaults to 1.1. */
  fetch(request: Request, info?: { httpVersion?: string }): Promise<Response>;
}

type Service = 'N2L' | 'N2Ls' | 'N2C' | 'N2Ns';

export type CacheAdmission = 'first-request' | 'second-request';

/** Doorkeeper slots per cache entry: enough to remember a few cache-fulls of recent keys. */
const DOORKEEPER_SLOTS_PER_ENTRY = 4;
const DOORKEEPER_MAX_SLOTS = 1 << 22;

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

const REASONS: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  300: 'Multiple Choices',
  302: 'Found',
  303: 'See Other',
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

const LIST_TYPES = ['text/uri-list', 'application/json', 'text/html', 'text/plain'];
const MAX_TARGET = 8192;

/** A preference header in the form the negotiation reads it (see `parsePreferences`). */
function preferenceKey(header: string | undefined): string {
  if (header === undefined || header === '') return '';
  let out = '';
  for (const p of parsePreferences(header)) out += `${p.value};${p.q},`;
  return out;
}

/** About how many bytes one cached answer holds (UTF-16 strings: 2 bytes a character, plus overhead). */
function answerBytes(key: string, res: AppResponse): number {
  let n = 2 * (key.length + res.body.length) + 256;
  for (const [k, v] of Object.entries(res.headers)) n += 2 * (k.length + v.length) + 32;
  return n;
}

export function createResolverApp(options: ResolverAppOptions): ResolverApp {
  const { analyse, config, source, registry } = options;
  const reader = options.reader;
  if ((reader === undefined) === (source === undefined)) {
    throw new TypeError('createResolverApp: give either reader or source');
  }
  const fastPath = options.exactFastPath ?? true;
  const cors: Record<string, string> =
    config.cors.allowOrigin === ''
      ? {}
      : {
          'access-control-allow-origin': config.cors.allowOrigin,
          'access-control-expose-headers': 'Location',
        };
  if (config.cors.allowOrigin !== '' && config.cors.allowOrigin !== '*') cors.vary = 'Origin';

  const vary: Readonly<Record<string, string>> = {
    vary:
      config.cors.allowOrigin !== '' && config.cors.allowOrigin !== '*'
        ? 'Accept, Accept-Language, Origin'
        : 'Accept, Accept-Language',
  };

  const respond = (
    status: number,
    headers: Record<string, string>,
    body: string,
    cacheControl: string,
    code?: string,
  ): AppResponse => {
    const h: Record<string, string> = { ...cors, ...headers };
    if (cacheControl !== '') h['cache-control'] = cacheControl;
    if (status !== 204) h['content-length'] = String(Buffer.byteLength(body));
    return code === undefined ? { status, headers: h, body } : { status, headers: h, body, code };
  };

  const problem = (
    status: number,
    code: string,
    detail: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ): AppResponse => {
    const cache =
      status === 404
        ? config.cacheControl.notFound
        : status === 300
          ? config.cacheControl.ambiguous
          : config.cacheControl.error;
    const body = JSON.stringify({
      type: 'about:blank',
      title: REASONS[status] ?? 'Error',
      status,
      code,
      detail,
      ...extra,
    });
    return respond(
      status,
      { 'content-type': 'application/problem+json', ...headers },
      `${body}\n`,
      cache,
      code,
    );
  };

  const internalError = (e: unknown): AppResponse =>
    // A bug, never bad input: every input path returns a 4xx.
    problem(500, 'INTERNAL_ERROR', `internal error: ${e instanceof Error ? e.message : String(e)}`);

  /** The catalogue server could not be read (PostgreSQL down): retry later. */
  const unavailable = (e: unknown): AppResponse =>
    problem(
      503,
      'CATALOGUE_UNAVAILABLE',
      `the catalogue cannot be read: ${e instanceof Error ? e.message : String(e)}`,
    );

  function respondTo(req: AppRequest): AppResponse | Promise<AppResponse> {
    try {
      const r = route(req);
      return r instanceof Promise ? r.catch(unavailable) : r;
    } catch (e) {
      return internalError(e);
    }
  }

  function handle(req: AppRequest): AppResponse {
    const r = respondTo(req);
    if (r instanceof Promise)
      throw new TypeError('this resolver app reads asynchronously: use respond()');
    return r;
  }

  function route(req: AppRequest): AppResponse | Promise<AppResponse> {
    const method = req.method.toUpperCase();
    if (method === 'OPTIONS') {
      return respond(
        204,
        config.cors.allowOrigin === ''
          ? { allow: 'GET, HEAD, OPTIONS' }
          : {
              allow: 'GET, HEAD, OPTIONS',
              'access-control-allow-methods': 'GET, HEAD, OPTIONS',
              'access-control-allow-headers': 'Accept, Accept-Language',
              'access-control-max-age': String(config.cors.maxAge),
            },
        '',
        '',
      );
    }
    if (method !== 'GET' && method !== 'HEAD') {
      return problem(
        405,
        'METHOD_NOT_ALLOWED',
        `${method} is not supported; use GET or HEAD`,
        {},
        { allow: 'GET, HEAD, OPTIONS' },
      );
    }
    const target = req.target;
    if (target.length > MAX_TARGET) {
      return problem(
        400,
        'TARGET_TOO_LONG',
        `the request-target is longer than ${MAX_TARGET} characters`,
      );
    }
    const q = target.indexOf('?');
    const path = q < 0 ? target : target.slice(0, q);
    if (path === '/health') {
      return respond(
        200,
        { 'content-type': 'application/json' },
        `${JSON.stringify({ status: 'ok', ...(options.health?.() ?? {}) })}\n`,
        'no-store',
      );
    }
    if (path.startsWith('/uri-res/')) {
      const name = path.slice('/uri-res/'.length).toLowerCase();
      const service = SERVICES[name];
      if (!service) {
        if (NOT_IMPLEMENTED.has(name)) {
          return problem(
            501,
            'SERVICE_NOT_IMPLEMENTED',
            `this resolver does not offer ${path.slice(9)}; it offers N2L, N2Ls, N2C and N2Ns`,
          );
        }
        return problem(
          404,
          'UNKNOWN_SERVICE',
          `no resolution service '${path.slice(9)}' (services: N2L, N2Ls, N2C, N2Ns)`,
        );
      }
      if (q < 0 || q === target.length - 1) {
        return problem(
          400,
          'MISSING_URN',
          `put the URN after '?': /uri-res/${service}?urn:lex:...`,
        );
      }
      return resolve(req, service, target.slice(q + 1));
    }
    if (/^\/urn(:|%3a)/i.test(path)) return resolve(req, 'N2L', target.slice(1));
    if (path === '/') {
      return respond(
        200,
        { 'content-type': 'text/plain; charset=utf-8' },
        'lexroute jurisdiction resolver (THTTP, RFC 2169)\n' +
          'GET /uri-res/N2L?<urn>   redirect to the best URL\n' +
          'GET /uri-res/N2Ls?<urn>  all URLs (text/uri-list, or JSON with Accept: application/json)\n' +
          'GET /uri-res/N2C?<urn>   catalogue description (JSON)\n' +
          'GET /uri-res/N2Ns?<urn>  the names (URNs) of the work\n' +
          'GET /<urn>               same as N2L\n' +
          'GET /health\n',
        config.cacheControl.found,
      );
    }
    return problem(
      404,
      'NO_SUCH_ROUTE',
      `nothing at ${path.slice(0, 200)}; use /uri-res/N2L?<urn>`,
    );
  }

  // Answer cache, least recently used dropped first.
  const cacheOptions = options.cache && options.cache.entries > 0 ? options.cache : null;
  let cacheHits = 0;
  let cacheMisses = 0;
  const cache = new LruCache<AppResponse>(
    cacheOptions ? cacheOptions.entries : 1,
    cacheOptions?.maxBytes ?? Number.POSITIVE_INFINITY,
    answerBytes,
  );
  const doorkeeper =
    cacheOptions && (cacheOptions.admission ?? 'second-request') === 'second-request'
      ? new Doorkeeper(
          Math.min(DOORKEEPER_MAX_SLOTS, cacheOptions.entries * DOORKEEPER_SLOTS_PER_ENTRY),
        )
      : null;
  const now = cacheOptions?.now ?? (() => performance.now());
  let cacheVersion = cacheOptions ? cacheOptions.version() : 0;
  let checkedAt = now();

  /** Answer from the catalogue: at once from a reader, or through a source's round trips. */
  function answerAny(
    req: AppRequest,
    service: Service,
    rawUrn: string,
  ): AppResponse | Promise<AppResponse> {
    if (reader !== undefined) return answer(req, service, rawUrn, reader);
    return withScratch(source as AsyncCatalogueSource, (r) => answer(req, service, rawUrn, r));
  }

  function resolve(
    req: AppRequest,
    service: Service,
    rawUrn: string,
  ): AppResponse | Promise<AppResponse> {
    if (!cacheOptions) return answerAny(req, service, rawUrn);
    const t = now();
    if (t - checkedAt >= cacheOptions.checkMs) {
      checkedAt = t;
      const v = cacheOptions.version();
      if (v !== cacheVersion) {
        cacheVersion = v;
        cache.clear();
        doorkeeper?.clear();
      }
    }
    // Accept and Accept-Language as the negotiation reads them (parsed,
    // lower-cased, ordered by weight, malformed entries and parameters
    // other than q dropped): spellings that negotiate alike share an entry.
    const key = `${service}\n${req.httpVersion === '1.0' ? 0 : 1}\n${preferenceKey(req.header('accept'))}\n${preferenceKey(req.header('accept-language'))}\n${rawUrn}`;
    const hit = cache.get(key);
    if (hit) {
      cacheHits++;
      return hit;
    }
    cacheMisses++;
    const keep = (res: AppResponse): AppResponse => {
      if (res.status < 500 && (doorkeeper === null || doorkeeper.offer(key))) cache.set(key, res);
      return res;
    };
    const res = answerAny(req, service, rawUrn);
    return res instanceof Promise ? res.then(keep) : keep(res);
  }

  /**
   * Match, and when the query is not an exact name and the registries
   * rewrite some of its elements (an acronym or alternative label to its
   * canonical code), match the rewritten query: its answer wins when it
   * finds a work (each rewrite then a REGISTRY_REWRITE reason), or is
   * ambiguous where the query as given found nothing. Exact match first.
   */
  function match(
    query: MatchQuery,
    reader: CatalogueReader,
    opts: MatchOptions,
  ): { r: Resolution; notes: RegistryResult | null } {
    const r = resolveQuery(query, reader, opts);
    if (registry === undefined || (r.kind === 'found' && r.exact)) return { r, notes: null };
    const notes = registry.rewrite(query);
    if (notes.rewrites.length === 0) return { r, notes };
    const r2 = resolveQuery(notes.query, reader, opts);
    if (r2.kind === 'found') {
      const reasons: MatchReason[] = notes.rewrites.map((w) => ({
        code: 'REGISTRY_REWRITE',
        message: w.message,
        penalty: 0,
      }));
      return { r: { ...r2, reasons: [...reasons, ...r2.reasons] }, notes };
    }
    if (r2.kind === 'ambiguous' && r.kind === 'not-found') return { r: r2, notes };
    return { r, notes };
  }

  function answer(
    req: AppRequest,
    service: Service,
    rawUrn: string,
    reader: CatalogueReader,
  ): AppResponse {
    let text = rawUrn;
    // A client that percent-encoded the whole URN (urn%3Alex%3A...): undo that one layer.
    if (/^urn%3a/i.test(text)) {
      try {
        text = decodeURIComponent(text);
      } catch {
        return problem(
          400,
          'INVALID_URN',
          'the URN is percent-encoded but does not decode as UTF-8',
          { urn: rawUrn },
        );
      }
    }
    // A work named exactly as catalogued skips the URN parser (./exact.ts).
    const exact = fastPath ? exactLookup(text, reader) : undefined;
    let query = exact?.query ?? null;
    if (query === null) {
      const a = analyse(text);
      if (!a.ok) {
        return problem(400, 'INVALID_URN', a.message, {
          urn: text,
          urnCode: a.code,
          ...(a.span ? { position: { start: a.span.start, end: a.span.end } } : {}),
        });
      }
      query = a.query;
    }
    const accept = req.header('accept') ?? null;
    const { r, notes } = match(query, exact?.reader ?? reader, {
      accept: service === 'N2L' ? accept : null,
      acceptLanguage: req.header('accept-language') ?? null,
      minScore: config.matching.minScore,
      ambiguityMargin: config.matching.ambiguityMargin,
      maxCandidates: config.matching.maxCandidates,
    });
    const registryNotes =
      notes && (notes.rewrites.length > 0 || notes.ambiguous.length > 0)
        ? { registry: { rewrites: notes.rewrites, ambiguous: notes.ambiguous } }
        : {};
    switch (r.kind) {
      case 'invalid':
        return problem(400, r.code, r.message, { urn: r.query.urn });
      case 'not-found':
        return problem(
          404,
          r.code,
          r.message,
          { urn: r.query.urn, ...(r.work ? { work: r.work.urn } : {}), ...registryNotes },
          vary,
        );
      case 'ambiguous':
        return ambiguous(r, accept, vary);
      case 'found':
        break;
    }
    const found = r;
    switch (service) {
      case 'N2L': {
        const best = found.locations[0] as Location;
        const status = req.httpVersion === '1.0' ? 302 : 303;
        return respond(
          status,
          { location: best.url, 'content-type': 'text/plain; charset=utf-8', ...vary },
          `${REASONS[status]}: ${best.url}\n`,
          config.cacheControl.found,
        );
      }
      case 'N2Ls':
        return list(found, accept, vary);
      case 'N2C':
        return respond(
          200,
          { 'content-type': 'application/json', ...vary },
          `${JSON.stringify(describe(found), null, 2)}\n`,
          config.cacheControl.found,
        );
      case 'N2Ns': {
        const lines = [`# ${found.query.urn}`, ...found.work.names.map((n) => n.urn)];
        return respond(
          200,
          { 'content-type': 'text/uri-list', ...vary },
          `${lines.join('\r\n')}\r\n`,
          config.cacheControl.found,
        );
      }
    }
  }

  function list(
    found: Found,
    accept: string | null,
    vary: Readonly<Record<string, string>>,
  ): AppResponse {
    const type = chooseMediaType(accept, LIST_TYPES) ?? 'text/uri-list';
    const urls = found.locations.map((l) => l.url);
    let body: string;
    let contentType = type;
    if (type === 'application/json') {
      body = `${JSON.stringify(
        {
          urn: found.query.urn,
          work: found.work.urn,
          expression: found.expression.urn,
          score: found.score,
          exact: found.exact,
          reasons: found.reasons,
          locations: found.locations.map(locationJson),
        },
        null,
        2,
      )}\n`;
    } else if (type === 'text/html') {
      contentType = 'text/html; charset=utf-8';
      body =
        `<!doctype html>\n<title>${escapeHtml(found.query.urn)}</title>\n<ul>\n` +
        urls.map((u) => `<li><a href="${escapeHtml(u)}">${escapeHtml(u)}</a></li>\n`).join('') +
        '</ul>\n';
    } else {
      // RFC 2483 section 5: "the first line SHOULD be a comment giving the original URI".
      if (type === 'text/plain') contentType = 'text/plain; charset=utf-8';
      body = `${[`# ${found.query.urn}`, ...urls].join('\r\n')}\r\n`;
    }
    return respond(200, { 'content-type': contentType, ...vary }, body, config.cacheControl.found);
  }

  function ambiguous(
    r: Extract<Resolution, { kind: 'ambiguous' }>,
    accept: string | null,
    vary: Readonly<Record<string, string>>,
  ): AppResponse {
    const type = chooseMediaType(accept, [
      'application/problem+json',
      'application/json',
      'text/uri-list',
    ]);
    const detail = `${r.query.urn} matches ${r.candidates.length} catalogued works equally well; choose one`;
    if (type === 'text/uri-list') {
      const lines = [`# ${r.query.urn}`];
      for (const c of r.candidates) {
        lines.push(
          `# ${c.work.urn} (score ${c.score}${c.work.title ? `, ${c.work.title.replace(/[\r\n]/g, ' ')}` : ''})`,
        );
        if (c.best) lines.push(c.best.url);
      }
      return respond(
        300,
        { 'content-type': 'text/uri-list', ...vary },
        `${lines.join('\r\n')}\r\n`,
        config.cacheControl.ambiguous,
        'AMBIGUOUS_URN',
      );
    }
    return problem(
      300,
      'AMBIGUOUS_URN',
      detail,
      {
        urn: r.query.urn,
        candidates: r.candidates.map((c) => ({
          urn: c.work.urn,
          title: c.work.title,
          score: c.score,
          matchedName: c.matchedName,
          reasons: c.reasons,
          url: c.best?.url ?? null,
        })),
      },
      vary,
    );
  }

  return {
    handle,
    respond: respondTo,
    cacheStats: () => ({
      entries: cache.size,
      bytes: cache.bytes,
      hits: cacheHits,
      misses: cacheMisses,
    }),
    async fetch(request, info) {
      const url = new URL(request.url);
      const res = await respondTo({
        method: request.method,
        target: url.pathname + url.search,
        header: (name) => request.headers.get(name) ?? undefined,
        httpVersion: info?.httpVersion ?? '1.1',
      });
      const body = request.method.toUpperCase() === 'HEAD' || res.status === 204 ? null : res.body;
      return new Response(body, { status: res.status, headers: res.headers });
    },
  };
}

/**
 * One location in N2Ls JSON and N2C. `fragment` is the fragment of `url`;
 * `partitionApplied` says what became of the URN's `~partition` on it (`none`,
 * `whole`, `trimmed` to the manifestation's `partitionDepth`, `omitted` at
 * depth 0), RFC 9676 section 5.8.
 */
function locationJson(l: Location): Record<string, unknown> {
  return {
    url: l.url,
    fragment: l.fragment,
    partitionApplied: l.partitionApplied,
    partitionDepth: l.partitionDepth,
    manifestation: l.manifestation,
    mediaType: l.mediaType,
    format: l.format,
    editor: l.editor,
    component: l.component,
    feature: l.feature,
    language: l.language,
    priority: l.priority,
  };
}

/** The N2C description: what the catalogue holds for the work and what was selected. */
export function describe(found: Found): Record<string, unknown> {
  const w: CatalogueWork = found.work;
  return {
    urn: found.query.urn,
    partition: found.query.partition,
    match: {
      exact: found.exact,
      score: found.score,
      matchedName: found.matchedName,
      reasons: found.reasons,
    },
    work: {
      urn: w.urn,
      title: w.title,
      aliases: w.names.filter((n) => n.alias).map((n) => n.urn),
      expressions: w.expressions.map((e) => ({
        urn: e.urn,
        version: e.key.version,
        language: e.key.language,
        inForce: e.inForce,
        effective: effectiveDate(w, e),
        manifestations: e.manifestations.map((m) => ({
          urn: m.urn,
          editor: m.key.editor,
          format: m.key.format,
          component: m.key.component,
          feature: m.key.feature,
          partitionDepth: m.partitionDepth,
          items: m.items.map((i) => ({ url: i.url, priority: i.priority })),
        })),
      })),
    },
    selected: {
      expression: found.expression.urn,
      locations: found.locations.map(locationJson),
    },
  };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
