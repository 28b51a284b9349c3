/**
 * `lexroute/resolver`: the jurisdiction resolver (THTTP, RFC 2169; RFC 9676
 * section 10.3) for embedding and tests. `startResolver()` starts what
 * `lexroute resolver` runs (catalogue, registries, HTTP, metrics, control;
 * with `workers: N`, N processes sharing the listening port) and returns
 * `{ reload, status, close }`;
 * `createResolverApp()` is the HTTP
 * application over any `CatalogueReader`; `startResolverServer()` serves it
 * with `node:http`. Catalogues come from `lexroute/catalogue`.
 */
export {
  createResolverApp,
  type AppRequest,
  type AppResponse,
  type ResolverApp,
  type ResolverAppOptions,
} from './http/app.ts';
export {
  startResolverServer,
  type LogEntry,
  type ResolverServerOptions,
  type RunningResolver,
} from './http/server.ts';
export {
  DEFAULT_RESOLVER_CONFIG,
  validateResolverConfig,
  type ResolverConfig,
} from '../config/resolver.ts';
export {
  ResolverStartError,
  startResolver,
  type ResolverServiceOptions,
  type RunningResolverService,
} from './service.ts';
