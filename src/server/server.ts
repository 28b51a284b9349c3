/**
 * The routing server: loads zones, starts UDP and TCP listeners on every
 * configured address, reloads zones on request (SIGHUP, `--watch`), and
 * shuts down cleanly.
 *
 * Reload keeps serving the previous good version of any zone whose file
 * fails to load, and swaps the whole compiled zone set in one assignment.
 */
import { open, stat } from 'node:fs/promises';
import { constants, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Zone, ZoneDiagnostic } from '../core/zone/model.ts';
import type { ServerConfig } from '../config/server.ts';
import { Engine } from './engine.ts';
import type { Logger } from './log.ts';
import { createLogSummary, type LogSummary } from './log-summary.ts';
import { DohConfigError, listenDoh, type DohListener } from './doh.ts';
import { listenTcp, type TcpListener } from './tcp.ts';
import { listenUdp, type UdpListener } from './udp.ts';
import {
  compareSerials,
  expandZoneSources,
  soaSerial,
  type ZoneSourceSpec,
} from '../zonefile/sources.ts';

export interface ZoneLoadResult {
  readonly zone?: Zone;
  readonly diagnostics: readonly ZoneDiagnostic[];
}

/**
 * Loads one zone file (the zone-file module's `loadZoneFile`); `origin` is
 * the one given explicitly for the file, else the file name or content names it.
 */
export type ZoneFileLoader = (file: string, origin: string | undefined) => Promise<ZoneLoadResult>;

/** The configured sources as the zone-source module takes them. */
export function zoneSourceSpecs(config: ServerConfig): ZoneSourceSpec[] {
  return config.zones.map((z) =>
    typeof z === 'string' ? { path: z } : { path: z.file, origin: z.origin },
  );
}

export class ServerStartError extends Error {
  readonly code: 'SERVER_LISTEN_FAILED' | 'SERVER_NO_ZONES' | DohConfigError['code'];
  constructor(code: ServerStartError['code'], message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'ServerStartError';
    this.code = code;
  }
}

interface Loaded {
  readonly zone: Zone;
  readonly mtimeMs: number;
  readonly size: number;
  readonly serial: number | undefined;
}

/** What one file's reload gave. */
type FileOutcome = 'loaded' | 'unchanged' | 'failed' | 'incomplete';

/** A file still being written: it does not end with a newline, or it changed while we looked. */
async function looksIncomplete(file: string, st: { size: number; mtimeMs: number }) {
  await new Promise((r) => setTimeout(r, 100));
  let again;
  try {
    again = await stat(file);
  } catch {
    return true;
  }
  if (again.size !== st.size || again.mtimeMs !== st.mtimeMs) return true;
  if (!again.isFile() || again.size === 0) return false;
  let fh;
  try {
    fh = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const b = Buffer.alloc(1);
    await fh.read(b, 0, 1, again.size - 1);
    return b[0] !== 0x0a;
  } catch {
    return false;
  } finally {
    await fh?.close();
  }
}

/** Log a reloaded zone's serial when it went backwards or stayed while the file changed (as BIND does). */
function checkSerial(
  log: Logger,
  file: string,
  prev: Loaded | undefined,
  zone: Zone,
  serial: number | undefined,
) {
  if (
    !prev ||
    prev.zone.origin !== zone.origin ||
    serial === undefined ||
    prev.serial === undefined
  )
    return;
  const order = compareSerials(serial, prev.serial);
  if (order < 0 || (order === 0 && serial !== prev.serial)) {
    log.warn('zone_serial_backwards', {
      file,
      origin: zone.origin,
      serial,
      previous: prev.serial,
      note: 'secondaries and caches keep the old version (RFC 1982 serial arithmetic)',
    });
  } else if (serial === prev.serial) {
    log.warn('zone_serial_unchanged', {
      file,
      origin: zone.origin,
      serial,
      note: 'the file changed but the SOA serial did not: secondaries will not transfer it',
    });
  }
}

function logDiagnostics(log: Logger, file: string, diagnostics: readonly ZoneDiagnostic[]) {
  for (const d of diagnostics) {
    const fields = {
      file,
      code: d.code,
      message: d.message,
      ...(d.position ? { line: d.position.line, column: d.position.column } : {}),
    };
    if (d.severity === 'error') log.error('zone_diagnostic', fields);
    else log.warn('zone_diagnostic', fields);
  }
}

