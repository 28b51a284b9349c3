/**
 * The jurisdiction resolver as a service: `startResolver(options)` opens the
 * catalogue, reads the registries, answers THTTP, serves `/metrics` and the
 * control channel; with `workers: N` it forks N processes (`workers.ts`).
 */
import { isAbsolute, resolve, basename } from 'node:path';
import { analyseReference } from './core/from-urn.ts';
import { closeCatalogue, openCatalogue, type OpenedCatalogue } from './catalogue/open.ts';
import { CatalogueError } from './catalogue/codes.ts';
import { readLexmlRegistry } from './catalogue/registry-lexml.ts';
import { Registry } from './core/registry.ts';
import type { ResolverConfig } from '../config/resolver.ts';
import { parseListen, type HostPort } from '../kit/core/host-port.ts';
import { createResolverApp, type ResolverApp } from './http/app.ts';
import { pageScript } from './http/page.ts';
import { startResolverServer } from './http/server.ts';
import { catalogueFamilies, LATENCY_BOUNDS, ResolverStats } from './http/stats.ts';
import { startMetricsEndpoint } from '../kit/metrics/http.ts';
import type { MetricFamily } from '../kit/metrics/prom.ts';
import { answerMetricsRequests } from './workers-metrics.ts';
import {
  ControlSocketError,
  serveControlSocket,
  type ControlAnswer,
} from '../authority/control.ts';
import {
  answerControlRequests,
  runPrimaryCommand,
  runResolverCommand,
  type ResolverControlTarget,
} from './control.ts';
import { endpointText, type ControlEndpoint } from '../authority/control-endpoint.ts';
import { VERSION } from '../kit/version.ts';
import { listenErrorCode } from '../authority/listen-error.ts';
import { startWorkers } from './workers.ts';
import {
  WORKER_MESSAGE,
  type WorkerFailure,
  type WorkerMessage,
  type WorkerSpec,
} from './worker-spec.ts';

/** The PostgreSQL catalogue's change poll (LISTEN/NOTIFY does the rest). */
const PG_POLL_MS = 500;
/** How long a SQLite read snapshot is reused across requests. */
const SNAPSHOT_WINDOW_MS = 20;

const now = () => new Date().toISOString();

/** Open the catalogue to serve: it must exist (no silent creation). */
async function openServed(
  cwd: string,
  location: string,
  sample: boolean,
): Promise<OpenedCatalogue> {
  try {
    return await openCatalogue(location, cwd, { readOnly: true });
  } catch (e) {
    if (e instanceof CatalogueError && e.code === 'CATALOGUE_MISSING' && !sample) {
      throw new CatalogueError(
        'CATALOGUE_MISSING',
        `${location}: no such catalogue. Name one with --catalogue FILE|postgres://..., ` +
          'create it with lexroute catalogue import --catalogue FILE rows.jsonl, or serve the sample rows with --sample',
      );
    }
    throw e;
  }
}

/** The catalogue's size: SQLite counts at once, PostgreSQL's last counts kept (no query). */
function countsOf(opened: OpenedCatalogue) {
  return opened.kind === 'sqlite' ? opened.store.counts() : opened.store.cachedCounts();
}

/** Changes when the catalogue does (a commit): SQLite's data_version, PostgreSQL's generation. */
function versionOf(opened: OpenedCatalogue): () => number {
  return opened.kind === 'sqlite' ? () => opened.store.dataVersion() : () => opened.store.version();
}

/** What this process reports at a scrape: its counters and the catalogue's size and last change. */
function metricsCollector(
  opened: OpenedCatalogue,
  app: Pick<ResolverApp, 'cacheStats'>,
  stats: ResolverStats,
): () => MetricFamily[] {
  const version = versionOf(opened);
  let seenVersion = version();
  let changedAt = Date.now();
  return () => {
    const v = version();
    if (v !== seenVersion) {
      seenVersion = v;
      changedAt = Date.now();
    }
    return [...stats.families(app.cacheStats()), ...catalogueFamilies(countsOf(opened), changedAt)];
  };
}

