/** The routing server: loads zones, listens, reloads (a failing zone keeps its version), stops. */
import { stat } from 'node:fs/promises';
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { isSecondaryZone, type ServerConfig } from '../config/server.ts';
import { randomBytes } from 'node:crypto';
import { listenErrorCode, type ListenErrorCode } from './listen-error.ts';
import { Engine, type EngineOptions } from './engine.ts';
import { collectorAfter, COLLECT_AFTER_MS, collectWhenIdle } from './zones/collector.ts';
import type { Logger, LogFormat } from './log.ts';
import { availableParallelism } from 'node:os';
import type { Zone } from '../dns/core/zone/model.ts';
import type { ZoneDiff } from '../xfr/core/diff.ts';
import type { IndexedZone } from './core/zone-lookup.ts';
import { AnswerThreads } from './answer-threads.ts';
import { createLogSummary, type LogSummary } from './log-summary.ts';
import type { DohConfigError, DohListener } from './doh.ts';
import { listenTcp, type TcpListener } from './tcp.ts';
import { listenUdp, type UdpListener } from './udp.ts';
import type { ZoneSourceSpec } from './zones/sources.ts';
import {
  ZoneReloader,
  type ReloaderOptions,
  type ReloadReport,
  type Versioning,
} from './reload.ts';
import { Rrl } from './rrl.ts';
import { QueryPipeline, type NotifyHook } from './pipeline.ts';
import { Transfers } from '../xfr/out.ts';
import { TransferHistory } from '../xfr/history.ts';
import { catalogFor, swapWithCatalog, type CatalogPublisher } from '../xfr/catalog.ts';
import {
  catalogConsumerFor,
  secondaryZonesOf,
  type CatalogConsumer,
} from '../xfr/catalog-consumer.ts';
import { readServedStates } from '../xfr/served-state.ts';
import { mkdir, readFile } from 'node:fs/promises';
import type { Secondaries, SecondaryTarget } from '../xfr/secondary.ts';
import { nameWireKey, type TsigKey } from '../xfr/core/tsig.ts';
import { base64Secret, parseTsigKeyFile, tsigAlgorithm } from '../config/tsig-keys.ts';
import { absoluteLowerName } from '../kit/core/names.ts';
import { zoneLoaderFor } from './zones/loader.ts';
import type { WorkerLoadOptions } from './zones/worker.ts';
import type { BackgroundZoneLoader } from './zones/background.ts';
import {
  aclFrom,
  notifyTargets,
  serialPolicies,
  serialPoliciesUsed,
  transfersConfigured,
  zoneAcls,
  type XfrConfigProblem,
} from '../xfr/config.ts';

export type { ReloadReport, ZoneFileLoader, ZoneLoadResult } from './reload.ts';

/** The configured sources as the zone-source module takes them. */
export function zoneSourceSpecs(config: ServerConfig): ZoneSourceSpec[] {
  const out: ZoneSourceSpec[] = [];
  for (const z of config.zones) {
    if (typeof z === 'string') out.push({ path: z });
    else if (!isSecondaryZone(z)) out.push({ path: z.file, origin: z.origin });
  }
  return out;
}

export class ServerStartError extends Error {
  readonly code:
    | ListenErrorCode
    | 'SERVER_NO_ZONES'
    | 'SECONDARY_STATE_DIR'
    | 'DNSSEC_KEYS_DIR'
    | DohConfigError['code']
    | `TSIG_${string}`;
  constructor(code: ServerStartError['code'], message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'ServerStartError';
    this.code = code;
  }
}

