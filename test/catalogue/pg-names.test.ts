/**
 * The PostgreSQL store's exact-name lookup (src/resolver/catalogue/pg-names.ts): the
 * array literal it sends, read back by a real server; names of every odd
 * shape looked up together; a statement that fails mid-batch (every request
 * of the batch answered 503 CATALOGUE_UNAVAILABLE, the next ones served
 * again); the held connection lost (replaced, no request left unanswered);
 * and close() giving the connection back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFile } from '../../src/resolver/catalogue/import.ts';
import {
  closeCatalogue,
  openCatalogue,
  type OpenedCatalogue,
} from '../../src/resolver/catalogue/open.ts';
import type { PgCatalogue } from '../../src/resolver/catalogue/pg.ts';
import { NAMES_SQL, textArrayLiteral } from '../../src/resolver/catalogue/pg-names.ts';
import { analyseLexUrn } from '../../src/resolver/core/from-urn.ts';
import { postgresOrSkip, startPostgres, type TestPostgres } from '../helpers/postgres.ts';
import { withScratch } from '../../src/resolver/catalogue/prefetch.ts';
import { appFor, get } from './helpers.ts';

const SAMPLE = new URL('../../data/sample-catalogue.jsonl', import.meta.url).pathname;
const WORK = 'urn:lex:br:federal:lei:2008-06-19;11705';
const dir = mkdtempSync(join(tmpdir(), 'lexroute-pg-names-'));
const { bin, skipReason } = postgresOrSkip();
let server: TestPostgres | undefined;
let url = '';
let admin: pg.Client;
/** Every process warning while this file runs (issue 31 item 22: pg's DeprecationWarning at each start). */
const warnings: string[] = [];
process.on('warning', (w) => warnings.push(`${w.name}: ${w.message}`));

beforeAll(async () => {
  if (!bin) return;
  server = await startPostgres(bin);
  url = await server.createDatabase('names');
  const writer = await openCatalogue(url, dir);
  const s = await importFile(writer.store, SAMPLE, { analyse: analyseLexUrn });
  expect(s.rejected).toBe(0);
  await closeCatalogue(writer);
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
}, 60_000);
afterAll(async () => {
  await admin?.end();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function reader(): Promise<OpenedCatalogue & { kind: 'postgres' }> {
  return (await openCatalogue(url, dir, { readOnly: true })) as OpenedCatalogue & {
    kind: 'postgres';
  };
}

/** N concurrent N2L requests for the sample's work: their statuses and problem codes. */
async function burst(c: OpenedCatalogue, n: number): Promise<string[]> {
  const app = appFor(c);
  const answers = await Promise.all(
    Array.from({ length: n }, () => get(app, `/uri-res/N2L?${WORK}`)),
  );
  return answers.map((a) =>
    a.status === 303 ? '303' : `${a.status} ${(JSON.parse(a.body) as { code: string }).code}`,
  );
}

describe.skipIf(skipReason !== undefined)(`PostgreSQL name lookups ${skipReason ?? ''}`, () => {
  it('the array literal is read back by the server as the names it was made of', async () => {
    const names = [
      'plain',
      'a"quote',
      'back\\slash',
      'a,b',
      '{braces}',
      'sp ace',
      'ñ€😀',
      '',
      'NULL',
    ];
    const r = await admin.query<{ a: string[] }>('SELECT $1::text[] AS a', [
      textArrayLiteral(names),
    ]);
    expect(r.rows[0]?.a).toEqual(names);
    expect(textArrayLiteral([])).toBe('{}');
  });

  it('names of odd shapes looked up in one batch: the catalogued one found, the others not, no error', async () => {
    const c = await reader();
    try {
      const odd = [
        `${WORK}"`,
        `${WORK}\\`,
        `${WORK},x`,
        `${WORK}}`,
        'urn:lex:br:federal:lei:ñ;1',
        WORK,
      ];
      // Looked up together (one statement): the odd texts are names that are not there.
      const store: PgCatalogue = c.store;
      const before = store.nameLookups();
      const found = await Promise.all(
        odd.map((u) =>
          withScratch(store, (r) => r.byName(u)?.urn ?? null, { kind: 'name', urn: u }),
        ),
      );
      expect(found).toEqual([null, null, null, null, null, WORK]);
      const after = store.nameLookups();
      expect(after.statements - before.statements).toBe(1);
    } finally {
      await closeCatalogue(c);
    }
  });

  it('a statement failing mid-batch answers each of its requests 503 CATALOGUE_UNAVAILABLE; later ones are served', async () => {
    const c = await reader();
    try {
      expect(await burst(c, 5)).toEqual(Array(5).fill('303'));
      await admin.query('ALTER TABLE works RENAME TO works_away');
      try {
        expect(await burst(c, 20)).toEqual(Array(20).fill('503 CATALOGUE_UNAVAILABLE'));
      } finally {
        await admin.query('ALTER TABLE works_away RENAME TO works');
      }
      expect(await burst(c, 20)).toEqual(Array(20).fill('303'));
    } finally {
      await closeCatalogue(c);
    }
  });

  it('the held connection lost: every request answered, and a new connection serves the next ones', async () => {
    const c = await reader();
    try {
      expect(await burst(c, 5)).toEqual(Array(5).fill('303'));
      const killed = await admin.query(
        'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND query = $1',
        [NAMES_SQL],
      );
      expect(killed.rowCount).toBe(1);
      // The loss is seen when the socket closes: requests meanwhile answer 503, none hangs.
      const during = await burst(c, 10);
      expect(during.every((s) => s === '303' || s === '503 CATALOGUE_UNAVAILABLE')).toBe(true);
      let after: string[] = [];
      for (let i = 0; i < 50; i++) {
        after = await burst(c, 10);
        if (after.every((s) => s === '303')) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(after).toEqual(Array(10).fill('303'));
    } finally {
      await closeCatalogue(c);
    }
  });

  it('close() gives the held connection back: the pool ends, the server session goes', async () => {
    const c = await reader();
    expect(await burst(c, 3)).toEqual(Array(3).fill('303'));
    await closeCatalogue(c);
    for (let i = 0; i < 100; i++) {
      const r = await admin.query(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query = $1',
        [NAMES_SQL],
      );
      if (r.rows[0]?.n === 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect.unreachable('the lookup session was still there');
  });

  it('no DeprecationWarning from pg over the whole file; lookups are planned once', async () => {
    const c = await reader();
    try {
      expect(await burst(c, 20)).toEqual(Array(20).fill('303'));
    } finally {
      await closeCatalogue(c);
    }
    expect(warnings.filter((w) => /client\.query|DeprecationWarning/.test(w))).toEqual([]);
  });
});
