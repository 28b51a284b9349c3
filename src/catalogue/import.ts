/**
 * `lexroute catalogue import`: JSON Lines or CSV rows into the SQLite
 * catalogue. Each bad row is reported (line, code, message) and skipped; good
 * rows are written in transactional batches. Writes are idempotent, so
 * importing the same file twice loses nothing and duplicates nothing.
 *
 * Row fields: see `src/core/catalogue/row.ts`.
 */
import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { UrnAnalyser } from '../core/catalogue/model.ts';
import { validateRow, ROW_FIELDS } from '../core/catalogue/row.ts';
import { parseCsvRecord } from './csv.ts';
import { CatalogueError, type SqliteCatalogue } from './store.ts';

export type RowFormat = 'jsonl' | 'csv';

export interface ImportRowError {
  /** 1-based line where the row starts. */
  readonly line: number;
  readonly code: string;
  readonly message: string;
  readonly field?: string;
  /** 1-based column inside the field's value, when known. */
  readonly column?: number;
}

export interface ImportProgress {
  readonly bytes: number;
  readonly totalBytes: number;
  readonly rows: number;
}

export interface ImportOptions {
  readonly analyse: UrnAnalyser;
  /** Default: from the file extension (`.csv` is CSV, anything else JSON Lines). */
  readonly format?: RowFormat;
  /** Rows per transaction (default 20,000). */
  readonly batchSize?: number;
  readonly onError?: (e: ImportRowError) => void;
  /** Called after each batch. */
  readonly onProgress?: (p: ImportProgress) => void;
  readonly signal?: AbortSignal;
}

export interface ImportSummary {
  /** Rows read (blank lines excluded). */
  readonly rows: number;
  readonly imported: number;
  readonly rejected: number;
  readonly newWorks: number;
  readonly newItems: number;
  /** Rows that were valid but added no new item (already present, or no url). */
  readonly unchangedItems: number;
  readonly aborted: boolean;
}

/**
 * The lines of a text stream, a chunk's worth at a time (fewer awaits than
 * one per line). Line ends: LF or CRLF; a last line without one is kept.
 */
async function* lineBatches(stream: Readable): AsyncGenerator<string[]> {
  let rest = '';
  for await (const chunk of stream) {
    const text = rest + (chunk as string);
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i] as string;
      if (l.endsWith('\r')) lines[i] = l.slice(0, -1);
    }
    if (lines.length > 0) yield lines;
  }
  if (rest !== '') yield [rest.endsWith('\r') ? rest.slice(0, -1) : rest];
}

export function formatFromPath(path: string): RowFormat {
  return /\.csv$/i.test(path) ? 'csv' : 'jsonl';
}

const CSV_COLUMNS: Record<string, string> = {
  urn: 'urn',
  url: 'url',
  priority: 'priority',
  in_force: 'inForce',
  inforce: 'inForce',
  partition_depth: 'partitionDepth',
  partitiondepth: 'partitionDepth',
  title: 'title',
  aliases: 'aliases',
};

