/**
 * `lexroute resolver`: the jurisdiction resolver (THTTP URN-to-URL service).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
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
import { CatalogueError } from '../../resolver/catalogue/codes.ts';
import { ConfigFileError, readJsonConfig } from '../../config/load.ts';
import { validateResolverConfig, type ResolverConfig } from '../../config/resolver.ts';
import { parseListen } from '../../kit/core/host-port.ts';
import { formatLogLine } from '../../authority/log.ts';
import { controlArg } from '../control-arg.ts';
import {
  ResolverStartError,
  startResolver,
  type ResolverServiceOptions,
  type RunningResolverService,
} from '../../resolver/service.ts';
import { RESOLVER_HELP } from './resolver-help.ts';

/** Request log lines wait at most this long (ms) before they are written ... */
const LOG_FLUSH_MS = 50;
/** ... or until this many characters are waiting. */
const LOG_FLUSH_BYTES = 64 * 1024;

export const resolverCommand: Command = {
  async run(argv, io) {
    const parsed = parseCommandArgs(argv, io, RESOLVER_HELP, {
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
    });
    if (parsed === undefined) return EXIT_OK;
    const { values, positionals } = parsed;
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    for (const l of values.listen ?? []) {
      if (typeof parseListen(l) === 'string') {
        throw new UsageError(`--listen must be ADDR:PORT (e.g. 127.0.0.1:8080), got '${l}'`);
      }
    }
    const metrics = values.metrics === undefined ? undefined : parseListen(values.metrics);
    if (typeof metrics === 'string') {
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
    // The catalogue: the sample (a fresh temporary copy) or the configured one.
    let location = config.catalogue;
    let tmp: string | undefined;
    if (values.sample) {
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
      return await serve(io, {
        ...{ config, catalogue: location, cwd: io.cwd, sample: Boolean(values.sample) },
        workers: config.workers === 0 ? availableParallelism() : config.workers,
        metrics,
        control,
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

/** Request log lines written in batches (a write per request costs about the lookup); others at once. */
function batchedLog(io: CliIo) {
  let pending = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending !== '') io.err(pending);
    pending = '';
  };
  // The shared log schema (src/authority/log.ts): `msg` written as `event`, or a readable line on a terminal.
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

/** `startResolver` (its workers included) until a signal, `ctl stop` or a worker that cannot start. */
async function serve(io: CliIo, options: Omit<ResolverServiceOptions, 'log'>): Promise<number> {
  const { log, flush } = batchedLog(io);
  let service: RunningResolverService;
  try {
    service = await startResolver({ ...options, log });
  } catch (e) {
    flush();
    if (!(e instanceof ResolverStartError)) return catalogueFailed(io, e);
    io.err(`lexroute resolver: ${e.message}\n`);
    return exitCodeOf(e.code);
  }
  const { stopped, stopNow } = stopSignal(io.signal);
  let failed = false;
  void service.stopAsked.then((why) => {
    failed = why === 'failed';
    stopNow();
  });
  await stopped;
  await service.close();
  flush();
  return failed ? EXIT_FAIL : EXIT_OK;
}
