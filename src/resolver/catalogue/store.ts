/**
 * The catalogue in one SQLite file, through `node:sqlite` (built into Node
 * 24, no native build). Implements the matcher's `CatalogueReader` by index
 * lookups and the writes of `lexroute catalogue import`.
 *
 * Schema 3 (FRBR, RFC 9676 sections 5.2 and 10.2; every URN and part
 * canonical): `works` (one document per work, ./doc.ts), `lookup` (every
 * name -> its work), `names` (the parts partial matching searches by; absent
 * parts as ''), `name_numbers` (one row per number of a name with several),
 * `meta` (schema version, counts), `registry`. An exact match is one
 * statement: `lookup`, then `works` by integer key, and one `JSON.parse`.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type {
  CandidateName,
  CandidateQuery,
  CatalogueReader,
  CatalogueWork,
  ExpressionKey,
  ManifestationKey,
  MutableExpression,
  MutableManifestation,
  MutableWork,
  WorkKey,
} from '../core/model.ts';
import type { CatalogueRow, RowError } from '../core/row.ts';
import { CatalogueError, type CatalogueCode } from './codes.ts';

export { CatalogueError };
import type { RowErrorCode } from '../core/codes.ts';
import type { RegistryEntry, RegistryKind } from '../core/registry.ts';
import { EMPTY_MANIFESTATION, expressionUrn, manifestationUrn } from '../core/compose.ts';
import { sameManifestation } from '../core/match.ts';
import { compareBinary, decodeWork, encodeWork } from './doc.ts';

export const SCHEMA_VERSION = 3;

/** The registries' table (schema 3): one row per entry, its labels as a JSON document. */
const REGISTRY_TABLE = `
CREATE TABLE IF NOT EXISTS registry (
  kind TEXT NOT NULL,
  code TEXT NOT NULL,
  doc TEXT NOT NULL,
  PRIMARY KEY (kind, code)
) WITHOUT ROWID;
`;

/**
 * `SQLITE_MIGRATIONS[v]` takes a catalogue from schema v to v + 1 when a
 * writer opens it. Schema 1 (before the work documents) has none: export and import again.
 */
const SQLITE_MIGRATIONS: Readonly<Record<number, string>> = {
  // 2 -> 3: registries for normalisation.
  2: REGISTRY_TABLE,
};

/** Indexes only partial matching needs: dropped during a bulk load into an empty catalogue, built once after. */
const SECONDARY_INDEXES = `
CREATE INDEX IF NOT EXISTS names_number ON names(jurisdiction, numbers);
CREATE INDEX IF NOT EXISTS names_year ON names(jurisdiction, year, measure);
`;
const DROP_SECONDARY_INDEXES = `
DROP INDEX IF EXISTS names_number;
DROP INDEX IF EXISTS names_year;
`;

export const COUNTS = ['works', 'aliases', 'expressions', 'manifestations', 'items'] as const;
export type Counts = Record<(typeof COUNTS)[number], number>;

/** The counts in `meta` rows (`count.works`, ...; other keys ignored). */
export function countsFromMeta(rows: readonly { key: string; value: string }[]): Counts {
  const out = zeroCounts();
  for (const r of rows) {
    const k = r.key.slice(6);
    if (r.key.startsWith('count.') && k in out) out[k as keyof Counts] = Number(r.value);
  }
  return out;
}

export function zeroCounts(): Counts {
  return { works: 0, aliases: 0, expressions: 0, manifestations: 0, items: 0 };
}

