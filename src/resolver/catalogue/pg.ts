/**
 * The catalogue in PostgreSQL, through `pg` (node-postgres) with a
 * connection pool: the same tables and documents as the SQLite store
 * (`./store.ts`, `./doc.ts`), plus `generation` in `meta`. Text columns use
 * the "C" collation (byte order, as SQLite's BINARY), independent of the locale.
 *
 * Reads go through `fill` (`./prefetch.ts`); exact names of concurrent
 * requests share statements (`./batcher.ts`, `./pg-names.ts`). An import is
 * one transaction (`PgImport`); its commit bumps `generation` and sends
 * NOTIFY, which resolvers LISTEN for (and poll). Migrations run in one
 * transaction under an advisory lock; a reader refuses another schema.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import type { from as CopyFrom } from 'pg-copy-streams';
import type { CandidateName, CandidateQuery, CatalogueWork, WorkKey } from '../core/model.ts';
import { Batcher } from './batcher.ts';
import { decodeWork } from './doc.ts';
import { NameLookups } from './pg-names.ts';
import type { AsyncCatalogueSource, CatalogueNeed, ScratchReader } from './prefetch.ts';
import type { RegistryEntry } from '../core/registry.ts';
import {
  CatalogueError,
  CatalogueWriter,
  COUNTS,
  countsFromMeta,
  mergeRegistryEntries,
  nameColumns,
  registryDoc,
  registryFromRow,
  zeroCounts,
  type Counts,
  type WriterBackend,
} from './store.ts';

export const PG_SCHEMA_VERSION = 2;

/** The PostgreSQL driver: pg and pg-copy-streams, optional peer dependencies of lexroute. */
interface PgDriver {
  readonly pg: typeof pg;
  readonly copyFrom: typeof CopyFrom;
}

let driver: Promise<PgDriver> | undefined;

/** Loaded at the first postgres:// open, so other users never need it installed (else CATALOGUE_PG_DRIVER). */
function loadPgDriver(): Promise<PgDriver> {
  driver ??= Promise.all([import('pg'), import('pg-copy-streams')]).then(
    ([p, c]) => ({ pg: p.default, copyFrom: c.from }),
    (e: unknown) => {
      driver = undefined;
      throw new CatalogueError(
        'CATALOGUE_PG_DRIVER',
        `a postgres:// catalogue needs the PostgreSQL driver: npm install pg pg-copy-streams (${e instanceof Error ? e.message : String(e)})`,
        { cause: e },
      );
    },
  );
  return driver;
}

/** `PG_MIGRATIONS[i]` takes a catalogue from schema i to i + 1 (0: an empty database). */
export const PG_MIGRATIONS: readonly string[] = [
  `
CREATE TABLE meta (key text COLLATE "C" PRIMARY KEY, value text NOT NULL);
CREATE TABLE works (id integer PRIMARY KEY, doc text NOT NULL);
CREATE TABLE lookup (urn text COLLATE "C" PRIMARY KEY, work_id integer NOT NULL);
CREATE TABLE names (
  work_id integer NOT NULL,
  jurisdiction text COLLATE "C" NOT NULL,
  authority text COLLATE "C" NOT NULL,
  measure text COLLATE "C" NOT NULL,
  period text COLLATE "C" NOT NULL,
  year text COLLATE "C" NOT NULL,
  numbers text COLLATE "C" NOT NULL
);
CREATE INDEX names_number ON names (jurisdiction, numbers);
CREATE INDEX names_year ON names (jurisdiction, year, measure);
CREATE TABLE name_numbers (
  jurisdiction text COLLATE "C" NOT NULL,
  number text COLLATE "C" NOT NULL,
  work_id integer NOT NULL,
  PRIMARY KEY (jurisdiction, number, work_id)
);
INSERT INTO meta (key, value) VALUES
  ('count.works', '0'), ('count.aliases', '0'), ('count.expressions', '0'),
  ('count.manifestations', '0'), ('count.items', '0'), ('generation', '0');
`,
  // 1 -> 2: registries for normalisation.
  `
CREATE TABLE registry (
  kind text COLLATE "C" NOT NULL,
  code text COLLATE "C" NOT NULL,
  doc text NOT NULL,
  PRIMARY KEY (kind, code)
);
`,
];

