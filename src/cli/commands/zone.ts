/**
 * `lexroute zone check | print`: `check` takes the one zone path of the
 * server (`zoneFromSource`: load, build, NAPTR lint, `; expect` directives,
 * a signed file's DNSSEC), so what it reports as an error `serve` refuses.
 * Exit codes: 0 clean, 1 errors (or warnings with --strict), 2 usage.
 */
import type { ZoneDiagnostic } from '../../dns/core/zone/model.ts';
import { printable } from '../../dns/core/zone/parser.ts';
import { writeZone } from '../../dns/core/zone/writer.ts';
import { isValidOrigin } from '../../dns/core/zone/parser.ts';
import {
  isDirectory,
  loadZoneFile,
  zoneFilesIn,
  ZONE_FILE_PATTERNS,
  type LoadOptions,
} from '../../authority/zones/load.ts';
import { zoneFromSource, type ZonePathResult } from '../../authority/zones/servable.ts';
import { parseCommandArgs } from '../args.ts';
import { EXIT_OK, EXIT_USAGE, UsageError, type CliIo, type Command } from '../io.ts';
import { exitCodeOfFailure } from '../exit.ts';
import { MAIN_HELP, CHECK_HELP, PRINT_HELP } from './zone-help.ts';

function formatDiagnostic(d: ZoneDiagnostic, fallbackFile: string): string {
  const p = d.position;
  const where = p ? `${p.file}:${p.line}:${p.column}` : fallbackFile;
  // Zone data must not drive the terminal: control characters are shown escaped.
  return printable(
    `${where}: ${d.code} ${d.severity === 'warning' ? 'warning: ' : ''}${d.message}`,
  );
}

function positiveInt(flag: string, text: string): number {
  if (!/^[1-9][0-9]{0,14}$/.test(text)) throw new UsageError(`${flag} must be a positive integer`);
  return Number(text);
}

/**
 * Progress of a check on a terminal (one line rewritten in place): the
 * reading, then validation and lint, then the time of each. Nothing when
 * standard error is not a terminal.
 */
function progressLine(file: string, io: CliIo) {
  if (!io.errIsTTY) return undefined;
  const started = performance.now();
  let last = started;
  let readAt: number | undefined;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return {
    update(read: number, size: number) {
      const now = performance.now();
      if (size > 0 && read >= size && readAt === undefined) {
        readAt = now;
        io.err(
          `\r${printable(file)}: read in ${seconds(now - started)}; validating and linting\x1b[K`,
        );
        return;
      }
      if (now - last < 250 || now - started < 500) return;
      last = now;
      const pct = size > 0 ? Math.min(100, Math.floor((read * 100) / size)) : 100;
      const mib = (read / 1048576).toFixed(1);
      io.err(`\r${printable(file)}: reading ${mib} MiB (${pct}%), ${seconds(now - started)}\x1b[K`);
    },
    done() {
      const now = performance.now();
      const phases =
        readAt === undefined
          ? ''
          : ` (read ${seconds(readAt - started)}, validation and lint ${seconds(now - readAt)})`;
      io.err(`\r${printable(file)}: checked in ${seconds(now - started)}${phases}\x1b[K\n`);
    },
  };
}

/** Check one file on the one zone path (`zoneFromSource`): what `serve` refuses, this reports as an error. */
async function checkFile(
  file: string,
  origin: string | undefined,
  io: CliIo,
  limits: LoadOptions,
): Promise<ZonePathResult> {
  const progress = progressLine(file, io);
  const r = await zoneFromSource(file, {
    ...limits,
    ...(origin !== undefined ? { origin } : {}),
    signal: io.signal,
    ...(progress ? { onProgress: progress.update } : {}),
  });
  progress?.done();
  return r;
}

/** A malformed --origin is a usage error (exit 2), not a finding about the file. */
function checkOriginOption(origin: string | undefined): void {
  if (origin !== undefined && !isValidOrigin(origin)) {
    throw new UsageError(`--origin ${JSON.stringify(origin)} is not a valid domain name`);
  }
}

