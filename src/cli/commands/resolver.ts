/**
 * `lexroute resolver`: the jurisdiction resolver (THTTP URN-to-URL service).
 */
import cluster, { type Worker } from 'node:cluster';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandArgs } from '../args.ts';
import {
  EXIT_FAIL,
  EXIT_OK,
  Reported,
  UsageError,
  stopSignal,
  type CliIo,
  type Command,
} from '../io.ts';
import { exitCodeOf, exitCodeOfFailure } from '../exit.ts';
import { analyseReference } from '../../resolver/core/from-urn.ts';
import {
  closeCatalogue,
  ensureCatalogue,
  openCatalogue,
  type OpenedCatalogue,
} from '../../resolver/catalogue/open.ts';
import { CatalogueError } from '../../resolver/catalogue/store.ts';
import { readLexmlRegistry } from '../../resolver/catalogue/registry-lexml.ts';
import { Registry } from '../../resolver/core/registry.ts';
import { ConfigFileError, readJsonConfig } from '../../config/load.ts';
import { parseListen, validateResolverConfig, type ResolverConfig } from '../../config/resolver.ts';
import { createResolverApp, type ResolverApp } from '../../resolver/http/app.ts';
import { pageScript } from '../../resolver/http/page.ts';
import { startResolverServer } from '../../resolver/http/server.ts';
import { catalogueFamilies, LATENCY_BOUNDS, ResolverStats } from '../../resolver/http/stats.ts';
import {
  metricsExposure,
  startMetricsEndpoint,
  type MetricsEndpoint,
} from '../../kit/metrics/http.ts';
import type { MetricFamily } from '../../kit/metrics/prom.ts';
import { answerMetricsRequests, startPrimaryMetrics } from './resolver-metrics.ts';
import { formatLogLine } from '../../authority/log.ts';
import {
  ControlSocketError,
  serveControlSocket,
  type ControlAnswer,
  type ControlServer,
} from '../../authority/control.ts';
import {
  answerControlRequests,
  runPrimaryCommand,
  runResolverCommand,
  type ResolverControlTarget,
} from './resolver-control.ts';
import { controlArg } from '../control-arg.ts';
import { endpointText, type ControlEndpoint } from '../../authority/control-endpoint.ts';
import { VERSION } from '../main.ts';
import { listenErrorCode } from '../../authority/listen-error.ts';

/** Set in the environment of the processes `--workers` starts. */
const WORKER_ENV = 'LEXROUTE_RESOLVER_WORKER';
/** The catalogue a worker serves (the primary's choice, a temporary sample included). */
const WORKER_CATALOGUE_ENV = 'LEXROUTE_RESOLVER_CATALOGUE';
/** How often (ms) a PostgreSQL-backed resolver polls the catalogue's generation (besides LISTEN). */
const PG_POLL_MS = 500;

/**
 * Lookups share one SQLite read snapshot for up to this long (see
 * SqliteCatalogue.setSnapshotWindow): an import shows at most this much later.
 */
const SNAPSHOT_WINDOW_MS = 20;
/** Request log lines wait at most this long (ms) before they are written ... */
const LOG_FLUSH_MS = 50;
/** ... or until this many characters are waiting. */
const LOG_FLUSH_BYTES = 64 * 1024;

