/**
 * `lexroute resolve <urn>`: the DDDS chain from a LEX URN to document URLs.
 * `lexroute resolve --batch <file|->`: many URNs, bounded concurrency, one
 * JSON line per URN. Exit codes: 0 resolved, 1 failed, 2 usage, 3 handed
 * off (a `P` rule: RFC 3404 section 4.3).
 */
import { createReadStream, readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { createInterface } from 'node:readline';
import { ClientError } from '../../client/errors.ts';
import {
  LexClient,
  ResolveError,
  type Handoff,
  type ResolveResult,
  type Service,
} from '../../client/resolve.ts';
import { parseDohUrls } from '../../client/doh.ts';
import { parseServerAddress } from '../../client/servers.ts';
import { formatTrace } from '../../client/trace-format.ts';
import type { TrustAnchor, ValidateOptions } from '../../client/validate.ts';
import { parseTrustAnchors } from '../../dnssec/core/validate/anchors.ts';
import { parseCommandArgs } from '../args.ts';
import { EXIT_FAIL, EXIT_OK, UsageError, type CliIo, type Command } from '../io.ts';
import { EXIT_STATUS, exitCodeOf, exitCodeOfFailure } from '../exit.ts';

const HELP = `Usage: lexroute resolve <urn> [options]
       lexroute resolve --batch <file|-> [--concurrency N] [options]

Resolve a LEX URN (RFC 9676) through the DNS: NAPTR rules from lex.urn.arpa.
down to the jurisdiction's resolver (RFC 3402/3403/3404, Punycode keys), then
the THTTP request (RFC 2169) that gives the document URL(s).

Options:
  --service S         N2L (default: one URL), N2Ls (list), N2C (description)
  --server HOST:PORT  DNS server to ask (repeatable; default: /etc/resolv.conf)
  --root HOST:PORT    iterative mode: start at this server and follow
                      referrals; every referred server is asked on this port
  --doh URL           DNS over HTTPS (RFC 8484): ask this DoH server
                      (repeatable, tried in turn; e.g.
                      https://dns.example/dns-query); stub mode; HTTP/2
                      or HTTP/1.1, whichever the server speaks
  --doh-post          send DoH queries with POST (default GET, cacheable)
  --no-http           stop at the resolver URL (no HTTP request)
  --trace             print every step: key, server, records with their fate
                      and reason, rewrite, Punycode, SRV/A, HTTP exchange
  --json              print the result (and the trace with --trace) as JSON
  --timeout MS        DNS timeout per try and HTTP timeout (default 2000/10000)
  --deadline MS       the whole resolution's deadline, lookups and HTTP step
                      included (default 8000; 0: none): past it, RESOLVE_DEADLINE
  --url-schemes LIST  URL schemes accepted in a resolver's answer, comma-
                      separated (default http,https): else DDDS_URL_SCHEME
  --max-steps N       most DDDS steps (default 10)
  --fallback          after a failure below a delegation, try the referring
                      rule set's next rule (off: RFC 3403 section 8 reports)
  --dnssec            trust the resolver's AD bit: DO on every query and AD
                      from the --server (a validating resolver) required on
                      every NAPTR, SRV and address lookup; else
                      DNSSEC_INSECURE (no AD) or DNSSEC_BOGUS (validation
                      failed); --trace shows secure/insecure/bogus per step.
                      No signature is checked here. Not with --root
  --validate          validate DNSSEC here, in every mode (--server, --root,
                      --doh): DO and CD on every query, the chain of trust
                      from the trust anchors to each NAPTR, SRV and address
                      RRset checked by lexroute itself. Each step's verdict
                      (secure, insecure with its proof, bogus with its
                      reason) is in --trace and --json; a bogus step fails
                      with DNSSEC_BOGUS. Not with --dnssec
  --trust-anchor FILE with --validate: trust anchors besides the built-in root
                      keys (KSK-2017 id 20326, KSK-2024 id 38696): DS or
                      DNSKEY records (as \`dev --dnssec\` writes
                      trust-anchor.key), a BIND trust-anchors file, or IANA's
                      root-anchors.xml (repeatable)
  --no-root-anchors   with --validate: leave the built-in root keys out, so
                      only the --trust-anchor files count (a private chain
                      that must not validate through the public root)
  --require-secure    with --validate: fail (DNSSEC_INSECURE) unless every
                      step is secure
  --batch FILE|-      resolve one URN per line (# comments), one JSON line
                      per URN in input order; a progress bar on a terminal
  --concurrency N     batch: resolutions in flight (default 8)
  -h, --help          show this help

A NAPTR rule with flag P ends the DDDS chain (RFC 3404 section 4.3: "the
remainder of the DDDS Algorithm is ignored"): the rest belongs to the protocol
named in its SERVICES. That is a result, not an error: the rule's output goes
to stdout, the protocol and the rule to stderr, exit code 3; --json prints
{"ok": true, "kind": "handoff", "handoff": {key, step, protocol, services,
output, via, record}}. Resolved results have "kind": "resolved".

Exit codes: 0 resolved (batch: all), 1 failed (batch: any), 2 usage error,
3 handed off by a P rule (batch: none failed, at least one handed off).
Error codes: DNS_NXDOMAIN/DNS_NODATA (not found, naming the key), DNS_TIMEOUT,
DNS_SERVFAIL, DNS_REFUSED, DNS_BAD_RESPONSE, DNS_LAME, DDDS_NO_VALID_OUTPUT,
DDDS_LOOP, DDDS_STEP_LIMIT, DDDS_URL_SCHEME, RESOLVE_DEADLINE, HTTP_NOT_FOUND,
HTTP_SERVER_ERROR, HTTP_TIMEOUT, ...
`;

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
  help: { type: 'boolean', short: 'h' },
} as const;

