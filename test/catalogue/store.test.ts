/**
 * The SQLite store (schema 2: one document per work): the writer's merge
 * rules equal the in-memory reference (`worksFromRows`) on random rows,
 * documents round-trip, counts follow the writes, reads see other
 * connections' commits from the next turn of the event loop (or when the
 * snapshot window ends), and a file of
 * another schema is refused with a clear code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  analyseLexUrn,
  validateRow,
  worksFromRows,
  type CatalogueRow,
  type CatalogueWork,
} from '../../src/resolver/core/index.ts';
import { compareBinary, decodeWork, encodeWork } from '../../src/resolver/catalogue/doc.ts';
import { CatalogueError, SqliteCatalogue } from '../../src/resolver/catalogue/store.ts';

const dir = mkdtempSync(join(tmpdir(), 'lexroute-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshFile = () => join(dir, `c${files++}.sqlite`);

function row(fields: Record<string, unknown>): CatalogueRow {
  const v = validateRow(fields, analyseLexUrn);
  if (!v.ok) throw new Error(`${JSON.stringify(fields)}: ${v.error.code} ${v.error.message}`);
  return v.value;
}

/** A work as the SQLite reader returns it: aliases by URN, items by priority then URL. */
function canonicalOrder(w: CatalogueWork): unknown {
  const [first, ...aliases] = w.names;
  return {
    urn: w.urn,
    title: w.title,
    names: [first, ...aliases.sort((a, b) => compareBinary(a.urn, b.urn))],
    expressions: w.expressions.map((e) => ({
      urn: e.urn,
      key: e.key,
      inForce: e.inForce,
      manifestations: e.manifestations.map((m) => ({
        urn: m.urn,
        key: m.key,
        partitionDepth: m.partitionDepth,
        items: [...m.items].sort((a, b) => a.priority - b.priority || compareBinary(a.url, b.url)),
      })),
    })),
  };
}

const WORK = (i: number) => `urn:lex:br:federal:lei:2001-0${1 + (i % 9)}-1${i % 10};${100 + i}`;
const ALIAS = (i: number, k: number) =>
  `urn:lex:br:${['senado', 'camara', 'congresso.nacional'][k]}:lei:2001-0${1 + (i % 9)}-1${i % 10};${100 + i}`;

const rowArb = fc.record({
  work: fc.integer({ min: 0, max: 3 }),
  version: fc.constantFrom(null, 'original', '2010-05-01', '2015-01-01'),
  language: fc.constantFrom(null, 'pt', 'en'),
  man: fc.constantFrom(null, 'planalto.gov.br:text-html', 'senado.leg.br:application-pdf'),
  url: fc.constantFrom(null, 'https://a.example/1', 'https://a.example/2', 'https://b.example/é'),
  priority: fc.constantFrom(undefined, 1, 10, 20),
  inForce: fc.constantFrom(null, '2011-01-01', '2016-02-02'),
  partitionDepth: fc.constantFrom(null, 0, 1, 3),
  title: fc.constantFrom(null, 'Lei A', 'Lei B'),
  aliases: fc.subarray([0, 1, 2]),
});

function toFields(r: typeof rowArb extends fc.Arbitrary<infer T> ? T : never) {
  let urn = WORK(r.work);
  if (r.version !== null) urn += `@${r.version}${r.language === null ? '' : `:${r.language}`}`;
  if (r.man !== null) urn += `$${r.man}`;
  const f: Record<string, unknown> = { urn };
  if (r.url !== null) {
    f.url = r.url;
    if (r.priority !== undefined) f.priority = r.priority;
  }
  if (r.inForce !== null && r.version !== null) f.inForce = r.inForce;
  if (r.partitionDepth !== null && r.man !== null) f.partitionDepth = r.partitionDepth;
  if (r.title !== null) f.title = r.title;
  if (r.aliases.length > 0) f.aliases = r.aliases.map((k) => ALIAS(r.work, k));
  return f;
}

