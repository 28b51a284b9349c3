/**
 * `lexroute/client`: the DDDS client. `resolveLexUrn()` and `LexClient` (one
 * transport, cache and HTTP agent across resolutions), the UDP/TCP DNS
 * transport (`node:dgram`, `node:net`), stub and iterative resolvers, the
 * cache, the THTTP step (undici) and trace formatting. The socket-free part
 * is `client-portable.ts` (the `browser` export condition).
 */
export * from './portable.ts';
export {
  iterativeTransport,
  LexClient,
  nodeDohTransport,
  ResolveError,
  resolveLexUrn,
  resolverTransport,
  udpTransport,
  type NodeTransportOptions,
} from './resolve.ts';
export { DnsTransport, type Exchange, type TransportOptions } from './transport.ts';
export { StubResolver, classify } from './stub.ts';
export { IterativeResolver, type IterativeOptions } from './iterative.ts';
export { thttpRequest, type HttpStepResult } from './http-step.ts';
export { systemServers } from './servers.ts';