export const RESOLVER_HELP = `Usage: lexroute resolver [options]

Run the jurisdiction resolver: an HTTP service (THTTP, RFC 2169) that resolves
LEX URNs to document URLs from a catalogue (RFC 9676 section 10.3).

Options:
  --listen ADDR:PORT  address to listen on (repeatable; default 127.0.0.1:8080;
                      IPv6 as [::1]:8080)
  --catalogue LOC     the catalogue: a SQLite file (default data/catalogue.sqlite)
                      or postgres://user@host:port/db; it must exist (lexroute
                      catalogue import creates it)
  --sample            serve the sample rows (data/sample-catalogue.jsonl) from a
                      fresh catalogue in a temporary folder, removed on exit
  --workers N         N resolver processes sharing the port and the catalogue
                      (0: one per core; default 1, config "workers")
  --metrics ADDR:PORT Prometheus metrics at http://ADDR:PORT/metrics: requests
                      by service and status, latency histogram, answer-cache
                      hits, catalogue size, when an import was last seen
                      (summed over the workers)
  --control PATH      control channel for lexroute ctl (Unix socket, mode 0600):
                      status, stats, reload (the configuration file and
                      registries), flush-cache, stop; with --workers, the
                      primary forwards each command to every worker. Or
                      ADDR:PORT on a loopback address (TCP) with --control-key
  --control-key FILE  the key a TCP control port checks every request against
                      (make it with lexroute ctl keygen FILE)
  --registry DIR      LexML vocabularies (localidade.csv, autoridade.csv,
                      tipoDocumento.csv): acronyms and alternative labels are
                      rewritten to their codes before matching where
                      unambiguous, each rewrite reported (REGISTRY_REWRITE).
                      Default: the registries stored in the catalogue
                      (lexroute catalogue registry DIR), read at start
  --page-doh URL      the DNS over HTTPS URL the resolution page at / fills in
                      (http:// or https://, e.g. https://dns.example/dns-query;
                      config "page.doh"; default: empty, the person types one)
  --config FILE       JSON configuration (default: config/resolver.json when
                      present); --listen, --catalogue, --workers, --registry
                      and --page-doh override it
  -h, --help          show this help

Exit codes: 0 stopped cleanly, 1 failure (CATALOGUE_MISSING, CATALOGUE_OPEN,
CATALOGUE_SCHEMA, configuration errors, PORT_IN_USE, CONTROL_SOCKET_IN_USE,
CONTROL_KEY_INVALID), 2 usage error (CONTROL_NOT_LOOPBACK,
CONTROL_KEY_REQUIRED).

lexroute ctl --control PATH reload re-reads the configuration file and the
registries and applies what can change while running (cache, matching,
cacheControl, cors, page, registry; the answer cache starts empty); listen,
catalogue, workers and log need a restart and are reported as such. A
configuration that does not validate is refused (RESOLVER_RELOAD_FAILED) and
the previous one keeps serving.

Logs are JSON lines {"time", "level", "event", ...} as for serve and dev
(readable lines on a terminal).

Routes:
  GET /uri-res/N2L?<urn>   303 (302 for HTTP/1.0) to the best URL
  GET /uri-res/N2Ls?<urn>  all URLs: text/uri-list, or JSON with Accept: application/json
  GET /uri-res/N2C?<urn>   the catalogue description (JSON)
  GET /uri-res/N2Ns?<urn>  the work's names (text/uri-list)
  GET /<urn>               same as N2L
  GET /health
Append ?=at=YYYY-MM-DD to the URN for the version in force on that day.
Errors are application/problem+json with a stable "code"; 300 lists the
candidates of an ambiguous URN. One JSON log line per request on standard
error (request lines are written in batches, at most 50 ms late). Answers are kept in memory (config "cache"): by default an answer is
kept from the second request for it on, so a stream of one-off URNs does not
churn the cache. A catalogue import by another process shows within about a
second (a SQLite file: the cache checks it every cache.checkMs; PostgreSQL:
the import's NOTIFY, or a poll every 0.5 s), and the answer cache is emptied
then. With log.sample N > 1 one request in N is logged and a 'requests' line
counts the others. SIGINT/SIGTERM stop it (and its workers) cleanly.
`;

