/**
 * The authoritative service as `lexroute serve` runs it, for a program to
 * start in one call: `startAuthority(config)` loads the zones (the one zone
 * path, in the zone-load worker), listens (UDP, TCP, DoH, answering
 * workers), reloads (`reload()`, `--watch`, signature refresh), transfers
 * (out, and in for secondary zones), signs inline, and serves metrics and
 * the control channel when asked. It returns `{ reload, status, close }`;
 * the CLI only turns arguments into the configuration and calls it.
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
  /**
   * Re-read the zone sources (as SIGHUP): changed files are reloaded, a
   * refused one keeps its version; with `zone`, only that zone's file.
   */
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

/**
 * V8's process-wide choices of a server: ArrayBuffers counted in the heap
 * limit (a reloaded zone arrives as buffers, `countBuffersInHeapLimit`), the
 * young generation held at its first size (`young-generation.ts`) and the GC
 * helper threads at `gcHelperNice` (`gc-helpers.ts`).
 */
function tuneProcess(config: ServerConfig, log: Logger): void {
  countBuffersInHeapLimit();
  holdYoungGeneration();
  const nice = config.gcHelperNice;
  if (nice === 0) return;
  const r = niceGcHelpers(nice);
  if (r.error !== undefined) log.warn('gc_helpers_nice_failed', { nice, ...r });
  else if (r.threads > 0) log.debug('gc_helpers_niced', { nice, threads: r.threads });
}

/**
 * Start the authoritative service of a configuration. A failure to start is
 * a `ServerStartError` with its code (PORT_IN_USE, SERVER_NO_ZONES,
 * DNSSEC_KEYS_DIR, ...), whatever was started being stopped.
 */
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
