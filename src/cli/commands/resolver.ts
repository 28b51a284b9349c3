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
import { EXIT_FAIL, EXIT_OK, UsageError, type CliIo, type Command } from '../io.ts';
import { analyseReference } from '../../core/catalogue/from-urn.ts';
import {
  closeCatalogue,
  ensureCatalogue,
  openCatalogue,
  type OpenedCatalogue,
} from '../../catalogue/open.ts';
import { CatalogueError } from '../../catalogue/store.ts';
import { readLexmlRegistry } from '../../catalogue/registry-lexml.ts';
import { Registry } from '../../core/catalogue/registry.ts';
import { ConfigFileError, readJsonConfig } from '../../config/load.ts';
import { parseListen, validateResolverConfig, type ResolverConfig } from '../../config/resolver.ts';
import { createResolverApp } from '../../resolver-http/app.ts';
import { pageScript } from '../../resolver-http/page.ts';
import { startResolverServer } from '../../resolver-http/server.ts';
import { catalogueFamilies, ResolverStats } from '../../resolver-http/stats.ts';
import { startMetricsEndpoint, type MetricsEndpoint } from '../../metrics/http.ts';
import type { MetricFamily } from '../../metrics/prom.ts';
import { answerMetricsRequests, startPrimaryMetrics } from './resolver-metrics.ts';
import type { RunningResolver } from '../../resolver-http/server.ts';
import { formatLogLine } from '../../server/log.ts';
import { listenErrorCode } from '../../server/listen-error.ts';

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
  --registry DIR      LexML vocabularies (localidade.csv, autoridade.csv,
                      tipoDocumento.csv): acronyms and alternative labels are
                      rewritten to their codes before matching where
                      unambiguous, each rewrite reported (REGISTRY_REWRITE).
                      Default: the registries stored in the catalogue
                      (lexroute catalogue registry DIR), read at start
  --config FILE       JSON configuration (default: config/resolver.json when
                      present); --listen, --catalogue, --workers and --registry
                      override it
  -h, --help          show this help

Exit codes: 0 stopped cleanly, 1 failure (CATALOGUE_MISSING, CATALOGUE_OPEN,
CATALOGUE_SCHEMA, configuration errors, PORT_IN_USE), 2 usage error.

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
    const config = await loadConfig(io, values);
    if (config === null) return EXIT_FAIL;
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
      if (workers > 1) return await runPrimary(io, argv, location, workers, metrics ?? undefined);
      const isWorker = io.env[WORKER_ENV] !== undefined;
      return await serve(io, config, location, Boolean(values.sample), {
        metrics: isWorker ? undefined : (metrics ?? undefined),
        answerPrimary: isWorker && metrics !== undefined,
      });
    } finally {
      if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
    }
  },
};

async function loadConfig(
  io: CliIo,
  values: {
    listen?: string[];
    catalogue?: string;
    config?: string;
    workers?: string;
    registry?: string;
  },
): Promise<ResolverConfig | null> {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(io.cwd, p));
  let raw: unknown = {};
  const configFile =
    values.config ?? (existsSync(abs('config/resolver.json')) ? 'config/resolver.json' : undefined);
  if (configFile !== undefined) {
    try {
      raw = await readJsonConfig(abs(configFile));
    } catch (e) {
      if (e instanceof ConfigFileError) {
        io.err(`lexroute resolver: ${e.code}: ${e.message}\n`);
        return null;
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
      io.err(
        `lexroute resolver: ${configFile ?? 'configuration'}: ${issue.code} ${issue.path}: ${issue.message}\n`,
      );
    }
    return null;
  }
  for (const w of checked.warnings ?? []) {
    io.err(
      `lexroute resolver: ${configFile ?? 'configuration'}: warning: ${w.code} ${w.path}: ${w.message}\n`,
    );
  }
  return checked.config;
}