/** The NOTIFY channel an import's commit signals on. */
export const PG_CHANNEL = 'lexroute_catalogue';

/** An advisory lock key for migrations ('lexr' as a 32-bit integer). */
const MIGRATION_LOCK = 0x6c657872;

/** True for a `postgres://` or `postgresql://` catalogue location. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The URL without its password, for messages and /health. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    // postgres://user:secret@/db?host=/run/postgresql has no host for WHATWG URL.
    return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@]*@/i, '$1:***@');
  }
}

export interface PgOpenOptions {
  /** The resolver: never migrate (refuse an older schema instead). */
  readonly readOnly?: boolean;
  /** Pool size (default 8; at least 2: a reader holds one connection for its exact-name lookups). */
  readonly poolSize?: number;
}

async function schemaVersion(client: pg.PoolClient | pg.Client): Promise<number | 'foreign'> {
  const t = await client.query<{ t: string | null }>("SELECT to_regclass('meta')::text AS t");
  if (t.rows[0]?.t == null) return 0;
  let r;
  try {
    r = await client.query<{ value: string }>("SELECT value FROM meta WHERE key = 'schema'");
  } catch {
    return 'foreign';
  }
  const v = Number(r.rows[0]?.value);
  return Number.isInteger(v) && v > 0 ? v : 'foreign';
}

