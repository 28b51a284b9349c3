/**
 * `lexroute serve`: the authoritative DNS routing server. The options become
 * a server configuration (`serve-flags.ts`), and `startAuthority` runs it
 * (`src/authority/authority.ts`) until SIGTERM, SIGINT or `ctl stop`.
 */
import path from 'node:path';
import { parseCommandArgs } from '../args.ts';
import { EXIT_OK, Reported, UsageError, stopSignal, type CliIo, type Command } from '../io.ts';
import { exitCodeOf, exitCodeOfFailure } from '../exit.ts';
import {
  DEFAULT_SERVER_CONFIG,
  validateServerConfig,
  type ListenAddress,
  type ServerConfig,
} from '../../config/server.ts';
import { ConfigFileError, readJsonConfig } from '../../config/load.ts';
import { createLogger, type Logger } from '../../authority/log.ts';
import { ServerStartError, type RunningServer } from '../../authority/server.ts';
import { startAuthority, type Authority } from '../../authority/authority.ts';
import { sdNotify } from '../../authority/sd-notify.ts';
import type { ControlEndpoint } from '../../authority/control-endpoint.ts';
import { VERSION } from '../main.ts';
import { controlArg } from '../control-arg.ts';
import { SERVE_HELP, SERVE_OPTIONS } from './serve-help.ts';
import { serveFlags } from './serve-flags.ts';

export { SERVE_HELP };

/** The zones the `ready` line names: past this many, the first ones and the count (journald splits long lines). */
const READY_ZONES_NAMED = 100;

/** The `ready` log line, and READY=1 to systemd (zones loaded, every worker listening). */
async function announceReady(server: RunningServer, log: Logger, io: CliIo): Promise<void> {
  const origins = server.engine.zones.map((z) => z.origin);
  const more = origins.length - READY_ZONES_NAMED;
  log.info('ready', {
    zones: more > 0 ? origins.slice(0, READY_ZONES_NAMED) : origins,
    ...(more > 0 ? { zoneCount: origins.length, zonesNotNamed: more } : {}),
    listen: server.udp.map((u) => `${u.address}:${u.port}`),
    ...(server.doh.length > 0 ? { doh: server.doh.map((d) => d.url) } : {}),
  });
  const status = `--status=serving ${server.engine.zones.length} zone(s)`;
  await sdNotify(io.env, log, ['--ready', status]);
}

/** Start the authoritative service, run until SIGTERM, SIGINT or `ctl stop`; SIGHUP reloads. */
async function serveUntilStopped(
  config: ServerConfig,
  io: CliIo,
  ops: { metrics: ListenAddress | undefined; control: string | ControlEndpoint | undefined },
): Promise<number> {
  const f = config.log.format;
  const logFormat = f === 'auto' ? (io.errIsTTY ? 'pretty' : 'json') : f;
  const log = createLogger((line) => io.err(line), config.log.level, logFormat);
  const { stopped, stopNow } = stopSignal(io.signal);
  let authority: Authority;
  try {
    const options = { cwd: io.cwd, log, logFormat, version: VERSION, onStop: stopNow };
    authority = await startAuthority(config, { ...options, ...ops });
  } catch (e) {
    if (!(e instanceof ServerStartError)) throw e;
    log.error('start_failed', { code: e.code, error: e.message });
    return exitCodeOf(e.code);
  }
  const { server } = authority;
  await announceReady(server, log, io);
  const offReload = io.onReload(() => {
    void authority.reload().then(
      (r) => log.info('zones_reloaded', { trigger: 'SIGHUP', ...r }),
      (e: unknown) =>
        log.error('zones_reload_failed', { trigger: 'SIGHUP', error: (e as Error).message }),
    );
  });
  await stopped;
  offReload();
  await sdNotify(io.env, log, ['STOPPING=1']);
  log.info('shutting_down', { queries: server.engine.counters.queries, workers: server.workers });
  await authority.close();
  log.info('stopped');
  return EXIT_OK;
}

/** The configuration file (`--config`), validated; an exit code when it cannot be used. */
async function configFile(file: string | undefined, io: CliIo): Promise<ServerConfig | number> {
  if (file === undefined) return DEFAULT_SERVER_CONFIG;
  const full = path.resolve(io.cwd, file);
  let raw: unknown;
  try {
    raw = await readJsonConfig(full);
  } catch (e) {
    if (!(e instanceof ConfigFileError)) throw e;
    io.err(`lexroute serve: ${e.code}: ${e.message}\n`);
    return exitCodeOf(e.code);
  }
  const v = validateServerConfig(raw);
  if (v.errors.length === 0) return v.config;
  for (const e of v.errors) io.err(`lexroute serve: ${full}: ${e.code}: ${e.message}\n`);
  return exitCodeOfFailure(v.errors);
}

export const serveCommand: Command = {
  async run(argv, io) {
    const parsed = parseCommandArgs(argv, io, SERVE_HELP, SERVE_OPTIONS);
    if (parsed === undefined) return EXIT_OK;
    const { values, positionals } = parsed;
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const flags = serveFlags(values);
    // Zone paths in a config file are relative to the working directory, as on the command line.
    const file = await configFile(values.config, io);
    if (typeof file === 'number') return file;
    const config = flags.over(file);
    const control = await controlArg(io, 'serve', values.control, values['control-key']);
    if (control instanceof Reported) return exitCodeOfFailure(control.codes);
    return serveUntilStopped(config, io, { metrics: flags.metrics, control });
  },
};