export const resolverCommand: Command = {
  name: 'resolver',
  summary: 'run the jurisdiction resolver (THTTP URN-to-URL service)',
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      listen: { type: 'string', multiple: true },
      catalogue: { type: 'string' },
      config: { type: 'string' },
      sample: { type: 'boolean' },
      workers: { type: 'string' },
      registry: { type: 'string' },
      metrics: { type: 'string' },
      control: { type: 'string' },
      'control-key': { type: 'string' },
      'page-doh': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      io.out(RESOLVER_HELP);
      return EXIT_OK;
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    for (const l of values.listen ?? []) {
      if (!parseListen(l)) {
        throw new UsageError(`--listen must be ADDR:PORT (e.g. 127.0.0.1:8080), got '${l}'`);
      }
    }
    const metrics = values.metrics === undefined ? undefined : parseListen(values.metrics);
    if (values.metrics !== undefined && !metrics) {
      throw new UsageError(
        `--metrics must be ADDR:PORT (e.g. 127.0.0.1:9154), got '${values.metrics}'`,
      );
    }
    if (values.workers !== undefined && !/^\d{1,3}$/.test(values.workers)) {
      throw new UsageError(`--workers must be a number (0: one per core), got '${values.workers}'`);
    }
    if (values.sample && values.catalogue !== undefined) {
      throw new UsageError('--sample and --catalogue name two catalogues: give one');
    }
    if (values['page-doh'] !== undefined) checkPageDoh(values['page-doh']);
    const config = await loadConfig(io, values);
    if (config instanceof Reported) return exitCodeOfFailure(config.codes);
    const control = await controlArg(io, 'resolver', values.control, values['control-key']);
    if (control instanceof Reported) return exitCodeOfFailure(control.codes);
    const workers =
      io.env[WORKER_ENV] !== undefined
        ? 1
        : config.workers === 0
          ? availableParallelism()
          : config.workers;

    // The catalogue: the worker's given one, the sample (a fresh temporary copy), or the configured one.
    let location = io.env[WORKER_CATALOGUE_ENV] ?? config.catalogue;
    let tmp: string | undefined;
    if (values.sample && io.env[WORKER_CATALOGUE_ENV] === undefined) {
      tmp = await mkdtemp(join(tmpdir(), 'lexroute-resolver-'));
      location = join(tmp, 'catalogue.sqlite');
      try {
        const seeded = await ensureCatalogue(location, config.sampleCatalogue, io.cwd);
        seeded.store.close();
      } catch (e) {
        await rm(tmp, { recursive: true, force: true });
        return catalogueFailed(io, e);
      }
    }
    try {
      if (workers > 1) {
        return await runPrimary(io, argv, location, workers, metrics ?? undefined, control);
      }
      const isWorker = io.env[WORKER_ENV] !== undefined;
      return await serve(io, config, location, Boolean(values.sample), {
        metrics: isWorker ? undefined : (metrics ?? undefined),
        answerPrimary: isWorker && metrics !== undefined,
        control: isWorker ? undefined : control,
        answerControl: isWorker && control !== undefined,
        reloadConfig: () => loadConfigIssues(io, values),
      });
    } finally {
      if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
    }
  },
};

interface ConfigValues {
  listen?: string[];
  catalogue?: string;
  config?: string;
  workers?: string;
  registry?: string;
  'page-doh'?: string;
}

/** The configuration as at start (file and options), or the lines saying why not (`ctl reload`). */
async function loadConfigIssues(
  io: CliIo,
  values: ConfigValues,
): Promise<{ config: ResolverConfig | null; lines: string[] }> {
  const lines: string[] = [];
  const config = await loadConfig(io, values, (l) => lines.push(l.replace(/\n$/, '')));
  return { config: config instanceof Reported ? null : config, lines };
}

/** `--page-doh`: an absolute http(s) URL (the page's DoH endpoint), or a usage error. */
function checkPageDoh(value: string): void {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(
      `--page-doh must be an absolute http(s) URL (e.g. https://dns.example/dns-query), got '${value}'`,
    );
  }
}

async function loadConfig(
  io: CliIo,
  values: ConfigValues,
  report: (line: string) => void = (l) => io.err(l),
): Promise<ResolverConfig | Reported> {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(io.cwd, p));
  let raw: unknown = {};
  const configFile =
    values.config ?? (existsSync(abs('config/resolver.json')) ? 'config/resolver.json' : undefined);
  if (configFile !== undefined) {
    try {
      raw = await readJsonConfig(abs(configFile));
    } catch (e) {
      if (e instanceof ConfigFileError) {
        report(`lexroute resolver: ${e.code}: ${e.message}\n`);
        return new Reported([e.code]);
      }
      throw e;
    }
  }
  const checked = validateResolverConfig(raw, {
    ...(values.listen !== undefined ? { listen: values.listen } : {}),
    ...(values.catalogue !== undefined ? { catalogue: values.catalogue } : {}),
    ...(values.workers !== undefined ? { workers: Number(values.workers) } : {}),
    ...(values.registry !== undefined ? { registry: values.registry } : {}),
  });
  if (!checked.ok) {
    for (const issue of checked.issues) {
      report(
        `lexroute resolver: ${configFile ?? 'configuration'}: ${issue.code} ${issue.path}: ${issue.message}\n`,
      );
    }
    return new Reported(checked.issues.map((i) => i.code));
  }
  for (const w of checked.warnings ?? []) {
    report(
      `lexroute resolver: ${configFile ?? 'configuration'}: warning: ${w.code} ${w.path}: ${w.message}\n`,
    );
  }
  // --page-doh (checked by the caller) over the file's page.doh, at start and at each reload.
  const pageDoh = values['page-doh'];
  return pageDoh === undefined
    ? checked.config
    : { ...checked.config, page: { ...checked.config.page, doh: pageDoh } };
}

function catalogueFailed(io: CliIo, e: unknown): number {
  if (e instanceof CatalogueError) {
    io.err(`lexroute resolver: ${e.code}: ${e.message}\n`);
    return exitCodeOf(e.code);
  }
  throw e;
}