/** Bring the database to `PG_SCHEMA_VERSION`, or say why it cannot be read. */
async function migrate(client: pg.PoolClient, label: string, readOnly: boolean): Promise<void> {
  let v = await schemaVersion(client);
  if (v === PG_SCHEMA_VERSION) return;
  const refuse = (why: string) => new CatalogueError('CATALOGUE_SCHEMA', `${label}: ${why}`);
  if (v === 'foreign') {
    throw refuse("the database has a 'meta' table but no lexroute schema version: not a catalogue");
  }
  if (v > PG_SCHEMA_VERSION) {
    throw refuse(
      `catalogue schema ${v} is newer than this lexroute reads (${PG_SCHEMA_VERSION}); upgrade lexroute`,
    );
  }
  if (readOnly) {
    throw refuse(
      v === 0
        ? 'the database holds no catalogue yet: run lexroute catalogue import --catalogue <url> <file> (or catalogue migrate)'
        : `catalogue schema ${v}, this lexroute reads ${PG_SCHEMA_VERSION}: run lexroute catalogue migrate --catalogue <url>`,
    );
  }
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    v = await schemaVersion(client);
    if (v === 'foreign') throw refuse('not a catalogue');
    for (let i = v; i < PG_SCHEMA_VERSION; i++) await client.query(PG_MIGRATIONS[i] as string);
    await client.query(
      "INSERT INTO meta (key, value) VALUES ('schema', $1) ON CONFLICT (key) DO UPDATE SET value = $1",
      [String(PG_SCHEMA_VERSION)],
    );
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

type Row = [number, string];

/** The PostgreSQL catalogue: an async source for the matcher, export, counts and imports. */
export class PgCatalogue implements AsyncCatalogueSource {
  readonly pool: pg.Pool;
  /** The URL without its password. */
  readonly label: string;
  #generation = 0;
  #counts: Counts = zeroCounts();
  #listener: pg.Client | null = null;
  #poll: NodeJS.Timeout | null = null;
  #closed = false;
  readonly #url: string;
  /** Exact-name lookups, one statement out at a time (`./batcher.ts`). */
  readonly #names: NameLookups;
  readonly #byNames = new Batcher<string, CatalogueWork>((urns) => this.#fetchNames(urns), {
    maxInFlight: 1,
  });

  private constructor(url: string, pool: pg.Pool) {
    this.#url = url;
    this.pool = pool;
    this.#names = new NameLookups(pool);
    this.label = redactUrl(url);
  }

  /** Connect, check (and unless read-only, migrate) the schema. */
  static async open(url: string, options: PgOpenOptions = {}): Promise<PgCatalogue> {
    const { pg } = await loadPgDriver();
    const pool = new pg.Pool({
      connectionString: url,
      max: Math.max(2, options.poolSize ?? 8),
      application_name: 'lexroute',
      // A resolver's named statements are planned once (PostgreSQL 12+; re-planning costs more
      // than the lookup). In onConnect, not a 'connect' listener: pg warns of a query while one runs.
      ...(options.readOnly === true
        ? {
            onConnect: async (client: pg.ClientBase) => {
              await client.query('SET plan_cache_mode = force_generic_plan').catch(() => undefined);
            },
          }
        : {}),
    });
    // An idle client's connection lost (server restart): the pool replaces it.
    pool.on('error', () => undefined);
    const store = new PgCatalogue(url, pool);
    try {
      const client = await pool.connect();
      try {
        await migrate(client, store.label, options.readOnly ?? false);
      } finally {
        client.release();
      }
      await store.refresh();
    } catch (e) {
      await pool.end().catch(() => undefined);
      if (e instanceof CatalogueError) throw e;
      throw new CatalogueError(
        'CATALOGUE_OPEN',
        `${store.label}: cannot open the catalogue: ${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    }
    return store;
  }

  /** Exact-name lookups so far, and the statements that answered them (fewer under load). */
  nameLookups(): { names: number; statements: number } {
    return { names: this.#byNames.keys, statements: this.#byNames.batches };
  }

  /** Changes with every committed import (the answer cache's version). */
  version(): number {
    return this.#generation;
  }

  /** The counts as of the last refresh (kept current by `watch`). */
  cachedCounts(): Counts {
    return this.#counts;
  }

  /** Read the generation and counts now. */
  async refresh(): Promise<void> {
    const r = await this.pool.query<{ key: string; value: string }>(
      "SELECT key, value FROM meta WHERE key = 'generation' OR key LIKE 'count.%'",
    );
    for (const { key, value } of r.rows) if (key === 'generation') this.#generation = Number(value);
    this.#counts = countsFromMeta(r.rows);
  }

  /** Follow imports: LISTEN for their NOTIFY, and poll every `pollMs` (a notification may be lost with its connection). */
  async watch(pollMs: number, onChange?: () => void): Promise<void> {
    const check = async () => {
      const before = this.#generation;
      await this.refresh().catch(() => undefined);
      if (this.#generation !== before) onChange?.();
    };
    this.#poll = setInterval(() => void check(), pollMs);
    this.#poll.unref();
    const { pg } = await loadPgDriver();
    const listener = new pg.Client({ connectionString: this.#url, application_name: 'lexroute' });
    listener.on('error', () => undefined);
    listener.on('notification', () => void check());
    try {
      await listener.connect();
      await listener.query(`LISTEN ${PG_CHANNEL}`);
      this.#listener = listener;
    } catch {
      // Polling alone still sees every change within pollMs.
      await listener.end().catch(() => undefined);
    }
  }

  async counts(): Promise<Counts> {
    await this.refresh();
    return this.#counts;
  }

  /** Fetch what a scratch reader is missing (one statement; exact names batched). */
  async fill(into: ScratchReader, need: CatalogueNeed): Promise<void> {
    if (need.kind === 'name') return this.#byName(into, need.urn);
    if (need.kind === 'work') return this.#byId(into, need.id);
    return this.#candidates(into, need.key, need.query);
  }

  async #byId(into: ScratchReader, id: number): Promise<void> {
    const r = await this.pool.query<[string]>({
      name: 'lexroute_by_id',
      text: 'SELECT doc FROM works WHERE id = $1',
      values: [id],
      rowMode: 'array',
    });
    const row = r.rows[0];
    // A work deleted meanwhile: the matcher skips a work it cannot load.
    if (row !== undefined) into.addWork(decodeWork(id, row[0]));
    else into.works.set(id, null);
  }

  /** The works with names sharing the query's number, year or period (through the indexes). */
  async #candidates(into: ScratchReader, key: string, q: CandidateQuery): Promise<void> {
    let shape: 'numbers' | 'year' | 'period';
    let ids: string;
    let values: unknown[];
    if (q.numbers.length > 0) {
      shape = 'numbers';
      ids = `SELECT work_id FROM names WHERE jurisdiction = $1 AND numbers = ANY($2::text[])
             UNION SELECT work_id FROM name_numbers WHERE jurisdiction = $1 AND number = ANY($2::text[])`;
      values = [q.jurisdiction, q.numbers];
    } else if (q.year !== null) {
      shape = 'year';
      ids = `SELECT work_id FROM names WHERE jurisdiction = $1 AND year = $2 AND (measure = $3 OR authority = $4)`;
      values = [q.jurisdiction, q.year, q.measure, q.authority];
    } else {
      shape = 'period';
      ids = `SELECT work_id FROM names WHERE jurisdiction = $1 AND year = '' AND period = $2`;
      values = [q.jurisdiction, q.period ?? ''];
    }
    // One named (prepared, planned once per connection) statement per shape.
    const r = await this.pool.query<Row>({
      name: `lexroute_candidates_${shape}`,
      text: `SELECT w.id, w.doc FROM works w WHERE w.id IN (
               SELECT DISTINCT work_id FROM (${ids}) c ORDER BY work_id LIMIT $${values.length + 1})
             ORDER BY w.id`,
      values: [...values, q.limit],
      rowMode: 'array',
    });
    const out: CandidateName[] = [];
    for (const [id, doc] of r.rows) {
      // Names in the order they were added, as the SQLite store gives them.
      for (const name of decodeWork(id, doc, true).names) out.push({ workId: id, name });
      into.addWork(decodeWork(id, doc));
    }
    into.candidateLists.set(key, out);
  }

  async #byName(into: ScratchReader, urn: string): Promise<void> {
    const w = (await this.#byNames.get(urn)) ?? null;
    if (w !== null) into.addWork(w);
    into.names.set(urn, w);
  }

  async #fetchNames(urns: readonly string[]): Promise<Map<string, CatalogueWork>> {
    const rows = await this.#names.run(urns);
    const found = new Map<string, CatalogueWork>();
    for (const [urn, id, doc] of rows)
      found.set(urn as string, decodeWork(Number(id), doc as string));
    return found;
  }

  /** The registry entries stored in the catalogue. */
  async registryEntries(): Promise<RegistryEntry[]> {
    const r = await this.pool.query<{ kind: string; code: string; doc: string }>(
      'SELECT kind, code, doc FROM registry ORDER BY kind, code',
    );
    return r.rows.map((x) => registryFromRow(x.kind, x.code, x.doc));
  }

  /** Replace the registries (one transaction; resolvers are told as after an import). */
  async replaceRegistry(entries: readonly RegistryEntry[]): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('DELETE FROM registry');
      const merged = mergeRegistryEntries(entries);
      await client.query(
        'INSERT INTO registry (kind, code, doc) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])',
        [merged.map((e) => e.kind), merged.map((e) => e.code), merged.map(registryDoc)],
      );
      await client.query(
        "UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'generation'",
      );
      await client.query(`NOTIFY ${PG_CHANNEL}`);
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  /** Every work in id order, from one snapshot (for export). */
  async *works(batch = 1000): AsyncGenerator<CatalogueWork> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      let last = 0;
      for (;;) {
        const r = await client.query<Row>({
          text: 'SELECT id, doc FROM works WHERE id > $1 ORDER BY id LIMIT $2',
          values: [last, batch],
          rowMode: 'array',
        });
        for (const [id, doc] of r.rows) yield decodeWork(id, doc);
        if (r.rows.length < batch) break;
        last = (r.rows[r.rows.length - 1] as Row)[0];
      }
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  }

  /** Start an import: one transaction, writers locked out until it ends. */
  async beginImport(): Promise<PgImport> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // Readers go on (they see the catalogue as it was); a second import waits.
      await client.query('LOCK TABLE works IN EXCLUSIVE MODE');
      const r = await client.query<{ m: number }>('SELECT coalesce(max(id), 0) AS m FROM works');
      return new PgImport(client, r.rows[0]?.m ?? 0);
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      throw e;
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#poll) clearInterval(this.#poll);
    await this.#listener?.end().catch(() => undefined);
    await this.#names.close();
    await this.pool.end();
  }
}

/** COPY text format: backslash, tab, newline and carriage return escaped. */
function copyField(v: string): string {
  return /[\\\t\n\r]/.test(v)
    ? v.replace(/[\\\t\n\r]/g, (c) =>
        c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r',
      )
    : v;
}

/** One batch's rows, taken out of the import's state to be written. */
interface PgBatch {
  readonly works: string[];
  readonly lookup: string[];
  readonly names: string[];
  readonly numbers: [string, string, number][];
  readonly updates: [number, string][];
}

/**
 * One import into PostgreSQL, in one transaction. The writer's calls are
 * answered from `prefetch` and the batch's own writes; `endBatch` writes the
 * batch with COPY and one UPDATE.
 */
export class PgImport implements WriterBackend {
  readonly #client: pg.PoolClient;
  #maxId: number;
  readonly #names = new Map<string, number>();
  readonly #docs = new Map<number, string>();
  readonly #newWorks = new Map<number, string>();
  readonly #updates = new Map<number, string>();
  #lookupRows: string[] = [];
  #nameRows: string[] = [];
  readonly #numberRows: [string, string, number][] = [];
  readonly #counts: Counts = zeroCounts();
  #pending: CatalogueWriter | null = null;
  /** The previous batch's writes, under way while the next batch is read. */
  #inflight: Promise<void> = Promise.resolve();
  #done = false;
  readonly writer: CatalogueWriter;

  constructor(client: pg.PoolClient, maxId: number) {
    this.#client = client;
    this.#maxId = maxId;
    this.writer = new CatalogueWriter(this);
  }

  /** Fetch the stored works the batch's names refer to. */
  async prefetch(urns: readonly string[]): Promise<void> {
    // The previous batch's rows must be in first (its statements go one after another).
    await this.#inflight;
    const wanted = [...new Set(urns)].filter((u) => !this.#names.has(u));
    if (wanted.length === 0) return;
    const r = await this.#client.query<[string, number, string]>({
      text: 'SELECT k.urn, k.work_id, w.doc FROM lookup k JOIN works w ON w.id = k.work_id WHERE k.urn = ANY($1::text[])',
      values: [wanted],
      rowMode: 'array',
    });
    for (const [urn, id, doc] of r.rows) {
      this.#names.set(urn, id);
      this.#docs.set(id, doc);
    }
  }

  findName(urn: string): number | undefined {
    return this.#names.get(urn);
  }
  loadWork(id: number): string | undefined {
    return this.#docs.get(id);
  }
  insertWork(doc: string): number {
    const id = ++this.#maxId;
    this.#newWorks.set(id, doc);
    this.#docs.set(id, doc);
    return id;
  }
  updateWork(doc: string, id: number): void {
    if (this.#newWorks.has(id)) this.#newWorks.set(id, doc);
    else this.#updates.set(id, doc);
    this.#docs.set(id, doc);
  }
  insertName(urn: string, id: number, key: WorkKey): void {
    this.#names.set(urn, id);
    this.#lookupRows.push(`${copyField(urn)}\t${id}\n`);
    this.#nameRows.push(`${id}\t${nameColumns(key).map(copyField).join('\t')}\n`);
    if (key.numbers.length > 1) {
      for (const n of key.numbers) this.#numberRows.push([key.jurisdiction, n, id]);
    }
  }
  addCounts(counts: Readonly<Counts>): void {
    for (const c of COUNTS) this.#counts[c] += counts[c];
  }
  inTransaction(): boolean {
    return true;
  }
  markPending(w: CatalogueWriter): void {
    this.#pending = w;
  }
  /* c8 ignore next 3: always inside the import's transaction */
  flushPending(): void {
    this.#pending?.flush();
  }

  async #copy(sql: string, rows: string[]): Promise<void> {
    if (rows.length === 0) return;
    const chunks: string[] = [];
    for (let i = 0; i < rows.length; i += 4096) chunks.push(rows.slice(i, i + 4096).join(''));
    const { copyFrom } = await loadPgDriver();
    await pipeline(Readable.from(chunks), this.#client.query(copyFrom(sql)));
  }

  /**
   * Write what the batch changed while the next batch is read: at most one
   * batch in flight; the next prefetch waits for it, and a failed write surfaces there or at commit.
   */
  async endBatch(): Promise<void> {
    this.#pending?.flush();
    const batch = this.#takeBatch();
    await this.#inflight;
    this.#inflight = this.#write(batch);
    // Observed by the next prefetch, endBatch or commit; never unhandled.
    this.#inflight.catch(() => undefined);
  }

  #takeBatch(): PgBatch {
    const works: string[] = [];
    for (const [id, doc] of this.#newWorks) works.push(`${id}\t${copyField(doc)}\n`);
    const batch: PgBatch = {
      works,
      lookup: this.#lookupRows,
      names: this.#nameRows,
      numbers: this.#numberRows.splice(0),
      updates: [...this.#updates],
    };
    this.#names.clear();
    this.#docs.clear();
    this.#newWorks.clear();
    this.#updates.clear();
    this.#lookupRows = [];
    this.#nameRows = [];
    return batch;
  }

  async #write(b: PgBatch): Promise<void> {
    await this.#copy('COPY works (id, doc) FROM STDIN', b.works);
    await this.#copy('COPY lookup (urn, work_id) FROM STDIN', b.lookup);
    await this.#copy(
      'COPY names (work_id, jurisdiction, authority, measure, period, year, numbers) FROM STDIN',
      b.names,
    );
    if (b.numbers.length > 0) {
      await this.#client.query(
        `INSERT INTO name_numbers (jurisdiction, number, work_id)
         SELECT * FROM unnest($1::text[], $2::text[], $3::int[]) ON CONFLICT DO NOTHING`,
        [b.numbers.map((r) => r[0]), b.numbers.map((r) => r[1]), b.numbers.map((r) => r[2])],
      );
    }
    if (b.updates.length > 0) {
      await this.#client.query(
        'UPDATE works SET doc = u.doc FROM unnest($1::int[], $2::text[]) AS u(id, doc) WHERE works.id = u.id',
        [b.updates.map((u) => u[0]), b.updates.map((u) => u[1])],
      );
    }
  }

  /** Make the whole import visible at once, and tell the resolvers. */
  async commit(): Promise<void> {
    await this.endBatch();
    await this.#inflight;
    const c = this.#client;
    try {
      for (const k of COUNTS) {
        if (this.#counts[k] === 0) continue;
        await c.query('UPDATE meta SET value = (value::bigint + $1)::text WHERE key = $2', [
          this.#counts[k],
          `count.${k}`,
        ]);
      }
      await c.query("UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'generation'");
      await c.query(`NOTIFY ${PG_CHANNEL}`);
      await c.query('COMMIT');
    } finally {
      this.#release();
    }
  }

  async rollback(): Promise<void> {
    if (this.#done) return;
    await this.#inflight.catch(() => undefined);
    try {
      await this.#client.query('ROLLBACK');
    } finally {
      this.#release();
    }
  }

  #release(): void {
    if (this.#done) return;
    this.#done = true;
    this.#client.release();
  }
}
