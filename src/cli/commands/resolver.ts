/**
 * `lexroute resolver`: the jurisdiction resolver (THTTP URN-to-URL service).
 */
import cluster, { type Worker } from 'node:cluster';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
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
import { ensureCatalogue } from '../../resolver/catalogue/open.ts';
import { CatalogueError } from '../../resolver/catalogue/store.ts';
import { ConfigFileError, readJsonConfig } from '../../config/load.ts';
import { parseListen, validateResolverConfig, type ResolverConfig } from '../../config/resolver.ts';
import { metricsExposure, type MetricsEndpoint } from '../../kit/metrics/http.ts';
import { startPrimaryMetrics } from '../../resolver/workers-metrics.ts';
import { formatLogLine } from '../../authority/log.ts';
import {
  ControlSocketError,
  serveControlSocket,
  type ControlServer,
} from '../../authority/control.ts';
import { runPrimaryCommand } from '../../resolver/control.ts';
import { controlArg } from '../control-arg.ts';
import { endpointText, type ControlEndpoint } from '../../authority/control-endpoint.ts';
import {
  ResolverStartError,
  startResolver,
  type ResolverServiceOptions,
  type RunningResolverService,
} from '../../resolver/service.ts';

/** Set in the environment of the processes `--workers` starts. */
const WORKER_ENV = 'LEXROUTE_RESOLVER_WORKER';
/** The catalogue a worker serves (the primary's choice, a temporary sample included). */
const WORKER_CATALOGUE_ENV = 'LEXROUTE_RESOLVER_CATALOGUE';
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

/** One resolver process: `startResolver` until a signal or `ctl stop`. */
async function serve(
  io: CliIo,
  config: ResolverConfig,
  location: string,
  sample: boolean,
  m: Omit<ResolverServiceOptions, 'config' | 'catalogue' | 'cwd' | 'log' | 'sample'>,
): Promise<number> {
  const { log, flush } = batchedLog(io);
  let service: RunningResolverService;
  try {
    service = await startResolver({ ...m, config, catalogue: location, cwd: io.cwd, sample, log });
  } catch (e) {
    flush();
    if (!(e instanceof ResolverStartError)) return catalogueFailed(io, e);
    io.err(`lexroute resolver: ${e.message}\n`);
    return exitCodeOf(e.code);
  }
  const { stopped, stopNow } = stopSignal(io.signal);
  void service.stopAsked.then(stopNow);
  await stopped;
  await service.close();
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