export interface RunningServer {
  readonly engine: Engine;
  readonly udp: readonly UdpListener[];
  readonly tcp: readonly TcpListener[];
  /** DNS over HTTPS listeners (`doh.listen`), answering from the same engine. */
  readonly doh: readonly DohListener[];
  /** Repeated events (refused connections, FORMERR sources, ...) summarised per interval. */
  readonly summary: LogSummary;
  /** Response-rate limiting on UDP, when configured. */
  readonly rrl: Rrl | undefined;
  /** This thread's query pipeline: every listener's one entry (TSIG, NOTIFY, transfers, engine, RRL). */
  readonly pipeline: QueryPipeline;
  /** Zone transfers out (AXFR, IXFR) and their IXFR history. */
  readonly transfers: Transfers;
  /** Secondary zones (transfers in), when configured. */
  readonly secondaries: Secondaries | undefined;
  /** The catalog zones consumed (`secondaryCatalogs`), when configured. */
  readonly catalogs: CatalogConsumer | undefined;
  /** Answering workers (`serve --workers`): this thread and `threads`. */
  readonly workers: number;
  /** The answering threads beyond this one (undefined with one worker). */
  readonly threads: AnswerThreads | undefined;
  /** Re-read the zone sources (only `zone`'s with an origin); a failure keeps the old zone. */
  reload(zone?: string): Promise<ReloadReport>;
  /** The served set changed without a restart (`ctl zone add`, `ctl zone remove`). */
  readonly zoneSet: ZoneSetControl;
  close(): Promise<void>;
}

/** `ctl zone add` and `ctl zone remove`, and the catalog zone they update. */
export interface ZoneSetControl {
  add: ZoneReloader['addZone'];
  remove: ZoneReloader['removeZone'];
  /** The catalog zone published (`--catalog`), if any. */
  readonly catalog: CatalogPublisher | undefined;
  /** Secondary zones (not removable: their configuration, or their catalog, says where they come from). */
  readonly secondaryOrigins: ReadonlySet<string>;
}

/** The engine's options: NSID, cookie secret (random at start when unset, as BIND) and CH TXT. */
function engineOptionsFor(config: ServerConfig): Partial<EngineOptions> {
  const { nsid, cookies, chaos } = config;
  return {
    maxUdpPayload: config.udp.maxPayload,
    maxChain: config.limits.maxChain,
    cachePerName: config.limits.cachePerName,
    nsid: nsid === null ? undefined : Buffer.from(nsid, 'utf8'),
    cookieSecret: !cookies.enabled
      ? undefined
      : cookies.secret === null
        ? randomBytes(16)
        : Buffer.from(cookies.secret, 'hex'),
    chaosVersion: chaos.version ?? undefined,
    chaosId: chaos.id ?? undefined,
  };
}

/** The TSIG keys of the configuration: from a BIND key file or the config's objects. */
async function tsigKeysFor(config: ServerConfig, cwd: string): Promise<TsigKey[]> {
  const k = config.tsigKeys;
  if (k === null) return [];
  if (typeof k === 'string') {
    const file = path.resolve(cwd, k);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      throw new ServerStartError(
        'TSIG_KEY_FILE',
        `cannot read ${file}: ${(e as Error).message}`,
        e,
      );
    }
    const r = parseTsigKeyFile(text);
    const err = r.errors[0];
    if (err) throw new ServerStartError(err.code, `${file}:${err.line}: ${err.message}`);
    return r.keys;
  }
  return k.map((c, i) => {
    const algorithm = tsigAlgorithm(c.algorithm);
    const secret = base64Secret(c.secret);
    if (!algorithm)
      throw new ServerStartError(
        'TSIG_KEY_ALGORITHM',
        `tsigKeys[${i}]: unknown algorithm ${c.algorithm}`,
      );
    if (!secret)
      throw new ServerStartError('TSIG_KEY_SECRET', `tsigKeys[${i}]: secret must be base64`);
    return { name: absoluteLowerName(c.name), algorithm, secret };
  });
}

/** A problem of the transfer configuration as a start failure. */
function orFail<T extends object>(v: T | XfrConfigProblem): T {
  if ('code' in v) throw new ServerStartError(v.code, v.message);
  return v as T;
}

/** The transfer service of a configuration (each answering thread builds one). */
export async function transferServiceFor(config: ServerConfig, cwd: string, log: Logger) {
  const t = config.transfer;
  const keys = await tsigKeysFor(config, cwd);
  const byKey = new Map(keys.map((k) => [nameWireKey(k.name), k]));
  const global = orFail(aclFrom(config.allowTransfer, byKey, 'allowTransfer'));
  const transfers = new Transfers(
    {
      allow: global.allow,
      requireKeys: global.requireKeys,
      zoneAcls: orFail(zoneAcls(config, byKey)),
      maxConcurrent: t.maxConcurrent,
      messageSize: t.messageSize,
      keys: byKey,
      condense: t.ixfrCondense,
    },
    log,
  );
  return { transfers, byKey, global };
}