export interface ReloadReport {
  readonly loaded: number;
  readonly unchanged: number;
  readonly failed: number;
  readonly removed: number;
  readonly zones: number;
}

export interface RunningServer {
  readonly engine: Engine;
  readonly udp: readonly UdpListener[];
  readonly tcp: readonly TcpListener[];
  /** DNS over HTTPS listeners (`doh.listen`), answering from the same engine. */
  readonly doh: readonly DohListener[];
  /** Repeated events (refused connections, FORMERR sources, ...) summarised per interval. */
  readonly summary: LogSummary;
  /** Re-read the zone sources; changed files are reloaded, failures keep the old zone. */
  reload(): Promise<ReloadReport>;
  close(): Promise<void>;
}

export interface StartOptions {
  readonly config: ServerConfig;
  readonly loader: ZoneFileLoader;
  readonly log: Logger;
  /** Base directory for relative zone paths. */
  readonly cwd: string;
}

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config, loader, log, cwd } = options;
  const specs = zoneSourceSpecs(config);
  const sources = specs.map((z) => path.resolve(cwd, z.path));
  const engine = new Engine([], {
    maxUdpPayload: config.udp.maxPayload,
    maxChain: config.limits.maxChain,
    cachePerName: config.limits.cachePerName,
  });
  let current = new Map<string, Loaded>();
  let reloading: Promise<ReloadReport> | undefined;

  /** Reload one file into `next`; the previous version stays when the new one fails. */
  const reloadFile = async (
    file: string,
    origin: string | undefined,
    next: Map<string, Loaded>,
    watching: boolean,
  ): Promise<FileOutcome> => {
    const prev = current.get(file);
    const keep = () => {
      if (prev) next.set(file, prev);
    };
    let st;
    try {
      st = await stat(file);
    } catch (e) {
      log.error('zone_unreadable', {
        file,
        error: (e as Error).message,
        keeping: prev ? prev.zone.origin : null,
      });
      keep();
      return 'failed';
    }
    if (prev && prev.mtimeMs === st.mtimeMs && prev.size === st.size) {
      keep();
      return 'unchanged';
    }
    // A change seen by --watch may be a file still being written: wait for a whole one.
    if (watching && incompleteTries < 20 && (await looksIncomplete(file, st))) {
      log.info('zone_incomplete', { file, note: 'still being written? retrying shortly' });
      keep();
      return 'incomplete';
    }
    const started = performance.now();
    let result: ZoneLoadResult;
    try {
      result = await loader(file, origin);
    } catch (e) {
      result = {
        diagnostics: [
          { code: 'ZONE_LOAD_FAILED', message: (e as Error).message, severity: 'error' },
        ],
      };
    }
    const ms = Math.round(performance.now() - started);
    logDiagnostics(log, file, result.diagnostics);
    const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
    if (!result.zone || errors > 0) {
      log.error('zone_load_failed', {
        file,
        errors,
        ms,
        keeping: prev ? `${prev.zone.origin} (previous version)` : null,
      });
      keep();
      return 'failed';
    }
    const serial = soaSerial(result.zone);
    checkSerial(log, file, prev, result.zone, serial);
    next.set(file, { zone: result.zone, mtimeMs: st.mtimeMs, size: st.size, serial });
    log.info('zone_loaded', {
      file,
      origin: result.zone.origin,
      serial: serial ?? null,
      records: result.zone.size,
      ms,
    });
    return 'loaded';
  };

  let incompleteTries = 0;
  const doReload = async (watching = false): Promise<ReloadReport> => {
    const files = await expandZoneSources(specs, cwd);
    const next = new Map<string, Loaded>();
    const counts = { loaded: 0, unchanged: 0, failed: 0, incomplete: 0 };
    for (const { file, origin } of files) counts[await reloadFile(file, origin, next, watching)]++;
    // Files still being written are tried again shortly (at most 20 times, then read as they are).
    if (counts.incomplete > 0) {
      incompleteTries++;
      scheduleWatchReload(500);
    } else incompleteTries = 0;
    const removed = [...current.keys()].filter((f) => !next.has(f)).length;
    const started = performance.now();
    const byOrigin = new Map<string, Zone>();
    for (const [file, l] of next) {
      if (byOrigin.has(l.zone.origin)) {
        log.error('zone_duplicate_origin', {
          file,
          origin: l.zone.origin,
          served: 'the first file in order',
        });
        continue;
      }
      byOrigin.set(l.zone.origin, l.zone);
    }
    if (counts.loaded > 0 || removed > 0 || current.size !== next.size) {
      engine.setZones([...byOrigin.values()]);
      log.info('zones_compiled', {
        zones: byOrigin.size,
        ms: Math.round(performance.now() - started),
      });
    }
    current = next;
    const { loaded, unchanged, failed } = counts;
    return { loaded, unchanged, failed, removed, zones: byOrigin.size };
  };
  const reload = (watching = false): Promise<ReloadReport> => {
    // Serialize reloads: a second request waits for the first, then runs.
    const go = () => doReload(watching);
    const run = (reloading ?? Promise.resolve()).then(go, go);
    reloading = run.finally(() => {
      if (reloading === run) reloading = undefined;
    }) as Promise<ReloadReport>;
    return run;
  };

  // Watch before the first load: a change made while loading, or right after
  // the server reports it is listening, is never missed.
  const watchers: FSWatcher[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  // --watch: a reload once the folder has been quiet for `ms` (editors and
  // copies write in several steps).
  function scheduleWatchReload(ms: number): void {
    if (closed || !config.watch) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void reload(true).then((r) => log.info('zones_reloaded', { trigger: 'watch', ...r }));
    }, ms);
  }
  if (config.watch) {
    const dirs = new Set<string>();
    for (const s of sources) {
      try {
        dirs.add((await stat(s)).isDirectory() ? s : path.dirname(s));
      } catch {
        dirs.add(path.dirname(s));
      }
    }
    for (const dir of dirs) {
      try {
        const w = watch(dir, { persistent: false }, () => scheduleWatchReload(200));
        w.on('error', (e) => log.warn('watch_error', { dir, error: e.message }));
        watchers.push(w);
      } catch (e) {
        log.warn('watch_failed', { dir, error: (e as Error).message });
      }
    }
  }

  let first: ReloadReport;
  try {
    first = await reload();
  } catch (e) {
    if (timer) clearTimeout(timer);
    for (const w of watchers) w.close();
    throw e;
  }
  if (first.zones === 0) {
    if (!config.allowEmpty) {
      if (timer) clearTimeout(timer);
      for (const w of watchers) w.close();
      throw new ServerStartError(
        'SERVER_NO_ZONES',
        `no zone loaded from ${sources.join(', ')} (zone files: *.zone, *.db, db.*; see the diagnostics above); start anyway with --allow-empty (allowEmpty in the configuration)`,
      );
    }
    log.warn('no_zones', { sources: specs.map((z) => z.path), note: 'every query gets REFUSED' });
  }

  const udp: UdpListener[] = [];
  const tcp: TcpListener[] = [];
  const doh: DohListener[] = [];
  const summary = createLogSummary(log, config.log.summaryIntervalMs);
  const closeAll = async () => {
    await Promise.all([...udp, ...tcp, ...doh].map((l) => l.close()));
    summary.close();
  };
  try {
    for (const { host, port } of config.listen) {
      // The TCP port is bound first so that port 0 gives one number for both transports.
      const t = await listenTcp(() => engine, host, port, config.tcp, log, summary);
      tcp.push(t);
      const u = await listenUdp(() => engine, host, t.port, log, summary);
      udp.push(u);
      log.info('listening', { address: host, port: t.port, transports: 'udp+tcp' });
    }
    for (const { host, port } of config.doh.listen) {
      const { tlsCert, tlsKey } = config.doh;
      const files = {
        ...(tlsCert !== undefined ? { tlsCert: path.resolve(cwd, tlsCert) } : {}),
        ...(tlsKey !== undefined ? { tlsKey: path.resolve(cwd, tlsKey) } : {}),
      };
      const d = await listenDoh(() => engine, { host, port, ...files }, log, summary);
      doh.push(d);
      log.info('listening', {
        address: host,
        port: d.port,
        transports: d.tls ? 'https' : 'http',
        url: d.url,
      });
    }
  } catch (e) {
    if (timer) clearTimeout(timer);
    for (const w of watchers) w.close();
    await closeAll();
    await reloading?.catch(() => undefined);
    if (e instanceof DohConfigError) throw new ServerStartError(e.code, e.message, e);
    throw new ServerStartError('SERVER_LISTEN_FAILED', `cannot listen: ${(e as Error).message}`, e);
  }

  return {
    engine,
    udp,
    tcp,
    doh,
    summary,
    reload,
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const w of watchers) w.close();
      await closeAll();
      await reloading?.catch(() => undefined);
    },
  };
}
