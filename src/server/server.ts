/**
 * The routing server: loads zones, starts UDP and TCP listeners on every
 * configured address, reloads zones on request (SIGHUP, `--watch`), and
 * shuts down cleanly.
 *
 * Reload keeps serving the previous good version of any zone whose file
 * fails to load, and swaps the whole compiled zone set in one assignment.
 */
import { stat } from 'node:fs/promises';
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Zone, ZoneDiagnostic } from '../core/zone/model.ts';
import type { ServerConfig } from '../config/server.ts';
import { Engine } from './engine.ts';
import type { Logger } from './log.ts';
import { createLogSummary, type LogSummary } from './log-summary.ts';
import { listenTcp, type TcpListener } from './tcp.ts';
import { listenUdp, type UdpListener } from './udp.ts';
import { expandZoneSources, type ZoneSourceSpec } from '../zonefile/sources.ts';

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
  readonly code: 'SERVER_LISTEN_FAILED' | 'SERVER_NO_ZONES';
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

  const doReload = async (): Promise<ReloadReport> => {
    const files = await expandZoneSources(specs, cwd);
    const next = new Map<string, Loaded>();
    let loaded = 0;
    let unchanged = 0;
    let failed = 0;
    for (const { file, origin } of files) {
      const prev = current.get(file);
      let st;
      try {
        st = await stat(file);
      } catch (e) {
        failed++;
        log.error('zone_unreadable', {
          file,
          error: (e as Error).message,
          keeping: prev ? prev.zone.origin : null,
        });
        if (prev) next.set(file, prev);
        continue;
      }
      if (prev && prev.mtimeMs === st.mtimeMs && prev.size === st.size) {
        next.set(file, prev);
        unchanged++;
        continue;
      }
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
      const errors = result.diagnostics.filter((d) => d.severity === 'error');
      for (const d of result.diagnostics) {
        const fields = {
          file,
          code: d.code,
          message: d.message,
          ...(d.position ? { line: d.position.line, column: d.position.column } : {}),
        };
        if (d.severity === 'error') log.error('zone_diagnostic', fields);
        else log.warn('zone_diagnostic', fields);
      }
      if (!result.zone || errors.length > 0) {
        failed++;
        log.error('zone_load_failed', {
          file,
          errors: errors.length,
          keeping: prev ? `${prev.zone.origin} (previous version)` : null,
        });
        if (prev) next.set(file, prev);
        continue;
      }
      loaded++;
      next.set(file, { zone: result.zone, mtimeMs: st.mtimeMs, size: st.size });
      log.info('zone_loaded', { file, origin: result.zone.origin, records: result.zone.size });
    }
    const removed = [...current.keys()].filter((f) => !next.has(f)).length;
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
    engine.setZones([...byOrigin.values()]);
    current = next;
    return { loaded, unchanged, failed, removed, zones: byOrigin.size };
  };
  const reload = (): Promise<ReloadReport> => {
    // Serialize reloads: a second request waits for the first, then runs.
    const run = (reloading ?? Promise.resolve()).then(doReload, doReload);
    reloading = run.finally(() => {
      if (reloading === run) reloading = undefined;
    }) as Promise<ReloadReport>;
    return run;
  };

  // Watch before the first load: a change made while loading, or right after
  // the server reports it is listening, is never missed.
  const watchers: FSWatcher[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
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
        const w = watch(dir, { persistent: false }, () => {
          if (timer) clearTimeout(timer);
          timer = setTimeout(() => {
            timer = undefined;
            void reload().then((r) => log.info('zones_reloaded', { trigger: 'watch', ...r }));
          }, 200);
        });
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
  const summary = createLogSummary(log, config.log.summaryIntervalMs);
  const closeAll = async () => {
    await Promise.all([...udp.map((l) => l.close()), ...tcp.map((l) => l.close())]);
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
  } catch (e) {
    if (timer) clearTimeout(timer);
    for (const w of watchers) w.close();
    await closeAll();
    await reloading?.catch(() => undefined);
    throw new ServerStartError('SERVER_LISTEN_FAILED', `cannot listen: ${(e as Error).message}`, e);
  }

  return {
    engine,
    udp,
    tcp,
    summary,
    reload,
    close: async () => {
      if (timer) clearTimeout(timer);
      for (const w of watchers) w.close();
      await closeAll();
      await reloading?.catch(() => undefined);
    },
  };
}
