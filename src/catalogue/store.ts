/**
 * The catalogue in one SQLite file, through `node:sqlite` (built into Node
 * 24, no native build). Implements the matcher's `CatalogueReader` by index
 * lookups and the writes of `lexroute catalogue import`.
 *
 * Schema (FRBR, RFC 9676 section 5.2; every URN and part canonical):
 *
 *     works(id, urn, title)                             -- urn: the canonical name
 *     names(id, urn UNIQUE, work_id, alias, jurisdiction, authority, measure,
 *           dates, period, year, numbers, annexes)      -- canonical name + aliases
 *     name_numbers(jurisdiction, number, work_id)       -- names with several numbers: one row per number
 *     expressions(id, work_id, version, language, version_date, in_force)
 *     manifestations(id, expression_id, editor, format, component, feature)
 *     items(manifestation_id, url, priority)
 *
 * Absent optional parts are stored as '' so UNIQUE constraints see them
 * (SQLite treats NULLs as distinct), and read back as null.
 *
 * @see RFC 9676 section 10.2: "the implementation of a catalogue, based on a
 *   relational database, is suggested".
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type {
  CandidateName,
  CandidateQuery,
  CatalogueExpression,
  CatalogueManifestation,
  CatalogueName,
  CatalogueReader,
  CatalogueWork,
  ExpressionKey,
  ManifestationKey,
  WorkKey,
} from '../core/catalogue/model.ts';
import type { CatalogueRow, RowError } from '../core/catalogue/row.ts';
import { expressionUrn, manifestationUrn } from '../core/catalogue/compose.ts';

export const SCHEMA_VERSION = 1;

/** Indexes only the resolver's lookups need: dropped during a bulk load into an empty catalogue, built once after. */
const SECONDARY_INDEXES = `
CREATE INDEX IF NOT EXISTS names_work ON names(work_id);
CREATE INDEX IF NOT EXISTS names_number ON names(jurisdiction, numbers);
CREATE INDEX IF NOT EXISTS names_year ON names(jurisdiction, year, measure);
`;
const DROP_SECONDARY_INDEXES = `
DROP INDEX IF EXISTS names_work;
DROP INDEX IF EXISTS names_number;
DROP INDEX IF EXISTS names_year;
DROP INDEX IF EXISTS names_authority_measure;
`;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS works (
  id INTEGER PRIMARY KEY,
  urn TEXT NOT NULL,
  title TEXT
);
CREATE TABLE IF NOT EXISTS names (
  id INTEGER PRIMARY KEY,
  urn TEXT NOT NULL UNIQUE,
  work_id INTEGER NOT NULL REFERENCES works(id),
  alias INTEGER NOT NULL,
  jurisdiction TEXT NOT NULL,
  authority TEXT NOT NULL,
  measure TEXT NOT NULL,
  dates TEXT NOT NULL,
  period TEXT NOT NULL,
  year TEXT NOT NULL,
  numbers TEXT NOT NULL,
  annexes TEXT NOT NULL
);
${SECONDARY_INDEXES}
CREATE TABLE IF NOT EXISTS name_numbers (
  jurisdiction TEXT NOT NULL,
  number TEXT NOT NULL,
  work_id INTEGER NOT NULL,
  PRIMARY KEY (jurisdiction, number, work_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS expressions (
  id INTEGER PRIMARY KEY,
  work_id INTEGER NOT NULL REFERENCES works(id),
  version TEXT NOT NULL,
  language TEXT NOT NULL,
  version_date TEXT,
  in_force TEXT,
  UNIQUE (work_id, version, language)
);
CREATE TABLE IF NOT EXISTS manifestations (
  id INTEGER PRIMARY KEY,
  expression_id INTEGER NOT NULL REFERENCES expressions(id),
  editor TEXT NOT NULL,
  format TEXT NOT NULL,
  component TEXT NOT NULL,
  feature TEXT NOT NULL,
  UNIQUE (expression_id, editor, format, component, feature)
);
CREATE TABLE IF NOT EXISTS items (
  manifestation_id INTEGER NOT NULL REFERENCES manifestations(id),
  url TEXT NOT NULL,
  priority INTEGER NOT NULL,
  PRIMARY KEY (manifestation_id, url)
) WITHOUT ROWID;
`;

/** A catalogue problem at the storage edge (bad file, wrong schema). */
export class CatalogueError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CatalogueError';
    this.code = code;
  }
}

const nul = (s: string): string | null => (s === '' ? null : s);
const splitList = (s: string, sep: string): string[] => (s === '' ? [] : s.split(sep));

interface NameRow {
  urn: string;
  work_id: number;
  alias: number;
  jurisdiction: string;
  authority: string;
  measure: string;
  dates: string;
  period: string;
  numbers: string;
  annexes: string;
}

interface ContentRow {
  version: string;
  language: string;
  version_date: string | null;
  in_force: string | null;
  mid: number | null;
  editor: string | null;
  format: string | null;
  component: string | null;
  feature: string | null;
  url: string | null;
  priority: number | null;
}

function keyOfName(r: NameRow): WorkKey {
  return {
    jurisdiction: r.jurisdiction,
    authority: r.authority,
    measure: r.measure,
    dates: splitList(r.dates, ','),
    period: nul(r.period),
    numbers: splitList(r.numbers, ','),
    annexes: splitList(r.annexes, ':'),
  };
}

function yearOf(key: WorkKey): string {
  const d = key.dates[0];
  if (d !== undefined) return d.slice(0, 4);
  return key.period !== null && /^\d{4}$/.test(key.period) ? key.period : '';
}

export interface OpenOptions {
  /** Open read-only (the resolver); the file must exist. */
  readonly readOnly?: boolean;
}

/** The SQLite catalogue: reader for the matcher, writer for imports. */
export class SqliteCatalogue implements CatalogueReader {
  readonly db: DatabaseSync;
  readonly path: string;
  readonly #s: Record<string, StatementSync>;

  constructor(path: string, options: OpenOptions = {}) {
    this.path = path;
    if (!options.readOnly && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    try {
      this.db = new DatabaseSync(path, { readOnly: options.readOnly ?? false });
      this.db.exec('PRAGMA busy_timeout = 5000');
      if (!options.readOnly) {
        // WAL: readers (a running resolver) are not blocked by an import.
        this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
        this.db.exec(SCHEMA);
        this.db
          .prepare("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)")
          .run(String(SCHEMA_VERSION));
      }
      const row = this.db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as
        { value: string } | undefined;
      if (row?.value !== String(SCHEMA_VERSION)) {
        throw new CatalogueError(
          'CATALOGUE_SCHEMA',
          `${path}: catalogue schema ${row?.value ?? 'missing'}, this lexroute reads schema ${SCHEMA_VERSION}`,
        );
      }
    } catch (e) {
      if (e instanceof CatalogueError) throw e;
      throw new CatalogueError(
        'CATALOGUE_OPEN',
        `${path}: cannot open the catalogue: ${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    }
    // Lookups touch a few pages of several B-trees: memory-map the file (up to
    // 1 GiB) so page reads are memory reads, not read() calls.
    this.db.exec(
      'PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY; PRAGMA mmap_size = 1073741824;',
    );
    const p = (sql: string) => this.db.prepare(sql);
    this.#s = {
      // Every name of the work that has this name (one query for the exact-match path).
      namesByName: p(
        `SELECT n.urn, n.work_id, n.alias, n.jurisdiction, n.authority, n.measure, n.dates, n.period, n.numbers, n.annexes
           FROM names k JOIN names n ON n.work_id = k.work_id
          WHERE k.urn = ? ORDER BY n.alias, n.urn`,
      ),
      names: p(
        'SELECT urn, work_id, alias, jurisdiction, authority, measure, dates, period, numbers, annexes FROM names WHERE work_id = ? ORDER BY alias, urn',
      ),
      // The work row and all its content in one query.
      content: p(
        `SELECT w.urn AS wurn, w.title, e.id AS eid, e.version, e.language, e.version_date, e.in_force,
                m.id AS mid, m.editor, m.format, m.component, m.feature, i.url, i.priority
           FROM works w
           LEFT JOIN expressions e ON e.work_id = w.id
           LEFT JOIN manifestations m ON m.expression_id = e.id
           LEFT JOIN items i ON i.manifestation_id = m.id
          WHERE w.id = ?
          ORDER BY e.id, m.id, i.priority, i.url`,
      ),
      byNumber: p(
        `SELECT work_id FROM names WHERE jurisdiction = ? AND numbers = ?
         UNION SELECT work_id FROM name_numbers WHERE jurisdiction = ? AND number = ? LIMIT ?`,
      ),
      byYear: p(
        'SELECT DISTINCT work_id FROM names WHERE jurisdiction = ? AND year = ? AND (measure = ? OR authority = ?) LIMIT ?',
      ),
      // No number, no year: names with the same period (their year is '').
      byPeriod: p(
        "SELECT DISTINCT work_id FROM names WHERE jurisdiction = ? AND year = '' AND period = ? LIMIT ?",
      ),
      namesOfWork: p(
        'SELECT urn, work_id, alias, jurisdiction, authority, measure, dates, period, numbers, annexes FROM names WHERE work_id = ?',
      ),
      dataVersion: p('PRAGMA data_version'),
      count: p(
        'SELECT (SELECT count(*) FROM works) AS works, (SELECT count(*) FROM names WHERE alias = 1) AS aliases, (SELECT count(*) FROM expressions) AS expressions, (SELECT count(*) FROM manifestations) AS manifestations, (SELECT count(*) FROM items) AS items',
      ),
    };
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  /**
   * Changes when another connection (an import) commits to the file: a
   * resolver drops its response cache when this moves.
   * @see https://sqlite.org/pragma.html#pragma_data_version
   */
  dataVersion(): number {
    return (this.#s.dataVersion!.get() as { data_version: number }).data_version;
  }

  byName(workUrn: string): CatalogueWork | undefined {
    const rows = this.#s.namesByName!.all(workUrn) as unknown as NameRow[];
    const first = rows[0];
    return first ? this.#load(first.work_id, rows) : undefined;
  }

  candidates(q: CandidateQuery): readonly CandidateName[] {
    const ids = new Set<number>();
    const add = (rows: unknown[]) => {
      for (const r of rows as { work_id: number }[]) if (ids.size < q.limit) ids.add(r.work_id);
    };
    if (q.numbers.length > 0) {
      for (const n of q.numbers) {
        add(this.#s.byNumber!.all(q.jurisdiction, n, q.jurisdiction, n, q.limit));
      }
    } else if (q.year !== null) {
      add(this.#s.byYear!.all(q.jurisdiction, q.year, q.measure, q.authority, q.limit));
    } else {
      add(this.#s.byPeriod!.all(q.jurisdiction, q.period ?? '', q.limit));
    }
    const out: CandidateName[] = [];
    for (const id of ids) {
      for (const r of this.#s.namesOfWork!.all(id) as unknown as NameRow[]) {
        out.push({ workId: id, name: { urn: r.urn, key: keyOfName(r), alias: r.alias === 1 } });
      }
    }
    return out;
  }

  /** The whole work: names, expressions, manifestations, items. */
  work(id: number): CatalogueWork | undefined {
    return this.#load(id, this.#s.names!.all(id) as unknown as NameRow[]);
  }

  #load(id: number, nameRows: readonly NameRow[]): CatalogueWork | undefined {
    const rows = this.#s.content!.all(id) as unknown as (ContentRow & {
      wurn: string;
      title: string | null;
      eid: number | null;
    })[];
    const head = rows[0];
    if (!head) return undefined;
    const workUrn = head.wurn;
    const names: CatalogueName[] = nameRows.map((r) => ({
      urn: r.urn,
      key: keyOfName(r),
      alias: r.alias === 1,
    }));
    const expressions: CatalogueExpression[] = [];
    let ex:
      | {
          urn: string;
          key: ExpressionKey;
          inForce: string | null;
          manifestations: CatalogueManifestation[];
          id: number;
        }
      | undefined;
    let man:
      | {
          urn: string;
          key: ManifestationKey;
          items: { url: string; priority: number }[];
          id: number;
        }
      | undefined;
    for (const r of rows) {
      if (r.eid === null) continue;
      if (!ex || ex.id !== r.eid) {
        const key: ExpressionKey = {
          version: nul(r.version),
          versionDate: r.version_date,
          language: nul(r.language),
        };
        ex = {
          id: r.eid,
          urn: expressionUrn(workUrn, key),
          key,
          inForce: r.in_force,
          manifestations: [],
        };
        expressions.push(ex);
        man = undefined;
      }
      if (r.mid === null) continue;
      if (!man || man.id !== r.mid) {
        const key: ManifestationKey = {
          editor: nul(r.editor ?? ''),
          format: nul(r.format ?? ''),
          component: nul(r.component ?? ''),
          feature: nul(r.feature ?? ''),
        };
        man = { id: r.mid, urn: manifestationUrn(ex.urn, key), key, items: [] };
        ex.manifestations.push(man);
      }
      if (r.url !== null) man.items.push({ url: r.url, priority: r.priority ?? 0 });
    }
    return { id, urn: workUrn, title: head.title, names, expressions };
  }

  /** Every work id in insertion order (for export). */
  *workIds(): Generator<number> {
    for (const r of this.db.prepare('SELECT id FROM works ORDER BY id').iterate()) {
      yield (r as { id: number }).id;
    }
  }

  counts(): {
    works: number;
    aliases: number;
    expressions: number;
    manifestations: number;
    items: number;
  } {
    return this.#s.count!.get() as never;
  }

  /**
   * Prepare a bulk load: a large page cache; when the catalogue is empty,
   * drop the lookup-only indexes (rebuilt by `endBulkLoad`, much faster than
   * growing them row by row) and skip fsync. Returns whether it was empty.
   */
  beginBulkLoad(): boolean {
    // Random inserts into the unique indexes touch pages all over the file: a
    // page cache that holds them keeps a large import from slowing down as it
    // grows (SQLite allocates the cache lazily, up to this bound).
    this.db.exec('PRAGMA cache_size = -1048576; PRAGMA wal_autocheckpoint = 20000;');
    const empty = this.db.prepare('SELECT 1 AS x FROM works LIMIT 1').get() === undefined;
    if (empty) {
      // Nothing to lose yet: no fsync until the load ends (a power cut loses
      // only this import, which can be run again: imports are idempotent).
      this.db.exec('PRAGMA synchronous = OFF');
      this.db.exec(DROP_SECONDARY_INDEXES);
    }
    return empty;
  }

  /** Rebuild whatever `beginBulkLoad` dropped (idempotent). */
  endBulkLoad(): void {
    this.db.exec(SECONDARY_INDEXES);
    this.db.exec('PRAGMA analysis_limit = 1000; PRAGMA optimize;');
    this.db.exec(
      'PRAGMA cache_size = -65536; PRAGMA wal_autocheckpoint = 1000; PRAGMA synchronous = NORMAL;',
    );
  }

  /** A writer for imports; call inside `transaction`. */
  writer(): CatalogueWriter {
    return new CatalogueWriter(this.db);
  }

  /** Run `fn` in one transaction (rolled back if it throws). */
  transaction<T>(fn: () => T): T {
    this.db.exec('BEGIN');
    try {
      const r = fn();
      this.db.exec('COMMIT');
      return r;
    } catch (e) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw e;
    }
  }
}

