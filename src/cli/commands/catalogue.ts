/**
 * `lexroute catalogue import|export`: the resolver's SQLite catalogue.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseCommandArgs } from '../args.ts';
import { EXIT_FAIL, EXIT_OK, UsageError, type CliIo, type Command } from '../io.ts';
import { analyseLexUrn } from '../../core/catalogue/from-urn.ts';
import { importFile, type ImportProgress, type RowFormat } from '../../catalogue/import.ts';
import { exportCatalogue } from '../../catalogue/export.ts';
import { CatalogueError, SqliteCatalogue } from '../../catalogue/store.ts';
import { DEFAULT_RESOLVER_CONFIG } from '../../config/resolver.ts';

export const CATALOGUE_HELP = `Usage: lexroute catalogue import <file> [options]
       lexroute catalogue export [options]

Manage the jurisdiction resolver's catalogue (one SQLite file).

import   add the rows of a JSON Lines (.jsonl) or CSV (.csv) file. Each bad
         row is reported with its line number and code and skipped; good rows
         are written in transactions of 10,000. Importing the same file again
         adds nothing and loses nothing. Exit 1 when any row was rejected.
export   write every row (one per item) to standard output or --output, in a
         form import reads back.

Options:
  --catalogue FILE   the SQLite catalogue (default: ${DEFAULT_RESOLVER_CONFIG.catalogue}; created if missing)
  --format FORMAT    jsonl | csv (import: default from the file extension;
                     export: default jsonl)
  --output FILE      export: write here instead of standard output
  -h, --help         show this help

Row fields (JSON Lines keys; CSV header columns in brackets):
  urn (urn)            required; a LEX URN of a work, an @expression or a
                       $manifestation, e.g.
                       urn:lex:br:federal:lei:2002-01-10;10406@2024-06-28:pt$planalto.gov.br:text-html
  url (url)            an http(s) URL of an item of that manifestation
  priority (priority)  integer 0-65535, lower first (default 10)
  inForce (in_force)   YYYY-MM-DD: when this version came into force
  partitionDepth (partition_depth)
                       0-32: how many ';' levels of partition IDs the
                       manifestation's markup has anchors for ($manifestation
                       rows only): ~art15;par3 gives #art15 at 1 and no
                       fragment at 0; absent: the whole partition
  title (title)        the work's title
  aliases (aliases)    other names of the work: a JSON array, or URNs
                       separated by spaces (CSV)
Example JSON Lines row:
  {"urn":"urn:lex:it:stato:legge:2000-04-03;56$senato.it:text-xml","url":"https://www.senato.it/leggi/2000/00056.xml","priority":10}
Example CSV:
  urn,url,priority,in_force,title,aliases,partition_depth
  urn:lex:it:stato:legge:2000-04-03;56$senato.it:text-xml,https://www.senato.it/leggi/2000/00056.xml,10,,,,1
`;

function parseFormat(value: string | undefined): RowFormat | undefined {
  if (value === undefined) return undefined;
  if (value === 'jsonl' || value === 'csv') return value;
  throw new UsageError(`--format must be jsonl or csv, got '${value}'`);
}

function progressBar(io: CliIo) {
  let last = 0;
  return (p: ImportProgress) => {
    const now = Date.now();
    if (now - last < 100 && p.bytes < p.totalBytes) return;
    last = now;
    const ratio = p.totalBytes > 0 ? Math.min(1, p.bytes / p.totalBytes) : 1;
    const width = 30;
    const filled = Math.round(ratio * width);
    io.err(
      `\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${String(Math.round(ratio * 100)).padStart(3)}% ${p.rows.toLocaleString('en')} rows`,
    );
  };
}

export const catalogueCommand: Command = {
  name: 'catalogue',
  summary: "manage the resolver's catalogue (import | export)",
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, {
      catalogue: { type: 'string' },
      format: { type: 'string' },
      output: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      io.out(CATALOGUE_HELP);
      return EXIT_OK;
    }
    const [sub, ...rest] = positionals;
    const path = (p: string) => (isAbsolute(p) ? p : resolve(io.cwd, p));
    const cataloguePath = path(values.catalogue ?? DEFAULT_RESOLVER_CONFIG.catalogue);
    const format = parseFormat(values.format);

    if (sub === 'import') {
      if (rest.length !== 1) throw new UsageError('import takes exactly one file');
      if (values.output !== undefined) throw new UsageError('--output is for export');
      const file = path(rest[0] as string);
      if (!existsSync(file)) {
        io.err(`lexroute catalogue: ${file}: no such file\n`);
        return EXIT_FAIL;
      }
      let store: SqliteCatalogue;
      try {
        store = new SqliteCatalogue(cataloguePath);
      } catch (e) {
        io.err(`lexroute catalogue: ${(e as Error).message}\n`);
        return EXIT_FAIL;
      }
      const started = performance.now();
      const bar = io.errIsTTY ? progressBar(io) : undefined;
      const shown = rest[0] as string;
      try {
        const s = await importFile(store, file, {
          analyse: analyseLexUrn,
          ...(format ? { format } : {}),
          signal: io.signal,
          onError: (e) => {
            if (bar) io.err('\r\x1b[K');
            const where = e.field
              ? ` ${e.field}${e.column !== undefined ? ` column ${e.column}` : ''}:`
              : '';
            io.err(`${shown}:${e.line}: ${e.code}${where} ${e.message}\n`);
          },
          ...(bar ? { onProgress: bar } : {}),
        });
        if (bar) io.err('\r\x1b[K');
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        const c = store.counts();
        io.out(
          `${s.aborted ? 'interrupted: ' : ''}imported ${s.imported.toLocaleString('en')} of ${s.rows.toLocaleString('en')} rows` +
            ` (${s.rejected.toLocaleString('en')} rejected) in ${seconds} s: ${s.newWorks.toLocaleString('en')} new works,` +
            ` ${s.newItems.toLocaleString('en')} new items, ${s.unchangedItems.toLocaleString('en')} rows added no item\n` +
            `catalogue ${cataloguePath}: ${c.works.toLocaleString('en')} works, ${c.aliases.toLocaleString('en')} aliases,` +
            ` ${c.expressions.toLocaleString('en')} expressions, ${c.manifestations.toLocaleString('en')} manifestations,` +
            ` ${c.items.toLocaleString('en')} items\n`,
        );
        return s.rejected > 0 || s.aborted ? EXIT_FAIL : EXIT_OK;
      } catch (e) {
        if (bar) io.err('\r\x1b[K');
        if (e instanceof CatalogueError) {
          io.err(`lexroute catalogue: ${e.code}: ${e.message}\n`);
          return EXIT_FAIL;
        }
        throw e;
      } finally {
        store.close();
      }
    }

    if (sub === 'export') {
      if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`);
      if (!existsSync(cataloguePath)) {
        io.err(`lexroute catalogue: ${cataloguePath}: no such catalogue\n`);
        return EXIT_FAIL;
      }
      let store: SqliteCatalogue;
      try {
        store = new SqliteCatalogue(cataloguePath, { readOnly: true });
      } catch (e) {
        io.err(`lexroute catalogue: ${(e as Error).message}\n`);
        return EXIT_FAIL;
      }
      try {
        if (values.output !== undefined) {
          const out = createWriteStream(path(values.output));
          let buffer = '';
          const n = exportCatalogue(store, format ?? 'jsonl', (line) => {
            buffer += line;
            if (buffer.length > 1 << 16) {
              out.write(buffer);
              buffer = '';
            }
          });
          out.end(buffer);
          await new Promise<void>((res, rej) => {
            out.once('finish', res);
            out.once('error', rej);
          });
          io.err(`exported ${n.toLocaleString('en')} rows to ${values.output}\n`);
        } else {
          exportCatalogue(store, format ?? 'jsonl', (line) => io.out(line));
        }
        return EXIT_OK;
      } finally {
        store.close();
      }
    }

    if (sub === undefined) throw new UsageError('missing subcommand: import or export');
    throw new UsageError(`unknown subcommand '${sub}' (import | export)`);
  },
};