function catalogueFailed(io: CliIo, e: unknown): number {
  if (e instanceof CatalogueError) {
    io.err(`lexroute resolver: ${e.code}: ${e.message}\n`);
    return EXIT_FAIL;
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
  // The shared log schema (src/server/log.ts): the adapter's entries are
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

/** One resolver process. */
async function serve(
  io: CliIo,
  config: ResolverConfig,
  location: string,
  sample: boolean,
  m: { metrics: { host: string; port: number } | undefined; answerPrimary: boolean },
): Promise<number> {
  const { log, flush } = batchedLog(io);
  let opened: OpenedCatalogue;
  let registry: Registry | undefined;
  try {
    if (config.registry !== '') {
      registry = readLexmlRegistry(
        isAbsolute(config.registry) ? config.registry : resolve(io.cwd, config.registry),
      );
    }
    opened = await openServed(io, location, sample);
    // Without --registry, the registries stored in the catalogue (lexroute catalogue registry).
    if (registry === undefined) {
      const stored =
        opened.kind === 'sqlite'
          ? opened.store.registryEntries()
          : await opened.store.registryEntries();
      if (stored.length > 0) registry = new Registry(stored);
    }
  } catch (e) {
    return catalogueFailed(io, e);
  }
  const shared = {
    analyse: analyseReference,
    config,
    ...(registry ? { registry } : {}),
    ...(config.page.enabled ? { page: { doh: () => config.page.doh, script: pageScript } } : {}),
  };
  // /health names the catalogue without revealing where it lives.
  const name = sample ? 'sample' : opened.kind === 'postgres' ? 'postgres' : basename(location);
  let app;
  if (opened.kind === 'sqlite') {
    const store = opened.store;
    store.setSnapshotWindow(SNAPSHOT_WINDOW_MS);
    app = createResolverApp({
      ...shared,
      reader: store,
      health: () => ({ catalogue: name, ...store.counts() }),
      cache: { ...config.cache, version: () => store.dataVersion() },
    });
  } else {
    const store = opened.store;
    await store.watch(PG_POLL_MS);
    app = createResolverApp({
      ...shared,
      source: store,
      health: () => ({ catalogue: name, ...store.cachedCounts() }),
      cache: { ...config.cache, version: () => store.version() },
    });
  }
  const stats = new ResolverStats();
  const collect = metricsCollector(opened, app, stats);
  let endpoint: MetricsEndpoint | undefined;
  const stopAnswering = m.answerPrimary ? answerMetricsRequests(collect) : undefined;
  // One HTTP server per listen address, all answering from the same app.
  const running: RunningResolver[] = [];
  let address = '';
  try {
    if (m.metrics) endpoint = await startMetricsEndpoint(m.metrics.host, m.metrics.port, collect);
    for (address of config.listen) {
      const at = parseListen(address) as { host: string; port: number };
      running.push(
        await startResolverServer({
          stats,
          app,
          host: at.host,
          port: at.port,
          log,
          logRequests: config.log.requests,
          logSample: config.log.sample,
          summaryMs: config.log.summaryMs,
        }),
      );
    }
  } catch (e) {
    await Promise.all(running.map((r) => r.close()));
    await endpoint?.close();
    stopAnswering?.();
    await closeCatalogue(opened);
    flush();
    io.err(
      `lexroute resolver: ${listenErrorCode(e)}: cannot listen on ${address}: ${(e as Error).message}\n`,
    );
    return EXIT_FAIL;
  }
  if (endpoint) log({ time: now(), level: 'info', msg: 'metrics', url: endpoint.url });
  const counts = opened.kind === 'sqlite' ? opened.store.counts() : opened.store.cachedCounts();
  log({ time: now(), level: 'info', msg: 'catalogue', catalogue: opened.label, ...counts });
  if (!io.signal.aborted) {
    await new Promise<void>((res) =>
      io.signal.addEventListener('abort', () => res(), { once: true }),
    );
  }
  await Promise.all(running.map((r) => r.close()));
  await endpoint?.close();
  stopAnswering?.();
  await closeCatalogue(opened);
  log({ time: now(), level: 'info', msg: 'stopped' });
  flush();
  return EXIT_OK;
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
  let failed = false;
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
    } catch (e) {
      io.err(`lexroute resolver: cannot listen for metrics: ${(e as Error).message}\n`);
      failed = true;
    }
  }
  io.err(formatLogLine(io.errIsTTY ? 'pretty' : 'json', now(), 'info', 'workers', { workers: n }));
  await new Promise<void>((res) => {
    const check = setInterval(() => {
      if (io.signal.aborted || failed) {
        clearInterval(check);
        res();
      }
    }, 100);
  });
  stopping = true;
  await endpoint?.close();
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
