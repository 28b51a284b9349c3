/**
 * `lexroute catalogue import`: JSON Lines or CSV rows (fields: `core/row.ts`)
 * into the catalogue, in batches, in one transaction; bad rows reported and
 * skipped. Writes are idempotent: importing a file twice changes nothing.
 */
import { createReadStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { UrnAnalyser } from '../core/model.ts';
import { validateRow, type CatalogueRow } from '../core/row.ts';
import { CsvRecordReader, type CsvEvent } from './csv.ts';
import { PgCatalogue } from './pg.ts';
import { CatalogueError, type CatalogueWriter, type SqliteCatalogue } from './store.ts';
import type { CatalogueCode } from './codes.ts';
import type { RowErrorCode } from '../core/codes.ts';

export type RowFormat = 'jsonl' | 'csv';

export interface ImportRowError {
  /** 1-based line where the row starts. */
  readonly line: number;
  /** A row code (or the URN code of a bad URN), or a catalogue code (CSV_*, ALIAS_CONFLICT). */
  readonly code: RowErrorCode | CatalogueCode;
  readonly message: string;
  readonly field?: string;
  /** 1-based column inside the field's value, when known. */
  readonly column?: number;
}

export interface ImportProgress {
  readonly bytes: number;
  readonly totalBytes: number;
  readonly rows: number;
  readonly rejected: number;
}

export interface ImportOptions {
  readonly analyse: UrnAnalyser;
  /** Default: from the file extension (`.csv` is CSV, anything else JSON Lines). */
  readonly format?: RowFormat;
  /** Lines per batch (default 20,000): progress and PostgreSQL's COPY go by batch; the transaction is the whole import. */
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
  let first = true;
  for await (const chunk of stream) {
    let text = rest + (chunk as string);
    // A UTF-8 byte order mark (as some editors and spreadsheets write) is not part of the first row.
    if (first) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
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

/** Where an import writes: a writer plus the transaction around the whole import. */
export interface ImportTarget {
  readonly writer: CatalogueWriter;
  /** Fetch the stored works these names refer to (before the batch's rows are written). */
  prefetch(urns: readonly string[]): Promise<void> | void;
  endBatch(): Promise<void> | void;
  /** Make the whole import visible at once. */
  commit(): Promise<void> | void;
  rollback(): Promise<void> | void;
}

/** The transaction of one import into SQLite (see `SqliteCatalogue.beginImport`). */
function sqliteTarget(store: SqliteCatalogue): ImportTarget {
  store.beginImport();
  return {
    writer: store.writer(),
    prefetch: () => undefined,
    endBatch: () => undefined,
    commit: () => store.commitImport(),
    rollback: () => store.rollbackImport(),
  };
}

/** Either store. */
export type ImportStore = SqliteCatalogue | PgCatalogue;

/** One row read from the file: its fields, or why it could not be read. */
type RawRow =
  | { readonly line: number; readonly fields: Record<string, unknown> }
  | { readonly line: number; readonly error: ImportRowError };

/** Turns the lines of a JSON Lines or CSV file into rows (fields keyed by row field name). */
class RowReader {
  readonly #format: RowFormat;
  readonly #path: string;
  readonly #csv = new CsvRecordReader();
  #header: string[] | null = null;
  readonly #events: CsvEvent[] = [];

  constructor(format: RowFormat, path: string) {
    this.#format = format;
    this.#path = path;
  }

  line(raw: string, lineNo: number, out: RawRow[]): void {
    if (this.#format === 'jsonl') {
      if (raw.trim() === '') return;
      out.push(jsonRow(raw, lineNo));
      return;
    }
    this.#csv.push(raw, lineNo, this.#events);
    this.#drain(out);
  }

  end(out: RawRow[]): void {
    if (this.#format === 'csv') {
      this.#csv.end(this.#events);
      this.#drain(out);
    }
  }

  #drain(out: RawRow[]): void {
    for (const ev of this.#events) {
      if (this.#header === null) {
        this.#header = csvHeader(ev, this.#path);
        this.#csv.columns = this.#header.length;
        continue;
      }
      if (ev.kind === 'error') {
        const { kind: _kind, ...error } = ev;
        out.push({ line: ev.line, error });
        continue;
      }
      const header = this.#header;
      if (ev.fields.length !== header.length) {
        out.push({
          line: ev.line,
          error: {
            line: ev.line,
            code: 'CSV_COLUMN_COUNT',
            message: `${ev.fields.length} fields, the header has ${header.length}`,
          },
        });
        continue;
      }
      const fields: Record<string, unknown> = {};
      for (let i = 0; i < header.length; i++) fields[header[i] as string] = ev.fields[i];
      out.push({ line: ev.line, fields });
    }
    this.#events.length = 0;
  }
}

function jsonRow(raw: string, line: number): RawRow {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    return {
      line,
      error: {
        line,
        code: 'ROW_BAD_JSON',
        message: `not valid JSON: ${e instanceof Error ? e.message : String(e)}`,
      },
    };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      line,
      error: { line, code: 'ROW_NOT_OBJECT', message: 'a JSON Lines row must be a JSON object' },
    };
  }
  return { line, fields: value as Record<string, unknown> };
}