/** The registries: `--registry`/config "registry" when set, else those stored in the catalogue. */
async function loadRegistry(
  cwd: string,
  config: ResolverConfig,
  opened: OpenedCatalogue,
): Promise<Registry | undefined> {
  if (config.registry !== '') {
    return readLexmlRegistry(
      isAbsolute(config.registry) ? config.registry : resolve(cwd, config.registry),
    );
  }
  // Without --registry, the registries stored in the catalogue (lexroute catalogue registry).
  const stored = await opened.store.registryEntries();
  return stored.length > 0 ? new Registry(stored) : undefined;
}

/** What /health and the page show beside the catalogue's counts. */
interface AppLabels {
  /** The catalogue's name in /health (never its path). */
  readonly catalogue: string;
  /** The resolver's own name in /health, when it has one. */
  readonly resolver: string | undefined;
  readonly page: ResolverServiceOptions['page'];
}

/** The resolver app over the opened catalogue, for this configuration and these registries. */
function buildApp(
  config: ResolverConfig,
  opened: OpenedCatalogue,
  registry: Registry | undefined,
  labels: AppLabels,
): ResolverApp {
  const page = {
    doh: labels.page?.doh ?? (() => config.page.doh),
    script: pageScript,
    ...(labels.page?.trustAnchors ? { trustAnchors: labels.page.trustAnchors } : {}),
  };
  const shared = {
    analyse: analyseReference,
    config,
    ...(registry ? { registry } : {}),
    ...(config.page.enabled ? { page } : {}),
  };
  const named = {
    ...(labels.resolver !== undefined ? { resolver: labels.resolver } : {}),
    catalogue: labels.catalogue,
  };
  return createResolverApp({
    ...shared,
    ...(opened.kind === 'sqlite' ? { reader: opened.store } : { source: opened.store }),
    health: () => ({ ...named, ...countsOf(opened) }),
    cache: { ...config.cache, version: versionOf(opened) },
  });
}

/** Configuration keys a running resolver cannot change (`ctl reload` reports them). */
const RESTART_KEYS = ['listen', 'catalogue', 'sampleCatalogue', 'workers', 'log'] as const;

/** The app, swapped whole by `ctl reload`; replaced apps' cache counts are kept (counters never go backwards). */
class SwappableApp implements ResolverApp {
  private current: ResolverApp;
  private retired = { hits: 0, misses: 0 };
  constructor(app: ResolverApp) {
    this.current = app;
  }
  swap(app: ResolverApp): void {
    const s = this.current.cacheStats();
    this.retired = { hits: this.retired.hits + s.hits, misses: this.retired.misses + s.misses };
    this.current = app;
  }
  handle: ResolverApp['handle'] = (req) => this.current.handle(req);
  respond: ResolverApp['respond'] = (req) => this.current.respond(req);
  fetch: ResolverApp['fetch'] = (req, info) => this.current.fetch(req, info);
  flushCache: ResolverApp['flushCache'] = () => this.current.flushCache();
  cacheStats: ResolverApp['cacheStats'] = () => {
    const s = this.current.cacheStats();
    return { ...s, hits: s.hits + this.retired.hits, misses: s.misses + this.retired.misses };
  };
}

export interface ResolverServiceOptions {
  readonly config: ResolverConfig;
  /** The catalogue: a SQLite file or a postgres:// URL (it must exist). */
  readonly catalogue: string;
  /** Where relative paths (catalogue, registry) start. */
  readonly cwd: string;
  /** The catalogue is the sample's copy (named "sample" in /health). */
  readonly sample?: boolean;
  /** Log entries `{time, level, msg, ...}` (the request lines among them). */
  readonly log: LogFn;
  /** `/metrics` on this address. */
  readonly metrics?: { host: string; port: number } | undefined;
  /** A worker of `--workers N` answering the primary's metrics requests. */
  readonly answerPrimary?: boolean;
  /** The control channel (`--control`) of a single-process resolver. */
  readonly control?: ControlEndpoint | undefined;
  /** A worker of `--workers N` answering the primary's control commands. */
  readonly answerControl?: boolean;
  /** Read the configuration again, as at start (`ctl reload`); without it a reload reads the registries again. */
  readonly reloadConfig?: () => Promise<LoadedConfig>;
  /** This resolver's name, shown in /health (`lexroute dev` names each of its resolvers). */
  readonly name?: string;
  /** The page's DoH URL (instead of `config.page.doh`) and trust anchors when known only after the start (`lexroute dev`). */
  readonly page?: { readonly doh?: () => string; readonly trustAnchors?: () => string };
  /**
   * Processes answering (default 1). Above 1 this process forks them and
   * serves the summed `/metrics` and the control channel; `status()` then
   * describes this primary, and `page` functions are read once, at start.
   */
  readonly workers?: number;
}

