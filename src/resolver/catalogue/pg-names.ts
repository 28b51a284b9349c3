/**
 * The resolver's exact-name lookup on PostgreSQL, its hottest statement, as
 * a `pg` submittable (the driver's extension point, as pg-cursor uses):
 * Bind, Execute and Sync in one buffer for a statement prepared once per
 * connection, rows kept as texts, one held connection (no checkout per statement).
 */
import type pg from 'pg';

export const NAMES_STATEMENT = 'lexroute_by_names';
/** unnest: a nested loop of primary-key lookups, one per name (`urn = ANY($1)` plans a bitmap scan). */
export const NAMES_SQL =
  'SELECT k.urn, w.id, w.doc FROM unnest($1::text[]) u(urn) JOIN lookup k ON k.urn = u.urn JOIN works w ON w.id = k.work_id';

/** A PostgreSQL array literal of texts: each element quoted, `"` and `\` escaped. */
export function textArrayLiteral(items: readonly string[]): string {
  let s = '{';
  for (let i = 0; i < items.length; i++) {
    const v = items[i] as string;
    if (i > 0) s += ',';
    s += /["\\]/.test(v) ? `"${v.replace(/["\\]/g, '\\$&')}"` : `"${v}"`;
  }
  return `${s}}`;
}

/** Bind (unnamed portal, one text parameter, text results), Execute and Sync as one buffer. */
export function bindExecuteSync(statement: string, param: string): Buffer {
  const stmtLen = Buffer.byteLength(statement);
  const paramLen = Buffer.byteLength(param);
  // int32 length, portal "\0", statement\0, 1 format (text), 1 value (int32 length + bytes), 1 result format (text).
  const bindLen = 4 + 1 + stmtLen + 1 + 2 + 2 + 2 + 4 + paramLen + 2 + 2;
  const b = Buffer.allocUnsafe(1 + bindLen + 10 + 5);
  let o = 0;
  b[o++] = 0x42; // 'B'
  b.writeInt32BE(bindLen, o);
  o += 4;
  b[o++] = 0;
  o += b.write(statement, o, 'utf8');
  b[o++] = 0;
  o = b.writeInt16BE(1, o);
  o = b.writeInt16BE(0, o);
  o = b.writeInt16BE(1, o);
  o = b.writeInt32BE(paramLen, o);
  o += b.write(param, o, 'utf8');
  o = b.writeInt16BE(1, o);
  o = b.writeInt16BE(0, o);
  b[o++] = 0x45; // 'E': the unnamed portal, no row limit
  o = b.writeInt32BE(9, o);
  b[o++] = 0;
  o = b.writeInt32BE(0, o);
  b[o++] = 0x53; // 'S'
  b.writeInt32BE(4, o);
  return b;
}

/** A row as the server sent it: texts (null for SQL NULL). */
export type TextRow = readonly (string | null)[];

/** The parts of pg's Connection (not in its type declarations) a submittable uses. */
interface PgConnection {
  readonly parsedStatements: Record<string, string | undefined>;
  readonly submittedNamedStatements: Record<string, string | undefined>;
  readonly stream: { write(b: Buffer): boolean };
  parse(q: { name: string; text: string; types: unknown[] }): void;
  sendCopyFail(msg: string): void;
}

/** One batch of names as a `pg` submittable (`submit`, then the server's messages to `handle*`). */
class NamesQuery {
  // Read by pg's client: a named statement is recorded as parsed on ParseComplete.
  readonly name = NAMES_STATEMENT;
  readonly text = NAMES_SQL;
  readonly #rows: TextRow[] = [];
  readonly #param: string;
  readonly #done: (err: unknown, rows: TextRow[]) => void;
  #ended = false;

  constructor(urns: readonly string[], done: (err: unknown, rows: TextRow[]) => void) {
    this.#param = textArrayLiteral(urns);
    this.#done = done;
  }

  submit(connection: PgConnection): null {
    if (
      connection.parsedStatements[NAMES_STATEMENT] === undefined &&
      connection.submittedNamedStatements[NAMES_STATEMENT] === undefined
    ) {
      connection.parse({ name: NAMES_STATEMENT, text: NAMES_SQL, types: [] });
      connection.submittedNamedStatements[NAMES_STATEMENT] = NAMES_SQL;
    }
    connection.stream.write(bindExecuteSync(NAMES_STATEMENT, this.#param));
    return null;
  }
  handleDataRow(msg: { fields: TextRow }): void {
    this.#rows.push(msg.fields);
  }
  handleError(err: unknown): void {
    this.#end(err);
  }
  handleReadyForQuery(): void {
    this.#end(undefined);
  }
  handleCopyInResponse(connection: PgConnection): void {
    connection.sendCopyFail('lexroute: no COPY in a name lookup');
  }
  handleRowDescription(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
  #end(err: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#done(err, this.#rows);
  }
}

/** One connection held from the pool; a failed one is given back to be destroyed and replaced. */
class HeldConnection {
  readonly #pool: pg.Pool;
  #held: Promise<pg.PoolClient> | null = null;
  #heldClient: pg.PoolClient | null = null;
  readonly #dropped = new WeakSet<pg.PoolClient>();
  #closed = false;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  get(): Promise<pg.PoolClient> {
    if (this.#closed) return Promise.reject(new Error('the catalogue is closed'));
    if (this.#held !== null) return this.#held;
    const held = this.#pool.connect().then(
      (client) => {
        // A held client has no pool listener: a lost connection must not go unhandled.
        client.on('error', (err) => this.drop(client, err));
        client.on('end', () => this.drop(client, new Error('the connection ended')));
        if (this.#held === held) this.#heldClient = client;
        if (this.#closed) this.drop(client, undefined);
        return client;
      },
      (e: unknown) => {
        if (this.#held === held) this.#held = null;
        throw e;
      },
    );
    this.#held = held;
    return held;
  }

  /** Stop holding `client`: back to the pool, destroyed when `err` is given (once). */
  drop(client: pg.PoolClient, err: unknown): void {
    if (this.#dropped.has(client)) return;
    this.#dropped.add(client);
    if (this.#heldClient === client) {
      this.#heldClient = null;
      this.#held = null;
    }
    client.release(err === undefined ? undefined : err instanceof Error ? err : true);
  }

  /** Give the held connection back (before the pool ends). */
  async close(): Promise<void> {
    this.#closed = true;
    const client = await this.#held?.catch(() => undefined);
    this.#held = null;
    if (client !== undefined) this.drop(client, undefined);
  }
}

/** Exact-name lookups over one held connection, one statement at a time (`Batcher` keeps one out). */
export class NameLookups {
  readonly #held: HeldConnection;

  constructor(pool: pg.Pool) {
    this.#held = new HeldConnection(pool);
  }

  /** The rows `[urn, id, doc]` of the names found. */
  async run(urns: readonly string[]): Promise<TextRow[]> {
    const held = this.#held;
    const client = await held.get();
    return new Promise<TextRow[]>((resolve, reject) => {
      const q = new NamesQuery(urns, (err, rows) => {
        if (err === undefined) return resolve(rows);
        held.drop(client, err);
        reject(err instanceof Error ? err : new Error(String(err)));
      });
      client.query(q as unknown as pg.QueryConfig);
    });
  }

  /** Give the held connection back (before the pool ends). */
  async close(): Promise<void> {
    await this.#held.close();
  }
}
