/**
 * `partitionDepth`, the granularity of a manifestation's markup (RFC 9676
 * section 5.8: "knowing the granularity of the act markup, the resolver could
 * exploit the hierarchical structure of the ID by eliminating sub-partitions
 * that are not addressed"): the trimming rule, row validation, the merge rule
 * of several rows (memory and SQLite alike), the stored document (schema 2,
 * optional trailing element: documents written without it read unchanged),
 * CSV import and export round trips.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  MemoryCatalogue,
  analyseLexUrn,
  analyseReference,
  partitionForDepth,
  resolveQuery,
  validateRow,
  worksFromRows,
  type CatalogueReader,
  type CatalogueRow,
} from '../../src/resolver/core/index.ts';
import { decodeWork, encodeWork } from '../../src/resolver/catalogue/doc.ts';
import { exportCatalogue } from '../../src/resolver/catalogue/export.ts';
import { importFile, type ImportRowError } from '../../src/resolver/catalogue/import.ts';
import { SqliteCatalogue } from '../../src/resolver/catalogue/store.ts';

const dir = mkdtempSync(join(tmpdir(), 'lexroute-depth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshFile = (ext = 'sqlite') => join(dir, `f${files++}.${ext}`);

const LOI = 'urn:lex:fr:etat:loi:2004-05-15;106';
const HTML = `${LOI}$legifrance.gouv.fr:text-html`;

function row(fields: Record<string, unknown>): CatalogueRow {
  const v = validateRow(fields, analyseLexUrn);
  if (!v.ok) throw new Error(`${JSON.stringify(fields)}: ${v.error.code} ${v.error.message}`);
  return v.value;
}

function firstUrl(reader: CatalogueReader, urn: string): string | undefined {
  const a = analyseReference(urn);
  if (!a.ok) throw new Error(a.error.message);
  const r = resolveQuery(a.value, reader);
  return r.kind === 'found' ? r.locations[0]?.url : r.kind;
}

describe('partitionForDepth', () => {
  it('RFC 9676 section 5.8 example and the edge cases', () => {
    const table: [string | null, number | null, string | null, string][] = [
      ['art15;par3', 1, 'art15', 'trimmed'],
      ['art15;par3', 2, 'art15;par3', 'whole'],
      ['art15;par3', 9, 'art15;par3', 'whole'],
      ['art15;par3', 0, null, 'omitted'],
      ['art15;par3', null, 'art15;par3', 'whole'],
      [null, 1, null, 'none'],
      [null, 0, null, 'none'],
      [null, null, null, 'none'],
      ['art15-par3', 1, 'art15-par3', 'whole'],
      ['art15;', 1, 'art15', 'trimmed'],
      ['art15;;par3', 2, 'art15', 'trimmed'],
      [';par3', 1, null, 'omitted'],
      ['a;b;c;d', 3, 'a;b;c', 'trimmed'],
    ];
    for (const [partition, depth, want, applied] of table) {
      expect(partitionForDepth(partition, depth), `${partition} @ ${depth}`).toEqual({
        partition: want,
        applied,
      });
    }
  });

  it('the result is the partition cut at a ";" into at most depth levels (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', '1', ';', '.', '-', '%'), minLength: 1 }),
        fc.integer({ min: 0, max: 6 }),
        (partition, depth) => {
          const r = partitionForDepth(partition, depth);
          if (r.partition === null) {
            expect(r.applied).toBe('omitted');
            // Nothing but empty levels (or depth 0) before the cut.
            expect(depth === 0 || /^;*$/.test(partition.split(';').slice(0, depth).join(';'))).toBe(
              true,
            );
            return;
          }
          expect(r.partition.split(';').length).toBeLessThanOrEqual(depth);
          if (r.applied === 'whole') {
            expect(r.partition).toBe(partition);
            expect(partition.split(';').length).toBeLessThanOrEqual(depth);
          } else {
            expect(r.applied).toBe('trimmed');
            // Cut at a ';', with no empty level left at the end.
            expect(partition.startsWith(`${r.partition};`)).toBe(true);
            expect(r.partition.endsWith(';')).toBe(false);
          }
        },
      ),
    );
  });
});

describe('row validation', () => {
  const bad: [string, Record<string, unknown>, string][] = [
    ['33 (more than 32)', { urn: HTML, partitionDepth: 33 }, 'ROW_BAD_PARTITION_DEPTH'],
    ['negative', { urn: HTML, partitionDepth: -1 }, 'ROW_BAD_PARTITION_DEPTH'],
    ['not an integer', { urn: HTML, partitionDepth: 1.5 }, 'ROW_BAD_PARTITION_DEPTH'],
    ['a boolean', { urn: HTML, partitionDepth: true }, 'ROW_BAD_PARTITION_DEPTH'],
    ['text with an exponent', { urn: HTML, partition_depth: '1e1' }, 'ROW_BAD_PARTITION_DEPTH'],
    ['text with a sign', { urn: HTML, partition_depth: '+1' }, 'ROW_BAD_PARTITION_DEPTH'],
    ['hex text', { urn: HTML, partition_depth: '0x1' }, 'ROW_BAD_PARTITION_DEPTH'],
    [
      'a work-level URN',
      { urn: LOI, url: 'https://x.example/', partitionDepth: 1 },
      'ROW_PARTITION_DEPTH_WITHOUT_MANIFESTATION',
    ],
    [
      'an expression-level URN',
      { urn: `${LOI}@original:fr`, url: 'https://x.example/', partitionDepth: 0 },
      'ROW_PARTITION_DEPTH_WITHOUT_MANIFESTATION',
    ],
    ['a misspelt field', { urn: HTML, partitionDeph: 1 }, 'ROW_UNKNOWN_FIELD'],
  ];
  for (const [name, fields, code] of bad) {
    it(`${name}: ${code}`, () => {
      const v = validateRow(fields, analyseLexUrn);
      expect(v.ok ? 'ok' : v.error.code).toBe(code);
      if (!v.ok && code !== 'ROW_UNKNOWN_FIELD') expect(v.error.field).toBe('partitionDepth');
    });
  }

  it('accepts 0-32 as a number, as decimal text (CSV), and partition_depth in JSONL', () => {
    expect(row({ urn: HTML, partitionDepth: 0 }).partitionDepth).toBe(0);
    expect(row({ urn: HTML, partitionDepth: 32 }).partitionDepth).toBe(32);
    expect(row({ urn: HTML, partition_depth: '2' }).partitionDepth).toBe(2);
    expect(row({ urn: HTML, partitionDepth: '' }).partitionDepth).toBeNull();
    expect(row({ urn: HTML, partitionDepth: null }).partitionDepth).toBeNull();
    expect(row({ urn: HTML }).partitionDepth).toBeNull();
    const v = validateRow({ urn: HTML, colour: 1 }, analyseLexUrn);
    expect(!v.ok && v.error.message).toContain('partitionDepth');
  });
});

describe('several rows of one manifestation (the inForce rule: a later row that gives a value replaces it)', () => {
  const rows = [
    { urn: HTML, url: 'https://lf.example/a', partitionDepth: 2 },
    { urn: HTML, url: 'https://lf.example/b', priority: 20, partitionDepth: 1 },
    // No depth: keeps 1.
    { urn: HTML, url: 'https://lf.example/c', priority: 30 },
    // Another manifestation of the same expression is independent.
    { urn: `${LOI}$senat.fr:text-html`, url: 'https://senat.example/106', partitionDepth: 0 },
  ];

  it('memory and SQLite agree, in one transaction or one row per transaction', () => {
    const memory = new MemoryCatalogue(worksFromRows(rows.map(row)));
    const one = new SqliteCatalogue(freshFile());
    const each = new SqliteCatalogue(freshFile());
    try {
      one.transaction(() => {
        const w = one.writer();
        for (const r of rows) expect(w.write(row(r)).ok).toBe(true);
      });
      for (const r of rows)
        each.transaction(() => expect(each.writer().write(row(r)).ok).toBe(true));
      for (const reader of [memory, one, each] as CatalogueReader[]) {
        const m = reader.byName(LOI)?.expressions[0]?.manifestations;
        expect(m?.map((x) => [x.urn, x.partitionDepth])).toEqual([
          [HTML, 1],
          [`${LOI}$senat.fr:text-html`, 0],
        ]);
        expect(firstUrl(reader, `${LOI}~art15;par3`)).toBe('https://lf.example/a#art15');
      }
    } finally {
      one.close();
      each.close();
    }
  });

  it('a later import that gives a depth updates a stored manifestation; one without leaves it', async () => {
    const file = freshFile();
    const store = new SqliteCatalogue(file);
    try {
      const a = freshFile('jsonl');
      writeFileSync(a, `${JSON.stringify({ urn: HTML, url: 'https://lf.example/a' })}\n`);
      await importFile(store, a, { analyse: analyseLexUrn });
      expect(firstUrl(store, `${HTML}~art15;par3`)).toBe('https://lf.example/a#art15;par3');
      // A row that only sets the depth (no url) of the existing manifestation.
      const b = freshFile('jsonl');
      writeFileSync(b, `${JSON.stringify({ urn: HTML, partition_depth: 1 })}\n`);
      const s = await importFile(store, b, { analyse: analyseLexUrn });
      expect(s).toMatchObject({ imported: 1, newItems: 0, rejected: 0 });
      expect(firstUrl(store, `${HTML}~art15;par3`)).toBe('https://lf.example/a#art15');
      // Importing the first file again (no depth) changes nothing.
      await importFile(store, a, { analyse: analyseLexUrn });
      expect(firstUrl(store, `${HTML}~art15;par3`)).toBe('https://lf.example/a#art15');
      expect(store.counts().manifestations).toBe(1);
    } finally {
      store.close();
    }
  });
});

describe('a catalogued URL with a fragment', () => {
  const rows = [
    { urn: HTML, url: 'https://lf.example/a#texte', partitionDepth: 1 },
    {
      urn: `${LOI}$senat.fr:application-pdf`,
      url: 'https://senat.example/a.pdf#page=2',
      priority: 20,
      partitionDepth: 0,
    },
  ];
  const store = new SqliteCatalogue(freshFile());
  afterAll(() => store.close());
  store.transaction(() => {
    const w = store.writer();
    for (const r of rows) expect(w.write(row(r)).ok).toBe(true);
  });
  const readers: [string, CatalogueReader][] = [
    ['memory', new MemoryCatalogue(worksFromRows(rows.map(row)))],
    ['sqlite', store],
  ];
  for (const [name, reader] of readers) {
    it(`${name}: the trimmed partition replaces it (depth >= 1); depth 0 keeps it`, () => {
      expect(firstUrl(reader, `${HTML}~art15;par3`)).toBe('https://lf.example/a#art15');
      expect(firstUrl(reader, HTML)).toBe('https://lf.example/a#texte');
      expect(firstUrl(reader, `${LOI}$senat.fr:application-pdf~art15;par3`)).toBe(
        'https://senat.example/a.pdf#page=2',
      );
      expect(firstUrl(reader, `${LOI}$senat.fr:application-pdf`)).toBe(
        'https://senat.example/a.pdf#page=2',
      );
    });
  }
});

describe('the stored document (schema 2)', () => {
  /** A document as lexroute wrote it before partitionDepth existed. */
  const LEGACY =
    '[null,[["urn:lex:fr:etat:loi:2004-05-15;106",0,"fr","etat","loi",["2004-05-15"],null,["106"],[]]],' +
    '[[null,null,null,null,[["legifrance.gouv.fr","text-html",null,null,["https://lf.example/a",10]]]]]]';

  it('a document written without the element decodes as unknown, and encodes back byte for byte', () => {
    const w = decodeWork(7, LEGACY);
    expect(w.expressions[0]?.manifestations[0]?.partitionDepth).toBeNull();
    expect(encodeWork(w)).toBe(LEGACY);
  });

  it('a known depth is the trailing element; decode(encode) keeps it, 0 included', () => {
    for (const depth of [0, 1, 32]) {
      const [w] = worksFromRows([
        row({ urn: HTML, url: 'https://lf.example/a', partitionDepth: depth }),
      ]);
      const text = encodeWork(w!);
      expect(text).toContain(`["https://lf.example/a",10],${depth}]`);
      expect(decodeWork(w!.id, text, true)).toEqual(w);
    }
  });

  it('a schema-2 file holding an old document resolves as before, then takes a depth from an import', async () => {
    const file = freshFile();
    new SqliteCatalogue(file).close();
    const db = new DatabaseSync(file);
    db.prepare('INSERT INTO works(id, doc) VALUES (1, ?)').run(LEGACY);
    db.prepare('INSERT INTO lookup(urn, work_id) VALUES (?, 1)').run(LOI);
    db.close();
    const store = new SqliteCatalogue(file);
    try {
      expect(store.byName(LOI)?.expressions[0]?.manifestations[0]?.partitionDepth).toBeNull();
      expect(firstUrl(store, `${LOI}~art15;par3`)).toBe('https://lf.example/a#art15;par3');
      store.transaction(() => store.writer().write(row({ urn: HTML, partitionDepth: 1 })));
      expect(firstUrl(store, `${LOI}~art15;par3`)).toBe('https://lf.example/a#art15');
    } finally {
      store.close();
    }
  });
});

