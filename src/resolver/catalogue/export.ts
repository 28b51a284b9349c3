/**
 * `lexroute catalogue export`: the catalogue as rows that `import` reads back
 * unchanged. One row per item; a work's, expression's or manifestation's
 * first row carries its own fields; one without items gets a row of its own.
 */
import { formatCsvRecord } from './csv.ts';
import type { CatalogueWork } from '../core/model.ts';
import type { SqliteCatalogue } from './store.ts';
import type { RowFormat } from './import.ts';

interface ExportRow {
  urn: string;
  url?: string;
  priority?: number;
  inForce?: string;
  partitionDepth?: number;
  title?: string;
  aliases?: string[];
}

/** Fields that go on the first row that asks for them: `fields` the first time, `{}` after. */
function once<T extends Partial<ExportRow>>(fields: T): () => T | Record<string, never> {
  let left: T | Record<string, never> = fields;
  return () => {
    const x = left;
    left = {};
    return x;
  };
}

/** Yield export rows work by work, in catalogue order. */
export function* exportRows(store: SqliteCatalogue): Generator<ExportRow> {
  for (const id of store.workIds()) {
    const work = store.work(id);
    if (work) yield* workRows(work);
  }
}

/** The export rows of one work. */
export function* workRows(work: CatalogueWork): Generator<ExportRow> {
  const workExtras: Pick<ExportRow, 'title' | 'aliases'> = {};
  if (work.title !== null) workExtras.title = work.title;
  const aliases = work.names.filter((n) => n.alias).map((n) => n.urn);
  if (aliases.length > 0) workExtras.aliases = aliases;
  const take = once(workExtras);
  let wrote = false;
  for (const e of work.expressions) {
    const takeInForce = once(e.inForce === null ? {} : { inForce: e.inForce });
    const unversioned = e.key.version === null;
    let exprWrote = false;
    for (const m of e.manifestations) {
      // Only a manifestation with a URN of its own ('$') can carry a depth (row.ts).
      const takeDepth = once(m.partitionDepth === null ? {} : { partitionDepth: m.partitionDepth });
      if (m.items.length === 0) {
        yield { urn: m.urn, ...takeInForce(), ...takeDepth(), ...take() };
        exprWrote = true;
        continue;
      }
      for (const item of m.items) {
        yield {
          urn: m.urn,
          url: item.url,
          priority: item.priority,
          ...takeInForce(),
          ...takeDepth(),
          ...take(),
        };
        exprWrote = true;
      }
    }
    // An expression with no manifestation: only a versioned one has a URN of its own.
    if (!exprWrote && !unversioned) {
      yield { urn: e.urn, ...takeInForce(), ...take() };
      exprWrote = true;
    }
    wrote ||= exprWrote;
  }
  if (!wrote) yield { urn: work.urn, ...take() };
}

/** `partition_depth` comes last, so readers of the earlier six columns by position still work. */
export const CSV_HEADER = [
  'urn',
  'url',
  'priority',
  'in_force',
  'title',
  'aliases',
  'partition_depth',
];

/** One export row as a line of the format, newline included. */
function formatRow(r: ExportRow, format: RowFormat): string {
  if (format === 'jsonl') return `${JSON.stringify(r)}\n`;
  return `${formatCsvRecord([
    r.urn,
    r.url ?? '',
    r.priority === undefined ? '' : String(r.priority),
    r.inForce ?? '',
    r.title ?? '',
    (r.aliases ?? []).join(' '),
    r.partitionDepth === undefined ? '' : String(r.partitionDepth),
  ])}\n`;
}

/** Write the catalogue through `write` (called once per line, newline included). */
export function exportCatalogue(
  store: SqliteCatalogue,
  format: RowFormat,
  write: (line: string) => void,
): number {
  let n = 0;
  if (format === 'csv') write(`${CSV_HEADER.join(',')}\n`);
  for (const r of exportRows(store)) {
    n++;
    write(formatRow(r, format));
  }
  return n;
}

/** The same for works read asynchronously (the PostgreSQL store's `works()`). */
export async function exportWorks(
  works: AsyncIterable<CatalogueWork>,
  format: RowFormat,
  write: (line: string) => void,
): Promise<number> {
  let n = 0;
  if (format === 'csv') write(`${CSV_HEADER.join(',')}\n`);
  for await (const w of works) {
    for (const r of workRows(w)) {
      n++;
      write(formatRow(r, format));
    }
  }
  return n;
}
