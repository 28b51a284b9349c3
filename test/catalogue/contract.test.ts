/**
 * The catalogue contract, run against both stores: SQLite and a real
 * PostgreSQL server started by the harness (skipped with the reason when
 * PostgreSQL is not installed; required in CI). Import (reports, idempotence,
 * BOM, stray CSV quotes, long URNs), export, matching (every answer equal on
 * both stores), the round trip of every exported URN through N2L and N2Ls,
 * atomic visibility of an import, and schema versions.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFile, type ImportRowError } from '../../src/resolver/catalogue/import.ts';
import {
  closeCatalogue,
  openCatalogue,
  type OpenedCatalogue,
} from '../../src/resolver/catalogue/open.ts';
import { PgCatalogue } from '../../src/resolver/catalogue/pg.ts';
import { analyseLexUrn } from '../../src/resolver/core/from-urn.ts';
import { postgresOrSkip, startPostgres, type TestPostgres } from '../helpers/postgres.ts';
import { captureIo } from '../helpers/io.ts';
import { catalogueCommand } from '../../src/cli/commands/catalogue.ts';
import type { RegistryEntry } from '../../src/resolver/core/registry.ts';
import {
  appFor,
  exportText,
  freshCatalogue,
  get,
  resolveIn,
  shapesRows,
  summary,
  type StoreKind,
} from './helpers.ts';

const SAMPLE = new URL('../../data/sample-catalogue.jsonl', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'lexroute-contract-'));
const { bin, skipReason } = postgresOrSkip();
let server: TestPostgres | undefined;

beforeAll(async () => {
  if (bin) server = await startPostgres(bin);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const KINDS: StoreKind[] = ['sqlite', 'postgres'];

function writeRows(name: string, rows: readonly Record<string, unknown>[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return file;
}

async function load(kind: StoreKind, file: string) {
  const { opened, location } = await freshCatalogue(kind, dir, server);
  const errors: ImportRowError[] = [];
  const s = await importFile(opened.store, file, {
    analyse: analyseLexUrn,
    onError: (e) => errors.push(e),
  });
  return { opened, location, summary: s, errors };
}

/** Every exported URN resolves through N2L to its own URL, and N2Ls lists it. */
async function roundTrip(c: OpenedCatalogue): Promise<number> {
  const app = appFor(c);
  let checked = 0;
  for (const line of (await exportText(c)).trim().split('\n')) {
    const row = JSON.parse(line) as { urn: string; url?: string; priority?: number };
    if (row.url === undefined) continue;
    const n2ls = await get(app, `/uri-res/N2Ls?${row.urn}`, { accept: 'application/json' });
    expect(n2ls.status, `${row.urn}: ${n2ls.body}`).toBe(200);
    const urls = (JSON.parse(n2ls.body) as { locations: { url: string }[] }).locations.map(
      (l) => l.url,
    );
    expect(urls, row.urn).toContain(row.url);
    const n2l = await get(app, `/uri-res/N2L?${row.urn}`);
    expect(n2l.status, `${row.urn}: ${n2l.body}`).toBe(303);
    // The best of the manifestation's items (lowest priority first) is the row's own URL or ranks before it.
    const best = urls[0];
    expect(n2l.location, row.urn).toBe(best);
    checked++;
  }
  return checked;
}