/** A running resolver process as its control channel sees it. */
interface ControlState {
  config: ResolverConfig;
  readonly opened: OpenedCatalogue;
  readonly app: SwappableApp;
  readonly labels: AppLabels;
  readonly stats: ResolverStats;
  readonly stop: () => void;
  readonly startedAt: number;
  loadedAt: number;
  lastError: string | undefined;
}

type LogFn = (entry: Readonly<Record<string, unknown>>) => void;

/** A configuration read again for `ctl reload` (null: it did not validate; `lines` say why). */
export interface LoadedConfig {
  readonly config: ResolverConfig | null;
  readonly lines: string[];
}

/** `ctl reload`: the configuration file and registries read again; what can change is applied. */
async function reloadResolver(
  cwd: string,
  state: ControlState,
  options: ResolverServiceOptions,
  log: LogFn,
  given: LoadedConfig | undefined,
): Promise<ControlAnswer> {
  const { config, lines } =
    given ??
    (options.reloadConfig ? await options.reloadConfig() : { config: state.config, lines: [] });
  let registry: Registry | undefined;
  try {
    if (config === null) throw new Error(lines.join('; '));
    registry = await loadRegistry(cwd, config, state.opened);
  } catch (e) {
    state.lastError = (e as Error).message;
    log({ time: now(), level: 'error', msg: 'config_reload_failed', error: state.lastError });
    const message = `${state.lastError} (kept the previous configuration)`;
    return { ok: false, code: 'RESOLVER_RELOAD_FAILED', message };
  }
  const needRestart = RESTART_KEYS.filter(
    (k) => JSON.stringify(config[k]) !== JSON.stringify(state.config[k]),
  );
  const cacheFlushed = state.app.cacheStats().entries;
  state.config = { ...config, ...pick(state.config, RESTART_KEYS) };
  state.app.swap(buildApp(state.config, state.opened, registry, state.labels));
  state.loadedAt = Date.now();
  state.lastError = undefined;
  log({ time: now(), level: 'info', msg: 'config_reloaded', needRestart, warnings: lines });
  const registrySize = registry?.size ?? 0;
  return {
    ok: true,
    result: {
      kind: 'resolver',
      reloaded: true,
      needRestart,
      warnings: lines,
      cacheFlushed,
      registry: registrySize,
    },
  };
}

/** What `ctl status`/`reload`/`flush-cache`/`stop` act on in one resolver process. */
function controlTarget(
  cwd: string,
  state: ControlState,
  options: ResolverServiceOptions,
  log: LogFn,
): ResolverControlTarget {
  const { opened } = state;
  return {
    status: () => ({
      kind: 'resolver',
      version: VERSION,
      pid: process.pid,
      startedAt: new Date(state.startedAt).toISOString(),
      uptimeSeconds: Math.round((Date.now() - state.startedAt) / 1000),
      workers: 1,
      listen: state.config.listen,
      catalogue: {
        name: state.labels.catalogue,
        ...countsOf(opened),
      },
      cache: state.app.cacheStats(),
      configLoadedAt: new Date(state.loadedAt).toISOString(),
      lastReloadError: state.lastError ?? null,
    }),
    reload: (given) => reloadResolver(cwd, state, options, log, given),
    flushCache: () => {
      const flushed = state.app.flushCache();
      log({ time: now(), level: 'info', msg: 'cache_flushed', ...flushed });
      return flushed;
    },
    stats: () => {
      const cache = state.app.cacheStats();
      return {
        kind: 'resolver',
        uptimeSeconds: Math.round((Date.now() - state.startedAt) / 1000),
        requests: Object.fromEntries(state.stats.requests),
        latency: { bounds: [...LATENCY_BOUNDS], counts: [...state.stats.latency] },
        cache: { hits: cache.hits, misses: cache.misses },
      };
    },
    stop: state.stop,
  };
}

function pick<T extends object, K extends keyof T>(o: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) out[k] = o[k];
  return out;
}

