/**
 * lexroute library entry point. Each area adds its public exports here.
 */
export type { Diagnostic, Result, Severity, Span } from './core/diagnostics.ts';
export type {
  ResourceRecord,
  RRset,
  SourcePosition,
  Zone,
  ZoneDiagnostic,
  ZoneNode,
} from './core/zone/model.ts';
export { CLASS_IN } from './core/zone/model.ts';
export {
  parseZoneChunks,
  parseZoneText,
  type ExpectDirective,
  type ParseOptions,
  type ParseResult,
} from './core/zone/parser.ts';
export { buildZone, type BuildOptions, type BuildResult } from './core/zone/build.ts';
export { buildStoreZone } from './core/zone/build.ts';
export { ZoneStore, type RecordSink } from './core/zone/store.ts';
export { decodeRdata, encodeRdata } from './core/zone/packet.ts';
export { rrToPresentation, writeZone } from './core/zone/writer.ts';
export {
  checkExpectations,
  lintJurisdictionPattern,
  lintNaptrRecords,
  naptrFields,
  parseExpect,
} from './core/zone/naptr-lint.ts';
export { canonicalSortKey, compareNames, nameToText, nameToWire } from './core/zone/names.ts';
export { typeName, TYPE_CODES } from './core/zone/types.ts';
export {
  inferOriginFromFileName,
  isDirectory,
  zoneFilesIn,
  loadZoneDirectory,
  loadZoneFile,
  loadZoneText,
  type LoadOptions,
  type LoadResult,
} from './zonefile/load.ts';
export * from './core/urn/index.ts';
export * from './core/ddds/index.ts';
export * from './core/catalogue/index.ts';
export {
  SqliteCatalogue,
  CatalogueError,
  CatalogueWriter,
  type OpenOptions,
} from './catalogue/store.ts';
export {
  importFile,
  type ImportOptions,
  type ImportRowError,
  type ImportSummary,
  type RowFormat,
} from './catalogue/import.ts';
export { exportCatalogue, exportRows } from './catalogue/export.ts';
export { ensureCatalogue, BUNDLED_SAMPLE } from './catalogue/open.ts';
export {
  createResolverApp,
  type AppRequest,
  type AppResponse,
  type ResolverApp,
  type ResolverAppOptions,
} from './resolver-http/app.ts';
export {
  startResolverServer,
  type LogEntry,
  type ResolverServerOptions,
  type RunningResolver,
} from './resolver-http/server.ts';
export {
  DEFAULT_RESOLVER_CONFIG,
  validateResolverConfig,
  type ResolverConfig,
} from './config/resolver.ts';
export {
  findZone,
  findZoneFor,
  indexZone,
  lookup,
  makeZoneSet,
  type IndexedZone,
  type LookupKind,
  type LookupOptions,
  type LookupResult,
  type PlacedRRset,
  type ZoneSet,
} from './core/zone/lookup.ts';
export {
  encodeBody,
  planResponse,
  type EncodedBody,
  type ResponsePlan,
} from './core/zone/answer.ts';
export { Engine, TRANSPORT_TCP, TRANSPORT_UDP, type EngineOptions } from './server/engine.ts';
export {
  startServer,
  ServerStartError,
  type ReloadReport,
  type RunningServer,
  type StartOptions,
  type ZoneFileLoader,
} from './server/server.ts';
export { createLogger, type Logger, type LogFormat, type LogLevel } from './server/log.ts';
export {
  DEFAULT_SERVER_CONFIG,
  parseListen,
  validateServerConfig,
  type ServerConfig,
} from './config/server.ts';
export {
  LexClient,
  ResolveError,
  resolveLexUrn,
  type ClientOptions,
  type Handoff,
  type HandoffResult,
  type ResolvedResult,
  type ResolveOptions,
  type ResolveResult,
  type Service as ResolveService,
  type Trace,
  type TraceStep,
} from './client/resolve.ts';
export { formatTrace } from './client/trace-format.ts';
export { ClientError, DnsError, HttpStepError, isNotFound } from './client/errors.ts';
export { DnsTransport, type Exchange, type TransportOptions } from './client/transport.ts';
export { CachingResolver, DnsCache, type CacheOptions } from './client/cache.ts';
export {
  StubResolver,
  classify,
  type LookupResult as DnsLookupResult,
  type Resolver as DnsResolver,
} from './client/lookup.ts';
export { IterativeResolver, type IterativeOptions } from './client/iterative.ts';
export {
  parseUriList,
  thttpRequest,
  thttpUrl,
  type HttpStepResult,
  type ThttpService,
} from './client/http-step.ts';
export {
  parseResolvConf,
  parseServerAddress,
  systemServers,
  type ServerAddress,
} from './client/servers.ts';
export {
  DevStartError,
  rewriteHttpPorts,
  startDevChain,
  type DevChainOptions,
  type RunningDevChain,
  type RunningDnsInstance,
  type RunningResolverInstance,
} from './dev/chain.ts';
export {
  formatListen,
  validateDevConfig,
  type DevConfig,
  type DevConfigIssue,
  type DevDnsServer,
  type DevResolver,
  type DevSample,
  type DevZone,
} from './dev/config.ts';
