/**
 * `lexroute catalogue import|export` on real files and a real SQLite
 * catalogue: 100,000 generated rows with bad rows among them, idempotent
 * re-import, CSV, and export -> import round trips.
 */
import { mkdtempSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyseLexUrn } from '../../src/resolver/core/from-urn.ts';
import { validateRow } from '../../src/resolver/core/row.ts';
import { importFile, type ImportRowError } from '../../src/resolver/catalogue/import.ts';
import { exportCatalogue } from '../../src/resolver/catalogue/export.ts';
import { SqliteCatalogue } from '../../src/resolver/catalogue/store.ts';
import { catalogueCommand } from '../../src/cli/commands/catalogue.ts';
import { captureIo } from '../helpers/io.ts';

const dir = mkdtempSync(join(tmpdir(), 'lexroute-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SAMPLE = new URL('../../data/sample-catalogue.jsonl', import.meta.url).pathname;

/** Bad rows of every kind, each with the code the importer must report. */
const BAD_ROWS: { text: string; code: string }[] = [
  {
    text: '{"urn": "urn:lex:br:federal:lei:2020-13-01;1", "url": "https://x.example/"}',
    code: 'LEX_BAD_DATE',
  },
  {
    text: '{"urn": "urn:lex:br:federal:lei:2020-01-01;1", "url": "ftp://x.example/"}',
    code: 'ROW_BAD_URL',
  },
  {
    text: '{"urn": "urn:lex:br:federal:lei:2020-01-01;1", "url": "https://x.example/", "priority": -1}',
    code: 'ROW_BAD_PRIORITY',
  },
  { text: '{"url": "https://x.example/"}', code: 'ROW_MISSING_URN' },
  {
    text: '{"urn": "urn:lex:br:federal:lei:2020-01-01;1", "colour": "red"}',
    code: 'ROW_UNKNOWN_FIELD',
  },
  {
    text: '{"urn": "urn:lex:br:federal:lei:2020-01-01;1~art1", "url": "https://x.example/"}',
    code: 'ROW_PARTITION',
  },
  {
    text: '{"urn": "urn:lex:br:federal:lei:2020-01-01;1", "inForce": "2020-01-01"}',
    code: 'ROW_IN_FORCE_WITHOUT_VERSION',
  },
  { text: '{"urn": "urn:lex:br:federal:lei:2020-01-01;1", ', code: 'ROW_BAD_JSON' },
  { text: '["urn:lex:br:federal:lei:2020-01-01;1"]', code: 'ROW_NOT_OBJECT' },
  {
    text: '{"urn": "urn:lex:br:federal:lei:2020-01-01", "url": "https://x.example/"}',
    code: 'LEX_MISSING_NUMBER',
  },
  {
    text: '{"urn": "urn:nir:stato:legge:2020-01-01;1", "url": "https://x.example/"}',
    code: 'LEX_NOT_LEX',
  },
  {
    text: '{"urn": "urn:lex:br:federal:lei:2020-01-01;1", "aliases": ["urn:lex:br:federal:lei:2020-01-01;2@2021-01-01"]}',
    code: 'ROW_ALIAS_NOT_WORK',
  },
];

interface Generated {
  readonly text: string;
  readonly bad: { line: number; code: string }[];
  /** `urn url` of every good item row, canonical. */
  readonly items: Set<string>;
  readonly works: number;
  readonly aliases: number;
}

/** 100,000 lines: works with two versions and two formats, an alias on every 10th, a bad row every 1,999 lines. */
function generate(lines: number): Generated {
  const out: string[] = [];
  const bad: { line: number; code: string }[] = [];
  const items = new Set<string>();
  let works = 0;
  let aliases = 0;
  let w = 0;
  while (out.length < lines) {
    const n = w++;
    const year = 1950 + (n % 70);
    const date = `${year}-${String(1 + (n % 12)).padStart(2, '0')}-${String(1 + (n % 28)).padStart(2, '0')}`;
    const work = `urn:lex:br;sao.paulo:estadual:lei:${date};${10000 + n}`;
    works++;
    const rows: Record<string, unknown>[] = [
      {
        urn: `${work}@original:pt$al.sp.gov.br:text-html`,
        url: `https://al.sp.example/lei/${n}.html`,
        title: `Lei estadual ${10000 + n}`,
      },
      {
        urn: `${work}@2020-01-01:pt$al.sp.gov.br:text-html`,
        url: `https://al.sp.example/lei/${n}/2020.html`,
        inForce: '2020-02-01',
      },
      {
        urn: `${work}@2020-01-01:pt$doe.sp.gov.br:application-pdf`,
        url: `https://doe.sp.example/${n}.pdf`,
        priority: 20,
      },
    ];
    if (n % 10 === 0) {
      rows[0] = {
        ...rows[0],
        aliases: [`urn:lex:br;sao.paulo:assembleia.legislativa:lei:${date};${10000 + n}`],
      };
      aliases++;
    }
    for (const r of rows) {
      if (out.length >= lines) break;
      if ((out.length + 1) % 1999 === 0) {
        const b = BAD_ROWS[bad.length % BAD_ROWS.length]!;
        out.push(b.text);
        bad.push({ line: out.length, code: b.code });
        if (out.length >= lines) break;
      }
      out.push(JSON.stringify(r));
      items.add(`${r.urn as string} ${r.url as string}`);
    }
  }
  return { text: `${out.join('\n')}\n`, bad, items, works, aliases };
}

function exportedItems(store: SqliteCatalogue): { set: Set<string>; rows: number; text: string } {
  let text = '';
  const set = new Set<string>();
  let rows = 0;
  exportCatalogue(store, 'jsonl', (line) => {
    text += line;
    rows++;
    const r = JSON.parse(line) as { urn: string; url?: string };
    if (r.url !== undefined) set.add(`${r.urn} ${r.url}`);
  });
  return { set, rows, text };
}

describe('import of 100,000 generated rows with bad rows', () => {
  const gen = generate(100_000);
  const file = join(dir, 'big.jsonl');
  writeFileSync(file, gen.text);
  const db = join(dir, 'big.sqlite');

  it('reports every bad row by line and code, stores every good row, and a second import changes nothing', async () => {
    expect(gen.bad.length).toBeGreaterThanOrEqual(50);
    const store = new SqliteCatalogue(db);
    try {
      const errors: ImportRowError[] = [];
      const progress: number[] = [];
      const s1 = await importFile(store, file, {
        analyse: analyseLexUrn,
        onError: (e) => errors.push(e),
        onProgress: (p) => progress.push(p.rows),
      });
      expect(errors.map((e) => ({ line: e.line, code: e.code }))).toEqual(gen.bad);
      expect(s1.rows).toBe(100_000);
      expect(s1.rejected).toBe(gen.bad.length);
      expect(s1.imported).toBe(100_000 - gen.bad.length);
      expect(s1.newItems).toBe(gen.items.size);
      expect(s1.newWorks).toBe(gen.works);
      // One progress call after each full batch of 20,000 lines (4 before the last), one at the end.
      expect(progress).toEqual([20_000, 40_000, 60_000, 80_000, 100_000]);
      const c1 = store.counts();
      expect(c1).toMatchObject({ works: gen.works, aliases: gen.aliases, items: gen.items.size });
      const e1 = exportedItems(store);
      expect(e1.set).toEqual(gen.items);

      // The same file again: nothing lost, nothing duplicated.
      const s2 = await importFile(store, file, { analyse: analyseLexUrn, onError: () => {} });
      expect(s2).toMatchObject({ rejected: gen.bad.length, newWorks: 0, newItems: 0 });
      expect(store.counts()).toEqual(c1);
      expect(exportedItems(store).text).toBe(e1.text);
    } finally {
      store.close();
    }
  }, 90_000);

  it('every good row resolves by its canonical work URN through the store', () => {
    const store = new SqliteCatalogue(db, { readOnly: true });
    try {
      let checked = 0;
      for (const entry of gen.items) {
        if (checked++ % 997 !== 0) continue;
        const urn = entry.split(' ')[0]!;
        const a = analyseLexUrn(urn);
        expect(a.ok).toBe(true);
        if (!a.ok) continue;
        const w = store.byName(a.value.workUrn);
        expect(w?.urn).toBe(a.value.workUrn);
        expect(
          w?.expressions.some((e) =>
            e.manifestations.some((m) => m.items.some((i) => entry.endsWith(` ${i.url}`))),
          ),
        ).toBe(true);
      }
    } finally {
      store.close();
    }
  });
});

describe('CSV import', () => {
  it('reads quoted fields (commas, quotes, line breaks), reports bad records by their first line', async () => {
    // Line 3-4 is one record (a quoted line break), rejected because titles have no control characters.
    const file = join(dir, 'rows.csv');
    writeFileSync(
      file,
      [
        'urn,url,priority,in_force,title,aliases',
        'urn:lex:it:stato:legge:2000-04-03;56$senato.it:text-xml,https://senato.example/56.xml,10,,"Legge 56, ""federalismo""",urn:lex:it:parlamento:legge:2000-04-03;56',
        'urn:lex:it:stato:legge:2000-04-03;56@2010-01-01$normattiva.it:text-html,https://n.example/56,,2010-02-01,"two',
        'lines",',
        'urn:lex:it:stato:legge:2000-04-03;56,https://x.example/,1,,',
        'urn:lex:it:stato:legge:2000-04-03;56,https://x.example/a"b,1,,,',
        'urn:lex:it:stato:legge:2000-13-03;56,https://x.example/,1,,,',
        '',
        'URN:LEX:IT:STATO:LEGGE:2000-04-03;56@2010-01-01$NORMATTIVA.IT:TEXT-HTML,https://n.example/56-bis,30,,,',
      ].join('\r\n'),
    );
    const store = new SqliteCatalogue(join(dir, 'csv.sqlite'));
    try {
      const errors: ImportRowError[] = [];
      const s = await importFile(store, file, {
        analyse: analyseLexUrn,
        onError: (e) => errors.push(e),
      });
      expect(errors.map((e) => [e.line, e.code])).toEqual([
        [3, 'ROW_BAD_TITLE'],
        [5, 'CSV_COLUMN_COUNT'],
        [6, 'CSV_BAD_QUOTE'],
        [7, 'LEX_BAD_DATE'],
      ]);
      expect(s).toMatchObject({ rows: 6, imported: 2, rejected: 4, newWorks: 1, newItems: 2 });
      const w = store.byName('urn:lex:it:parlamento:legge:2000-04-03;56');
      expect(w?.urn).toBe('urn:lex:it:stato:legge:2000-04-03;56');
      expect(w?.title).toBe('Legge 56, "federalismo"');
      const e = w?.expressions.find((x) => x.key.version === '2010-01-01');
      expect(e?.manifestations[0]?.urn).toBe(
        'urn:lex:it:stato:legge:2000-04-03;56@2010-01-01$normattiva.it:text-html',
      );
      expect(e?.manifestations[0]?.items).toEqual([
        { url: 'https://n.example/56-bis', priority: 30 },
      ]);
    } finally {
      store.close();
    }
  });

  it('rejects a header with an unknown column before writing anything', async () => {
    const file = join(dir, 'badheader.csv');
    writeFileSync(file, 'urn,link\nurn:lex:it:stato:legge:2000-04-03;56,https://x.example/\n');
    const store = new SqliteCatalogue(join(dir, 'badheader.sqlite'));
    try {
      await expect(importFile(store, file, { analyse: analyseLexUrn })).rejects.toMatchObject({
        code: 'CSV_BAD_HEADER',
      });
      expect(store.counts().works).toBe(0);
    } finally {
      store.close();
    }
  });
});

describe('export -> import round trip', () => {
  it('the sample catalogue survives JSON Lines and CSV round trips unchanged', async () => {
    const a = new SqliteCatalogue(join(dir, 'rt-a.sqlite'));
    const b = new SqliteCatalogue(join(dir, 'rt-b.sqlite'));
    const c = new SqliteCatalogue(join(dir, 'rt-c.sqlite'));
    try {
      const s = await importFile(a, SAMPLE, { analyse: analyseLexUrn });
      expect(s.rejected).toBe(0);
      const jsonl = exportedItems(a).text;
      // Every partitionDepth of the sample survives (one per manifestation row that gives one).
      const sampleDepths = readFileSync(SAMPLE, 'utf8').match(/"partitionDepth":\d+/g) ?? [];
      expect(sampleDepths.length).toBeGreaterThan(0);
      expect(jsonl.match(/"partitionDepth":\d+/g)?.sort()).toEqual(sampleDepths.sort());
      writeFileSync(join(dir, 'rt.jsonl'), jsonl);
      expect(
        (await importFile(b, join(dir, 'rt.jsonl'), { analyse: analyseLexUrn })).rejected,
      ).toBe(0);
      expect(exportedItems(b).text).toBe(jsonl);
      let csv = '';
      exportCatalogue(a, 'csv', (l) => (csv += l));
      writeFileSync(join(dir, 'rt.csv'), csv);
      expect((await importFile(c, join(dir, 'rt.csv'), { analyse: analyseLexUrn })).rejected).toBe(
        0,
      );
      expect(exportedItems(c).text).toBe(jsonl);
      expect(c.counts()).toEqual(a.counts());
    } finally {
      a.close();
      b.close();
      c.close();
    }
  });

  it('every sample row is valid and every sample URN is stored in canonical form', () => {
    const lines = readFileSync(SAMPLE, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(80);
    for (const [i, line] of lines.entries()) {
      const v = validateRow(JSON.parse(line) as Record<string, unknown>, analyseLexUrn);
      expect(v.ok, `sample line ${i + 1}`).toBe(true);
    }
  });
});

describe('row validation', () => {
  const base = {
    urn: 'urn:lex:br:federal:lei:2002-01-10;10406@2024-06-28:pt$planalto.gov.br:text-html',
  };
  const table: [string, Record<string, unknown>, string][] = [
    ['a title with a control character', { ...base, title: 'a\u0007b' }, 'ROW_BAD_TITLE'],
    ['priority without url', { ...base, priority: 3 }, 'ROW_PRIORITY_WITHOUT_URL'],
    [
      'a non-integer priority',
      { ...base, url: 'https://x.example/', priority: 1.5 },
      'ROW_BAD_PRIORITY',
    ],
    ['a URL with a space', { ...base, url: 'https://x.example/a b' }, 'ROW_BAD_URL'],
    ['a relative URL', { ...base, url: '/a/b' }, 'ROW_BAD_URL'],
    ['an impossible inForce date', { ...base, inForce: '2023-02-29' }, 'ROW_BAD_IN_FORCE'],
    ['aliases not a list', { ...base, aliases: 7 }, 'ROW_BAD_ALIAS'],
    ['an invalid alias URN', { ...base, aliases: ['urn:lex:br'] }, 'LEX_MISSING_AUTHORITY'],
    [
      'a q-component',
      { urn: 'urn:lex:br:federal:lei:2002-01-10;10406?=at=2020-01-01' },
      'ROW_COMPONENT',
    ],
    ['a urn that is not a string', { urn: 5 }, 'ROW_BAD_URN'],
  ];
  for (const [name, row, code] of table) {
    it(`${name}: ${code}`, () => {
      const v = validateRow(row, analyseLexUrn);
      expect(v.ok ? 'ok' : v.error.code).toBe(code);
    });
  }
  it('accepts in_force for inForce, space-separated aliases, and canonicalises every URN', () => {
    const v = validateRow(
      {
        urn: 'URN:LEX:BR:Federal:Lei:2002-01-10;10406@2024-06-28:PT$Planalto.gov.br:text-html',
        url: 'https://x.example/',
        in_force: '2024-08-30',
        aliases:
          'urn:lex:br:federal:CODIGO.civil:2002-01-10;10406  urn:lex:br:federal:codigo.civil:2002-01-10;10406',
      },
      analyseLexUrn,
    );
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.value.work.urn).toBe('urn:lex:br:federal:lei:2002-01-10;10406');
    expect(v.value.expression).toEqual({
      version: '2024-06-28',
      versionDate: '2024-06-28',
      language: 'pt',
    });
    expect(v.value.manifestation?.editor).toBe('planalto.gov.br');
    expect(v.value.inForce).toBe('2024-08-30');
    expect(v.value.aliases.map((a) => a.urn)).toEqual([
      'urn:lex:br:federal:codigo.civil:2002-01-10;10406',
    ]);
  });
});

describe('lexroute catalogue (CLI)', () => {
  it('imports with a summary and exit 1 when rows were rejected, then exports', async () => {
    const file = join(dir, 'cli.jsonl');
    writeFileSync(
      file,
      `${readFileSync(SAMPLE, 'utf8')}{"urn":"urn:lex:br:federal:lei:2020-02-30;1"}\n`,
    );
    const db = join(dir, 'cli', 'catalogue.sqlite');
    const io = captureIo({ cwd: dir });
    expect(await catalogueCommand.run(['import', 'cli.jsonl', '--catalogue', db], io)).toBe(1);
    const lines = readFileSync(SAMPLE, 'utf8').trim().split('\n').length;
    expect(io.stderr()).toContain(`cli.jsonl:${lines + 1}: LEX_BAD_DATE urn column`);
    expect(io.stdout()).toMatch(
      new RegExp(`imported ${lines} of ${lines + 1} rows \\(1 rejected\\)`),
    );
    expect(existsSync(db)).toBe(true);
    const out = captureIo({ cwd: dir });
    expect(await catalogueCommand.run(['export', '--catalogue', db, '--format', 'csv'], out)).toBe(
      0,
    );
    expect(out.stdout().split('\n')[0]).toBe(
      'urn,url,priority,in_force,title,aliases,partition_depth',
    );
    expect(out.stdout().trim().split('\n').length).toBe(lines + 1);
  });

  it('import --json: one JSON report with the rejected rows, and a JSON failure', async () => {
    const file = join(dir, 'cli-json.jsonl');
    const sample = readFileSync(SAMPLE, 'utf8');
    writeFileSync(file, `${sample}{"urn":"urn:lex:br:federal:lei:2020-02-30;1"}\nnot json\n`);
    const db = join(dir, 'cli-json', 'catalogue.sqlite');
    const io = captureIo({ cwd: dir });
    const args = ['import', 'cli-json.jsonl', '--catalogue', db, '--json'];
    expect(await catalogueCommand.run(args, io)).toBe(1);
    expect(io.stderr()).toBe('');
    const lines = sample.trim().split('\n').length;
    const r = JSON.parse(io.stdout()) as Record<string, unknown> & {
      errors: { line: number; code: string }[];
      counts: { works: number };
    };
    expect(r).toMatchObject({ ok: false, rows: lines + 2, imported: lines, rejected: 2 });
    expect(r.aborted).toBe(false);
    expect(r.errors.map((e) => [e.line, e.code])).toEqual([
      [lines + 1, 'LEX_BAD_DATE'],
      [lines + 2, expect.stringMatching(/^[A-Z_]+$/)],
    ]);
    expect(r.counts.works).toBeGreaterThan(10);
    // Again: nothing new, nothing rejected.
    writeFileSync(file, sample);
    const again = captureIo({ cwd: dir });
    expect(await catalogueCommand.run(args, again)).toBe(0);
    expect(JSON.parse(again.stdout())).toMatchObject({ ok: true, newWorks: 0, errors: [] });
    const missing = captureIo({ cwd: dir });
    const argsMissing = ['import', 'nowhere.jsonl', '--catalogue', db, '--json'];
    expect(await catalogueCommand.run(argsMissing, missing)).toBe(1);
    expect(JSON.parse(missing.stdout())).toMatchObject({
      ok: false,
      errors: [{ code: 'IMPORT_UNREADABLE' }],
    });
    await expect(
      catalogueCommand.run(['export', '--json', '--catalogue', db], captureIo()),
    ).rejects.toMatchObject({ code: 'USAGE' });
  });

  it('usage errors exit 2', async () => {
    await expect(catalogueCommand.run(['frob'], captureIo())).rejects.toMatchObject({
      code: 'USAGE',
    });
    await expect(
      catalogueCommand.run(['export', '--format', 'xml'], captureIo()),
    ).rejects.toMatchObject({ code: 'USAGE' });
    const io = captureIo();
    expect(await catalogueCommand.run(['--help'], io)).toBe(0);
    expect(io.stdout()).toContain('Row fields');
  });
});
