/** `lexroute/client`: the DDDS client, with the Node transports (`portable.ts` is the rest). */
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
