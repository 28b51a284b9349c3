/**
 * `lexroute chain check`: coverage of a delegation chain over a list of URNs
 * or jurisdiction codes (src/routes/).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { ClientChain, ZoneChain, type ChainWalker } from '../../routes/chain.ts';
import {
  DEFAULT_TAIL,
  formatReport,
  readList,
  runChain,
  summarize,
} from '../../routes/coverage.ts';
import { reportHtml } from '../../routes/html.ts';
import { isDirectory, loadZoneDirectory } from '../../authority/zones/load.ts';
import type { Zone } from '../../dns/core/zone/model.ts';
import { parseCommandArgs } from '../args.ts';
import { EXIT_OK, Reported, UsageError, type CliIo, type Command } from '../io.ts';
import { exitCodeOf, exitCodeOfFailure } from '../exit.ts';

const HELP = `Usage: lexroute chain check (--zones DIR | --server HOST:PORT | --root HOST:PORT)
                            [--json] [--html FILE] [--tail TEXT] [--concurrency N] LIST

Resolve every URN or jurisdiction code of LIST through a delegation chain
(no HTTP step: the chain is checked up to the resolver) and report the
coverage: how many reach a resolver and which one, which fail and with which
code, grouped by prefix and path.

LIST is one URN or jurisdiction code per line (blank lines and # comments
skipped), or LexML's localidade.csv as it is (the "about" column). A code
such as br;sao.paulo;campinas is checked as urn:lex:<code>${DEFAULT_TAIL}
(--tail changes the part after the code); "-" reads standard input.

Chains:
  --zones DIR         the zone files of DIR loaded in process (no sockets): the
                      server's zone lookup and the client's DDDS step
  --server HOST:PORT  lexroute resolve's stub mode: one server answers every key
  --root HOST:PORT    iterative mode from this server, following referrals

Output: a table for people (totals, then count / prefix / resolver or failure
/ path per group); --json: totals, per resolver, per failure code, groups
and every item; --html FILE: a self-contained page with the delegation tree
drawn (SVG) and the groups. A progress bar is drawn on standard error when it
is a terminal.

Options:
  --concurrency N  URNs in flight over the network (default 64)
  -h, --help       show this help

Exit codes: 0 every item reaches a resolver (or a hand-off), 1 some fail or
the zones do not load, 2 usage error.
`;

async function loadZones(dir: string, io: CliIo): Promise<Zone[] | Reported> {
  const results = await loadZoneDirectory(dir);
  const zones: Zone[] = [];
  const bad: string[] = [];
  for (const r of results) {
    for (const d of r.diagnostics.filter((x) => x.severity === 'error')) {
      io.err(
        `${d.position?.file ?? r.file}:${d.position?.line ?? 0}:${d.position?.column ?? 0}: ${d.code} ${d.message}\n`,
      );
      bad.push(d.code);
    }
    if (r.zone) zones.push(r.zone);
  }
  if (results.length === 0) throw new UsageError(`no zone files (*.zone, *.db, db.*) in ${dir}`);
  return bad.length > 0 ? new Reported(bad) : zones;
}

function progress(io: CliIo): ((done: number, total: number) => void) | undefined {
  if (!io.errIsTTY) return undefined;
  let last = 0;
  return (done, total) => {
    if (done !== total && done - last < Math.max(1, Math.floor(total / 200))) return;
    last = done;
    const width = 30;
    const filled = Math.round((width * done) / total);
    io.err(
      `\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${done}/${total}${done === total ? '\n' : ''}`,
    );
  };
}

async function readListText(file: string, io: CliIo): Promise<string> {
  if (file !== '-') return readFileSync(resolvePath(io.cwd, file), 'utf8');
  const chunks: Buffer[] = [];
  for await (const c of io.stdin) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

async function check(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommandArgs(argv, io, HELP, {
    zones: { type: 'string' },
    server: { type: 'string' },
    root: { type: 'string' },
    json: { type: 'boolean' },
    html: { type: 'string' },
    tail: { type: 'string' },
    concurrency: { type: 'string' },
  });
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  const modes = [values.zones, values.server, values.root].filter((x) => x !== undefined);
  if (modes.length !== 1)
    throw new UsageError('give exactly one of --zones DIR, --server HOST:PORT, --root HOST:PORT');
  if (positionals.length !== 1)
    throw new UsageError('chain check takes one LIST file (or - for standard input)');
  const concurrency = values.concurrency === undefined ? 64 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new UsageError('--concurrency must be a positive integer');
  let text: string;
  try {
    text = await readListText(positionals[0]!, io);
  } catch (e) {
    const code = 'LIST_UNREADABLE';
    io.err(`lexroute chain check: ${code} ${(e as Error).message}\n`);
    return exitCodeOf(code);
  }
  const items = readList(text, values.tail ?? DEFAULT_TAIL);
  let walker: ChainWalker;
  if (values.zones !== undefined) {
    const dir = resolvePath(io.cwd, values.zones);
    if (!isDirectory(dir)) throw new UsageError(`--zones ${values.zones} is not a directory`);
    const zones = await loadZones(dir, io);
    if (zones instanceof Reported) return exitCodeOfFailure(zones.codes);
    walker = new ZoneChain(zones);
  } else {
    walker = new ClientChain(
      values.server !== undefined ? { server: values.server } : { root: values.root! },
    );
  }
  const started = performance.now();
  const onProgress = progress(io);
  let outcomes;
  try {
    outcomes = await runChain(walker, items, {
      concurrency: values.zones !== undefined ? 1 : concurrency,
      ...(onProgress ? { onProgress } : {}),
    });
  } finally {
    await walker.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const report = summarize(outcomes);
  const source = values.zones ?? values.server ?? `root ${values.root}`;
  if (values.html !== undefined) {
    writeFileSync(
      resolvePath(io.cwd, values.html),
      reportHtml(report, `LEX chain coverage: ${positionals[0]} via ${source}`),
    );
  }
  if (values.json) {
    io.out(
      JSON.stringify(
        { source, seconds: Math.round(seconds * 1000) / 1000, ...report, items: outcomes },
        null,
        2,
      ) + '\n',
    );
  } else {
    io.out(formatReport(report, source));
    io.out(
      `\n${items.length} in ${seconds.toFixed(2)} s (${Math.round(items.length / Math.max(seconds, 1e-6))}/s)\n`,
    );
  }
  return report.failed === 0 ? EXIT_OK : exitCodeOfFailure(report.byFailure);
}

export const chainCommand: Command = {
  async run(argv, io) {
    const [sub, ...rest] = argv;
    if (sub === undefined || sub === '-h' || sub === '--help' || sub === 'help') {
      (sub === undefined ? io.err : io.out)(HELP);
      return sub === undefined ? 2 : EXIT_OK;
    }
    if (sub === 'check') return check(rest, io);
    throw new UsageError(`unknown subcommand '${sub}' (check)`);
  },
};