/**
 * Batched log lines: request lines are written every LOG_FLUSH_MS, or at
 * once when LOG_FLUSH_BYTES are waiting (a write per request, a system call,
 * cost about as much as the lookup); other lines at once.
 */
function batchedLog(io: CliIo) {
  let pending = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending !== '') io.err(pending);
    pending = '';
  };
  // The shared log schema (src/authority/log.ts): the adapter's entries are
  // {time, level, msg, ...}; written as {time, level, event, ...}, or as a
  // readable line when standard error is a terminal.
  const pretty = io.errIsTTY;
  const log = (entry: Readonly<Record<string, unknown>>) => {
    if (pretty) {
      const { time, level, msg, ...fields } = entry;
      pending += formatLogLine('pretty', String(time), String(level), String(msg), fields);
    } else pending += `${JSON.stringify(entry).replace('"msg":', '"event":')}\n`;
    if (entry.msg !== 'request' || pending.length >= LOG_FLUSH_BYTES) flush();
    else timer ??= setTimeout(flush, LOG_FLUSH_MS);
  };
  return { log, flush };
}

const now = () => new Date().toISOString();

/** Open the catalogue to serve: it must exist (no silent creation). */
async function openServed(io: CliIo, location: string, sample: boolean): Promise<OpenedCatalogue> {
  try {
    return await openCatalogue(location, io.cwd, { readOnly: true });
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

/** What this process reports at a scrape: its counters and the catalogue's size and last change. */
function metricsCollector(
  opened: OpenedCatalogue,
  app: { cacheStats(): { entries: number; bytes: number; hits: number; misses: number } },
  stats: ResolverStats,
): () => MetricFamily[] {
  const version = () =>
    opened.kind === 'sqlite' ? opened.store.dataVersion() : opened.store.version();
  const counts = () =>
    opened.kind === 'sqlite' ? opened.store.counts() : opened.store.cachedCounts();
  let seenVersion = version();
  let changedAt = Date.now();
  return () => {
    const v = version();
    if (v !== seenVersion) {
      seenVersion = v;
      changedAt = Date.now();
    }
    return [...stats.families(app.cacheStats()), ...catalogueFamilies(counts(), changedAt)];
  };
}

/** The registries: `--registry`/config "registry" when set, else those stored in the catalogue. */
async function loadRegistry(
  io: CliIo,
  config: ResolverConfig,
  opened: OpenedCatalogue,
): Promise<Registry | undefined> {
  if (config.registry !== '') {
    return readLexmlRegistry(
      isAbsolute(config.registry) ? config.registry : resolve(io.cwd, config.registry),
    );
  }
  // Without --registry, the registries stored in the catalogue (lexroute catalogue registry).
  const stored =
    opened.kind === 'sqlite'
      ? opened.store.registryEntries()
      : await opened.store.registryEntries();
  return stored.length > 0 ? new Registry(stored) : undefined;
}

/** The resolver app over the opened catalogue, for this configuration and these registries. */
function buildApp(
  config: ResolverConfig,
  opened: OpenedCatalogue,
  registry: Registry | undefined,
  name: string,
): ResolverApp {
  const shared = {
    analyse: analyseReference,
    config,
    ...(registry ? { registry } : {}),
    ...(config.page.enabled ? { page: { doh: () => config.page.doh, script: pageScript } } : {}),
  };
  if (opened.kind === 'sqlite') {
    const store = opened.store;
    return createResolverApp({
      ...shared,
      reader: store,
      health: () => ({ catalogue: name, ...store.counts() }),
      cache: { ...config.cache, version: () => store.dataVersion() },
    });
  }
  const store = opened.store;
  return createResolverApp({
    ...shared,
    source: store,
    health: () => ({ catalogue: name, ...store.cachedCounts() }),
    cache: { ...config.cache, version: () => store.version() },
  });
}

/** Configuration keys a running resolver cannot change (`ctl reload` reports them). */
const RESTART_KEYS = ['listen', 'catalogue', 'sampleCatalogue', 'workers', 'log'] as const;

/**
 * The app the HTTP servers answer from, swapped whole by `ctl reload` (a new
 * configuration or new registries); cache hits and misses of replaced apps
 * are kept so the metrics counters never go backwards.
 */
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

interface ServeOptions {
  readonly metrics: { host: string; port: number } | undefined;
  /** A worker of `--workers N` answering the primary's metrics requests. */
  readonly answerPrimary: boolean;
  /** The control channel (`--control`) of a single-process resolver. */
  readonly control: ControlEndpoint | undefined;
  /** A worker of `--workers N` answering the primary's control commands. */
  readonly answerControl: boolean;
  /** Read the configuration again, as at start (`ctl reload`). */
  readonly reloadConfig: () => Promise<{ config: ResolverConfig | null; lines: string[] }>;
}

/** A running resolver process as its control channel sees it. */
interface ControlState {
  config: ResolverConfig;
  readonly opened: OpenedCatalogue;
  readonly app: SwappableApp;
  readonly name: string;
  readonly stats: ResolverStats;
  readonly stop: () => void;
  readonly startedAt: number;
  loadedAt: number;
  lastError: string | undefined;
}

type LogFn = (entry: Readonly<Record<string, unknown>>) => void;

/** `ctl reload`: the configuration file and registries read again; what can change is applied. */
async function reloadResolver(
  io: CliIo,
  state: ControlState,
  options: ServeOptions,
  log: LogFn,
): Promise<ControlAnswer> {
  const { config, lines } = await options.reloadConfig();
  let registry: Registry | undefined;
  try {
    if (config === null) throw new Error(lines.join('; '));
    registry = await loadRegistry(io, config, state.opened);
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
  state.app.swap(buildApp(state.config, state.opened, registry, state.name));
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
  io: CliIo,
  state: ControlState,
  options: ServeOptions,
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
        name: state.name,
        ...(opened.kind === 'sqlite' ? opened.store.counts() : opened.store.cachedCounts()),
      },
      cache: state.app.cacheStats(),
      configLoadedAt: new Date(state.loadedAt).toISOString(),
      lastReloadError: state.lastError ?? null,
    }),
    reload: () => reloadResolver(io, state, options, log),
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

/** One resolver process. */
async function serve(
  io: CliIo,
  config: ResolverConfig,
  location: string,
  sample: boolean,
  m: ServeOptions,
): Promise<number> {
  const { log, flush } = batchedLog(io);
  let opened: OpenedCatalogue;
  try {
    opened = await openServed(io, location, sample);
  } catch (e) {
    return catalogueFailed(io, e);
  }
  const registry = await loadRegistry(io, config, opened).catch((e: unknown) => e as Error);
  if (registry instanceof Error) return catalogueFailed(io, registry);
  // /health names the catalogue without revealing where it lives.
  const name = sample ? 'sample' : opened.kind === 'postgres' ? 'postgres' : basename(location);
  if (opened.kind === 'sqlite') opened.store.setSnapshotWindow(SNAPSHOT_WINDOW_MS);
  else await opened.store.watch(PG_POLL_MS);
  const app = new SwappableApp(buildApp(config, opened, registry, name));
  const stats = new ResolverStats();
  const collect = metricsCollector(opened, app, stats);
  const { stopped, stopNow } = stopSignal(io.signal);
  const t0 = Date.now();
  const stop = () => stopNow();
  const state = { config, opened, app, name, stats, stop, startedAt: t0, loadedAt: t0 };
  const target = controlTarget(io, { ...state, lastError: undefined }, m, log);
  const ends: (() => Promise<void> | void)[] = [];
  if (m.answerPrimary) ends.push(answerMetricsRequests(collect));
  if (m.answerControl) ends.push(answerControlRequests(target));
  // One HTTP server per listen address, all answering from the same app.
  let address = '';
  try {
    if (m.metrics) {
      const endpoint = await startMetricsEndpoint(m.metrics.host, m.metrics.port, collect);
      ends.push(() => endpoint.close());
      log({ time: now(), level: 'info', msg: 'metrics', url: endpoint.url });
    }
    if (m.control) {
      address = endpointText(m.control);
      ends.push(await resolverControl(m.control, target, log));
    }
    for (address of config.listen) {
      const at = parseListen(address) as { host: string; port: number };
      const r = await startResolverServer({
        stats,
        app,
        host: at.host,
        port: at.port,
        log,
        logRequests: config.log.requests,
        logSample: config.log.sample,
        summaryMs: config.log.summaryMs,
      });
      ends.unshift(() => r.close());
    }
  } catch (e) {
    for (const end of ends) await end();
    await closeCatalogue(opened);
    flush();
    const code = e instanceof ControlSocketError ? e.code : listenErrorCode(e);
    io.err(`lexroute resolver: ${code}: cannot listen on ${address}: ${(e as Error).message}\n`);
    return exitCodeOf(code);
  }
  const counts = opened.kind === 'sqlite' ? opened.store.counts() : opened.store.cachedCounts();
  log({ time: now(), level: 'info', msg: 'catalogue', catalogue: opened.label, ...counts });
  await stopped;
  for (const end of ends) await end();
  await closeCatalogue(opened);
  log({ time: now(), level: 'info', msg: 'stopped' });
  flush();
  return EXIT_OK;
}

/** The primary's control socket (undefined: none asked; null: it cannot listen, reported). */
async function primaryControl(
  io: CliIo,
  control: ControlEndpoint | undefined,
  workers: () => readonly Worker[],
  info: Parameters<typeof runPrimaryCommand>[1],
): Promise<ControlServer | undefined | null> {
  if (control === undefined) return undefined;
  try {
    return await serveControlSocket(control, (req) => runPrimaryCommand(workers, info, req));
  } catch (e) {
    const code = e instanceof ControlSocketError ? e.code : 'LISTEN_FAILED';
    const where = endpointText(control);
    io.err(`lexroute resolver: ${code}: cannot listen on ${where}: ${(e as Error).message}\n`);
    return null;
  }
}

/**
 * `--workers N`: N processes (node:cluster) sharing the listening socket
 * (connections are handed out round-robin) and the catalogue; a worker that
 * dies is started again; SIGINT/SIGTERM stop them all.
 */
async function runPrimary(
  io: CliIo,
  argv: readonly string[],
  location: string,
  n: number,
  metrics: { host: string; port: number } | undefined,
  control: ControlEndpoint | undefined,
): Promise<number> {
  const bin = fileURLToPath(new URL('../../../bin/lexroute.js', import.meta.url));
  cluster.setupPrimary({ exec: bin, args: ['resolver', ...argv.filter((a) => a !== '--sample')] });
  const env = { [WORKER_ENV]: '1', [WORKER_CATALOGUE_ENV]: location };
  let stopping = false;
  const alive = new Set<Worker>();
  const start = () => {
    const w = cluster.fork(env);
    alive.add(w);
    w.once('exit', (code, signal) => {
      alive.delete(w);
      if (stopping) return;
      io.err(
        formatLogLine(io.errIsTTY ? 'pretty' : 'json', now(), 'error', 'worker_exited', {
          pid: w.process.pid,
          code,
          signal,
        }),
      );
      // A worker that cannot start (bad catalogue, port in use) stops the whole resolver.
      if (code === EXIT_FAIL) {
        stopping = true;
        for (const o of alive) o.process.kill('SIGTERM');
        failed = true;
        return;
      }
      setTimeout(() => {
        if (!stopping) start();
      }, 500).unref();
    });
  };
  let [failed, stopAsked] = [false, false];
  for (let i = 0; i < n; i++) start();
  let endpoint: MetricsEndpoint | undefined;
  if (metrics) {
    try {
      endpoint = await startPrimaryMetrics(metrics.host, metrics.port, () => [...alive]);
      io.err(
        formatLogLine(io.errIsTTY ? 'pretty' : 'json', now(), 'info', 'metrics', {
          url: endpoint.url,
        }),
      );
      const exposed = metricsExposure(metrics.host);
      if (exposed) {
        const line = { url: endpoint.url, ...exposed };
        io.err(formatLogLine(io.errIsTTY ? 'pretty' : 'json', now(), 'warn', 'metrics', line));
      }
    } catch (e) {
      io.err(`lexroute resolver: cannot listen for metrics: ${(e as Error).message}\n`);
      failed = true;
    }
  }
  const info = { pid: process.pid, workers: n, stop: () => void (stopAsked = true) };
  const ctl = failed ? undefined : await primaryControl(io, control, () => [...alive], info);
  if (ctl === null) failed = true;
  io.err(formatLogLine(io.errIsTTY ? 'pretty' : 'json', now(), 'info', 'workers', { workers: n }));
  await new Promise<void>((res) => {
    const check = setInterval(() => {
      if (io.signal.aborted || failed || stopAsked) {
        clearInterval(check);
        res();
      }
    }, 100);
  });
  stopping = true;
  await endpoint?.close();
  await ctl?.close();
  await Promise.all(
    [...alive].map(
      (w) =>
        new Promise<void>((res) => {
          w.once('exit', () => res());
          w.process.kill('SIGTERM');
        }),
    ),
  );
  return failed ? EXIT_FAIL : EXIT_OK;
}