/** What one row changed. */
export interface WriteOutcome {
  readonly newWork: boolean;
  readonly newItem: boolean;
}

/** Idempotent writes of validated rows: importing a row twice changes nothing the second time. */
export class CatalogueWriter {
  readonly #s: Record<string, StatementSync>;
  /** Small caches for consecutive rows of one work (a file groups a work's rows). */
  readonly #workIds = new Map<string, number>();
  readonly #exprIds = new Map<string, number>();
  readonly #manIds = new Map<string, number>();

  constructor(db: DatabaseSync) {
    const p = (sql: string) => db.prepare(sql);
    this.#s = {
      findName: p('SELECT work_id, alias FROM names WHERE urn = ?'),
      insertWork: p('INSERT INTO works(urn, title) VALUES (?, ?) RETURNING id'),
      setTitle: p('UPDATE works SET title = ? WHERE id = ? AND (title IS NULL OR title <> ?)'),
      insertName: p(
        `INSERT INTO names(urn, work_id, alias, jurisdiction, authority, measure, dates, period, year, numbers, annexes)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(urn) DO NOTHING`,
      ),
      insertNumber: p(
        'INSERT OR IGNORE INTO name_numbers(jurisdiction, number, work_id) VALUES (?, ?, ?)',
      ),
      upsertExpression: p(
        `INSERT INTO expressions(work_id, version, language, version_date, in_force) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(work_id, version, language) DO UPDATE SET in_force = coalesce(excluded.in_force, in_force)
         RETURNING id`,
      ),
      upsertManifestation: p(
        `INSERT INTO manifestations(expression_id, editor, format, component, feature) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(expression_id, editor, format, component, feature) DO UPDATE SET editor = excluded.editor
         RETURNING id`,
      ),
      insertItem: p(
        'INSERT OR IGNORE INTO items(manifestation_id, url, priority) VALUES (?, ?, ?)',
      ),
      updateItem: p(
        'UPDATE items SET priority = ? WHERE manifestation_id = ? AND url = ? AND priority <> ?',
      ),
    };
  }

  #lookup(urn: string): { work_id: number; alias: number } | undefined {
    return this.#s.findName!.get(urn) as { work_id: number; alias: number } | undefined;
  }

  #insertName(urn: string, key: WorkKey, workId: number, alias: boolean): void {
    this.#s.insertName!.run(
      urn,
      workId,
      alias ? 1 : 0,
      key.jurisdiction,
      key.authority,
      key.measure,
      key.dates.join(','),
      key.period ?? '',
      yearOf(key),
      key.numbers.join(','),
      key.annexes.join(':'),
    );
    // A single number is found through the names_number index; several get a row each.
    if (key.numbers.length > 1) {
      for (const n of key.numbers) this.#s.insertNumber!.run(key.jurisdiction, n, workId);
    }
  }

  /**
   * Write one validated row. Conflicts are found before anything is written,
   * so a rejected row leaves the catalogue untouched.
   */
  write(row: CatalogueRow): { ok: true; outcome: WriteOutcome } | { ok: false; error: RowError } {
    // The row's work: known by its name (canonical or alias), or new.
    let workId = this.#workIds.get(row.work.urn);
    let newWork = false;
    if (workId === undefined) workId = this.#lookup(row.work.urn)?.work_id;
    // Aliases: each must be new or already name this same work.
    const newAliases: (typeof row.aliases)[number][] = [];
    for (const a of row.aliases) {
      const found = this.#lookup(a.urn);
      if (!found) newAliases.push(a);
      else if (workId === undefined || found.work_id !== workId) {
        return {
          ok: false,
          error: {
            code: 'ALIAS_CONFLICT',
            message: `alias ${a.urn} already names another work of the catalogue`,
            field: 'aliases',
          },
        };
      }
    }
    if (workId === undefined) {
      workId = (this.#s.insertWork!.get(row.work.urn, row.title) as { id: number }).id;
      this.#insertName(row.work.urn, row.work.key, workId, false);
      newWork = true;
    } else if (row.title !== null) {
      this.#s.setTitle!.run(row.title, workId, row.title);
    }
    if (this.#workIds.size > 10_000) this.#workIds.clear();
    this.#workIds.set(row.work.urn, workId);
    for (const a of newAliases) this.#insertName(a.urn, a.key, workId, true);

    const needsExpression =
      row.expression !== null || row.manifestation !== null || row.item !== null;
    if (!needsExpression) return { ok: true, outcome: { newWork, newItem: false } };
    const version = row.expression?.version ?? '';
    const language = row.expression?.language ?? '';
    const exprKey = `${workId}\u0000${version}\u0000${language}`;
    let exprId = row.inForce === null ? this.#exprIds.get(exprKey) : undefined;
    if (exprId === undefined) {
      exprId = (
        this.#s.upsertExpression!.get(
          workId,
          version,
          language,
          row.expression?.versionDate ?? null,
          row.inForce,
        ) as {
          id: number;
        }
      ).id;
      if (this.#exprIds.size > 10_000) this.#exprIds.clear();
      this.#exprIds.set(exprKey, exprId);
    }
    if (row.manifestation === null && row.item === null)
      return { ok: true, outcome: { newWork, newItem: false } };
    const m = row.manifestation;
    const manKey = `${exprId}\u0000${m?.editor ?? ''}\u0000${m?.format ?? ''}\u0000${m?.component ?? ''}\u0000${m?.feature ?? ''}`;
    let manId = this.#manIds.get(manKey);
    if (manId === undefined) {
      manId = (
        this.#s.upsertManifestation!.get(
          exprId,
          m?.editor ?? '',
          m?.format ?? '',
          m?.component ?? '',
          m?.feature ?? '',
        ) as { id: number }
      ).id;
      if (this.#manIds.size > 10_000) this.#manIds.clear();
      this.#manIds.set(manKey, manId);
    }
    if (row.item === null) return { ok: true, outcome: { newWork, newItem: false } };
    const { url, priority } = row.item;
    const added = Number(this.#s.insertItem!.run(manId, url, priority).changes) > 0;
    if (!added) this.#s.updateItem!.run(priority, manId, url, priority);
    return { ok: true, outcome: { newWork, newItem: added } };
  }
}
