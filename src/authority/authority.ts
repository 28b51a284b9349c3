/**
 * The authoritative service as `lexroute serve` runs it: `startAuthority(config)`
 * loads zones, listens, reloads, transfers, signs, serves metrics and the
 * control channel, and returns `{ reload, status, close }`.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { ListenAddress, ServerConfig } from '../config/server.ts';
import { VERSION } from '../kit/version.ts';
import type { ControlEndpoint } from './control-endpoint.ts';
import { statusReport, type StatusReport } from './control.ts';
import { niceGcHelpers } from './gc-helpers.ts';
import { listenErrorCode } from './listen-error.ts';
import { createLogger, type LogFormat, type Logger } from './log.ts';
import { startOps, type Ops } from './ops.ts';
import { startServer, ServerStartError, type ReloadReport, type RunningServer } from './server.ts';
import { tapLogger, ZoneStatusBook } from './zone-status.ts';
import { countBuffersInHeapLimit } from './zones/background.ts';
import { holdYoungGeneration } from './young-generation.ts';

export interface AuthorityOptions {
  /** Base directory of relative paths (zones, keys, state; default: the process's). */
  readonly cwd?: string;
  /** Where events go (default: standard error, in `config.log`'s level and format). */
  readonly log?: Logger;
  /** The log format of the answering threads (default: `config.log`'s, auto as JSON). */
  readonly logFormat?: LogFormat;
  /** Prometheus metrics at http://ADDR:PORT/metrics (`serve --metrics`). */
  readonly metrics?: ListenAddress | undefined;
  /** The control channel for `lexroute ctl`: a Unix socket path, or a loopback port with its key. */
  readonly control?: string | ControlEndpoint | undefined;
  /** The version `ctl status` reports (default: the package's). */
  readonly version?: string;
  /** What `ctl stop` does (default: close the service). */
  readonly onStop?: () => void;
}

export interface Authority {
  /** The listeners, the engine, transfers and secondaries. */
  readonly server: RunningServer;
  /** The metrics endpoint and the control channel, when asked for. */
  readonly ops: Ops;
  /** Re-read the zone sources (as SIGHUP); a refused file keeps its version; `zone`: only that one. */
  reload(zone?: string): Promise<ReloadReport>;
  /** What `ctl status` answers: version, uptime, workers, listen addresses, each zone's state. */
  status(): StatusReport;
  /** Stop listening and loading, close the endpoints. */
  close(): Promise<void>;
}

/** The logger of a configuration's `log` block, on standard error. */
function defaultLogger(config: ServerConfig): { log: Logger; format: LogFormat } {
  const f = config.log.format;
  const format = f === 'auto' ? (process.stderr.isTTY ? 'pretty' : 'json') : f;
  const log = createLogger((line) => void process.stderr.write(line), config.log.level, format);
  return { log, format };
}

/** The key folder of inline signing must be a directory: else the start fails with DNSSEC_KEYS_DIR. */
function checkKeysDir(config: ServerConfig, cwd: string): void {
  const keys = config.dnssec.keys;
  if (keys === null) return;
  let dir = false;
  try {
    dir = statSync(path.resolve(cwd, keys)).isDirectory();
  } catch {
    // reported below
  }
  if (!dir)
    throw new ServerStartError(
      'DNSSEC_KEYS_DIR',
      `the key folder ${keys} (--keys, dnssec.keys) is not a readable directory`,
    );
}

/** V8's process-wide choices: buffers counted in the heap limit, the young generation, GC helper nice. */
function tuneProcess(config: ServerConfig, log: Logger): void {
  countBuffersInHeapLimit();
  holdYoungGeneration();
  const nice = config.gcHelperNice;
  if (nice === 0) return;
  const r = niceGcHelpers(nice);
  if (r.error !== undefined) log.warn('gc_helpers_nice_failed', { nice, ...r });
  else if (r.threads > 0) log.debug('gc_helpers_niced', { nice, threads: r.threads });
}

/** Start the authoritative service; a `ServerStartError` with its code stops whatever was started. */
export async function startAuthority(
  config: ServerConfig,
  options: AuthorityOptions = {},
): Promise<Authority> {
  const cwd = options.cwd ?? process.cwd();
  const fallback = options.log === undefined ? defaultLogger(config) : undefined;
  const log = options.log ?? fallback!.log;
  const logFormat = options.logFormat ?? fallback?.format ?? 'json';
  checkKeysDir(config, cwd);
  tuneProcess(config, log);
  const book = new ZoneStatusBook();
  const startedAt = Date.now();
  const version = options.version ?? VERSION;
  const server = await startServer({ config, log: tapLogger(log, book), cwd, logFormat });
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await ops.close();
      await server.close();
    })());
  const stop = options.onStop ?? (() => void close());
  const opsOptions = { metrics: options.metrics, control: options.control, log, book };
  const ops: Ops = await startOps(server, { ...opsOptions, startedAt, version, stop }).catch(
    async (e: unknown) => {
      await server.close();
      const message = `cannot listen for metrics or control: ${(e as Error).message}`;
      throw new ServerStartError(listenErrorCode(e), message, e);
    },
  );
  const context = { server, book, startedAt, version, workers: server.workers };
  return {
    server,
    ops,
    reload: (zone?: string) => server.reload(zone),
    status: () => statusReport(context),
    close,
  };
}