/** A `P` rule handed the rest of the resolution to another protocol. */
export const EXIT_HANDOFF = EXIT_STATUS.handoff;

function positiveInt(name: string, text: string | undefined, max: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > max) {
    throw new UsageError(`--${name} must be a whole number from 1 to ${max}, not '${text}'`);
  }
  return Number(text);
}

interface Settings {
  readonly service: Service;
  readonly noHttp: boolean;
  readonly maxSteps: number | undefined;
  readonly fallback: boolean;
  readonly deadlineMs: number | undefined;
  readonly urlSchemes: readonly string[] | undefined;
}

function resultJson(urn: string, r: ResolveResult, withTrace: boolean): object {
  if (r.kind === 'handoff') {
    const h = r.handoff;
    return {
      urn,
      ok: true,
      kind: 'handoff',
      urls: [],
      handoff: {
        key: h.key,
        step: h.step,
        protocol: h.protocol,
        services: h.services,
        output: h.output,
        via: h.via,
        record: h.record,
      },
      ...(withTrace ? { trace: r.trace } : {}),
    };
  }
  return {
    urn,
    ok: true,
    kind: 'resolved',
    urls: r.urls,
    resolverUrl: r.resolverUrl,
    ...(r.description ? { description: r.description } : {}),
    ...(withTrace ? { trace: r.trace } : {}),
  };
}

function errorJson(urn: string, e: unknown, withTrace: boolean): object {
  const code = e instanceof ClientError ? e.code : 'INTERNAL';
  const message = e instanceof Error ? e.message : String(e);
  return {
    urn,
    ok: false,
    code,
    message,
    ...(withTrace && e instanceof ResolveError ? { trace: e.trace } : {}),
  };
}

async function resolveOne(client: LexClient, urn: string, s: Settings, io: CliIo) {
  return client.resolve(urn, {
    service: s.service,
    noHttp: s.noHttp,
    ...(s.maxSteps !== undefined ? { maxSteps: s.maxSteps } : {}),
    ...(s.deadlineMs !== undefined ? { deadlineMs: s.deadlineMs } : {}),
    ...(s.urlSchemes !== undefined ? { urlSchemes: s.urlSchemes } : {}),
    fallback: s.fallback,
    signal: io.signal,
  });
}