async function check(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommandArgs(argv, io, CHECK_HELP, {
    json: { type: 'boolean' },
    strict: { type: 'boolean' },
    origin: { type: 'string' },
    'include-dir': { type: 'string', multiple: true },
    'max-bytes': { type: 'string' },
    'max-entry-chars': { type: 'string' },
  });
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  const limits: LoadOptions = {
    ...(values['include-dir'] ? { includeDirs: values['include-dir'] } : {}),
    ...(values['max-bytes'] !== undefined
      ? { maxBytes: positiveInt('--max-bytes', values['max-bytes']) }
      : {}),
    ...(values['max-entry-chars'] !== undefined
      ? { maxEntryChars: positiveInt('--max-entry-chars', values['max-entry-chars']) }
      : {}),
  };
  if (positionals.length === 0)
    throw new UsageError('zone check needs at least one file or directory');
  checkOriginOption(values.origin);
  const files: string[] = [];
  for (const p of positionals) {
    if (isDirectory(p)) {
      const found = await zoneFilesIn(p);
      if (found.length === 0) throw new UsageError(`no zone files (${ZONE_FILE_PATTERNS}) in ${p}`);
      for (const f of found) files.push(f);
    } else files.push(p);
  }
  const results = [];
  for (const f of files) results.push(await checkFile(f, values.origin, io, limits));
  let errors = 0;
  let warnings = 0;
  let records = 0;
  for (const r of results) {
    records += r.records.length;
    for (const d of r.diagnostics) {
      if (d.severity === 'error') errors++;
      else warnings++;
    }
  }
  if (values.json) {
    io.out(
      JSON.stringify(
        {
          ok: errors === 0 && (!values.strict || warnings === 0),
          errors,
          warnings,
          files: results.map((r) => ({
            file: r.file,
            origin: r.origin ?? null,
            records: r.records.length,
            loaded: r.built,
            diagnostics: r.diagnostics,
          })),
        },
        null,
        2,
      ) + '\n',
    );
  } else {
    for (const r of results)
      for (const d of r.diagnostics) io.out(formatDiagnostic(d, r.file) + '\n');
    const loaded = results.filter((r) => r.built).length;
    io.out(
      `${files.length} file${files.length === 1 ? '' : 's'}, ${records} record${records === 1 ? '' : 's'}, ${loaded} zone${loaded === 1 ? '' : 's'} loaded: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}\n`,
    );
  }
  const found = results.flatMap((r) => r.diagnostics);
  if (errors > 0) return exitCodeOfFailure(found.filter((d) => d.severity === 'error'));
  if (values.strict && warnings > 0) return exitCodeOfFailure(found);
  return EXIT_OK;
}

async function print(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommandArgs(argv, io, PRINT_HELP, {
    origin: { type: 'string' },
  });
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError('zone print takes exactly one file');
  checkOriginOption(values.origin);
  const file = positionals[0]!;
  const r = await loadZoneFile(file, values.origin !== undefined ? { origin: values.origin } : {});
  for (const d of r.diagnostics) io.err(formatDiagnostic(d, file) + '\n');
  if (!r.zone) return exitCodeOfFailure(r.diagnostics.filter((d) => d.severity === 'error'));
  io.out(writeZone(r.zone));
  return EXIT_OK;
}

export const zoneCommand: Command = {
  async run(argv, io) {
    const [sub, ...rest] = argv;
    if (sub === undefined) {
      io.err(MAIN_HELP);
      return EXIT_USAGE;
    }
    if (sub === '-h' || sub === '--help' || sub === 'help') {
      io.out(MAIN_HELP);
      return EXIT_OK;
    }
    if (sub === 'check') return check(rest, io);
    if (sub === 'print') return print(rest, io);
    if (sub === 'build') return (await import('./zone-routes.ts')).zoneBuild(rest, io);
    if (sub === 'explain') return (await import('./zone-routes.ts')).zoneExplain(rest, io);
    if (sub === 'sign') return (await import('./zone-sign.ts')).zoneSign(rest, io);
    if (sub === 'keygen') return (await import('./zone-sign.ts')).zoneKeygen(rest, io);
    if (sub === 'diff') return (await import('./zone-diff.ts')).zoneDiff(rest, io);
    throw new UsageError(
      `unknown subcommand '${sub}' (check | print | build | explain | sign | keygen | diff)`,
    );
  },
};