describe('writer', () => {
  it('merges rows as the in-memory reference does, in one transaction or several (property)', () => {
    fc.assert(
      fc.property(
        fc.array(rowArb, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 1, max: 6 }),
        (raw, batch) => {
          const rows = raw.map((r) => row(toFields(r)));
          const store = new SqliteCatalogue(freshFile());
          try {
            const writer = store.writer();
            for (let i = 0; i < rows.length; i += batch) {
              store.transaction(() => {
                for (const r of rows.slice(i, i + batch)) expect(writer.write(r).ok).toBe(true);
              });
            }
            const want = worksFromRows(rows);
            const c = store.counts();
            expect(c.works).toBe(want.length);
            expect(c.aliases).toBe(want.reduce((s, w) => s + w.names.length - 1, 0));
            expect(c.expressions).toBe(want.reduce((s, w) => s + w.expressions.length, 0));
            let items = 0;
            for (const w of want) {
              for (const e of w.expressions)
                for (const m of e.manifestations) items += m.items.length;
              for (const n of w.names) {
                const got = store.byName(n.urn);
                expect(got && canonicalOrder(got)).toEqual(canonicalOrder(w));
                expect(got?.names.map((x) => x.urn)).toEqual(
                  (canonicalOrder(w) as { names: { urn: string }[] }).names.map((x) => x.urn),
                );
              }
            }
            expect(c.items).toBe(items);
          } finally {
            store.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('writes at once outside a transaction, and rejects a conflicting alias without a change', () => {
    const file = freshFile();
    const a = new SqliteCatalogue(file);
    const b = new SqliteCatalogue(file);
    try {
      const w = a.writer();
      expect(
        w.write(row({ urn: WORK(1), url: 'https://x.example/1', aliases: [ALIAS(1, 0)] })).ok,
      ).toBe(true);
      // Another connection sees it: nothing is left in memory.
      expect(b.byName(ALIAS(1, 0))?.urn).toBe(WORK(1));
      const before = a.counts();
      const r = w.write(row({ urn: WORK(2), url: 'https://x.example/2', aliases: [ALIAS(1, 0)] }));
      expect(r.ok ? '' : r.error.code).toBe('ALIAS_CONFLICT');
      expect(a.byName(WORK(2))).toBeUndefined();
      expect(a.counts()).toEqual(before);
    } finally {
      a.close();
      b.close();
    }
  });

  it('reads inside a transaction see the rows written so far', () => {
    const store = new SqliteCatalogue(freshFile());
    try {
      store.transaction(() => {
        store.writer().write(row({ urn: WORK(3), url: 'https://x.example/3' }));
        expect(store.byName(WORK(3))?.expressions[0]?.manifestations[0]?.items).toEqual([
          { url: 'https://x.example/3', priority: 10 },
        ]);
      });
      expect(store.counts().items).toBe(1);
    } finally {
      store.close();
    }
  });

  it('a rolled-back transaction leaves nothing behind', () => {
    const store = new SqliteCatalogue(freshFile());
    try {
      expect(() =>
        store.transaction(() => {
          store.writer().write(row({ urn: WORK(4), url: 'https://x.example/4' }));
          throw new Error('stop');
        }),
      ).toThrow('stop');
      expect(store.byName(WORK(4))).toBeUndefined();
      expect(store.counts().works).toBe(0);
    } finally {
      store.close();
    }
  });
});

describe('documents', () => {
  it('decode(encode(work)) is the work', () => {
    const rows = [
      row({
        urn: `${WORK(5)}@original:pt$a.example:text-html`,
        url: 'https://a.example/5',
        title: 'T',
        aliases: [ALIAS(5, 2), ALIAS(5, 0)],
      }),
      row({
        urn: `${WORK(5)}@2010-05-01:pt$a.example:application-pdf;1.7:main:x`,
        url: 'https://a.example/5.pdf',
        priority: 3,
        inForce: '2010-06-01',
        partitionDepth: 2,
      }),
      row({ urn: WORK(5) }),
    ];
    const [w] = worksFromRows(rows);
    const back = decodeWork(w!.id, encodeWork(w!), true);
    expect(back).toEqual(w);
    // Aliases come back by URN (congresso.nacional < senado) unless asked for in insertion order.
    expect(decodeWork(w!.id, encodeWork(w!)).names.map((n) => n.urn)).toEqual([
      WORK(5),
      ALIAS(5, 2),
      ALIAS(5, 0),
    ]);
  });

  it('compareBinary orders strings as SQLite BINARY (UTF-8 bytes) does', () => {
    const db = new DatabaseSync(':memory:');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        const sql = (db.prepare('SELECT (? > ?) - (? < ?) AS c').get(a, b, a, b) as { c: number })
          .c;
        expect(Math.sign(compareBinary(a, b)) + 0).toBe(sql);
      }),
    );
    expect(compareBinary('\uffff', '\u{10000}')).toBeLessThan(0);
    db.close();
  });
});

describe('reads and other connections', () => {
  it('a commit by another connection is seen from the next turn on, and moves dataVersion', async () => {
    const file = freshFile();
    const reader = new SqliteCatalogue(file);
    const writer = new SqliteCatalogue(file);
    try {
      expect(reader.byName(WORK(6))).toBeUndefined();
      const v = reader.dataVersion();
      writer.transaction(() =>
        writer.writer().write(row({ urn: WORK(6), url: 'https://x.example/6' })),
      );
      await new Promise((r) => setImmediate(r));
      expect(reader.byName(WORK(6))?.urn).toBe(WORK(6));
      expect(reader.dataVersion()).not.toBe(v);
    } finally {
      reader.close();
      writer.close();
    }
  });

  it('with a snapshot window, reads share one snapshot across turns until the window ends', async () => {
    const file = freshFile();
    const reader = new SqliteCatalogue(file);
    const writer = new SqliteCatalogue(file);
    try {
      // A long window: the commit below stays hidden over several turns.
      reader.setSnapshotWindow(60_000);
      expect(reader.byName(WORK(7))).toBeUndefined();
      writer.transaction(() =>
        writer.writer().write(row({ urn: WORK(7), url: 'https://x.example/7' })),
      );
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      expect(reader.byName(WORK(7))).toBeUndefined();
      // dataVersion ends the snapshot (the resolver's cache check sees the import) ...
      const v = reader.dataVersion();
      expect(reader.byName(WORK(7))?.urn).toBe(WORK(7));
      // ... and so does a change of window; a short window ends by itself.
      reader.setSnapshotWindow(20);
      expect(reader.byName(WORK(8))).toBeUndefined();
      writer.transaction(() =>
        writer.writer().write(row({ urn: WORK(8), url: 'https://x.example/8' })),
      );
      await new Promise((r) => setTimeout(r, 200));
      expect(reader.byName(WORK(8))?.urn).toBe(WORK(8));
      expect(reader.dataVersion()).not.toBe(v);
      expect(() => reader.setSnapshotWindow(-1)).toThrow(RangeError);
    } finally {
      reader.close();
      writer.close();
    }
  });

  it('refuses a file of another schema with CATALOGUE_SCHEMA', () => {
    const file = freshFile();
    const db = new DatabaseSync(file);
    db.exec(
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema', '1');",
    );
    db.close();
    let err: unknown;
    try {
      new SqliteCatalogue(file).close();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CatalogueError);
    expect((err as CatalogueError).code).toBe('CATALOGUE_SCHEMA');
  });
});