/**
 * The transfer service and its history: serve-wide NOTIFY is signed with the first key the
 * serve-wide ACL requires, a zone's own with the key each names.
 */
async function transfersFor(
  config: ServerConfig,
  cwd: string,
  log: Logger,
): Promise<{ transfers: Transfers; history: TransferHistory }> {
  const t = config.transfer;
  const { transfers, byKey, global } = await transferServiceFor(config, cwd, log);
  const firstRequired = [...global.requireKeys][0];
  const notifyKey = firstRequired === undefined ? undefined : byKey.get(firstRequired);
  const history = new TransferHistory(
    {
      // No transfers allowed: no IXFR history to keep.
      count: transfersConfigured(config) ? t.historyCount : 0,
      bytes: t.historyBytes,
      stateDir: t.stateDir === null ? undefined : path.resolve(cwd, t.stateDir),
      notify: orFail(notifyTargets(config, byKey, notifyKey)),
      notifyOptions: { tries: t.notifyTries, timeoutMs: t.notifyTimeoutMs },
    },
    transfers,
    log,
  );
  return { transfers, history };
}

/** The secondary zones' service (undefined without secondary zones); their files live under transfer.stateDir. */
export async function secondariesFor(
  config: ServerConfig,
  cwd: string,
  log: Logger,
  target: SecondaryTarget,
  onNotify?: (origin: string) => void,
): Promise<Secondaries | undefined> {
  const zones = secondaryZonesOf(config);
  if (zones.length === 0) return undefined;
  const dir = config.transfer.stateDir;
  if (dir === null)
    throw new ServerStartError(
      'SECONDARY_STATE_DIR',
      `secondary zones (${zones.map((z) => z.origin).join(', ')}) need a state folder for the transferred zones: --state-dir DIR (transfer.stateDir)`,
    );
  const keys = new Map((await tsigKeysFor(config, cwd)).map((k) => [nameWireKey(k.name), k]));
  for (const z of zones)
    for (const p of z.primaries)
      if (p.key !== undefined && !keys.has(nameWireKey(p.key)))
        throw new ServerStartError(
          'TSIG_KEY_UNKNOWN',
          `the primary ${p.host}:${p.port} of ${z.origin} names key ${p.key}, which tsigKeys does not define`,
        );
  const stateDir = path.resolve(cwd, dir);
  await mkdir(path.join(stateDir, 'secondary'), { recursive: true });
  const limits = config.transfer;
  const summaryIntervalMs = config.log.summaryIntervalMs;
  const catalogs = config.secondaryCatalogs;
  const notify = onNotify ? { onNotify, catalogs } : {};
  const o = { zones, stateDir, keys, limits, summaryIntervalMs, ...notify };
  const { Secondaries } = await import('../xfr/secondary.ts');
  return new Secondaries(o, target, log);
}

/** Comparing each load with the served version: the zones' serial policies, IXFR differences when transfers are served. */
async function versioningFor(config: ServerConfig, cwd: string, log: Logger): Promise<Versioning> {
  const stateDir = config.transfer.stateDir;
  const restored = await readServedStates(
    stateDir === null ? undefined : path.resolve(cwd, stateDir),
    log,
  );
  return {
    policyFor: serialPolicies(config),
    diff: transfersConfigured(config) && config.transfer.historyCount > 0,
    restored,
    today: () => Number(new Date().toISOString().slice(0, 10).replaceAll('-', '')),
  };
}

/** Every answering thread serves transfers: each gets the IXFR histories now and every change after. */
function shareHistories(transfers: Transfers, threads: AnswerThreads, log: Logger): void {
  const send = (origin: string, diffs: readonly ZoneDiff[]) =>
    threads.setHistory(origin, diffs).catch((e: unknown) => {
      log.error('history_to_workers_failed', { zone: origin, error: (e as Error).message });
    });
  transfers.onHistory = send;
  for (const [origin, diffs] of transfers.allHistories()) void send(origin, diffs);
}

