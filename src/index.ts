/**
 * `lexroute`: what an application embeds most often. The LEX URN essentials
 * (parse, normalise, compare, format, the DNS key), the DDDS client
 * (`resolveLexUrn`, `LexClient`) and the error types: the names of
 * `index-portable.ts` (the `browser` condition), with the socket client
 * here in their place. Everything else lives in its part's entry point:
 * `lexroute/urn` (the whole URN library), `lexroute/client` (transports,
 * cache, trace formatting), `lexroute/ddds`, `lexroute/zone`,
 * `lexroute/server`, `lexroute/resolver`, `lexroute/catalogue`,
 * `lexroute/dev`.
 */
export * from './index-portable.ts';
export {
  LexClient,
  resolveLexUrn,
  type ClientOptions,
  type ResolveOptions,
  type ResolveResult,
} from './client/index.ts';