/** A single-process resolver's control socket; returns its close. */
async function resolverControl(
  endpoint: ControlEndpoint,
  target: ResolverControlTarget,
  log: LogFn,
) {
  const ctl = await serveControlSocket(
    endpoint,
    (req) => {
      log({ time: now(), level: 'info', msg: 'control_command', command: req.command });
      return runResolverCommand(target, req);
    },
    (source) => log({ time: now(), level: 'warn', msg: 'control_auth_failed', source }),
  );
  log({ time: now(), level: 'info', msg: 'control_listening', path: ctl.path });
  return () => ctl.close();
}

/** A resolver that could not start listening: a stable code and the address. */
export class ResolverStartError extends Error {
  readonly code: string;
  readonly address: string;
  constructor(code: string, address: string, message: string, options?: { cause?: unknown }) {
    super(`${code}: cannot listen on ${address}: ${message}`, options);
    this.name = 'ResolverStartError';
    this.code = code;
    this.address = address;
  }
}

/** A started resolver: what `lexroute resolver` runs in one process. */
export interface RunningResolverService {
  /** The HTTP servers, one per listen address (`http://127.0.0.1:8080`). */
  readonly urls: readonly string[];
  /** Read the configuration and registries again (as `ctl reload`). */
  reload(): Promise<ControlAnswer>;
  /** What `ctl status` shows. */
  status(): ReturnType<ResolverControlTarget['status']>;
  /** Resolves when the service should stop: `stopped` (`ctl stop`) or `failed` (a restarted worker could not start). */
  readonly stopAsked: Promise<'stopped' | 'failed'>;
  /** Stop listening, wait for requests in flight, close the catalogue. */
  close(): Promise<void>;
}

/**
 * Start the jurisdiction resolver. A missing catalogue throws CatalogueError;
 * a listen failure closes what started and throws ResolverStartError.
 */
export async function startResolver(o: ResolverServiceOptions): Promise<RunningResolverService> {
  if ((o.workers ?? 1) > 1) return startResolverWorkers(o, o.workers!);
  const { config, log } = o;
  const opened = await openServed(o.cwd, o.catalogue, o.sample === true);
  const registry = await loadRegistry(o.cwd, config, opened).catch(async (e: unknown) => {
    await closeCatalogue(opened);
    throw e;
  });
  // /health names the catalogue without revealing where it lives.
  const catalogue = o.sample
    ? 'sample'
    : opened.kind === 'postgres'
      ? 'postgres'
      : basename(o.catalogue);
  const labels: AppLabels = { catalogue, resolver: o.name, page: o.page };
  if (opened.kind === 'sqlite') opened.store.setSnapshotWindow(SNAPSHOT_WINDOW_MS);
  else await opened.store.watch(PG_POLL_MS);
  const app = new SwappableApp(buildApp(config, opened, registry, labels));
  const stats = new ResolverStats();
  const collect = metricsCollector(opened, app, stats);
  let askStop = () => {};
  const stopAsked = new Promise<'stopped'>((r) => (askStop = () => r('stopped')));
  const t0 = Date.now();
  const state: ControlState = {
    ...{ config, opened, app, labels, stats, stop: () => askStop() },
    ...{ startedAt: t0, loadedAt: t0, lastError: undefined },
  };
  const target = controlTarget(o.cwd, state, o, log);
  const ends = await listenAll(o, app, stats, collect, target, opened);
  const counts = countsOf(opened);
  log({ time: now(), level: 'info', msg: 'catalogue', catalogue: opened.label, ...counts });
  return {
    urls: ends.urls,
    reload: () => target.reload(),
    status: () => target.status(),
    stopAsked,
    close: async () => {
      for (const end of ends.close) await end();
      await closeCatalogue(opened);
      log({ time: now(), level: 'info', msg: 'stopped' });
    },
  };
}

/**
 * `startResolver` with `workers` above 1: the catalogue checked here, then
 * the workers forked; throws ResolverStartError when one cannot start.
 */
