/**
 * The part of `lexroute/client` without sockets or Node built-ins (the
 * `browser` export condition), with the whole client over DoH and `fetch`.
 */
export { ClientError, DnsError, HttpStepError, isNotFound } from './errors.ts';
export { formatTrace } from './trace-format.ts';
export { CachingResolver, DnsCache, type CacheOptions } from './cache.ts';
export { parseUriList, splitHttpUrl, thttpUrl, type ThttpService } from './thttp-url.ts';
export {
  formatServer,
  ipVersion,
  parseResolvConf,
  parseServerAddress,
  type ServerAddress,
} from './server-address.ts';
export { canonicalName, sameName } from './names.ts';
export type {
  Handoff,
  HandoffResult,
  ResolvedResult,
  ResolveResult,
  Service as ResolveService,
  Trace,
  TraceStep,
} from '../ddds/core/trace.ts';
export type { DnsLookupResult, DnsResolver } from './stub.ts';
export type {
  AaaaRecord,
  ARecord,
  DnsQuestion,
  DnsRecord,
  EdnsOption,
  MxRecord,
  NameRecord,
  NaptrData,
  NaptrRr,
  OpaqueRecord,
  OptRecord,
  RecordHead,
  SoaData,
  SoaRecord,
  SrvData,
  SrvRr,
  TxtRecord,
} from '../dns/core/rr/record.ts';
export { recordsOfType, recordTypeName } from '../dns/core/rr/record.ts';
export type { QueryType, TypeMnemonic } from '../dns/core/rr/types.ts';
export { ResolveError, type WalkOptions } from './resolution.ts';
export {
  LexClient,
  resolveLexUrn,
  type ClientOptions,
  type ClientTransport,
  type DefaultTransportOptions,
  type ResolveOptions,
  type TransportSetup,
} from './client.ts';
export {
  addressedUrl,
  browserThttp,
  dohTransport,
  fetchGet,
  pagesThttp,
  type DohTransportConfig,
} from './browser.ts';
export { DohTransport, type DohTransportOptions } from './doh.ts';
