/**
 * `lexroute/client`: the DDDS client. `resolveLexUrn()` and `LexClient` (one
 * transport, cache and HTTP agent across resolutions), the UDP/TCP DNS
 * transport (`node:dgram`, `node:net`), stub and iterative resolvers, the
 * cache, the THTTP step (undici) and trace formatting. The socket-free part
 * is `client-portable.ts` (the `browser` export condition).
 */
export * from './client-portable.ts';
export { LexClient, ResolveError, resolveLexUrn } from './client/resolve.ts';
export { DnsTransport, type Exchange, type TransportOptions } from './client/transport.ts';
export { StubResolver, classify } from './client/stub.ts';
export { IterativeResolver, type IterativeOptions } from './client/iterative.ts';
export { thttpRequest, type HttpStepResult } from './client/http-step.ts';
export { systemServers } from './client/servers.ts';