async function startResolverWorkers(
  o: ResolverServiceOptions,
  n: number,
): Promise<RunningResolverService> {
  await closeCatalogue(await openServed(o.cwd, o.catalogue, o.sample === true));
  const t0 = Date.now();
  const spec: WorkerSpec = {
    ...{ config: o.config, catalogue: o.catalogue, cwd: o.cwd, sample: o.sample === true },
    ...{ name: o.name, metrics: o.metrics !== undefined, pageDoh: o.page?.doh?.() },
    trustAnchors: o.page?.trustAnchors?.(),
  };
  const start = workersStart(o, n);
  const workers = await startWorkers({
    ...{ spec, workers: n },
    ...{ metrics: o.metrics, control: o.control, err: start.err, onMessage: start.onMessage },
    reloadConfig: o.reloadConfig,
    log: (level, msg, fields) => o.log({ time: now(), level, msg, ...fields }),
  });
  if ((await Promise.race([start.ready, workers.ended])) !== 'ready') {
    await workers.close();
    const f = start.failure();
    throw new ResolverStartError(f.code, f.address, f.message);
  }
  const info = { pid: process.pid, workers: n, stop: workers.stop, reloadConfig: o.reloadConfig };
  return {
    urls: start.urls(),
    reload: () => runPrimaryCommand(workers.alive, info, { command: 'reload' }),
    status: () => ({
      ...{ kind: 'resolver', version: VERSION, pid: process.pid, workers: n },
      ...{ startedAt: new Date(t0).toISOString(), listen: o.config.listen },
      uptimeSeconds: Math.round((Date.now() - t0) / 1000),
    }),
    stopAsked: workers.ended,
    close: async () => {
      await workers.close();
      o.log({ time: now(), level: 'info', msg: 'stopped' });
    },
  };
}

/** What the primary hears from its workers while they start: ready (their URLs), failed (why), log entries. */
function workersStart(o: ResolverServiceOptions, n: number) {
  let urls: string[] = [];
  let ready = 0;
  let allReady = (_: 'ready') => {};
  let failure: WorkerFailure | undefined;
  const onMessage = (_w: unknown, message: unknown) => {
    const m = message as WorkerMessage;
    if (m?.type !== WORKER_MESSAGE) return;
    if (m.event === 'log') for (const entry of m.entries) o.log(entry);
    else if (m.event === 'failed') failure ??= m.failure;
    else if (m.event === 'ready') {
      urls = m.urls;
      if (++ready === n) allReady('ready');
    }
  };
  return {
    ready: new Promise<'ready'>((r) => (allReady = r)),
    onMessage,
    err: (text: string) => void (failure ??= { code: 'LISTEN_FAILED', address: '', message: text }),
    urls: () => urls,
    failure: () =>
      failure ?? { code: 'RESOLVER_WORKER_FAILED', address: '', message: 'a worker exited' },
  };
}

/** The resolver's listeners (HTTP per listen address, metrics, control); on a failure, what started is closed. */
async function listenAll(
  o: ResolverServiceOptions,
  app: SwappableApp,
  stats: ResolverStats,
  collect: () => MetricFamily[],
  target: ResolverControlTarget,
  opened: OpenedCatalogue,
): Promise<{ urls: string[]; close: (() => Promise<void> | void)[] }> {
  const { config, log } = o;
  const ends: (() => Promise<void> | void)[] = [];
  const urls: string[] = [];
  if (o.answerPrimary) ends.push(answerMetricsRequests(collect));
  if (o.answerControl) ends.push(answerControlRequests(target));
  let address = '';
  try {
    if (o.metrics) {
      address = `${o.metrics.host}:${o.metrics.port}`;
      const endpoint = await startMetricsEndpoint(o.metrics.host, o.metrics.port, collect);
      ends.push(() => endpoint.close());
      log({ time: now(), level: 'info', msg: 'metrics', url: endpoint.url });
    }
    if (o.control) {
      address = endpointText(o.control);
      ends.push(await resolverControl(o.control, target, log));
    }
    // One HTTP server per listen address, all answering from the same app.
    for (address of config.listen) {
      const at = parseListen(address) as HostPort;
      const r = await startResolverServer({
        ...{ stats, app, host: at.host, port: at.port, log },
        ...{ logRequests: config.log.requests, logSample: config.log.sample },
        summaryMs: config.log.summaryMs,
      });
      urls.push(r.url);
      ends.unshift(() => r.close());
    }
  } catch (e) {
    for (const end of ends) await end();
    await closeCatalogue(opened);
    const code = e instanceof ControlSocketError ? e.code : listenErrorCode(e);
    throw new ResolverStartError(code, address, (e as Error).message, { cause: e });
  }
  return { urls, close: ends };
}
