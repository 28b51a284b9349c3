/**
 * `lexroute resolver`: the jurisdiction resolver (THTTP URN-to-URL service).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseCommandArgs } from '../args.ts';
import { EXIT_FAIL, EXIT_OK, UsageError, type Command } from '../io.ts';
import { analyseReference } from '../../core/catalogue/from-urn.ts';
import { ensureCatalogue } from '../../catalogue/open.ts';
import { CatalogueError } from '../../catalogue/store.ts';
import { ConfigFileError, readJsonConfig } from '../../config/load.ts';
import { parseListen, validateResolverConfig } from '../../config/resolver.ts';
import { createResolverApp } from '../../resolver-http/app.ts';
import { startResolverServer } from '../../resolver-http/server.ts';

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
  --listen ADDR:PORT  address to listen on (default 127.0.0.1:8080; IPv6 as [::1]:8080)
  --catalogue FILE    SQLite catalogue (default data/catalogue.sqlite); created
                      from data/sample-catalogue.jsonl when it does not exist
  --config FILE       JSON configuration (default: config/resolver.json when
                      present); --listen and --catalogue override it
  -h, --help          show this help

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
second. SIGINT/SIGTERM stop it cleanly.
`;

export const resolverCommand: Command = {
  name: 'resolver',
  summary: 'run the jurisdiction resolver (THTTP URN-to-URL service)',
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      listen: { type: 'string' },
      catalogue: { type: 'string' },
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      io.out(RESOLVER_HELP);
      return EXIT_OK;
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    if (values.listen !== undefined && !parseListen(values.listen)) {
      throw new UsageError(
        `--listen must be ADDR:PORT (e.g. 127.0.0.1:8080), got '${values.listen}'`,
      );
    }
    const abs = (p: string) => (isAbsolute(p) ? p : resolve(io.cwd, p));

    let raw: unknown = {};
    const configFile =
      values.config ??
      (existsSync(abs('config/resolver.json')) ? 'config/resolver.json' : undefined);
    if (configFile !== undefined) {
      try {
        raw = await readJsonConfig(abs(configFile));
      } catch (e) {
        if (e instanceof ConfigFileError) {
          io.err(`lexroute resolver: ${e.code}: ${e.message}\n`);
          return EXIT_FAIL;
        }
        throw e;
      }
    }
    const checked = validateResolverConfig(raw, {
      ...(values.listen !== undefined ? { listen: values.listen } : {}),
      ...(values.catalogue !== undefined ? { catalogue: values.catalogue } : {}),
    });
    if (!checked.ok) {
      for (const issue of checked.issues) {
        io.err(
          `lexroute resolver: ${configFile ?? 'configuration'}: ${issue.code} ${issue.path}: ${issue.message}\n`,
        );
      }
      return EXIT_FAIL;
    }
    const config = checked.config;
    const listen = parseListen(config.listen) as { host: string; port: number };
    // Request lines are batched: written every LOG_FLUSH_MS, or at once when
    // LOG_FLUSH_BYTES are waiting. A resolver under moderate load handles
    // about one request per turn of the event loop, and a write per turn
    // (a system call, synchronous for files and pipes) cost about as much as
    // the catalogue lookup. Lifecycle lines and warnings are written at once,
    // and everything waiting is written when the resolver stops.
    let pending = '';
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      if (pending !== '') io.err(pending);
      pending = '';
    };
    const log = (entry: Readonly<Record<string, unknown>>) => {
      pending += `${JSON.stringify(entry)}\n`;
      if (entry.msg !== 'request' || pending.length >= LOG_FLUSH_BYTES) flush();
      else timer ??= setTimeout(flush, LOG_FLUSH_MS);
    };

    let opened: Awaited<ReturnType<typeof ensureCatalogue>>;
    try {
      opened = await ensureCatalogue(config.catalogue, config.sampleCatalogue, io.cwd);
    } catch (e) {
      if (e instanceof CatalogueError) {
        io.err(`lexroute resolver: ${e.code}: ${e.message}\n`);
        return EXIT_FAIL;
      }
      throw e;
    }
    const store = opened.store;
    if (opened.seeded) {
      const s = opened.seeded.summary;
      log({
        time: new Date().toISOString(),
        level: opened.seeded.errors.length > 0 ? 'warn' : 'info',
        msg: 'catalogue created from the sample',
        catalogue: store.path,
        sample: opened.seeded.from,
        rows: s.rows,
        rejected: s.rejected,
        errors: opened.seeded.errors.slice(0, 20),
      });
    }
    const counts = store.counts();
    store.setSnapshotWindow(SNAPSHOT_WINDOW_MS);
    const app = createResolverApp({
      reader: store,
      analyse: analyseReference,
      config,
      health: () => ({ catalogue: store.path, works: counts.works, items: counts.items }),
      cache: { ...config.cache, version: () => store.dataVersion() },
    });
    let running;
    try {
      running = await startResolverServer({
        app,
        host: listen.host,
        port: listen.port,
        log,
        logRequests: config.log.requests,
      });
    } catch (e) {
      store.close();
      flush();
      io.err(`lexroute resolver: cannot listen on ${config.listen}: ${(e as Error).message}\n`);
      return EXIT_FAIL;
    }
    log({
      time: new Date().toISOString(),
      level: 'info',
      msg: 'catalogue',
      catalogue: store.path,
      ...counts,
    });
    if (!io.signal.aborted) {
      await new Promise<void>((res) =>
        io.signal.addEventListener('abort', () => res(), { once: true }),
      );
    }
    await running.close();
    store.close();
    log({ time: new Date().toISOString(), level: 'info', msg: 'stopped' });
    flush();
    return EXIT_OK;
  },
};