export interface StartOptions {
  readonly config: ServerConfig;
  readonly log: Logger;
  /** Base directory for relative zone paths. */
  readonly cwd: string;
  /** The log format of the answering threads (`--workers`); default json. */
  readonly logFormat?: LogFormat;
}

/**
 * Zones go to the answering threads on SharedArrayBuffers; with one thread, unsigned zones too
 * when the load worker compares versions (transfers, a serial policy). See collector.ts.
 */
export function sharedColumns(config: ServerConfig): WorkerLoadOptions['shared'] {
  if (workerCount(config) > 1) return 'all';
  return transfersConfigured(config) || serialPoliciesUsed(config) ? 'unsigned' : undefined;
}

/** `--watch`: a reload once the watched folders have been quiet for `ms` (writes come in steps). */
async function watchSources(
  enabled: boolean,
  sources: readonly string[],
  log: Logger,
  run: (watching: boolean) => Promise<void>,
): Promise<{ schedule(ms: number): void; close(): void }> {
  const watchers: FSWatcher[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = !enabled;
  const schedule = (ms: number) => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void run(true);
    }, ms);
  };
  const close = () => {
    closed = true;
    if (timer) clearTimeout(timer);
    for (const w of watchers) w.close();
  };
  if (!enabled) return { schedule, close };
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
      const w = watch(dir, { persistent: false }, () => schedule(200));
      w.on('error', (e) => log.warn('watch_error', { dir, error: e.message }));
      watchers.push(w);
    } catch (e) {
      log.warn('watch_failed', { dir, error: (e as Error).message });
    }
  }
  return { schedule, close };
}

