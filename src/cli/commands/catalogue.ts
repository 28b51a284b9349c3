/**
 * `lexroute catalogue import|export`: the resolver's SQLite catalogue.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseCommandArgs } from '../args.ts';
import { EXIT_OK, UsageError, type CliIo, type Command } from '../io.ts';
import { exitCodeOf, exitCodeOfFailure } from '../exit.ts';
import { analyseLexUrn } from '../../resolver/core/from-urn.ts';
import {
  importFile,
  type ImportProgress,
  type ImportRowError,
  type RowFormat,
} from '../../resolver/catalogue/import.ts';
import { exportCatalogue, exportWorks } from '../../resolver/catalogue/export.ts';
import {
  catalogueCounts,
  closeCatalogue,
  openCatalogue,
  type OpenedCatalogue,
} from '../../resolver/catalogue/open.ts';
import { PG_SCHEMA_VERSION } from '../../resolver/catalogue/pg.ts';
import { readLexmlRegistryEntries } from '../../resolver/catalogue/registry-lexml.ts';
import { CatalogueError, SCHEMA_VERSION } from '../../resolver/catalogue/store.ts';
import { DEFAULT_RESOLVER_CONFIG } from '../../config/resolver.ts';
import { CATALOGUE_HELP } from './catalogue-help.ts';

function parseFormat(value: string | undefined): RowFormat | undefined {
  if (value === undefined) return undefined;
  if (value === 'jsonl' || value === 'csv') return value;
  throw new UsageError(`--format must be jsonl or csv, got '${value}'`);
}

/** One line of progress on a terminal: rows, rows/s, rejected, percent and ETA (the file size is known). */
function progressBar(io: CliIo) {
  let last = 0;
  const started = Date.now();
  return (p: ImportProgress) => {
    const now = Date.now();
    if (now - last < 100 && p.bytes < p.totalBytes) return;
    last = now;
    const ratio = p.totalBytes > 0 ? Math.min(1, p.bytes / p.totalBytes) : 1;
    const seconds = Math.max(0.001, (now - started) / 1000);
    const rate = Math.round(p.rows / seconds);
    const eta = ratio > 0 && ratio < 1 ? Math.round((seconds * (1 - ratio)) / ratio) : 0;
    const width = 30;
    const filled = Math.round(ratio * width);
    io.err(
      `\r\x1b[K[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}%` +
        ` ${p.rows.toLocaleString('en')} rows, ${rate.toLocaleString('en')} rows/s, ${p.rejected.toLocaleString('en')} rejected` +
        (eta > 0 ? `, ETA ${eta} s` : ''),
    );
  };
}

