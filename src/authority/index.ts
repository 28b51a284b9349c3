/**
 * `lexroute/server`: `startAuthority(config)` starts what `lexroute serve`
 * runs and returns `{ reload, status, close }`; `startServer()` is its core;
 * `Engine` answers wire queries from compiled zones.
 */
export { startAuthority, type Authority, type AuthorityOptions } from './authority.ts';
export type { StatusReport, ZoneReport } from './control.ts';
export { zoneFromSource, type ZonePathOptions, type ZonePathResult } from './zones/servable.ts';
export { Engine, TRANSPORT_TCP, TRANSPORT_UDP, type EngineOptions } from './engine.ts';
export {
  startServer,
  ServerStartError,
  type ReloadReport,
  type RunningServer,
  type StartOptions,
} from './server.ts';
export { createLogger, type Logger, type LogFormat, type LogLevel } from './log.ts';
export {
  DEFAULT_SERVER_CONFIG,
  parseListen,
  validateServerConfig,
  type ServerConfig,
} from '../config/server.ts';
export { encodeBody, planResponse, type EncodedBody, type ResponsePlan } from './core/answer.ts';