/**
 * A rule's output as one line of text: as is, or JSON-quoted when it holds
 * control characters (zone data must not move the cursor or split the line).
 */
function printable(text: string): string {
  return /[\u0000-\u001f\u007f-\u009f]/.test(text) ? JSON.stringify(text) : text;
}

/** What the text output says about a hand-off, on stderr (the output itself goes to stdout). */
function handoffNote(h: Handoff): string {
  const services = h.services.length > 0 ? ` (services ${h.services.join('+')})` : '';
  return (
    `lexroute resolve: hand-off: the rule at ${h.key} (flag P) hands the rest over to ` +
    `protocol ${h.protocol}${services} with ${JSON.stringify(h.output)}; DDDS ends here ` +
    `(RFC 3404 section 4.3)\n`
  );
}

async function* lines(source: string, io: CliIo): AsyncGenerator<string> {
  const input = source === '-' ? io.stdin : createReadStream(resolvePath(io.cwd, source));
  const rl = createInterface({ input, crlfDelay: Infinity });
  for await (const line of rl) {
    const t = line.trim();
    if (t === '' || t.startsWith('#')) continue;
    yield t;
  }
}

interface Tally {
  done: number;
  failed: number;
  handedOff: number;
}

function progress(io: CliIo, t: Tally, total: number, final: boolean): void {
  const width = 30;
  const frac = total === 0 ? 1 : t.done / total;
  const bar = '#'.repeat(Math.round(frac * width)).padEnd(width, '.');
  const handoffs = t.handedOff > 0 ? `, ${t.handedOff} handed off` : '';
  io.err(
    `\r[${bar}] ${t.done}/${total} resolved, ${t.failed} failed${handoffs}${final ? '\n' : ''}`,
  );
}

async function runBatch(
  client: LexClient,
  source: string,
  s: Settings,
  concurrency: number,
  withTrace: boolean,
  io: CliIo,
): Promise<number> {
  const urns: string[] = [];
  try {
    for await (const l of lines(source, io)) urns.push(l);
  } catch (e) {
    io.err(`lexroute resolve: cannot read ${source}: ${(e as Error).message}\n`);
    return EXIT_FAIL;
  }
  const out: (string | undefined)[] = new Array<string | undefined>(urns.length);
  let next = 0;
  let flushed = 0;
  const tally: Tally = { done: 0, failed: 0, handedOff: 0 };
  const codes = new Set<string>();
  let lastDraw = 0;
  const flush = () => {
    while (flushed < out.length && out[flushed] !== undefined) {
      io.out(`${out[flushed] as string}\n`);
      out[flushed] = '';
      flushed++;
    }
  };
  const worker = async () => {
    for (;;) {
      if (io.signal.aborted) return;
      const i = next++;
      if (i >= urns.length) return;
      const urn = urns[i] as string;
      try {
        const r = await resolveOne(client, urn, s, io);
        if (r.kind === 'handoff') tally.handedOff++;
        out[i] = JSON.stringify(resultJson(urn, r, withTrace));
      } catch (e) {
        tally.failed++;
        if (e instanceof ClientError) codes.add(e.code);
        out[i] = JSON.stringify(errorJson(urn, e, withTrace));
      }
      tally.done++;
      flush();
      if (io.errIsTTY) {
        const now = Date.now();
        if (now - lastDraw > 100 || tally.done === urns.length) {
          lastDraw = now;
          progress(io, tally, urns.length, false);
        }
      }
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(concurrency, Math.max(1, urns.length)) }, worker),
  );
  flush();
  if (io.errIsTTY) progress(io, tally, urns.length, true);
  if (tally.failed > 0 || tally.done < urns.length) return exitCodeOfFailure(codes);
  return tally.handedOff > 0 ? EXIT_HANDOFF : EXIT_OK;
}

type Values = ReturnType<typeof parseCommandArgs<typeof OPTIONS>>['values'];

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
  name: 'resolve',
  summary: 'resolve a LEX URN through the DDDS chain to document URLs',
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, OPTIONS);
    if (values.help) {
      io.out(HELP);
      return EXIT_OK;
    }
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
