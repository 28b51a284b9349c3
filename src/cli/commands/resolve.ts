/**
 * `lexroute resolve <urn>`: the DDDS chain from a LEX URN to document URLs.
 * `lexroute resolve --batch <file|->`: many URNs, bounded concurrency, one
 * JSON line per URN. Exit codes: 0 resolved, 1 failed, 2 usage, 3 handed
 * off (a `P` rule: RFC 3404 section 4.3).
 */
import { readFileSync } from 'node:fs';
import { ClientError } from '../../client/errors.ts';
import { LexClient, ResolveError } from '../../client/resolve.ts';
import { parseDohUrls } from '../../client/doh.ts';
import { parseServerAddress } from '../../client/server-address.ts';
import { formatTrace } from '../../client/trace-format.ts';
import type { TrustAnchor, ValidateOptions } from '../../client/validate.ts';
import { parseTrustAnchors } from '../../dnssec/core/validate/anchors.ts';
import { parseCommandArgs, type CommandValues } from '../args.ts';
import { EXIT_FAIL, EXIT_OK, UsageError, type CliIo, type Command } from '../io.ts';
import { exitCodeOf } from '../exit.ts';
import { HELP } from './resolve-help.ts';
import {
  EXIT_HANDOFF,
  errorJson,
  handoffNote,
  printable,
  resolveOne,
  resultJson,
  runBatch,
  type Settings,
} from './resolve-output.ts';

export { EXIT_HANDOFF };

const OPTIONS = {
  service: { type: 'string' },
  server: { type: 'string', multiple: true },
  root: { type: 'string' },
  doh: { type: 'string', multiple: true },
  'doh-post': { type: 'boolean' },
  'no-http': { type: 'boolean' },
  trace: { type: 'boolean' },
  json: { type: 'boolean' },
  timeout: { type: 'string' },
  deadline: { type: 'string' },
  'url-schemes': { type: 'string' },
  'max-steps': { type: 'string' },
  fallback: { type: 'boolean' },
  dnssec: { type: 'boolean' },
  validate: { type: 'boolean' },
  'trust-anchor': { type: 'string', multiple: true },
  'no-root-anchors': { type: 'boolean' },
  'require-secure': { type: 'boolean' },
  batch: { type: 'string' },
  concurrency: { type: 'string' },
} as const;

function positiveInt(name: string, text: string | undefined, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) {
    throw new UsageError(`--${name} must be a whole number from 1 to ${max}, not '${text}'`);
  }
  return Number(text);
}

type Values = CommandValues<typeof OPTIONS>;

/** The client and the per-resolution settings from the options (usage errors thrown). */
function setup(
  values: Values,
  positionals: readonly string[],
): { client: LexClient; settings: Settings; concurrency: number } {
  const service = values.service ?? 'N2L';
  if (service !== 'N2L' && service !== 'N2Ls' && service !== 'N2C') {
    throw new UsageError(`--service must be N2L, N2Ls or N2C, not '${service}'`);
  }
  if (values.batch === undefined && positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0
        ? 'missing <urn> (or --batch FILE)'
        : 'give exactly one <urn> (or use --batch)',
    );
  }
  if (values.batch !== undefined && positionals.length > 0) {
    throw new UsageError('--batch reads the URNs from a file: no <urn> argument');
  }
  if (values.root !== undefined && values.server !== undefined) {
    throw new UsageError('--root (iterative) and --server (stub) exclude each other');
  }
  if (values.doh !== undefined && (values.root !== undefined || values.server !== undefined)) {
    throw new UsageError('--doh (DNS over HTTPS) excludes --server and --root');
  }
  const timeout = positiveInt('timeout', values.timeout, 600_000);
  const deadline =
    values.deadline === '0' ? 0 : positiveInt('deadline', values.deadline, 3_600_000);
  const schemes = values['url-schemes']?.split(',').map((x) => x.trim().toLowerCase());
  if (schemes?.some((x) => !/^[a-z][a-z0-9+.-]*$/.test(x))) {
    throw new UsageError(
      `--url-schemes must list URL schemes (e.g. http,https), not '${values['url-schemes']}'`,
    );
  }
  let servers;
  let root;
  try {
    servers = values.server?.map((x) => parseServerAddress(x));
    root = values.root !== undefined ? parseServerAddress(values.root) : undefined;
    if (values.doh) parseDohUrls(values.doh);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.dnssec && root) {
    throw new UsageError(
      '--dnssec needs a validating resolver (--server); --root does not validate signatures',
    );
  }
  const settings: Settings = {
    service,
    noHttp: values['no-http'] ?? false,
    maxSteps: positiveInt('max-steps', values['max-steps'], 100),
    fallback: values.fallback ?? false,
    deadlineMs: deadline,
    urlSchemes: schemes,
  };
  const client = new LexClient({
    ...(values.dnssec ? { dnssec: true } : {}),
    ...validateOptions(values),
    ...(servers ? { servers } : {}),
    ...(root ? { root } : {}),
    ...(values.doh ? { doh: values.doh } : {}),
    ...(values['doh-post'] ? { dohMethod: 'POST' as const } : {}),
    ...(timeout !== undefined ? { timeoutMs: timeout, httpTimeoutMs: timeout } : {}),
  });
  return {
    client,
    settings,
    concurrency: positiveInt('concurrency', values.concurrency, 1000) ?? 8,
  };
}