/** The `names` columns after `work_id` for one name (absent parts as ''). */
export function nameColumns(key: WorkKey): string[] {
  const { jurisdiction, authority, measure, period, numbers } = key;
  return [jurisdiction, authority, measure, period ?? '', yearOf(key), numbers.join(',')];
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS works (
  id INTEGER PRIMARY KEY,
  doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS lookup (
  urn TEXT PRIMARY KEY,
  work_id INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS names (
  work_id INTEGER NOT NULL,
  jurisdiction TEXT NOT NULL,
  authority TEXT NOT NULL,
  measure TEXT NOT NULL,
  period TEXT NOT NULL,
  year TEXT NOT NULL,
  numbers TEXT NOT NULL
);
${SECONDARY_INDEXES}
${REGISTRY_TABLE}
CREATE TABLE IF NOT EXISTS name_numbers (
  jurisdiction TEXT NOT NULL,
  number TEXT NOT NULL,
  work_id INTEGER NOT NULL,
  PRIMARY KEY (jurisdiction, number, work_id)
) WITHOUT ROWID;
`;

/** The stored form of a registry entry's labels. */
export function registryDoc(e: RegistryEntry): string {
  return JSON.stringify([e.label, e.altLabels, e.acronyms, e.broader]);
}

export function registryFromRow(kind: string, code: string, doc: string): RegistryEntry {
  const [label, altLabels, acronyms, broader] = JSON.parse(doc) as [
    string,
    string[],
    string[],
    string | null,
  ];
  return { kind: kind as RegistryKind, code, label, altLabels, acronyms, broader };
}

/** One entry per kind and code (a vocabulary may list a code twice: labels merged). */
export function mergeRegistryEntries(entries: readonly RegistryEntry[]): RegistryEntry[] {
  const out = new Map<string, RegistryEntry>();
  for (const e of entries) {
    const key = `${e.kind}\n${e.code}`;
    const prev = out.get(key);
    out.set(
      key,
      prev === undefined
        ? e
        : {
            ...prev,
            altLabels: [
              ...new Set([
                ...prev.altLabels,
                ...e.altLabels,
                ...(e.label !== prev.label ? [e.label] : []),
              ]),
            ],
            acronyms: [...new Set([...prev.acronyms, ...e.acronyms])],
            broader: prev.broader ?? e.broader,
          },
    );
  }
  return [...out.values()];
}

export function yearOf(key: WorkKey): string {
  const d = key.dates[0];
  if (d !== undefined) return d.slice(0, 4);
  return key.period !== null && /^\d{4}$/.test(key.period) ? key.period : '';
}

export interface OpenOptions {
  /** Open read-only (the resolver); the file must exist. */
  readonly readOnly?: boolean;
  /**
   * Writable open of a file without a catalogue: create the schema (default
   * true), or refuse it with CATALOGUE_SCHEMA (export opens writable: a
   * read-only connection leaves the -wal and -shm files behind).
   */
  readonly create?: boolean;
}

/** Run `fn` in a BEGIN IMMEDIATE transaction of its own (rolled back if it throws). */
function immediate(db: DatabaseSync, fn: () => void): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    fn();
    db.exec('COMMIT');
  } catch (e) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw e;
  }
}

/** A prepared statement; `arrays`: its rows as arrays (no object per row). */
function prepare(db: DatabaseSync, sql: string, arrays: boolean): StatementSync {
  const st = db.prepare(sql);
  if (arrays) st.setReturnArrays(true);
  return st;
}

/** The SQLite catalogue: reader for the matcher, writer for imports. */
export class SqliteCatalogue implements CatalogueReader {
  readonly db: DatabaseSync;
  readonly path: string;
  readonly #byName: StatementSync;
  readonly #byId: StatementSync;
  readonly #byNumber: StatementSync;
  readonly #byYear: StatementSync;
  readonly #byPeriod: StatementSync;
  readonly #dataVersion: StatementSync;
  readonly #begin: StatementSync;
  readonly #commit: StatementSync;
  /** A read transaction this store opened and ends after the current turn of the event loop (or the snapshot window). */
  #snapshot = false;
  /** How long (ms) a read snapshot may be shared across turns of the event loop; 0: one turn. */
  #snapshotMs = 0;
  /** Writers holding rows not yet written to the database (flushed before commit and before reads). */
  readonly #pending = new Set<CatalogueWriter>();

  constructor(path: string, options: OpenOptions = {}) {
    this.path = path;
    if (!options.readOnly && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    try {
      this.db = new DatabaseSync(path, { readOnly: options.readOnly ?? false });
      this.db.exec('PRAGMA busy_timeout = 5000');
      if (!options.readOnly) {
        // WAL: readers (a running resolver) are not blocked by an import.
        this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
        const fresh =
          this.db.prepare("SELECT 1 AS x FROM sqlite_schema WHERE name = 'meta'").get() ===
          undefined;
        if (fresh && options.create === false) {
          throw new CatalogueError('CATALOGUE_SCHEMA', `${path}: not a lexroute catalogue`);
        }
        if (fresh) {
          immediate(this.db, () => {
            this.db.exec(SCHEMA);
            const put = this.db.prepare('INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)');
            put.run('schema', String(SCHEMA_VERSION));
            for (const c of COUNTS) put.run(`count.${c}`, '0');
          });
        }
      }
      this.#checkSchema(path, options.readOnly ?? false);
    } catch (e) {
      if (e instanceof CatalogueError) throw e;
      throw new CatalogueError(
        'CATALOGUE_OPEN',
        `${path}: cannot open the catalogue: ${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    }
    if (!options.readOnly) this.#rebuildMissingIndexes();
    // Memory-mapped (up to 1 GiB): page reads are memory reads, not read() calls.
    this.db.exec(
      'PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY; PRAGMA mmap_size = 1073741824;',
    );
    const p = (sql: string, arrays = true) => prepare(this.db, sql, arrays);
    this.#byName = p(
      'SELECT w.id, w.doc FROM lookup k JOIN works w ON w.id = k.work_id WHERE k.urn = ?',
    );
    this.#byId = p('SELECT doc FROM works WHERE id = ?');
    this.#byNumber = p(
      `SELECT work_id FROM names WHERE jurisdiction = ? AND numbers = ?
       UNION SELECT work_id FROM name_numbers WHERE jurisdiction = ? AND number = ? LIMIT ?`,
    );
    this.#byYear = p(
      'SELECT DISTINCT work_id FROM names WHERE jurisdiction = ? AND year = ? AND (measure = ? OR authority = ?) LIMIT ?',
    );
    // No number, no year: names with the same period (their year is '').
    this.#byPeriod = p(
      "SELECT DISTINCT work_id FROM names WHERE jurisdiction = ? AND year = '' AND period = ? LIMIT ?",
    );
    this.#dataVersion = p('PRAGMA data_version');
    this.#begin = p('BEGIN', false);
    this.#commit = p('COMMIT', false);
  }

  /** Migrate an older schema (a writer), or refuse what this lexroute cannot read. */
  #checkSchema(path: string, readOnly: boolean): void {
    const schema = () =>
      (
        this.db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as
          { value: string } | undefined
      )?.value;
    let v = Number(schema());
    if (v === SCHEMA_VERSION) return;
    const refuse = (why: string) => new CatalogueError('CATALOGUE_SCHEMA', `${path}: ${why}`);
    if (!Number.isInteger(v) || v < 1) throw refuse('no lexroute schema version: not a catalogue');
    if (v > SCHEMA_VERSION) {
      throw refuse(
        `catalogue schema ${v} is newer than this lexroute reads (${SCHEMA_VERSION}); upgrade lexroute`,
      );
    }
    if (SQLITE_MIGRATIONS[v] === undefined) {
      throw refuse(
        `catalogue schema ${v}, this lexroute reads schema ${SCHEMA_VERSION}` +
          ' (export it with the lexroute that wrote it and import the rows into a new file)',
      );
    }
    if (readOnly) {
      throw refuse(
        `catalogue schema ${v}, this lexroute reads schema ${SCHEMA_VERSION}: run lexroute catalogue migrate --catalogue ${path}`,
      );
    }
    immediate(this.db, () => {
      v = Number(schema());
      for (; v < SCHEMA_VERSION; v++) this.db.exec(SQLITE_MIGRATIONS[v] as string);
      this.db.prepare("UPDATE meta SET value = ? WHERE key = 'schema'").run(String(SCHEMA_VERSION));
    });
  }

  /** The registry entries stored in the catalogue. */
  registryEntries(): RegistryEntry[] {
    return (
      this.db.prepare('SELECT kind, code, doc FROM registry ORDER BY kind, code').all() as {
        kind: string;
        code: string;
        doc: string;
      }[]
    ).map((r) => registryFromRow(r.kind, r.code, r.doc));
  }

  /** Replace the registries (one transaction). */
  replaceRegistry(entries: readonly RegistryEntry[]): void {
    this.transaction(() => {
      this.db.exec('DELETE FROM registry');
      const put = this.db.prepare(
        'INSERT OR REPLACE INTO registry(kind, code, doc) VALUES (?, ?, ?)',
      );
      for (const e of mergeRegistryEntries(entries)) put.run(e.kind, e.code, registryDoc(e));
    });
  }

  /** An import by lexroute 0.1 killed mid-load left the partial-matching indexes dropped: built again on open. */
  #rebuildMissingIndexes(): void {
    if (!this.hasPartialMatchIndexes()) this.db.exec(SECONDARY_INDEXES);
  }

  /** True when both partial-matching indexes exist. */
  hasPartialMatchIndexes(): boolean {
    const n = this.db
      .prepare(
        "SELECT count(*) AS n FROM sqlite_schema WHERE type = 'index' AND name IN ('names_number', 'names_year')",
      )
      .get() as { n: number };
    return n.n === 2;
  }

  close(): void {
    this.#endSnapshot();
    if (this.db.isOpen) this.db.close();
  }

  /**
   * Lookups share one read transaction per turn of the event loop (or the
   * snapshot window): starting one costs more than the lookup.
   */
  #read(): void {
    if (this.#pending.size > 0) this.flushWriters();
    if (this.#snapshot || this.db.isTransaction) return;
    this.#begin.run();
    this.#snapshot = true;
    if (this.#snapshotMs > 0) setTimeout(this.#endSnapshot, this.#snapshotMs).unref();
    else setImmediate(this.#endSnapshot);
  }

  /**
   * Let lookups share one read snapshot for up to `ms` milliseconds (0, the
   * default: one turn of the event loop); an import's commit is then seen at
   * most `ms` later. Writes by this store end the snapshot first.
   */
  setSnapshotWindow(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new RangeError(`snapshot window must be a non-negative number of ms, got ${ms}`);
    }
    this.#endSnapshot();
    this.#snapshotMs = ms;
  }

  readonly #endSnapshot = (): void => {
    if (!this.#snapshot) return;
    this.#snapshot = false;
    if (this.db.isOpen && this.db.isTransaction) this.#commit.run();
  };

  /** Changes when another connection (an import) commits to the file (`PRAGMA data_version`). */
  dataVersion(): number {
    // Outside this turn's snapshot, which would hide a newer commit.
    this.#endSnapshot();
    return (this.#dataVersion.get() as unknown as [number])[0];
  }

  byName(workUrn: string): CatalogueWork | undefined {
    this.#read();
    const r = this.#byName.get(workUrn) as unknown as [number, string] | undefined;
    return r === undefined ? undefined : decodeWork(r[0], r[1]);
  }

  candidates(q: CandidateQuery): readonly CandidateName[] {
    this.#read();
    const ids = new Set<number>();
    const add = (rows: unknown[]) => {
      for (const r of rows as [number][]) if (ids.size < q.limit) ids.add(r[0]);
    };
    if (q.numbers.length > 0) {
      for (const n of q.numbers) {
        add(this.#byNumber.all(q.jurisdiction, n, q.jurisdiction, n, q.limit));
      }
    } else if (q.year !== null) {
      add(this.#byYear.all(q.jurisdiction, q.year, q.measure, q.authority, q.limit));
    } else {
      add(this.#byPeriod.all(q.jurisdiction, q.period ?? '', q.limit));
    }
    const out: CandidateName[] = [];
    for (const id of ids) {
      const r = this.#byId.get(id) as unknown as [string] | undefined;
      if (r === undefined) continue;
      // Names in the order they were added (as the rows of schema 1 came back).
      for (const name of decodeWork(id, r[0], true).names) out.push({ workId: id, name });
    }
    return out;
  }

  /** The whole work: names, expressions, manifestations, items. */
  work(id: number): CatalogueWork | undefined {
    this.#read();
    const r = this.#byId.get(id) as unknown as [string] | undefined;
    return r === undefined ? undefined : decodeWork(id, r[0]);
  }

  /** Every work id in insertion order (for export). */
  *workIds(): Generator<number> {
    if (this.#pending.size > 0) this.flushWriters();
    for (const r of this.db.prepare('SELECT id FROM works ORDER BY id').iterate()) {
      yield (r as { id: number }).id;
    }
  }

  counts(): Counts {
    if (this.#pending.size > 0) this.flushWriters();
    const rows = this.db.prepare("SELECT key, value FROM meta WHERE key LIKE 'count.%'").all();
    return countsFromMeta(rows as { key: string; value: string }[]);
  }

  /** True while `beginImport` dropped the partial-matching indexes (rebuilt before its commit). */
  #importDroppedIndexes = false;

  /**
   * Start an import: one write transaction for the whole file. Into an empty
   * catalogue the partial-matching indexes are dropped inside it and built
   * once before the commit (a kill -9 rolls the drop back with the rows).
   */
  beginImport(): void {
    this.#endSnapshot();
    this.db.exec('PRAGMA cache_size = -1048576; PRAGMA wal_autocheckpoint = 0;');
    const emptyBefore = this.db.prepare('SELECT 1 AS x FROM works LIMIT 1').get() === undefined;
    // Into an empty catalogue there is nothing to lose on a power cut: no fsync until the end.
    if (emptyBefore) this.db.exec('PRAGMA synchronous = OFF');
    this.db.exec('BEGIN IMMEDIATE');
    const empty = this.db.prepare('SELECT 1 AS x FROM works LIMIT 1').get() === undefined;
    if (empty) this.db.exec(DROP_SECONDARY_INDEXES);
    this.#importDroppedIndexes = empty;
  }

  /** Rebuild the indexes (if dropped) and commit the import. */
  commitImport(): void {
    this.flushWriters();
    if (this.#importDroppedIndexes) this.db.exec(SECONDARY_INDEXES);
    this.#importDroppedIndexes = false;
    this.db.exec('COMMIT');
    this.db.exec('PRAGMA analysis_limit = 1000; PRAGMA optimize;');
    this.#endImport();
  }

  rollbackImport(): void {
    this.rollback();
    this.#importDroppedIndexes = false;
    this.#endImport();
  }

  #endImport(): void {
    this.db.exec(
      'PRAGMA cache_size = -65536; PRAGMA wal_autocheckpoint = 1000; PRAGMA synchronous = NORMAL;',
    );
  }

  /** A writer for imports; its rows reach the database at `commit` (or the end of `transaction`). */
  writer(): CatalogueWriter {
    return new CatalogueWriter(new SqliteWriterBackend(this.db, this));
  }

  /** Start a write transaction (taking the write lock now, so the documents read in it stay current). */
  begin(): void {
    this.#endSnapshot();
    this.db.exec('BEGIN IMMEDIATE');
  }

  /** Write what the writers hold and commit. */
  commit(): void {
    this.flushWriters();
    this.db.exec('COMMIT');
  }

  /** Drop what the writers hold and roll back. */
  rollback(): void {
    for (const w of this.#pending) w.discard();
    this.#pending.clear();
    if (this.db.isTransaction) this.db.exec('ROLLBACK');
  }

  /** Run `fn` in one transaction (rolled back if it throws). */
  transaction<T>(fn: () => T): T {
    this.begin();
    try {
      const r = fn();
      this.commit();
      return r;
    } catch (e) {
      this.rollback();
      throw e;
    }
  }

  /** @internal A writer holds rows to write. */
  markPending(w: CatalogueWriter): void {
    this.#pending.add(w);
  }

  /** Write every writer's held rows (inside the current transaction, or in one of their own). */
  flushWriters(): void {
    if (this.#pending.size === 0) return;
    const flush = () => {
      for (const w of this.#pending) w.flush();
      this.#pending.clear();
    };
    if (this.db.isTransaction) flush();
    else immediate(this.db, flush);
  }
}

/** Changed works held in memory before the writer writes them (inside the current transaction). */
const FLUSH_WORKS = 64;

/** What one row changed. */
export interface WriteOutcome {
  readonly newWork: boolean;
  readonly newItem: boolean;
}

/** A work the writer changed, with what is still to be written. */
interface Pending {
  readonly work: MutableWork;
  /** Not in the database yet (its id is assigned when written). */
  readonly isNew: boolean;
}

interface CatalogueNameWrite {
  readonly urn: string;
  readonly key: WorkKey;
  readonly alias: boolean;
}

/**
 * Where a `CatalogueWriter` reads stored works and writes changed ones,
 * synchronously (the PostgreSQL import answers from its batch's prefetch and buffers for COPY).
 */
export interface WriterBackend {
  /** The id of the stored work with this name; undefined when none. */
  findName(urn: string): number | undefined;
  /** The stored document of a work. */
  loadWork(id: number): string | undefined;
  /** Store a new work; returns its id. */
  insertWork(doc: string): number;
  updateWork(doc: string, id: number): void;
  /** Store a name (lookup row, partial-matching row, one row per number when several). */
  insertName(urn: string, id: number, key: WorkKey): void;
  addCounts(counts: Readonly<Counts>): void;
  /** Inside a transaction: held rows are written at flushes; outside: after each row. */
  inTransaction(): boolean;
  /** The writer holds rows (the store flushes it before reads and commit). */
  markPending(w: CatalogueWriter): void;
  /** Write every pending writer now, in a transaction of its own. */
  flushPending(): void;
}

/** The SQLite side of a writer: prepared statements run at once. */
class SqliteWriterBackend implements WriterBackend {
  readonly #db: DatabaseSync;
  readonly #store: SqliteCatalogue;
  readonly #findName: StatementSync;
  readonly #loadWork: StatementSync;
  readonly #insertWork: StatementSync;
  readonly #updateWork: StatementSync;
  readonly #insertLookup: StatementSync;
  readonly #insertName: StatementSync;
  readonly #insertNumber: StatementSync;
  readonly #addCount: StatementSync;

  constructor(db: DatabaseSync, store: SqliteCatalogue) {
    this.#db = db;
    this.#store = store;
    const p = (sql: string, arrays = false) => prepare(db, sql, arrays);
    this.#findName = p('SELECT work_id FROM lookup WHERE urn = ?', true);
    this.#loadWork = p('SELECT doc FROM works WHERE id = ?', true);
    this.#insertWork = p('INSERT INTO works(doc) VALUES (?) RETURNING id', true);
    this.#updateWork = p('UPDATE works SET doc = ? WHERE id = ?');
    this.#insertLookup = p('INSERT INTO lookup(urn, work_id) VALUES (?, ?)');
    this.#insertName = p(
      'INSERT INTO names(work_id, jurisdiction, authority, measure, period, year, numbers) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.#insertNumber = p(
      'INSERT OR IGNORE INTO name_numbers(jurisdiction, number, work_id) VALUES (?, ?, ?)',
    );
    this.#addCount = p(
      'UPDATE meta SET value = CAST(CAST(value AS INTEGER) + ? AS TEXT) WHERE key = ?',
    );
  }

  findName(urn: string): number | undefined {
    return (this.#findName.get(urn) as unknown as [number] | undefined)?.[0];
  }
  loadWork(id: number): string | undefined {
    return (this.#loadWork.get(id) as unknown as [string] | undefined)?.[0];
  }
  insertWork(doc: string): number {
    return (this.#insertWork.get(doc) as unknown as [number])[0];
  }
  updateWork(doc: string, id: number): void {
    this.#updateWork.run(doc, id);
  }
  insertName(urn: string, id: number, key: WorkKey): void {
    this.#insertLookup.run(urn, id);
    this.#insertName.run(id, ...nameColumns(key));
    // A single number is found through the names_number index; several get a row each.
    if (key.numbers.length > 1) {
      for (const n of key.numbers) this.#insertNumber.run(key.jurisdiction, n, id);
    }
  }
  addCounts(counts: Readonly<Counts>): void {
    for (const c of COUNTS) if (counts[c] !== 0) this.#addCount.run(counts[c], `count.${c}`);
  }
  inTransaction(): boolean {
    return this.#db.isTransaction;
  }
  markPending(w: CatalogueWriter): void {
    this.#store.markPending(w);
  }
  flushPending(): void {
    this.#store.flushWriters();
  }
}

/**
 * Idempotent writes of validated rows (a row imported twice changes nothing
 * the second time); `flush` writes each changed work's document once.
 */
export class CatalogueWriter {
  readonly #backend: WriterBackend;
  /** Works changed since the last flush, by every one of their names. */
  readonly #byName = new Map<string, Pending>();
  /** The same works, in the order they were first changed. */
  readonly #order: Pending[] = [];
  /** Names added since the last flush, in order (new works' canonical names and aliases). */
  readonly #names: { pending: Pending; name: CatalogueNameWrite }[] = [];
  readonly #counts = zeroCounts();

  constructor(backend: WriterBackend) {
    this.#backend = backend;
  }

  /** The work that has this name, changed in memory or stored; undefined when none. */
  #find(urn: string): Pending | number | undefined {
    const p = this.#byName.get(urn);
    if (p) return p;
    return this.#backend.findName(urn);
  }

  #open(id: number): Pending {
    const doc = this.#backend.loadWork(id);
    /* c8 ignore next: lookup rows always point at a work */
    if (doc === undefined) {
      throw new CatalogueError('CATALOGUE_CORRUPT', `work ${id} is named but not stored`);
    }
    const pending: Pending = { work: decodeWork(id, doc, true), isNew: false };
    for (const n of pending.work.names) this.#byName.set(n.urn, pending);
    this.#order.push(pending);
    return pending;
  }

  /**
   * Apply one validated row. Conflicts are found before anything changes, so
   * a rejected row leaves the catalogue untouched.
   */
  write(
    row: CatalogueRow,
  ):
    | { ok: true; outcome: WriteOutcome }
    | { ok: false; error: RowError<RowErrorCode | CatalogueCode> } {
    // The row's work: known by its name (canonical or alias), or new.
    const found = this.#find(row.work.urn);
    // Aliases: each must be new or already name this same work.
    const newAliases: (typeof row.aliases)[number][] = [];
    for (const a of row.aliases) {
      const other = this.#find(a.urn);
      if (other === undefined) newAliases.push(a);
      else if (found === undefined || !sameWork(found, other)) {
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
    const r = this.#apply(row, found, newAliases);
    // Outside a transaction, a row is written at once (as its own transaction).
    if (!this.#backend.inTransaction()) this.#backend.flushPending();
    // Inside one, every FLUSH_WORKS works (short-lived objects stay cheap for the GC).
    else if (this.#order.length >= FLUSH_WORKS) this.flush();
    return r;
  }

  #apply(
    row: CatalogueRow,
    found: Pending | number | undefined,
    newAliases: readonly { readonly urn: string; readonly key: WorkKey }[],
  ): { ok: true; outcome: WriteOutcome } {
    this.#backend.markPending(this);
    const newWork = found === undefined;
    const pending = this.#pendingWork(row, found);
    const work = pending.work;
    for (const a of newAliases) {
      const name: CatalogueNameWrite = { urn: a.urn, key: a.key, alias: true };
      work.names.push(name);
      this.#byName.set(a.urn, pending);
      this.#names.push({ pending, name });
      this.#counts.aliases++;
    }
    const unchanged = { ok: true, outcome: { newWork, newItem: false } } as const;
    if (row.expression === null && row.manifestation === null && row.item === null)
      return unchanged;
    const ex = this.#expressionOf(work, row);
    if (row.manifestation === null && row.item === null) return unchanged;
    const man = this.#manifestationOf(ex, row);
    if (row.item === null) return unchanged;
    const added = this.#putItem(man.items, row.item);
    if (added === undefined) return unchanged;
    return { ok: true, outcome: { newWork, newItem: added } };
  }

  /** The row's work, opened for writing: the one found, or a new one named by the row. */
  #pendingWork(row: CatalogueRow, found: Pending | number | undefined): Pending {
    if (found !== undefined) {
      const pending = typeof found === 'number' ? this.#open(found) : found;
      if (row.title !== null) pending.work.title = row.title;
      return pending;
    }
    const canonical: CatalogueNameWrite = { urn: row.work.urn, key: row.work.key, alias: false };
    const pending: Pending = {
      work: { id: 0, urn: row.work.urn, title: row.title, names: [canonical], expressions: [] },
      isNew: true,
    };
    this.#byName.set(row.work.urn, pending);
    this.#order.push(pending);
    this.#names.push({ pending, name: canonical });
    this.#counts.works++;
    return pending;
  }

  /** The row's expression of `work` (version and language; both null for none), added if new. */
  #expressionOf(work: Pending['work'], row: CatalogueRow): MutableExpression {
    const version = row.expression?.version ?? null;
    const language = row.expression?.language ?? null;
    for (const e of work.expressions) {
      if (e.key.version === version && e.key.language === language) {
        if (row.inForce !== null) e.inForce = row.inForce;
        return e;
      }
    }
    const key: ExpressionKey = {
      version,
      versionDate: row.expression?.versionDate ?? null,
      language,
    };
    const ex = { urn: expressionUrn(work.urn, key), key, inForce: row.inForce, manifestations: [] };
    work.expressions.push(ex);
    this.#counts.expressions++;
    return ex;
  }

  /** The row's manifestation of `ex` (all fields null for none), added if new. */
  #manifestationOf(ex: MutableExpression, row: CatalogueRow): MutableManifestation {
    const mk: ManifestationKey = row.manifestation ?? EMPTY_MANIFESTATION;
    for (const m of ex.manifestations) {
      if (sameManifestation(m.key, mk)) {
        // As inForce on an expression: a row that gives a depth replaces the earlier one.
        if (row.partitionDepth !== null) m.partitionDepth = row.partitionDepth;
        return m;
      }
    }
    const man: MutableManifestation = {
      urn: manifestationUrn(ex.urn, mk),
      key: mk,
      items: [],
      partitionDepth: row.partitionDepth,
    };
    ex.manifestations.push(man);
    this.#counts.manifestations++;
    return man;
  }

  /**
   * Put an item in its place (by priority, then URL): true when its URL is
   * new, false when it moved to another priority, undefined when it was
   * already there with this priority.
   */
  #putItem(
    items: MutableManifestation['items'],
    item: { readonly url: string; readonly priority: number },
  ): boolean | undefined {
    const { url, priority } = item;
    const old = items.findIndex((i) => i.url === url);
    if (old >= 0) {
      if ((items[old] as { priority: number }).priority === priority) return undefined;
      items.splice(old, 1);
    } else {
      this.#counts.items++;
    }
    let at = items.length;
    while (at > 0) {
      const prev = items[at - 1] as { url: string; priority: number };
      if (
        prev.priority < priority ||
        (prev.priority === priority && compareBinary(prev.url, url) < 0)
      ) {
        break;
      }
      at--;
    }
    items.splice(at, 0, { url, priority });
    return old < 0;
  }

  /** Write the changed works (new ones get their ids here, in the order they appeared). Inside a transaction. */
  flush(): void {
    const b = this.#backend;
    for (const p of this.#order) {
      const doc = encodeWork(p.work);
      if (p.isNew) p.work.id = b.insertWork(doc);
      else b.updateWork(doc, p.work.id);
    }
    for (const { pending, name } of this.#names) b.insertName(name.urn, pending.work.id, name.key);
    b.addCounts(this.#counts);
    this.discard();
  }

  /** Forget what is held (after a flush, or on rollback). */
  discard(): void {
    this.#byName.clear();
    this.#order.length = 0;
    this.#names.length = 0;
    for (const c of COUNTS) this.#counts[c] = 0;
  }
}

function sameWork(a: Pending | number, b: Pending | number): boolean {
  const ia = typeof a === 'number' ? a : a.isNew ? a : a.work.id;
  const ib = typeof b === 'number' ? b : b.isNew ? b : b.work.id;
  return ia === ib;
}