const plural = (n: number, one: string, many: string) =>
  `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

async function runImport(
  io: CliIo,
  location: string,
  file: string,
  shown: string,
  format: RowFormat | undefined,
  json: boolean,
): Promise<number> {
  let opened: OpenedCatalogue;
  try {
    opened = await openCatalogue(location, io.cwd);
  } catch (e) {
    return failed(io, e, json);
  }
  const started = performance.now();
  const bar = io.errIsTTY ? progressBar(io) : undefined;
  const listed: ImportRowError[] = [];
  let notListed = 0;
  try {
    const s = await importFile(opened.store, file, {
      analyse: analyseLexUrn,
      ...(format ? { format } : {}),
      signal: io.signal,
      onError: (e) => {
        if (bar) io.err('\r\x1b[K');
        if (json) {
          if (listed.length < JSON_ERRORS_LISTED) listed.push(e);
          else notListed++;
          return;
        }
        const where = e.field
          ? ` ${e.field}${e.column !== undefined ? ` column ${e.column}` : ''}:`
          : '';
        io.err(`${shown}:${e.line}: ${e.code}${where} ${e.message}\n`);
      },
      ...(bar ? { onProgress: bar } : {}),
    });
    if (bar) io.err('\r\x1b[K');
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const c = await catalogueCounts(opened);
    const ok = s.rejected === 0 && !s.aborted;
    if (json) {
      const report = { ok, file: shown, catalogue: opened.label, ...s, seconds: Number(seconds) };
      const errors = { errors: listed, ...(notListed > 0 ? { errorsNotListed: notListed } : {}) };
      io.out(`${JSON.stringify({ ...report, counts: c, ...errors }, null, 2)}\n`);
      return ok ? EXIT_OK : exitCodeOfFailure(listed);
    }
    io.out(
      (s.aborted
        ? `interrupted after ${plural(s.rows, 'row', 'rows')}: nothing imported, the catalogue is as it was\n`
        : `imported ${s.imported.toLocaleString('en')} of ${plural(s.rows, 'row', 'rows')}` +
          ` (${s.rejected.toLocaleString('en')} rejected) in ${seconds} s: ${plural(s.newWorks, 'new work', 'new works')},` +
          ` ${plural(s.newItems, 'new item', 'new items')}, ${plural(s.unchangedItems, 'row', 'rows')} added no item\n`) +
        `catalogue ${opened.label}: ${plural(c.works, 'work', 'works')}, ${plural(c.aliases, 'alias', 'aliases')},` +
        ` ${plural(c.expressions, 'expression', 'expressions')}, ${plural(c.manifestations, 'manifestation', 'manifestations')},` +
        ` ${plural(c.items, 'item', 'items')}\n`,
    );
    return ok ? EXIT_OK : exitCodeOfFailure(listed);
  } catch (e) {
    if (bar) io.err('\r\x1b[K');
    return failed(io, e, json);
  } finally {
    await closeCatalogue(opened);
  }
}

/** With --json, the import's rejected rows listed in its report (the rest are counted). */
const JSON_ERRORS_LISTED = 10_000;

function failed(io: CliIo, e: unknown, json = false): number {
  if (e instanceof CatalogueError && json) {
    io.out(
      `${JSON.stringify({ ok: false, errors: [{ code: e.code, message: e.message }] }, null, 2)}\n`,
    );
    return exitCodeOf(e.code);
  }
  if (e instanceof CatalogueError) {
    io.err(`lexroute catalogue: ${e.code}: ${e.message}\n`);
    return exitCodeOf(e.code);
  }
  throw e;
}

async function runExport(
  io: CliIo,
  location: string,
  format: RowFormat,
  output: string | undefined,
): Promise<number> {
  let opened: OpenedCatalogue;
  try {
    // Writable but never created: its connection removes the -wal/-shm files on close.
    opened = await openCatalogue(location, io.cwd, { create: false });
  } catch (e) {
    return failed(io, e);
  }
  try {
    let buffer = '';
    const out = output === undefined ? null : createWriteStream(output);
    const write = (line: string) => {
      if (out === null) {
        io.out(line);
        return;
      }
      buffer += line;
      if (buffer.length > 1 << 16) {
        out.write(buffer);
        buffer = '';
      }
    };
    const n =
      opened.kind === 'sqlite'
        ? exportCatalogue(opened.store, format, write)
        : await exportWorks(opened.store.works(), format, write);
    if (out !== null) {
      out.end(buffer);
      await new Promise<void>((res, rej) => {
        out.once('finish', res);
        out.once('error', rej);
      });
      io.err(`exported ${plural(n, 'row', 'rows')} to ${output}\n`);
    }
    return EXIT_OK;
  } finally {
    await closeCatalogue(opened);
  }
}

/** `catalogue registry DIR`: store the LexML vocabularies' registries in the catalogue. */
async function runRegistry(io: CliIo, location: string, dir: string): Promise<number> {
  let opened: OpenedCatalogue;
  let entries;
  try {
    entries = readLexmlRegistryEntries(dir);
    opened = await openCatalogue(location, io.cwd);
  } catch (e) {
    return failed(io, e);
  }
  try {
    await opened.store.replaceRegistry(entries);
    const by = (k: string) => entries.filter((e) => e.kind === k).length.toLocaleString('en');
    io.out(
      `registries of ${opened.label}: ${by('jurisdiction')} jurisdictions, ${by('authority')} authorities, ${by('measure')} measure types (from ${dir})\n`,
    );
    return EXIT_OK;
  } finally {
    await closeCatalogue(opened);
  }
}

async function runMigrate(io: CliIo, location: string): Promise<number> {
  let opened: OpenedCatalogue;
  try {
    opened = await openCatalogue(location, io.cwd);
  } catch (e) {
    return failed(io, e);
  }
  await closeCatalogue(opened);
  io.out(
    `catalogue ${opened.label}: schema ${opened.kind === 'postgres' ? PG_SCHEMA_VERSION : SCHEMA_VERSION} (${opened.kind})\n`,
  );
  return EXIT_OK;
}

export const catalogueCommand: Command = {
  async run(argv, io) {
    const parsed = parseCommandArgs(argv, io, CATALOGUE_HELP, {
      catalogue: { type: 'string' },
      format: { type: 'string' },
      output: { type: 'string' },
      json: { type: 'boolean' },
    });
    if (parsed === undefined) return EXIT_OK;
    const { values, positionals } = parsed;
    const [sub, ...rest] = positionals;
    const path = (p: string) => (isAbsolute(p) ? p : resolve(io.cwd, p));
    const location = values.catalogue ?? DEFAULT_RESOLVER_CONFIG.catalogue;
    const format = parseFormat(values.format);

    if (sub === 'import') {
      if (rest.length !== 1) throw new UsageError('import takes exactly one file');
      if (values.output !== undefined) throw new UsageError('--output is for export');
      const file = path(rest[0] as string);
      const json = values.json === true;
      if (!existsSync(file)) {
        const e = new CatalogueError('IMPORT_UNREADABLE', `${file}: no such file`);
        return failed(io, e, json);
      }
      return runImport(io, location, file, rest[0] as string, format, json);
    }
    if (values.json === true) throw new UsageError('--json is for import');
    if (sub === 'export') {
      if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`);
      return runExport(
        io,
        location,
        format ?? 'jsonl',
        values.output === undefined ? undefined : path(values.output),
      );
    }
    if (sub === 'registry') {
      if (rest.length !== 1)
        throw new UsageError('registry takes one folder (the LexML vocabularies)');
      return runRegistry(io, location, path(rest[0] as string));
    }
    if (sub === 'migrate') {
      if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`);
      return runMigrate(io, location);
    }
    if (sub === undefined) {
      throw new UsageError('missing subcommand: import, export, registry or migrate');
    }
    throw new UsageError(`unknown subcommand '${sub}' (import | export | registry | migrate)`);
  },
};