/**
 * `--validate`, `--trust-anchor`, `--require-secure` as client options. An
 * anchor file that cannot be read or holds no anchor: DNSSEC_TRUST_ANCHOR.
 */
function validateOptions(values: Values): { validate?: ValidateOptions; requireSecure?: boolean } {
  const files = values['trust-anchor'] ?? [];
  const noRoot = values['no-root-anchors'] === true;
  if (!values.validate) {
    if (files.length > 0 || values['require-secure'] || noRoot)
      throw new UsageError(
        '--trust-anchor, --no-root-anchors and --require-secure go with --validate',
      );
    return {};
  }
  if (noRoot && files.length === 0)
    throw new UsageError('--no-root-anchors leaves no trust anchor: give --trust-anchor FILE');
  if (values.dnssec)
    throw new UsageError(
      "--validate (lexroute validates) and --dnssec (trust the resolver's AD) exclude each other",
    );
  const trustAnchors: TrustAnchor[] = [];
  const now = Date.now() / 1000;
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new ClientError('DNSSEC_TRUST_ANCHOR', `${file}: ${(e as Error).message}`);
    }
    const r = parseTrustAnchors(text, file, now);
    if ('problem' in r)
      throw new ClientError(
        'DNSSEC_TRUST_ANCHOR',
        `${file}${r.problem.line !== undefined ? `:${r.problem.line}` : ''}: ${r.problem.message}`,
      );
    trustAnchors.push(...r.anchors);
  }
  return {
    validate: { trustAnchors, ...(noRoot ? { rootAnchors: false } : {}) },
    ...(values['require-secure'] ? { requireSecure: true } : {}),
  };
}

/** One URN: the result on stdout (text or JSON), a failure on stderr with its code. */
async function runOne(
  client: LexClient,
  urn: string,
  s: Settings,
  values: Values,
  io: CliIo,
): Promise<number> {
  const withTrace = values.trace ?? false;
  try {
    const r = await resolveOne(client, urn, s, io);
    const code = r.kind === 'handoff' ? EXIT_HANDOFF : EXIT_OK;
    if (values.json) {
      io.out(`${JSON.stringify(resultJson(urn, r, withTrace), null, 2)}\n`);
      return code;
    }
    if (withTrace) io.out(`${formatTrace(r.trace)}\n`);
    if (r.kind === 'handoff') {
      io.err(handoffNote(r.handoff));
      io.out(`${printable(r.handoff.output)}\n`);
    } else if (r.description) {
      io.err(`content-type: ${r.description.contentType}\n`);
      io.out(r.description.body.endsWith('\n') ? r.description.body : `${r.description.body}\n`);
    } else if (s.noHttp) {
      io.out(`${r.resolverUrl}\n`);
    } else {
      for (const u of r.urls) io.out(`${u}\n`);
    }
    return code;
  } catch (e) {
    if (values.json) {
      io.out(`${JSON.stringify(errorJson(urn, e, withTrace), null, 2)}\n`);
      return e instanceof ClientError ? exitCodeOf(e.code) : EXIT_FAIL;
    }
    if (withTrace && e instanceof ResolveError) io.out(`${formatTrace(e.trace)}\n`);
    if (e instanceof ClientError) {
      io.err(`lexroute resolve: ${e.code}: ${e.message}\n`);
      return exitCodeOf(e.code);
    }
    throw e;
  }
}

export const resolveCommand: Command = {
  async run(argv, io) {
    const parsed = parseCommandArgs(argv, io, HELP, OPTIONS);
    if (parsed === undefined) return EXIT_OK;
    const { values, positionals } = parsed;
    let made;
    try {
      made = setup(values, positionals);
    } catch (e) {
      if (!(e instanceof ClientError)) throw e;
      io.err(`lexroute resolve: ${e.code}: ${e.message}\n`);
      return exitCodeOf(e.code);
    }
    const { client, settings, concurrency } = made;
    try {
      if (values.batch !== undefined) {
        return await runBatch(
          client,
          values.batch,
          settings,
          concurrency,
          values.trace ?? false,
          io,
        );
      }
      return await runOne(client, positionals[0] as string, settings, values, io);
    } finally {
      await client.close();
    }
  },
};
