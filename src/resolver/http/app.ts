/**
 * The jurisdiction resolver's HTTP application: THTTP (RFC 2169) URN
 * resolution over the catalogue, transport-free: `handle` maps a plain
 * request to a plain response, `fetch` wraps it for WHATWG, `server.ts`
 * adapts it to `node:http`. The parts: `route.ts`, `answer-cache.ts`,
 * `match-request.ts`, `render.ts`, `respond.ts`. Routes: N2L, N2Ls, N2C, N2Ns
 * (and their I2* synonyms, docs/decisions.md item 5), `/<urn>`, `/health`,
 * `/` (the page or a text index), `/lexroute-page.js`, OPTIONS preflight.
 */
import type { CatalogueReader, UrnAnalyser } from '../core/model.ts';
import type { Registry } from '../core/registry.ts';
import type { ResolverConfig } from '../../config/resolver.ts';
import {
  withScratch,
  type AsyncCatalogueSource,
  type CatalogueNeed,
} from '../catalogue/prefetch.ts';
import { isPlainWorkName } from '../core/exact.ts';
import { AnswerCache, type AnswerCacheOptions } from './answer-cache.ts';
import { matchRequest, type Matcher } from './match-request.ts';
import { problemForPeople, render } from './render.ts';
import { Responder } from './respond.ts';
import { route } from './route.ts';
import { pageRoute, type PageOptions } from './page.ts';
import type { AppRequest, AppResponse, Service } from './types.ts';

export type { AppRequest, AppResponse } from './types.ts';
export type { CacheAdmission } from './answer-cache.ts';
export { describe } from './render.ts';

export interface ResolverAppOptions {
  /** A catalogue read synchronously (SQLite, memory). */
  readonly reader?: CatalogueReader;
  /** A catalogue over the network (PostgreSQL), answered through `respond` (`catalogue/prefetch.ts`). Give `reader` or `source`. */
  readonly source?: AsyncCatalogueSource;
  readonly analyse: UrnAnalyser;
  readonly config: Pick<ResolverConfig, 'cacheControl' | 'cors' | 'matching'>;
  /** Look a plain canonical work URN up before parsing it (default true; same answers either way). */
  readonly exactFastPath?: boolean;
  /** Registries that rewrite acronyms and alternative labels before matching (`core/match/registry.ts`). */
  readonly registry?: Registry;
  /** Extra fields for /health (catalogue path, counts). */
  readonly health?: () => Record<string, unknown>;
  /** Keep answers in memory; `version` (read at most every `checkMs`) changes with the catalogue. */
  readonly cache?: AnswerCacheOptions;
  /** Serve the resolution page at `/` (to requests preferring HTML) and its script (`page.ts`). */
  readonly page?: PageOptions;
}

export interface ResolverApp {
  /** Answer at once (a `reader` app; throws for a `source` app). */
  handle(req: AppRequest): AppResponse;
  /** Answer, asynchronously when the catalogue is a `source`. */
  respond(req: AppRequest): AppResponse | Promise<AppResponse>;
  /** The answer cache's size: entries and their bytes (as `cache.maxBytes` counts them). */
  cacheStats(): { entries: number; bytes: number; hits: number; misses: number };
  /** Empty the answer cache; returns the entries and bytes it held. */
  flushCache(): { entries: number; bytes: number };
  /** WHATWG-style handler; `info.httpVersion` defaults to 1.1. */
  fetch(request: Request, info?: { httpVersion?: string }): Promise<Response>;
}

/** A WHATWG-style handler over `respond`. */
async function fetchThrough(
  respond: ResolverApp['respond'],
  request: Request,
  info?: { httpVersion?: string },
): Promise<Response> {
  const url = new URL(request.url);
  const res = await respond({
    method: request.method,
    target: url.pathname + url.search,
    header: (name) => request.headers.get(name) ?? undefined,
    httpVersion: info?.httpVersion ?? '1.1',
  });
  const body = request.method.toUpperCase() === 'HEAD' || res.status === 204 ? null : res.body;
  return new Response(body, { status: res.status, headers: res.headers });
}

/** What matching `rawUrn` reads first (a plain work name), fetched before the first attempt. */
function firstNeed(matcher: Matcher, rawUrn: string): CatalogueNeed | undefined {
  return matcher.exactFastPath && isPlainWorkName(rawUrn)
    ? { kind: 'name', urn: rawUrn }
    : undefined;
}

/** The resolver application: routed, then answered from the cache or matched and rendered. */
export function createResolverApp(options: ResolverAppOptions): ResolverApp {
  const { source, reader } = options;
  if ((reader === undefined) === (source === undefined)) {
    throw new TypeError('createResolverApp: give either reader or source');
  }
  const out = new Responder(options.config);
  const matcher: Matcher = {
    analyse: options.analyse,
    matching: options.config.matching,
    exactFastPath: options.exactFastPath ?? true,
    registry: options.registry,
  };
  const cache =
    options.cache && options.cache.entries > 0 ? new AnswerCache(options.cache) : undefined;
  const routeOptions = options.health ? { health: options.health } : {};

  /** Match and render with one catalogue reader. */
  const answer = (
    req: AppRequest,
    service: Service,
    rawUrn: string,
    r: CatalogueReader,
  ): AppResponse => {
    const m = matchRequest(matcher, req, service, rawUrn, r, out);
    return problemForPeople('status' in m ? m : render(m, service, req, out), req, out);
  };

  /** Answer from the catalogue: at once from a reader, or through a source's round trips. */
  const fromCatalogue = (req: AppRequest, service: Service, rawUrn: string) =>
    reader !== undefined
      ? answer(req, service, rawUrn, reader)
      : withScratch(
          source as AsyncCatalogueSource,
          (r) => answer(req, service, rawUrn, r),
          firstNeed(matcher, rawUrn),
        );

  function respondTo(req: AppRequest): AppResponse | Promise<AppResponse> {
    try {
      const paged = options.page ? pageRoute(req, out, options.page) : undefined;
      if (paged !== undefined) return paged;
      const routed = route(req, out, routeOptions);
      if ('status' in routed) return routed;
      const { service, rawUrn } = routed;
      const res = cache
        ? cache.through(req, service, rawUrn, () => fromCatalogue(req, service, rawUrn))
        : fromCatalogue(req, service, rawUrn);
      return res instanceof Promise ? res.catch((e: unknown) => out.unavailable(e)) : res;
    } catch (e) {
      return out.internalError(e);
    }
  }

  return {
    handle(req) {
      const r = respondTo(req);
      if (r instanceof Promise)
        throw new TypeError('this resolver app reads asynchronously: use respond()');
      return r;
    },
    respond: respondTo,
    cacheStats: () => ({
      entries: cache?.size ?? 0,
      bytes: cache?.bytes ?? 0,
      hits: cache?.hits ?? 0,
      misses: cache?.misses ?? 0,
    }),
    flushCache: () => cache?.flush() ?? { entries: 0, bytes: 0 },
    fetch: (request, info) => fetchThrough(respondTo, request, info),
  };
}