function csvHeader(ev: CsvEvent, path: string): string[] {
  if (ev.kind === 'error') {
    throw new CatalogueError('CSV_BAD_HEADER', `${path}:${ev.line}: ${ev.message}`);
  }
  const header = ev.fields.map((h) => {
    const name = CSV_COLUMNS[h.trim().toLowerCase()];
    if (!name) {
      throw new CatalogueError(
        'CSV_BAD_HEADER',
        `${path}:${ev.line}: unknown column '${h}' (columns: urn, url, priority, in_force, partition_depth, title, aliases)`,
      );
    }
    return name;
  });
  if (!header.includes('urn')) {
    throw new CatalogueError(
      'CSV_BAD_HEADER',
      `${path}:${ev.line}: the header has no 'urn' column`,
    );
  }
  return header;
}

/** Running totals of one import. */
interface Tally {
  rows: number;
  imported: number;
  rejected: number;
  newWorks: number;
  newItems: number;
  unchangedItems: number;
}

/** Validate and write one batch of rows; errors reported after it, in line order. */
async function writeBatch(
  target: ImportTarget,
  batch: readonly RawRow[],
  options: ImportOptions,
  tally: Tally,
): Promise<void> {
  const errors: ImportRowError[] = [];
  const valid: { line: number; row: CatalogueRow }[] = [];
  for (const r of batch) {
    tally.rows++;
    if ('error' in r) {
      errors.push(r.error);
      continue;
    }
    const v = validateRow(r.fields, options.analyse);
    if (!v.ok) {
      const e = v.error;
      errors.push({
        line: r.line,
        code: e.code,
        message: e.message,
        ...(e.field === undefined ? {} : { field: e.field }),
        ...(e.offset === undefined ? {} : { column: e.offset + 1 }),
      });
      continue;
    }
    valid.push({ line: r.line, row: v.value });
  }
  const urns: string[] = [];
  for (const { row } of valid) {
    urns.push(row.work.urn);
    for (const a of row.aliases) urns.push(a.urn);
  }
  await target.prefetch(urns);
  for (const { line, row } of valid) {
    const w = target.writer.write(row);
    if (!w.ok) {
      errors.push({ line, code: w.error.code, message: w.error.message, field: w.error.field });
      continue;
    }
    tally.imported++;
    if (w.outcome.newWork) tally.newWorks++;
    if (w.outcome.newItem) tally.newItems++;
    else tally.unchangedItems++;
  }
  await target.endBatch();
  tally.rejected += errors.length;
  errors.sort((a, b) => a.line - b.line);
  for (const e of errors) options.onError?.(e);
}

/**
 * Import one file, in one transaction (failed, interrupted or killed: the
 * catalogue as it was). Bad rows are reported (`onError`) and skipped;
 * CatalogueError only for the whole file (unreadable, bad CSV header).
 */
export async function importFile(
  store: ImportStore,
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
      { cause: e },
    );
  }
  const format = options.format ?? (/\.csv$/i.test(path) ? 'csv' : 'jsonl');
  const batchSize = options.batchSize ?? 20_000;
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 16 });
  const reader = new RowReader(format, path);
  const tally: Tally = {
    rows: 0,
    imported: 0,
    rejected: 0,
    newWorks: 0,
    newItems: 0,
    unchangedItems: 0,
  };
  const target = store instanceof PgCatalogue ? await store.beginImport() : sqliteTarget(store);
  let batch: RawRow[] = [];
  let lineNo = 0;
  let aborted = false;
  let reported = -1;
  const progress = (bytes: number) => {
    if (tally.rows === reported && bytes < totalBytes) return;
    reported = tally.rows;
    options.onProgress?.({ bytes, totalBytes, rows: tally.rows, rejected: tally.rejected });
  };
  try {
    batches: for await (const lines of lineBatches(stream)) {
      if (options.signal?.aborted) {
        aborted = true;
        break batches;
      }
      for (const raw of lines) {
        lineNo++;
        reader.line(raw, lineNo, batch);
        if (batch.length >= batchSize) {
          await writeBatch(target, batch, options, tally);
          batch = [];
          progress(stream.bytesRead);
        }
      }
    }
    if (!aborted) {
      reader.end(batch);
      await writeBatch(target, batch, options, tally);
      await target.commit();
    } else {
      await target.rollback();
    }
  } catch (e) {
    stream.destroy();
    await target.rollback();
    throw e;
  }
  stream.destroy();
  if (tally.rows !== reported) progress(totalBytes);
  const { rows, imported, rejected, newWorks, newItems, unchangedItems } = tally;
  return aborted
    ? { rows, imported: 0, rejected, newWorks: 0, newItems: 0, unchangedItems: 0, aborted }
    : { rows, imported, rejected, newWorks, newItems, unchangedItems, aborted };
}
