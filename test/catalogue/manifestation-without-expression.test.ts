/**
 * Issue 17's bug: a manifestation catalogued without an expression must be
 * found for its own URN (which has no expression), also through an alias,
 * a year-only reference and a language, on the memory and SQLite readers.
 * The matcher used to pick the most recent version first and then look for
 * the manifestation inside it only (404 MANIFESTATION_NOT_FOUND).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteCatalogue } from '../../src/resolver/catalogue/store.ts';
import {
  MemoryCatalogue,
  analyseReference,
  resolveQuery,
  validateRow,
  worksFromRows,
  type CatalogueReader,
  type CatalogueRow,
} from '../../src/resolver/core/index.ts';

const C88 = 'urn:lex:br:federal:constituicao:1988-10-05;1988';
const BGB = 'urn:lex:de:bund:gesetz:1896-08-18;bgb';
const ROWS: Record<string, unknown>[] = [
  {
    urn: `${C88}$lexml.gov.br:text-html`,
    url: 'https://lexml.example/c88',
    priority: 20,
    aliases: ['urn:lex:br:federal:constituicao.federal:1988-10-05;1988'],
  },
  { urn: `${C88}$planalto.gov.br:text-html`, url: 'https://planalto.example/c88', priority: 10 },
  {
    urn: `${C88}@2023-12-20:pt$planalto.gov.br:text-html`,
    url: 'https://planalto.example/c88-2023',
    inForce: '2023-12-21',
  },
  {
    urn: `${C88}@2023-12-20:en$stf.jus.br:application-pdf`,
    url: 'https://stf.example/c88-en.pdf',
    priority: 30,
  },
  // The same manifestation under no expression and under a newer version.
  { urn: `${BGB}$gesetze-im-internet.de:text-html`, url: 'https://gii.example/bgb/' },
  {
    urn: `${BGB}@2002-01-02:en$gesetze-im-internet.de:text-html`,
    url: 'https://gii.example/englisch_bgb/',
  },
];

function rows(): CatalogueRow[] {
  return ROWS.map((f) => {
    const v = validateRow(f, analyseReference);
    if (!v.ok) throw new Error(`${v.error.code}: ${v.error.message}`);
    return v.value;
  });
}

const dir = mkdtempSync(join(tmpdir(), 'lexroute-manif-'));
const sqlite = new SqliteCatalogue(join(dir, 'c.sqlite'));
sqlite.transaction(() => {
  const w = sqlite.writer();
  for (const r of rows()) expect(w.write(r).ok).toBe(true);
});
afterAll(() => {
  sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});

const READERS: [string, CatalogueReader][] = [
  ['memory', new MemoryCatalogue(worksFromRows(rows()))],
  ['sqlite', sqlite],
];

describe.each(READERS)('%s reader', (_label, reader) => {
  const first = (urn: string, options = {}) => {
    const a = analyseReference(urn);
    if (!a.ok) throw new Error(a.error.message);
    const r = resolveQuery(a.value, reader, options);
    return r.kind === 'found' ? r.locations[0]?.itemUrl : `${r.kind} ${'code' in r ? r.code : ''}`;
  };
  const cases: [string, string, string][] = [
    [
      'a manifestation with no expression',
      `${C88}$lexml.gov.br:text-html`,
      'https://lexml.example/c88',
    ],
    ['the other one', `${C88}$planalto.gov.br:text-html`, 'https://planalto.example/c88'],
    ['no manifestation: the most recent version', C88, 'https://planalto.example/c88-2023'],
    [
      'through an alias',
      'urn:lex:br:federal:constituicao.federal:1988-10-05;1988$lexml.gov.br:text-html',
      'https://lexml.example/c88',
    ],
    [
      'through a year-only reference',
      'urn:lex:br:federal:constituicao:1988;1988$lexml.gov.br:text-html',
      'https://lexml.example/c88',
    ],
    [
      'a manifestation under an older version only, no version asked',
      `${C88}$stf.jus.br:application-pdf`,
      'https://stf.example/c88-en.pdf',
    ],
    [
      'the same manifestation catalogued with no expression and in a newer version: the exact one',
      `${BGB}$gesetze-im-internet.de:text-html`,
      'https://gii.example/bgb/',
    ],
    [
      'an explicit version still selects that version',
      `${BGB}@2002-01-02:en$gesetze-im-internet.de:text-html`,
      'https://gii.example/englisch_bgb/',
    ],
    [
      'an explicit version without the manifestation is not found',
      `${C88}@2023-12-20:pt$lexml.gov.br:text-html`,
      'not-found MANIFESTATION_NOT_FOUND',
    ],
  ];
  for (const [name, urn, want] of cases) it(name, () => expect(first(urn)).toBe(want));

  it('at= still chooses among the expressions that have the manifestation', () => {
    expect(first(`${C88}$planalto.gov.br:text-html`, { at: '2024-01-01' })).toBe(
      'https://planalto.example/c88-2023',
    );
    expect(first(`${C88}$lexml.gov.br:text-html`, { at: '2024-01-01' })).toBe(
      'https://lexml.example/c88',
    );
  });
});
