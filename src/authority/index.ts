/**
 * `lexroute/server`: the authoritative routing server for embedding and
 * tests (`node:dgram`, `node:net`, `node:fs`). `startServer()` serves zone
 * files over UDP and TCP; `Engine` answers wire queries from compiled zones.
 */
export { Engine, TRANSPORT_TCP, TRANSPORT_UDP, type EngineOptions } from './engine.ts';
export {
  startServer,
  ServerStartError,
  type ReloadReport,
  type RunningServer,
  type StartOptions,
  type ZoneFileLoader,
} from './server.ts';
export { createLogger, type Logger, type LogFormat, type LogLevel } from './log.ts';
export {
  DEFAULT_SERVER_CONFIG,
  parseListen,
  validateServerConfig,
  type ServerConfig,
} from '../config/server.ts';
export { encodeBody, planResponse, type EncodedBody, type ResponsePlan } from './core/answer.ts';