/** Inline signing: a reload when a served zone's earliest signatures are due (`arm` sets the timer again). */
function signatureRefresher(
  reloader: ZoneReloader,
  log: Logger,
  reload: () => Promise<ReloadReport>,
) {
  const run = () =>
    reload().then((r) => log.info('zones_reloaded', { trigger: 'dnssec_refresh', ...r }));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  return {
    arm: () => {
      clearTimeout(timer);
      const at = reloader.nextRefresh();
      if (at === undefined || stopped) return;
      const ms = Math.min(Math.max(at - Date.now(), 0), 2 ** 31 - 1);
      timer = setTimeout(() => void run(), ms).unref();
    },
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** Answering workers: `workers`, 0 meaning one per core. */
export function workerCount(config: ServerConfig): number {
  return config.workers === 0 ? availableParallelism() : config.workers;
}

/** A first load of at least this many zones is followed by a collection (`collectWhenIdle`). */
const COLLECT_AFTER_ZONES = 1000;

/**
 * The first load; true when thousands of zones loaded (their garbage is then worth a collection).
 * With no zone the start fails, unless `allowEmpty` or secondary zones wait for their transfer.
 */
async function firstLoad(
  reload: () => Promise<ReloadReport>,
  config: ServerConfig,
  sources: readonly string[],
  log: Logger,
  loader: BackgroundZoneLoader,
): Promise<boolean> {
  const first = await reload();
  loader.offThread();
  const many = first.zones >= COLLECT_AFTER_ZONES;
  if (many) loader.giveMemoryBack();
  if (first.zones > 0 || secondaryZonesOf(config).length > 0) return many;
  if (!config.allowEmpty) {
    throw new ServerStartError(
      'SERVER_NO_ZONES',
      `no zone loaded from ${sources.join(', ')} (zone files: *.zone, *.db, db.*; see the diagnostics above); start anyway with --allow-empty (allowEmpty in the configuration)`,
    );
  }
  log.warn('no_zones', { sources: config.zones, note: 'every query gets REFUSED' });
  return false;
}

export interface Listeners {
  readonly udp: UdpListener[];
  readonly tcp: TcpListener[];
  readonly doh: DohListener[];
  readonly summary: LogSummary;
  readonly rrl: Rrl | undefined;
  readonly pipeline: QueryPipeline;
  close(): Promise<void>;
}

/**
 * A thread's UDP, TCP and DoH listeners (those opened are closed on failure). An answering thread
 * (`ports` given) binds the main thread's ports (SO_REUSEPORT) and leaves DoH to it.
 */
export async function listenAll(
  engine: Engine,
  config: ServerConfig,
  cwd: string,
  log: Logger,
  reusePort: boolean,
  transfers: Transfers,
  notify?: NotifyHook,
  ports?: readonly number[],
): Promise<Listeners> {
  const udp: UdpListener[] = [];
  const tcp: TcpListener[] = [];
  const doh: DohListener[] = [];
  const summary = createLogSummary(log, config.log.summaryIntervalMs);
  // The rate limiter when any of its rates is set.
  const r = config.rrl;
  const rrlOn =
    r.responsesPerSecond > 0 || (r.nxdomainsPerSecond ?? 0) > 0 || (r.errorsPerSecond ?? 0) > 0;
  const rrl = rrlOn ? new Rrl(r) : undefined;
  const rrlSweep = rrl
    ? setInterval(() => rrl.sweep((Date.now() / 1000) | 0), 5000).unref()
    : undefined;
  const pipeline = new QueryPipeline({ engine: () => engine, summary, rrl, transfers, notify });
  const dohListen = ports === undefined ? config.doh.listen : [];
  const dohModule = dohListen.length > 0 ? await import('./doh.ts') : undefined;
  const close = async () => {
    await Promise.all([...udp, ...tcp, ...doh].map((l) => l.close()));
    clearInterval(rrlSweep);
    summary.close();
  };
  try {
    for (const [i, { host, port }] of config.listen.entries()) {
      // The TCP port is bound first so that port 0 gives one number for both transports.
      const p = ports?.[i] ?? port;
      const t = await listenTcp(pipeline, host, p, config.tcp, log, summary, reusePort);
      tcp.push(t);
      const udpOptions = { reusePort, receiveBuffer: config.udp.receiveBuffer };
      const u = await listenUdp(pipeline, host, t.port, log, udpOptions);
      udp.push(u);
      if (ports !== undefined) continue;
      const udpReceiveBuffer = u.receiveBuffer;
      log.info('listening', {
        address: host,
        port: t.port,
        transports: 'udp+tcp',
        udpReceiveBuffer,
      });
    }
    for (const { host, port } of dohListen) {
      const { tlsCert, tlsKey, allowOrigin } = config.doh;
      const files = {
        ...(tlsCert !== undefined ? { tlsCert: path.resolve(cwd, tlsCert) } : {}),
        ...(tlsKey !== undefined ? { tlsKey: path.resolve(cwd, tlsKey) } : {}),
        ...(allowOrigin !== undefined ? { allowOrigin } : {}),
      };
      const d = await dohModule!.listenDoh(pipeline, { host, port, ...files }, log, summary);
      doh.push(d);
      const transports = d.tls ? 'https' : 'http';
      log.info('listening', { address: host, port: d.port, transports, url: d.url });
    }
  } catch (e) {
    await close();
    if (dohModule !== undefined && e instanceof dohModule.DohConfigError)
      throw new ServerStartError(e.code, e.message, e);
    throw new ServerStartError(listenErrorCode(e), `cannot listen: ${(e as Error).message}`, e);
  }
  return { udp, tcp, doh, summary, rrl, pipeline, close };
}

/** The reloader over the zone loader, the transfer history its swaps feed, the secondary zones. */
async function zoneServices(
  { config, log, cwd }: StartOptions,
  target: ReloaderOptions['engine'],
  retrySoon: () => void,
  hot: BackgroundZoneLoader['hot'],
) {
  const loader = zoneLoaderFor(config, cwd, sharedColumns(config));
  // The loads encode ahead the answers of the names the server is being asked.
  loader.hot = hot;
  try {
    const { transfers, history } = await transfersFor(config, cwd, log);
    const catalog = await catalogFor(config, cwd, log);
    const ref: { reloader?: ZoneReloader } = {};
    const reloadCatalog = () => ref.reloader!.reload(false, undefined, catalog?.name);
    const onSwap = swapWithCatalog(history.changed.bind(history), catalog, reloadCatalog, log);
    const secondaries = await secondariesFor(config, cwd, log, {
      install: (file, tmp) => ref.reloader!.install(file, tmp),
      setExpired: (origin, expired) => ref.reloader!.setExpired(origin, expired),
      zoneOfFile: (file) => ref.reloader?.zoneOfFile(file),
      // An IXFR applied by difference reaches answering threads (--workers) as the base's shared
      // columns and the changed names (`transfer.ts`).
      applyDifference: (...a) => ref.reloader!.applyDifference(...a),
      fileWritten: (file, zone) => ref.reloader!.fileWritten(file, zone),
    });
    const reloader = new ZoneReloader({
      specs: zoneSourceSpecs(config),
      cwd,
      loader: (...a) => loader.load(...a),
      engine: target,
      log,
      retrySoon,
      onSwap,
      // Read at each reload: a catalog's members come and go while running.
      get secondaryFiles() {
        return secondaries?.files() ?? [];
      },
      versioning: await versioningFor(config, cwd, log),
      ...(catalog ? { generatedFiles: () => [{ file: catalog.file, origin: catalog.name }] } : {}),
    });
    ref.reloader = reloader;
    const served = () => reloader.servedOrigins();
    const stateDir = path.resolve(cwd, config.transfer.stateDir ?? '.');
    const reload = () => reloader.reload();
    const catalogs = catalogConsumerFor(config, secondaries, served, reload, stateDir, log);
    return { loader, transfers, history, secondaries, reloader, catalog, catalogs };
  } catch (e) {
    await loader.close();
    throw e;
  }
}

/** The answering threads beyond this one (`--workers`), given the zone set served now; `fail` undoes the start. */
async function startThreads(
  options: StartOptions,
  engine: Engine,
  engineOptions: Partial<EngineOptions>,
  l: Listeners,
  workers: number,
  fail: () => Promise<unknown>,
  /** A NOTIFY accepted by another answering thread: the check runs here. */
  onNotify: (origin: string) => void,
): Promise<AnswerThreads> {
  const { config, log } = options;
  const ports = l.udp.map((u) => u.port);
  const logFormat = options.logFormat ?? 'json';
  const threads = AnswerThreads.start({
    count: workers - 1,
    config,
    ports,
    engineOptions,
    logFormat,
    cwd: options.cwd,
    onNotify,
  });
  await threads.setZones(engine.zoneEntries, engine.unavailable);
  try {
    await threads.ready();
  } catch (e) {
    await Promise.all([fail(), threads.close()]);
    throw new ServerStartError(listenErrorCode(e), `answering threads: ${(e as Error).message}`);
  }
  log.info('workers_started', { workers, note: 'SO_REUSEPORT sockets, zones shared' });
  return threads;
}

/** `ctl zone add/remove` over the reloader (the signature refresh armed again after each). */
function zoneSetOf(
  reloader: ZoneReloader,
  catalog: CatalogPublisher | undefined,
  secondaries: Secondaries | undefined,
  arm: () => void,
): ZoneSetControl {
  return {
    add: (spec) => reloader.addZone(spec).finally(arm),
    remove: (origin) => reloader.removeZone(origin).finally(arm),
    catalog,
    // Configured secondary zones, catalogs consumed and their members (which come and go).
    get secondaryOrigins() {
      return new Set(secondaries?.status().map((z) => z.origin));
    },
  };
}

/** Where every reload's zone set goes: this thread's engine, then the other answering threads. */
function swapTarget(
  engine: Engine,
  config: ServerConfig,
  log: Logger,
  threads: () => AnswerThreads | undefined,
) {
  const collectSoon =
    sharedColumns(config) !== undefined ? collectorAfter(COLLECT_AFTER_MS) : () => {};
  return {
    setZones: async (zones: readonly (Zone | IndexedZone)[], unavailable: readonly string[]) => {
      engine.setZones(zones, unavailable);
      collectSoon();
      // A thread that does not confirm its swap is logged; the reload still ends.
      await threads()
        ?.setZones(zones, unavailable)
        .catch((e: unknown) => {
          log.error('workers_swap_failed', { error: (e as Error).message });
        });
    },
    // One zone's new version: every answering thread replaces that zone alone (or takes the set).
    replaceZone: async (zone: Zone | IndexedZone) => {
      if (!engine.replaceZone(zone)) return false;
      collectSoon();
      const t = threads();
      const done = await t?.replaceZone(zone).catch((e: unknown) => {
        log.error('workers_swap_failed', { error: (e as Error).message });
        return false;
      });
      if (done === false) await t!.setZones(engine.zoneEntries, engine.unavailable);
      return true;
    },
  };
}

/** Every answering thread learns the catalogs' members as they change (it answers their NOTIFYs). */
function shareMembers(catalogs: CatalogConsumer | undefined, threads: AnswerThreads, log: Logger) {
  if (catalogs === undefined) return;
  catalogs.onMembers = (m) =>
    threads.setCatalogMembers(m).catch((e: unknown) => {
      log.error('workers_members_failed', { error: (e as Error).message });
    });
}

/** `--watch`: each change reloads (and is logged), from now on. */
function watchAndReload(
  config: ServerConfig,
  sources: readonly string[],
  log: Logger,
  reload: (watching: boolean) => Promise<ReloadReport>,
) {
  return watchSources(config.watch, sources, log, (watching) =>
    reload(watching).then(
      (r) => log.info('zones_reloaded', { trigger: 'watch', ...r }),
      (e: unknown) =>
        log.error('zones_reload_failed', { trigger: 'watch', error: (e as Error).message }),
    ),
  );
}

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config, log, cwd } = options;
  const specs = zoneSourceSpecs(config);
  const sources = specs.map((z) => path.resolve(cwd, z.path));
  const engineOptions = engineOptionsFor(config);
  const engine = new Engine([], engineOptions);
  let threads: AnswerThreads | undefined;
  const target = swapTarget(engine, config, log, () => threads);
  // A zone served already lists only its own hot names (one zone of thousands costs one zone).
  const served: { reloader?: ZoneReloader } = {};
  const hot = (file: string) =>
    engine.hotNamesInSlices(undefined, served.reloader?.zoneOfFile(file)?.origin);
  const retrySoon = () => watcher.schedule(500);
  const zones = await zoneServices(options, target, retrySoon, hot);
  const { transfers, history, secondaries, reloader, loader, catalog, catalogs } = zones;
  served.reloader = reloader;
  const refresher = signatureRefresher(reloader, log, () => reload());
  const reload = (watching = false, zone?: string) =>
    reloader.reload(watching, undefined, zone).finally(refresher.arm);

  // Watch before the first load: a change made while loading, or right after
  // the server reports it is listening, is never missed.
  const watcher = await watchAndReload(config, sources, log, reload);
  const stop = async () => {
    watcher.close();
    refresher.stop();
    catalogs?.close();
    secondaries?.close();
    await secondaries?.idle();
    await reloader.idle();
    await history.close();
    await Promise.all([loader.close(), catalog?.close()]);
  };
  const workers = workerCount(config);
  let l: Listeners;
  try {
    const many = await firstLoad(reload, config, sources, log, loader);
    const notify = secondaries?.notify.bind(secondaries);
    l = await listenAll(engine, config, cwd, log, workers > 1, transfers, notify);
    if (many) collectWhenIdle();
  } catch (e) {
    await stop();
    throw e;
  }
  if (workers > 1) {
    threads = await startThreads(
      options,
      engine,
      engineOptions,
      l,
      workers,
      () => Promise.all([stop(), l.close()]),
      (origin) => void secondaries?.check(origin, 'notify'),
    );
    shareHistories(transfers, threads, log);
    shareMembers(catalogs, threads, log);
  }
  // The members of the catalogs consumed are served before the first checks.
  await catalogs?.start();
  await secondaries?.start();
  void catalogs?.readAll('start');
  return {
    engine,
    ...l,
    transfers,
    secondaries,
    catalogs,
    workers,
    threads,
    reload: (zone?: string) => reload(false, zone),
    zoneSet: zoneSetOf(reloader, catalog, secondaries, refresher.arm),
    close: () => Promise.all([stop(), l.close(), threads?.close()]).then(() => undefined),
  };
}