describe('CSV import and export round trip', () => {
  it('reads the partition_depth column, reports a bad one by line, and export -> import keeps every depth', async () => {
    const csv = freshFile('csv');
    writeFileSync(
      csv,
      [
        'urn,url,priority,partition_depth',
        `${HTML},https://lf.example/a,10,1`,
        `${LOI}$legifrance.gouv.fr:application-pdf,https://lf.example/a.pdf,20,0`,
        `${LOI}$senat.fr:text-html,https://senat.example/106,30,`,
        `${LOI}$jo.example:text-xml,https://jo.example/106.xml,40,deep`,
        `${LOI},https://x.example/,50,2`,
        `${LOI}$jo.example:text-xml,,,3`,
      ].join('\n'),
    );
    const a = new SqliteCatalogue(freshFile());
    const b = new SqliteCatalogue(freshFile());
    const c = new SqliteCatalogue(freshFile());
    try {
      const errors: ImportRowError[] = [];
      const s = await importFile(a, csv, {
        analyse: analyseLexUrn,
        onError: (e) => errors.push(e),
      });
      expect(errors.map((e) => [e.line, e.code, e.field])).toEqual([
        [5, 'ROW_BAD_PARTITION_DEPTH', 'partitionDepth'],
        [6, 'ROW_PARTITION_DEPTH_WITHOUT_MANIFESTATION', 'partitionDepth'],
      ]);
      expect(s).toMatchObject({ imported: 4, rejected: 2 });
      const depths = (store: SqliteCatalogue) =>
        store
          .byName(LOI)
          ?.expressions.flatMap((e) => e.manifestations.map((m) => [m.urn, m.partitionDepth]));
      const want = [
        [HTML, 1],
        [`${LOI}$legifrance.gouv.fr:application-pdf`, 0],
        [`${LOI}$senat.fr:text-html`, null],
        [`${LOI}$jo.example:text-xml`, 3],
      ];
      expect(depths(a)).toEqual(want);

      let jsonl = '';
      exportCatalogue(a, 'jsonl', (l) => (jsonl += l));
      // The depth rides on the manifestation's row; unknown depths are not written.
      expect(jsonl.match(/"partitionDepth":/g)?.length).toBe(3);
      expect(jsonl).toContain(`{"urn":"${LOI}$jo.example:text-xml","partitionDepth":3}`);
      const jsonlFile = freshFile('jsonl');
      writeFileSync(jsonlFile, jsonl);
      expect((await importFile(b, jsonlFile, { analyse: analyseLexUrn })).rejected).toBe(0);
      expect(depths(b)).toEqual(want);

      let csvOut = '';
      exportCatalogue(a, 'csv', (l) => (csvOut += l));
      expect(csvOut.split('\n')[0]).toBe('urn,url,priority,in_force,title,aliases,partition_depth');
      expect(csvOut).toContain(`${HTML},https://lf.example/a,10,,,,1\n`);
      const csvFile = freshFile('csv');
      writeFileSync(csvFile, csvOut);
      expect((await importFile(c, csvFile, { analyse: analyseLexUrn })).rejected).toBe(0);
      expect(depths(c)).toEqual(want);
      let again = '';
      exportCatalogue(c, 'jsonl', (l) => (again += l));
      expect(again).toBe(jsonl);
    } finally {
      a.close();
      b.close();
      c.close();
    }
  });
});
