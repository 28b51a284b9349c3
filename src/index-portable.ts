/**
 * What `lexroute` gives under the `browser` export condition: the same names
 * as the Node root (`index.ts`), with the socket-free client over DNS over
 * HTTPS and `fetch` behind `resolveLexUrn` and `LexClient`.
 */
export {
  canonicalizeLexUrn,
  formatLexUrn,
  lexUrnEquivalent,
  normalizeLexUrn,
  parseLexUrn,
  toDnsKey,
  URN_CODES,
  type LexParseResult,
  type LexUrn,
  type NormalizeResult,
  type UrnCode,
  type UrnDiagnostic,
} from './urn/index.ts';
export {
  ClientError,
  DnsError,
  formatTrace,
  HttpStepError,
  isNotFound,
  LexClient,
  ResolveError,
  resolveLexUrn,
  type ClientOptions,
  type ResolveOptions,
  type ResolveResult,
  type Trace,
} from './client/portable.ts';