/** Import one file. Throws CatalogueError only for problems with the whole file (unreadable, bad CSV header). */
export async function importFile(
  store: SqliteCatalogue,
  path: string,
  options: ImportOptions,
): Promise<ImportSummary> {
  let totalBytes: number;
  try {
    totalBytes = statSync(path).size;
  } catch (e) {
    throw new CatalogueError(
      'IMPORT_UNREADABLE',
      `${path}: ${e instanceof Error ? e.message : String(e)}`,
      {
        cause: e,
      },
    );
  }
  const format = options.format ?? formatFromPath(path);
  const batchSize = options.batchSize ?? 20_000;
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 16 });
  const writer = store.writer();
  let rows = 0;
  let imported = 0;
  let rejected = 0;
  let newWorks = 0;
  let newItems = 0;
  let unchangedItems = 0;
  let inBatch = 0;
  let lineNo = 0;
  let header: string[] | null = null;
  let pending: { text: string; line: number } | null = null;
  let aborted = false;

  const reject = (e: ImportRowError) => {
    rejected++;
    options.onError?.(e);
  };
  const process = (fields: Record<string, unknown>, line: number) => {
    rows++;
    const v = validateRow(fields, options.analyse);
    if (!v.ok) {
      const e = v.error;
      reject({
        line,
        code: e.code,
        message: e.message,
        field: e.field,
        column: e.offset === undefined ? undefined : e.offset + 1,
      });
      return;
    }
    const w = writer.write(v.row);
    if (!w.ok) {
      reject({ line, code: w.error.code, message: w.error.message, field: w.error.field });
      return;
    }
    imported++;
    if (w.outcome.newWork) newWorks++;
    if (w.outcome.newItem) newItems++;
    else unchangedItems++;
  };

  store.beginBulkLoad();
  store.begin();
  try {
    batches: for await (const batch of lineBatches(stream)) {
      for (const raw of batch) {
        lineNo++;
        if (options.signal?.aborted) {
          aborted = true;
          break batches;
        }
        // A batch is `batchSize` lines, good or bad.
        if (++inBatch > batchSize) {
          store.commit();
          options.onProgress?.({ bytes: stream.bytesRead, totalBytes, rows });
          inBatch = 1;
          store.begin();
        }
        if (format === 'jsonl') {
          if (raw.trim() === '') continue;
          let value: unknown;
          try {
            value = JSON.parse(raw);
          } catch (e) {
            rows++;
            reject({
              line: lineNo,
              code: 'ROW_BAD_JSON',
              message: `not valid JSON: ${e instanceof Error ? e.message : String(e)}`,
            });
            continue;
          }
          if (value === null || typeof value !== 'object' || Array.isArray(value)) {
            rows++;
            reject({
              line: lineNo,
              code: 'ROW_NOT_OBJECT',
              message: 'a JSON Lines row must be a JSON object',
            });
            continue;
          }
          process(value as Record<string, unknown>, lineNo);
        } else {
          const text: string = pending ? `${pending.text}\n${raw}` : raw;
          const start: number = pending ? pending.line : lineNo;
          if (!pending && raw.trim() === '') continue;
          const rec = parseCsvRecord(lineNo === 1 ? text.replace(/^\uFEFF/, '') : text);
          if (rec.kind === 'incomplete') {
            pending = { text, line: start };
            continue;
          }
          pending = null;
          if (header === null) {
            if (rec.kind === 'error') {
              throw new CatalogueError('CSV_BAD_HEADER', `${path}:${start}: ${rec.message}`);
            }
            header = rec.fields.map((h) => {
              const name = CSV_COLUMNS[h.trim().toLowerCase()];
              if (!name) {
                throw new CatalogueError(
                  'CSV_BAD_HEADER',
                  `${path}:${start}: unknown column '${h}' (columns: urn, url, priority, in_force, partition_depth, title, aliases)`,
                );
              }
              return name;
            });
            if (!header.includes('urn')) {
              throw new CatalogueError(
                'CSV_BAD_HEADER',
                `${path}:${start}: the header has no 'urn' column`,
              );
            }
            continue;
          }
          if (rec.kind === 'error') {
            rows++;
            reject({ line: start, code: rec.code, message: rec.message, column: rec.column });
            continue;
          }
          if (rec.fields.length !== header.length) {
            rows++;
            reject({
              line: start,
              code: 'CSV_COLUMN_COUNT',
              message: `${rec.fields.length} fields, the header has ${header.length}`,
            });
            continue;
          }
          const fields: Record<string, unknown> = {};
          for (let i = 0; i < header.length; i++) fields[header[i] as string] = rec.fields[i];
          process(fields, start);
        }
      }
    }
    if (pending) {
      rows++;
      reject({
        line: pending.line,
        code: 'CSV_UNTERMINATED',
        message: 'a quoted field is not closed before the end of the file',
      });
    }
    store.commit();
  } catch (e) {
    store.rollback();
    stream.destroy();
    store.endBulkLoad();
    throw e;
  }
  store.endBulkLoad();
  options.onProgress?.({ bytes: totalBytes, totalBytes, rows });
  return { rows, imported, rejected, newWorks, newItems, unchangedItems, aborted };
}

/** The JSON Lines field names, for help texts. */
export const JSONL_FIELDS = ROW_FIELDS;
