/**
 * `lexroute/dev`: a whole local LEX chain (DNS servers and jurisdiction
 * resolvers from a `dev.json`), as `lexroute dev` starts it, for tests of
 * applications that resolve LEX URNs.
 */
export {
  DevStartError,
  rewriteHttpPorts,
  startDevChain,
  type DevChainOptions,
  type RunningDevChain,
  type RunningDnsInstance,
  type RunningResolverInstance,
} from './chain.ts';
export {
  formatListen,
  validateDevConfig,
  type DevConfig,
  type DevConfigIssue,
  type DevDnsServer,
  type DevResolver,
  type DevSample,
  type DevZone,
} from './config.ts';