describe.skipIf(skipReason !== undefined)(`both stores ${skipReason ?? ''}`, () => {
  const sample: Partial<Record<StoreKind, OpenedCatalogue>> = {};
  const shapes: Partial<Record<StoreKind, OpenedCatalogue>> = {};
  const shapesFile = () => writeRows('shapes.jsonl', shapesRows(60));

  beforeAll(async () => {
    const file = shapesFile();
    for (const kind of KINDS) {
      const s = await load(kind, SAMPLE);
      expect(s.errors).toEqual([]);
      sample[kind] = s.opened;
      const g = await load(kind, file);
      expect(g.errors).toEqual([]);
      shapes[kind] = g.opened;
    }
  }, 60_000);
  afterAll(async () => {
    for (const c of [...Object.values(sample), ...Object.values(shapes)]) await closeCatalogue(c);
  });

  it('both stores export the same rows, and re-importing an export changes nothing', async () => {
    for (const set of [sample, shapes]) {
      const a = await exportText(set.sqlite as OpenedCatalogue);
      const b = await exportText(set.postgres as OpenedCatalogue);
      expect(b).toBe(a);
      for (const kind of KINDS) {
        const c = set[kind] as OpenedCatalogue;
        const file = join(dir, `re-${kind}.jsonl`);
        writeFileSync(file, a);
        const s = await importFile(c.store, file, { analyse: analyseLexUrn });
        expect(s).toMatchObject({ rejected: 0, newWorks: 0, newItems: 0 });
        expect(await exportText(c)).toBe(a);
      }
    }
  });

  for (const kind of KINDS) {
    it(`${kind}: every exported URN of the sample resolves to its own URL (N2L, N2Ls)`, async () => {
      expect(await roundTrip(sample[kind] as OpenedCatalogue)).toBeGreaterThan(100);
    });
    it(`${kind}: the same for a generated catalogue with every shape of row`, async () => {
      expect(await roundTrip(shapes[kind] as OpenedCatalogue)).toBeGreaterThan(60);
    });
  }

  it('matching gives the same answer on both stores (exact, alias, partial, year-only, versions, misses)', async () => {
    const urns: string[] = [];
    for (const line of (await exportText(sample.sqlite as OpenedCatalogue)).trim().split('\n')) {
      const r = JSON.parse(line) as { urn: string; aliases?: string[] };
      urns.push(r.urn, ...(r.aliases ?? []));
      const work = r.urn.split(/[@$]/)[0] as string;
      urns.push(work);
      // A year-only reference, a missing date, a missing number, another number.
      urns.push(work.replace(/:(\d{4})-\d{2}-\d{2};/, ':$1;'));
      urns.push(work.replace(/:\d{4}-\d{2}-\d{2};/, ':'));
      urns.push(work.replace(/;[^;:]+$/, ''));
      urns.push(`${work}9`);
      urns.push(`${work}@2099-01-01`, `${work}@original:en`, `${work}$nobody.example:text-html`);
      urns.push(`${work}~art1;par2`, `${work}?=at=1999-01-01`);
    }
    const options = [{}, { accept: 'application/pdf' }, { acceptLanguage: 'en' }];
    let compared = 0;
    let i = 0;
    for (const urn of new Set(urns)) {
      // Every URN plainly; one in five also with Accept and Accept-Language.
      for (const o of i++ % 5 === 0 ? options : options.slice(0, 1)) {
        const a = summary(await resolveIn(sample.sqlite as OpenedCatalogue, urn, o));
        const b = summary(await resolveIn(sample.postgres as OpenedCatalogue, urn, o));
        expect(b, `${urn} ${JSON.stringify(o)}`).toEqual(a);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(400);
  });

  it('postgres: concurrent lookups (batched into one statement per turn) answer as one at a time', async () => {
    const urns: string[] = [];
    for (const line of (await exportText(sample.sqlite as OpenedCatalogue)).trim().split('\n')) {
      const work = (JSON.parse(line) as { urn: string }).urn.split(/[@$]/)[0] as string;
      // The same work twice in one batch, and a miss beside it.
      urns.push(work, work, `${work}9`, work.replace(/:(\d{4})-\d{2}-\d{2};/, ':$1;'));
    }
    const pgc = sample.postgres as OpenedCatalogue;
    const store = (pgc as OpenedCatalogue & { kind: 'postgres' }).store;
    const before = store.nameLookups();
    for (let i = 0; i < urns.length; i += 64) {
      const chunk = urns.slice(i, i + 64);
      const together = await Promise.all(chunk.map((u) => resolveIn(pgc, u)));
      for (const [j, urn] of chunk.entries()) {
        const alone = summary(await resolveIn(sample.sqlite as OpenedCatalogue, urn));
        expect(summary(together[j] as Awaited<ReturnType<typeof resolveIn>>), urn).toEqual(alone);
      }
    }
    expect(urns.length).toBeGreaterThan(200);
    // The lookups of one turn went out together: far fewer statements than names.
    const after = store.nameLookups();
    const names = after.names - before.names;
    const statements = after.statements - before.statements;
    expect(names).toBeGreaterThanOrEqual(urns.length);
    expect(statements * 4).toBeLessThan(names);
  });

  it('the counts of both stores agree', async () => {
    for (const set of [sample, shapes]) {
      const a = (set.sqlite as OpenedCatalogue & { kind: 'sqlite' }).store.counts();
      const b = await (set.postgres as OpenedCatalogue & { kind: 'postgres' }).store.counts();
      expect(b).toEqual(a);
    }
  });
});

describe.skipIf(skipReason !== undefined)(`import on both stores ${skipReason ?? ''}`, () => {
  for (const kind of KINDS) {
    it(`${kind}: bad rows are reported with their lines, good ones kept; alias conflicts too`, async () => {
      const good = (i: number) =>
        JSON.stringify({
          urn: `urn:lex:br:federal:lei:2001-01-01;${i}$planalto.gov.br:text-html`,
          url: `https://planalto.example/${i}`,
        });
      const lines = [
        good(1),
        '{"urn": "urn:lex:br:federal:lei:2020-13-01;1", "url": "https://x.example/"}',
        good(2),
        '{"urn": ',
        JSON.stringify({
          urn: 'urn:lex:br:federal:lei:2001-01-01;3',
          aliases: ['urn:lex:br:federal:lei:2001-01-01;1'],
        }),
        JSON.stringify({ urn: `urn:lex:br:federal:lei:2001-01-01;${'9'.repeat(8200)}` }),
        good(4),
      ];
      const file = join(dir, `bad-${kind}.jsonl`);
      // A UTF-8 byte order mark before the first row (issue 21): the row is kept.
      writeFileSync(file, `\uFEFF${lines.join('\n')}\n`);
      const { opened, summary: s, errors } = await load(kind, file);
      try {
        expect(errors.map((e) => [e.line, e.code])).toEqual([
          [2, 'LEX_BAD_DATE'],
          [4, 'ROW_BAD_JSON'],
          [5, 'ALIAS_CONFLICT'],
          [6, 'ROW_URN_TOO_LONG'],
        ]);
        expect(s).toMatchObject({ rows: 7, imported: 3, rejected: 4, newWorks: 3 });
        const found = await resolveIn(opened, 'urn:lex:br:federal:lei:2001-01-01;1');
        expect(found.kind).toBe('found');
      } finally {
        await closeCatalogue(opened);
      }
    });

    it(`${kind}: a CSV quote left open does not swallow the good rows after it (issue 21)`, async () => {
      const file = join(dir, `quote-${kind}.csv`);
      const row = (i: number) =>
        `urn:lex:br:federal:lei:2002-02-02;${i}$planalto.gov.br:text-html,https://p.example/${i},10`;
      writeFileSync(
        file,
        [
          'urn,url,priority',
          row(1),
          `urn:lex:br:federal:lei:2002-02-02;2$planalto.gov.br:text-html,"https://p.example/2,10`,
          row(3),
          row(4),
          `"a quoted field, "with a line break`,
          row(5),
          `${row(6).replace(',10', ',"1\n0"')}`,
          '',
        ].join('\n'),
      );
      const { opened, summary: s, errors } = await load(kind, file);
      try {
        expect(errors.map((e) => [e.line, e.code])).toEqual([
          [3, 'CSV_UNTERMINATED'],
          [6, 'CSV_BAD_QUOTE'],
          [8, 'ROW_BAD_PRIORITY'],
        ]);
        expect(s.imported).toBe(4);
        for (const i of [1, 3, 4, 5]) {
          const r = await resolveIn(opened, `urn:lex:br:federal:lei:2002-02-02;${i}`);
          expect(r.kind, String(i)).toBe('found');
        }
      } finally {
        await closeCatalogue(opened);
      }
    });

    it(`${kind}: an import is visible all at once, and an interrupted one leaves nothing`, async () => {
      const { opened, location } = await freshCatalogue(kind, dir, server);
      const reader = await openCatalogue(location, dir, { readOnly: true });
      try {
        const rows = shapesRows(300);
        const file = writeRows(`atomic-${kind}.jsonl`, rows);
        const seen: number[] = [];
        const counts = async () =>
          reader.kind === 'sqlite' ? reader.store.counts() : await reader.store.counts();
        const s = await importFile(opened.store, file, {
          analyse: analyseLexUrn,
          batchSize: 50,
          // Between batches, another connection still sees the catalogue as it was.
          onProgress: () => void counts().then((c) => seen.push(c.works)),
        });
        await new Promise((r) => setTimeout(r, 50));
        expect(s.rejected).toBe(0);
        expect(seen.length).toBeGreaterThan(3);
        // Reads made while the import runs see none of it or all of it, never a part. A read
        // started between batches may finish after the commit (it then sees all 300): the
        // property is "0 or 300", not the order in which the reads finish.
        expect(seen[0]).toBe(0);
        expect(seen.every((n) => n === 0 || n === 300)).toBe(true);
        expect((await counts()).works).toBe(300);

        const ctl = new AbortController();
        const more = writeRows(
          `atomic2-${kind}.jsonl`,
          shapesRows(400).map((r) => ({
            ...r,
            urn: String(r.urn).replace(';rio.de.janeiro', ';bahia'),
          })),
        );
        const s2 = await importFile(opened.store, more, {
          analyse: analyseLexUrn,
          batchSize: 50,
          onProgress: () => ctl.abort(),
          signal: ctl.signal,
        });
        expect(s2.aborted).toBe(true);
        expect((await counts()).works).toBe(300);
      } finally {
        await closeCatalogue(reader);
        await closeCatalogue(opened);
      }
    });
  }
});

describe.skipIf(skipReason !== undefined)(`schema versions ${skipReason ?? ''}`, () => {
  it('postgres: an empty database is refused by a reader, migrated by a writer, and a newer or foreign schema refused', async () => {
    const pgServer = server as TestPostgres;
    const url = await pgServer.createDatabase('lexroute_schema');
    await expect(PgCatalogue.open(url, { readOnly: true })).rejects.toMatchObject({
      code: 'CATALOGUE_SCHEMA',
      message: expect.stringMatching(/no catalogue yet/),
    });
    const c = await PgCatalogue.open(url);
    expect(await c.counts()).toMatchObject({ works: 0 });
    await c.close();
    const reader = await PgCatalogue.open(url, { readOnly: true });
    await reader.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("UPDATE meta SET value = '99' WHERE key = 'schema'");
    await expect(PgCatalogue.open(url)).rejects.toMatchObject({
      code: 'CATALOGUE_SCHEMA',
      message: expect.stringMatching(/schema 99 is newer/),
    });
    const other = await pgServer.createDatabase('lexroute_foreign');
    const c2 = new pg.Client({ connectionString: other });
    await c2.connect();
    await c2.query('CREATE TABLE meta (k text)');
    await expect(PgCatalogue.open(other)).rejects.toMatchObject({ code: 'CATALOGUE_SCHEMA' });
    await c2.end();
    await client.end();
  });

  for (const kind of KINDS) {
    it(`${kind}: a catalogue of the previous schema is refused by a reader, migrated by catalogue migrate, its rows intact`, async () => {
      const { opened, location } = await freshCatalogue(kind, dir, server);
      await importFile(opened.store, SAMPLE, { analyse: analyseLexUrn });
      const before = await exportText(opened);
      // Back to the schema before the registries (SQLite 2, PostgreSQL 1).
      if (opened.kind === 'sqlite') {
        opened.store.db.exec(
          "DROP TABLE registry; UPDATE meta SET value = '2' WHERE key = 'schema'",
        );
      } else {
        await opened.store.pool.query(
          "DROP TABLE registry; UPDATE meta SET value = '1' WHERE key = 'schema'",
        );
      }
      await closeCatalogue(opened);
      await expect(openCatalogue(location, dir, { readOnly: true })).rejects.toMatchObject({
        code: 'CATALOGUE_SCHEMA',
        message: expect.stringMatching(/catalogue migrate/),
      });
      const io = captureIo({ cwd: dir });
      expect(await catalogueCommand.run(['migrate', '--catalogue', location], io)).toBe(0);
      expect(io.stdout()).toMatch(
        kind === 'sqlite' ? /schema 3 \(sqlite\)/ : /schema 2 \(postgres\)/,
      );
      const after = await openCatalogue(location, dir, { readOnly: true });
      try {
        expect(await exportText(after)).toBe(before);
        expect(
          after.kind === 'sqlite'
            ? after.store.registryEntries()
            : await after.store.registryEntries(),
        ).toEqual([]);
      } finally {
        await closeCatalogue(after);
      }
    });

    it(`${kind}: registries stored in the catalogue come back as they were stored`, async () => {
      const { opened } = await freshCatalogue(kind, dir, server);
      const entries: RegistryEntry[] = [
        {
          kind: 'authority',
          code: 'supremo.tribunal.federal',
          label: 'Supremo Tribunal Federal',
          altLabels: [],
          acronyms: ['STF'],
          broader: null,
        },
        {
          kind: 'jurisdiction',
          code: 'br;sao.paulo',
          label: 'São Paulo',
          altLabels: [],
          acronyms: ['SP'],
          broader: 'br',
        },
        {
          kind: 'measure',
          code: 'lei',
          label: 'Lei',
          altLabels: ['Lei Ordinária'],
          acronyms: [],
          broader: null,
        },
        {
          kind: 'measure',
          code: 'lei',
          label: 'Lei',
          altLabels: ['Lei Federal'],
          acronyms: ['L'],
          broader: null,
        },
      ];
      try {
        if (opened.kind === 'sqlite') opened.store.replaceRegistry(entries);
        else await opened.store.replaceRegistry(entries);
        const back =
          opened.kind === 'sqlite'
            ? opened.store.registryEntries()
            : await opened.store.registryEntries();
        expect(back).toEqual([
          entries[0],
          entries[1],
          { ...entries[2], altLabels: ['Lei Ordinária', 'Lei Federal'], acronyms: ['L'] },
        ]);
      } finally {
        await closeCatalogue(opened);
      }
    });
  }

  it('sqlite: a newer schema is refused, and a file that is not a database fails with CATALOGUE_OPEN', async () => {
    const { opened, location } = await freshCatalogue('sqlite', dir, undefined);
    if (opened.kind !== 'sqlite') throw new Error('sqlite expected');
    opened.store.db.exec("UPDATE meta SET value = '9' WHERE key = 'schema'");
    opened.store.close();
    await expect(openCatalogue(location, dir)).rejects.toMatchObject({ code: 'CATALOGUE_SCHEMA' });
    const junk = join(dir, 'junk.sqlite');
    writeFileSync(junk, 'not a database, not at all'.repeat(100));
    await expect(openCatalogue(junk, dir, { create: false })).rejects.toMatchObject({
      code: 'CATALOGUE_OPEN',
    });
  });
});
