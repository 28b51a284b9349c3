/**
 * RFC 9676 section 10.3 resolver behaviour as tables over a small catalogue:
 * exact and alias matches, heuristic partial matches (year-only, missing
 * number or date, measure/authority aliases), ambiguity, versions by date,
 * language, format, partition.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SqliteCatalogue } from '../../src/resolver/catalogue/store.ts';
import {
  MemoryCatalogue,
  analyseLexUrn,
  analyseReference,
  resolveQuery,
  validateRow,
  worksFromRows,
  type CatalogueReader,
  type MatchOptions,
  type Resolution,
} from '../../src/resolver/core/index.ts';

const CAD = 'urn:lex:it:stato:decreto.legislativo:2005-03-07;82';
const DIR = 'urn:lex:eu:council:directive:2004-12-13;113';
const L56 = 'urn:lex:it:stato:legge:2000-04-03;56';
/** RFC 9676 section 5.8's example act: "urn:lex:fr:etat:loi:2004-05-15;106~art15;par3". */
const LOI = 'urn:lex:fr:etat:loi:2004-05-15;106';

const ROWS: Record<string, unknown>[] = [
  // Versions (RFC 9676 section 7): original in force 2006-01-01, two amended versions.
  {
    urn: `${CAD}@originale:it$normattiva.it:text-html`,
    url: 'https://n.example/cad/2006',
    inForce: '2006-01-01',
    aliases: ['urn:lex:it:stato:codice;amministrazione.digitale:2005-03-07;82'],
    title: 'CAD',
  },
  {
    urn: `${CAD}@2016-08-26:it$normattiva.it:text-html`,
    url: 'https://n.example/cad/2016',
    inForce: '2016-09-14',
  },
  {
    urn: `${CAD}@2017-12-13:it$normattiva.it:text-html`,
    url: 'https://n.example/cad/2018',
    inForce: '2018-01-27',
  },
  {
    urn: `${CAD}@2017-12-13:it$gazzettaufficiale.it:application-pdf`,
    url: 'https://gu.example/cad.pdf',
    priority: 20,
  },
  // Languages and formats (sections 5.6, 5.7) with language aliases (section 5.5).
  {
    urn: `${DIR}@original:en$eur-lex.europa.eu:text-html`,
    url: 'https://eur.example/EN/html',
    aliases: [
      'urn:lex:eu:consiglio:direttiva:2004-12-13;113',
      'urn:lex:eu:rat:richtlinie:2004-12-13;113',
    ],
  },
  {
    urn: `${DIR}@original:en$eur-lex.europa.eu:application-pdf`,
    url: 'https://eur.example/EN/pdf',
    priority: 20,
  },
  { urn: `${DIR}@original:it$eur-lex.europa.eu:text-html`, url: 'https://eur.example/IT/html' },
  { urn: `${DIR}@original:de$eur-lex.europa.eu:text-html`, url: 'https://eur.example/DE/html' },
  { urn: `${DIR}@original:fr$eur-lex.europa.eu:text-html`, url: 'https://eur.example/FR/html#top' },
  // Section 5.4: same number, judgement vs order.
  {
    urn: 'urn:lex:eec.lex.arpa:court.justice:judgement:1960-04-04;4-59$curia.example:text-html',
    url: 'https://curia.example/cj0004',
  },
  {
    urn: 'urn:lex:eec.lex.arpa:court.justice:order:1960-05-18;4-59$curia.example:text-html',
    url: 'https://curia.example/co0004',
  },
  // Brazil: real LexML names.
  {
    urn: 'urn:lex:br:federal:lei:2002-01-10;10406$planalto.gov.br:text-html',
    url: 'https://planalto.example/l10406',
    aliases: ['urn:lex:br:federal:codigo.civil:2002-01-10;10406'],
  },
  {
    urn: 'urn:lex:br:federal:decreto.lei:1943-05-01;5452$planalto.gov.br:text-html',
    url: 'https://planalto.example/del5452',
  },
  {
    urn: 'urn:lex:br:federal:lei:2008-06-19;11705$planalto.gov.br:text-html',
    url: 'https://planalto.example/l11705',
  },
  {
    urn: 'urn:lex:br:federal:lei:2008-06-19;11706$planalto.gov.br:text-html',
    url: 'https://planalto.example/l11706',
  },
  // Section 5.7 manifestations with specifications and components.
  {
    urn: `${L56}$parlamento.it:application-pdf;1.7`,
    url: 'https://parl.example/56.pdf',
    priority: 10,
  },
  {
    urn: `${L56}$senato.it:text-xml;dtd-nir-2.2:testo`,
    url: 'https://senato.example/56.xml',
    priority: 20,
  },
  { urn: `${L56}$normattiva.it:text-html`, url: 'https://n.example/56?x=1', priority: 5 },
  // A period instead of dates (section 6.3.1).
  {
    urn: 'urn:lex:it:camera:disegno.legge:14.legislatura;c.2544$camera.it:text-html',
    url: 'https://camera.example/c2544',
  },
  // Section 5.8: manifestations whose markup has anchors for 1 level, none, 2 levels, or unknown.
  {
    urn: `${LOI}$legifrance.gouv.fr:text-html`,
    url: 'https://lf.example/loi106',
    partitionDepth: 1,
    aliases: ['urn:lex:fr:republique:loi:2004-05-15;106'],
  },
  {
    urn: `${LOI}$legifrance.gouv.fr:application-pdf`,
    url: 'https://lf.example/loi106.pdf',
    priority: 20,
    partition_depth: '0',
  },
  {
    urn: `${LOI}$journal-officiel.gouv.fr:application-pdf`,
    url: 'https://jo.example/106.pdf#page=3',
    priority: 25,
    partitionDepth: 0,
  },
  {
    urn: `${LOI}$journal-officiel.gouv.fr:text-xml`,
    url: 'https://jo.example/106.xml',
    priority: 30,
    partitionDepth: 2,
  },
  { urn: `${LOI}$senat.fr:text-html`, url: 'https://senat.example/106', priority: 40 },
  // Multiple numbers (section 6.3.4).
  {
    urn: 'urn:lex:eu:court.justice:judgment:2000-06-12;c-10-97,c-11-97,c-12-97$curia.example:text-html',
    url: 'https://curia.example/c-10-97',
  },
];

const validRows = ROWS.map((r, i) => {
  const v = validateRow(r, analyseLexUrn);
  if (!v.ok) throw new Error(`fixture row ${i}: ${v.error.code} ${v.error.message}`);
  return v.value;
});

// The same tables run against the in-memory reader and the SQLite store
// (written through the import writer): both must implement the reader contract alike.
const dir = mkdtempSync(join(tmpdir(), 'lexroute-match-'));
const sqlite = new SqliteCatalogue(join(dir, 'catalogue.sqlite'));
sqlite.transaction(() => {
  const w = sqlite.writer();
  for (const row of validRows) if (!w.write(row).ok) throw new Error('fixture write failed');
});
afterAll(() => {
  sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});
const READERS: [string, CatalogueReader][] = [
  ['memory', new MemoryCatalogue(worksFromRows(validRows))],
  ['sqlite', sqlite],
];
let catalogue: CatalogueReader = READERS[0]![1];

function resolve(urn: string, options: MatchOptions = {}): Resolution {
  const a = analyseReference(urn);
  if (!a.ok) throw new Error(`${urn}: ${a.error.code} ${a.error.message}`);
  return resolveQuery(a.value, catalogue, options);
}

interface Case {
  readonly name: string;
  readonly urn: string;
  readonly options?: MatchOptions;
  /** Expected first URL (found). */
  readonly url?: string;
  readonly score?: number;
  readonly exact?: boolean;
  /** Codes of the reasons, in order (found). */
  readonly reasons?: readonly string[];
  /** Expected not-found / invalid code. */
  readonly code?: string;
  /** Expected candidate work URNs (ambiguous). */
  readonly candidates?: readonly string[];
  /** Expected fragment of the first URL (found); null for none. */
  readonly fragment?: string | null;
  /** Expected `partitionApplied` of the first URL (found). */
  readonly applied?: string;
}

function check(c: Case): void {
  const r = resolve(c.urn, c.options);
  if (c.candidates) {
    expect(r.kind).toBe('ambiguous');
    if (r.kind === 'ambiguous') expect(r.candidates.map((x) => x.work.urn)).toEqual(c.candidates);
    return;
  }
  if (c.code) {
    expect(r.kind === 'not-found' || r.kind === 'invalid' ? r.code : r.kind).toBe(c.code);
    return;
  }
  expect(r.kind, JSON.stringify(r.kind === 'not-found' ? r.message : '')).toBe('found');
  if (r.kind !== 'found') return;
  if (c.url !== undefined) expect(r.locations[0]?.url).toBe(c.url);
  if (c.score !== undefined) expect(r.score).toBe(c.score);
  if (c.exact !== undefined) expect(r.exact).toBe(c.exact);
  if (c.reasons !== undefined) expect(r.reasons.map((x) => x.code)).toEqual(c.reasons);
  if (c.fragment !== undefined) expect(r.locations[0]?.fragment).toBe(c.fragment);
  if (c.applied !== undefined) expect(r.locations[0]?.partitionApplied).toBe(c.applied);
}

describe.each(READERS)('%s reader', (_label, reader) => {
  beforeEach(() => {
    catalogue = reader;
  });

  describe('RFC 9676 section 10.3: exact match on the canonical name or an alias', () => {
    const cases: Case[] = [
      {
        name: 'canonical work URN',
        urn: 'urn:lex:br:federal:lei:2002-01-10;10406',
        url: 'https://planalto.example/l10406',
        score: 100,
        exact: true,
        reasons: [],
      },
      {
        name: 'case-insensitive (section 3.3)',
        urn: 'URN:LEX:BR:Federal:LEI:2002-01-10;10406',
        url: 'https://planalto.example/l10406',
        exact: true,
      },
      {
        name: 'measure alias (section 6.2.3)',
        urn: 'urn:lex:it:stato:codice;amministrazione.digitale:2005-03-07;82',
        url: 'https://n.example/cad/2018',
        exact: true,
        reasons: ['ALIAS'],
      },
      {
        name: 'language alias (section 5.5)',
        urn: 'urn:lex:eu:consiglio:direttiva:2004-12-13;113',
        exact: true,
        reasons: ['ALIAS'],
      },
      {
        name: 'alias with upper case',
        urn: 'urn:lex:BR:federal:CODIGO.CIVIL:2002-01-10;10406',
        url: 'https://planalto.example/l10406',
        exact: true,
      },
      {
        name: 'several numbers',
        urn: 'urn:lex:eu:court.justice:judgment:2000-06-12;c-10-97,c-11-97,c-12-97',
        url: 'https://curia.example/c-10-97',
        exact: true,
      },
    ];
    for (const c of cases) it(c.name, () => check(c));
  });

  describe('RFC 9676 section 10.3: heuristic partial matches with score and explanation', () => {
    const cases: Case[] = [
      {
        name: 'year-only date (a "reference" URN)',
        urn: 'urn:lex:br:federal:decreto.lei:1943;5452',
        url: 'https://planalto.example/del5452',
        score: 90,
        exact: false,
        reasons: ['DATE_YEAR_ONLY'],
      },
      {
        name: 'missing number',
        urn: 'urn:lex:br:federal:decreto.lei:1943-05-01',
        url: 'https://planalto.example/del5452',
        score: 75,
        reasons: ['NUMBER_MISSING'],
      },
      {
        name: 'missing date (a lone number)',
        urn: 'urn:lex:br:federal:lei:10406',
        url: 'https://planalto.example/l10406',
        score: 80,
        reasons: ['DATE_MISSING'],
      },
      {
        name: 'missing number after a period (section 6.3.1)',
        urn: 'urn:lex:it:camera:disegno.legge:14.legislatura',
        url: 'https://camera.example/c2544',
        score: 75,
        reasons: ['NUMBER_MISSING'],
      },
      {
        name: 'wrong day, same year and number',
        urn: 'urn:lex:br:federal:lei:2008-03-05;11705',
        url: 'https://planalto.example/l11705',
        score: 60,
        reasons: ['DATE_DIFFERS'],
      },
      {
        name: 'measure type without its specification, via the alias',
        urn: 'urn:lex:it:stato:codice:2005-03-07;82',
        url: 'https://n.example/cad/2018',
        score: 90,
        reasons: ['MEASURE_PARTIAL', 'ALIAS'],
      },
      {
        name: 'different authority',
        urn: 'urn:lex:br:congresso.nacional:lei:2002-01-10;10406',
        url: 'https://planalto.example/l10406',
        score: 70,
        reasons: ['AUTHORITY_DIFFERS'],
      },
      {
        name: 'some of several numbers',
        urn: 'urn:lex:eu:court.justice:judgment:2000-06-12;c-11-97',
        url: 'https://curia.example/c-10-97',
        score: 85,
        reasons: ['NUMBERS_PARTIAL'],
      },
      {
        name: 'local date part ignored for matching',
        urn: 'urn:lex:br:federal:lei:2002-01-10|10.jan.2002;10406',
        url: 'https://planalto.example/l10406',
        score: 100,
        exact: false,
      },
    ];
    for (const c of cases) it(c.name, () => check(c));

    it('several close candidates give a list (section 5.4: judgement and order 4/59)', () =>
      check({
        name: 'ambiguous',
        urn: 'urn:lex:eec.lex.arpa:court.justice:decision:1960;4-59',
        candidates: [
          'urn:lex:eec.lex.arpa:court.justice:judgement:1960-04-04;4-59',
          'urn:lex:eec.lex.arpa:court.justice:order:1960-05-18;4-59',
        ],
      }));

    it("the list carries scores, reasons and each candidate's best URL", () => {
      const r = resolve('urn:lex:eec.lex.arpa:court.justice:decision:1960;4-59');
      expect(r.kind).toBe('ambiguous');
      if (r.kind !== 'ambiguous') return;
      expect(r.candidates.map((c) => [c.score, c.best?.url, c.reasons.map((x) => x.code)])).toEqual(
        [
          [60, 'https://curia.example/cj0004', ['DATE_YEAR_ONLY', 'MEASURE_DIFFERS']],
          [60, 'https://curia.example/co0004', ['DATE_YEAR_ONLY', 'MEASURE_DIFFERS']],
        ],
      );
    });

    it('one clear best among close numbers wins (11705 vs 11706, same year)', () =>
      check({
        name: 'clear',
        urn: 'urn:lex:br:federal:lei:2008;11706',
        url: 'https://planalto.example/l11706',
        score: 90,
      }));

    it('a year-only reference with no number is ambiguous between two laws of that year', () =>
      check({
        name: 'ambiguous year',
        urn: 'urn:lex:br:federal:lei:2008-06-19',
        candidates: [
          'urn:lex:br:federal:lei:2008-06-19;11705',
          'urn:lex:br:federal:lei:2008-06-19;11706',
        ],
      }));

    const unknown: Case[] = [
      {
        name: 'unknown number',
        urn: 'urn:lex:br:federal:lei:2002-01-10;10407',
        code: 'UNKNOWN_URN',
      },
      {
        name: 'other year with the same number',
        urn: 'urn:lex:br:federal:lei:1999;10406',
        code: 'UNKNOWN_URN',
      },
      {
        name: 'another period, no number',
        urn: 'urn:lex:it:camera:disegno.legge:15.legislatura',
        code: 'UNKNOWN_URN',
      },
      {
        name: 'other jurisdiction',
        urn: 'urn:lex:pt:federal:lei:2002-01-10;10406',
        code: 'UNKNOWN_URN',
      },
      {
        name: 'an annex the catalogue lacks',
        urn: 'urn:lex:br:federal:lei:2002-01-10;10406:anexo.1',
        code: 'UNKNOWN_URN',
      },
      {
        name: 'authority and measure both different (score 40 < 50)',
        urn: 'urn:lex:br:senado:decreto:2002-01-10;10406',
        code: 'UNKNOWN_URN',
      },
    ];
    for (const c of unknown) it(`not found: ${c.name}`, () => check(c));
  });

  describe('RFC 9676 section 10.3: versions ("the best (most recent) version")', () => {
    const cases: Case[] = [
      { name: 'no version: the most recent', urn: CAD, url: 'https://n.example/cad/2018' },
      {
        name: '?=at= selects the version in force that day',
        urn: `${CAD}?=at=2017-01-01`,
        url: 'https://n.example/cad/2016',
      },
      {
        name: '?=at= on the in-force day itself',
        urn: `${CAD}?=at=2018-01-27`,
        url: 'https://n.example/cad/2018',
      },
      {
        name: '?=at= before the amendment came into force',
        urn: `${CAD}?=at=2018-01-26`,
        url: 'https://n.example/cad/2016',
      },
      {
        name: '?=at= in the original period',
        urn: `${CAD}?=at=2010-06-30`,
        url: 'https://n.example/cad/2006',
      },
      {
        name: 'the at option overrides the q-component',
        urn: `${CAD}?=at=2010-06-30`,
        options: { at: '2020-01-01' },
        url: 'https://n.example/cad/2018',
      },
      { name: 'explicit @version', urn: `${CAD}@2016-08-26`, url: 'https://n.example/cad/2016' },
      {
        name: '@originale (the label in Italian)',
        urn: `${CAD}@originale`,
        url: 'https://n.example/cad/2006',
      },
      {
        name: "@original (another language's label)",
        urn: `${CAD}@original`,
        url: 'https://n.example/cad/2006',
      },
      {
        name: 'an uncatalogued version date: the one in force then',
        urn: `${CAD}@2017-01-01`,
        url: 'https://n.example/cad/2016',
        reasons: ['VERSION_IN_FORCE_AT'],
      },
      {
        name: 'version with an event: same amendment date',
        urn: `${CAD}@2016-08-26;2016-09-14`,
        url: 'https://n.example/cad/2016',
        reasons: ['VERSION_EVENTS_DIFFER'],
      },
    ];
    for (const c of cases) it(c.name, () => check(c));
    const missing: Case[] = [
      { name: 'nothing in force yet', urn: `${CAD}?=at=2001-01-01`, code: 'NOT_IN_FORCE' },
      { name: 'a version before the work', urn: `${CAD}@1990-01-01`, code: 'VERSION_NOT_FOUND' },
      { name: 'an unknown label', urn: `${CAD}@bozza`, code: 'VERSION_NOT_FOUND' },
      { name: 'a malformed at date', urn: `${CAD}?=at=2017-02-30`, code: 'INVALID_AT_DATE' },
    ];
    for (const c of missing) it(`error: ${c.name}`, () => check(c));
  });

  describe('RFC 9676 section 5.6: language', () => {
    const cases: Case[] = [
      {
        name: 'no language, no Accept-Language: the first catalogued',
        urn: DIR,
        url: 'https://eur.example/EN/html',
      },
      { name: '@original:de', urn: `${DIR}@original:de`, url: 'https://eur.example/DE/html' },
      {
        name: 'Accept-Language picks among languages',
        urn: DIR,
        options: { acceptLanguage: 'fr-CH, fr;q=0.9, en;q=0.5' },
        url: 'https://eur.example/FR/html#top',
      },
      {
        name: 'Accept-Language with q-values',
        urn: DIR,
        options: { acceptLanguage: 'de;q=0.4, it;q=0.8' },
        url: 'https://eur.example/IT/html',
      },
      {
        name: 'Accept-Language with no available language: the first',
        urn: DIR,
        options: { acceptLanguage: 'es' },
        url: 'https://eur.example/EN/html',
      },
      {
        name: 'the URN language wins over Accept-Language',
        urn: `${DIR}@original:it`,
        options: { acceptLanguage: 'de' },
        url: 'https://eur.example/IT/html',
      },
      {
        name: 'an alias with a language',
        urn: 'urn:lex:eu:rat:richtlinie:2004-12-13;113@original:de',
        url: 'https://eur.example/DE/html',
      },
    ];
    for (const c of cases) it(c.name, () => check(c));
    it('error: a language the work lacks', () =>
      check({ name: '', urn: `${DIR}@original:es`, code: 'LANGUAGE_NOT_AVAILABLE' }));
  });

  describe('RFC 9676 section 5.7: manifestation (format, editor, component)', () => {
    const cases: Case[] = [
      { name: 'no manifestation: by item priority', urn: L56, url: 'https://n.example/56?x=1' },
      {
        name: '$editor:format',
        urn: `${DIR}@original:en$eur-lex.europa.eu:application-pdf`,
        url: 'https://eur.example/EN/pdf',
      },
      {
        name: 'format without its ;specification',
        urn: `${L56}$senato.it:text-xml`,
        url: 'https://senato.example/56.xml',
      },
      {
        name: 'format with specification',
        urn: `${L56}$parlamento.it:application-pdf;1.7`,
        url: 'https://parl.example/56.pdf',
      },
      {
        name: 'Accept: application/pdf ranks the PDF first',
        urn: L56,
        options: { accept: 'application/pdf' },
        url: 'https://parl.example/56.pdf',
      },
      {
        name: 'Accept: text/xml',
        urn: L56,
        options: { accept: 'text/xml, text/html;q=0.5' },
        url: 'https://senato.example/56.xml',
      },
      {
        name: 'Accept with no available type still answers',
        urn: L56,
        options: { accept: 'image/png' },
        url: 'https://n.example/56?x=1',
      },
    ];
    for (const c of cases) it(c.name, () => check(c));
    it('error: a manifestation the expression lacks', () =>
      check({ name: '', urn: `${L56}$example.org:text-html`, code: 'MANIFESTATION_NOT_FOUND' }));
    it('N2Ls order: every manifestation and item of the chosen expression', () => {
      const r = resolve(L56);
      expect(r.kind === 'found' && r.locations.map((l) => [l.url, l.mediaType])).toEqual([
        ['https://n.example/56?x=1', 'text/html'],
        ['https://parl.example/56.pdf', 'application/pdf'],
        ['https://senato.example/56.xml', 'text/xml'],
      ]);
    });
  });

  describe('RFC 9676 section 5.8: partition to "#partition"', () => {
    const cases: Case[] = [
      {
        name: 'exact URN with ~partition',
        urn: 'urn:lex:br:federal:lei:2002-01-10;10406~art5;par2',
        url: 'https://planalto.example/l10406#art5;par2',
        exact: true,
      },
      {
        name: 'partition on a partial match',
        urn: 'urn:lex:br:federal:decreto.lei:1943;5452~art7',
        url: 'https://planalto.example/del5452#art7',
      },
      {
        name: 'partition keeps its case and encoding',
        urn: 'urn:lex:br:federal:lei:2002-01-10;10406~Art5%c3%a7',
        url: 'https://planalto.example/l10406#Art5%C3%A7',
      },
      {
        name: 'a catalogued fragment is replaced',
        urn: `${DIR}@original:fr~art3`,
        url: 'https://eur.example/FR/html#art3',
      },
      {
        name: 'a catalogued fragment stays without a partition',
        urn: `${DIR}@original:fr`,
        url: 'https://eur.example/FR/html#top',
      },
      {
        name: 'partition with an existing query and forwarded q-component',
        urn: `${L56}~art1?=at=2020-01-01&view=print`,
        url: 'https://n.example/56?x=1&view=print#art1',
      },
      {
        name: 'q-component forwarded onto a URL without a query',
        urn: 'urn:lex:br:federal:lei:2002-01-10;10406?=lang=pt',
        url: 'https://planalto.example/l10406?lang=pt',
      },
    ];
    for (const c of cases) it(c.name, () => check(c));
  });
  describe('RFC 9676 section 5.8: "knowing the granularity of the act markup" (partitionDepth)', () => {
    const HTML = `${LOI}$legifrance.gouv.fr:text-html`;
    const PDF = `${LOI}$legifrance.gouv.fr:application-pdf`;
    const JO_PDF = `${LOI}$journal-officiel.gouv.fr:application-pdf`;
    const XML = `${LOI}$journal-officiel.gouv.fr:text-xml`;
    const SENAT = `${LOI}$senat.fr:text-html`;
    const cases: Case[] = [
      {
        name: 'depth 1: "if only the article was identified in the act, it could return <URL-document>#art15 only"',
        urn: `${HTML}~art15;par3`,
        url: 'https://lf.example/loi106#art15',
        fragment: 'art15',
        applied: 'trimmed',
        reasons: ['PARTITION_TRIMMED'],
        score: 100,
      },
      {
        name: 'depth 1, a one-level partition: whole',
        urn: `${HTML}~art15`,
        url: 'https://lf.example/loi106#art15',
        applied: 'whole',
        reasons: [],
      },
      {
        name: 'depth 0: no fragment, "at the beginning if that point cannot be found"',
        urn: `${PDF}~art15;par3`,
        url: 'https://lf.example/loi106.pdf',
        fragment: null,
        applied: 'omitted',
        reasons: ['PARTITION_OMITTED'],
      },
      {
        name: 'depth 0 keeps the catalogued fragment (the URL as catalogued is the beginning)',
        urn: `${JO_PDF}~art15;par3`,
        url: 'https://jo.example/106.pdf#page=3',
        fragment: 'page=3',
        applied: 'omitted',
        reasons: ['PARTITION_OMITTED'],
      },
      {
        name: 'depth 0 without a partition: nothing to omit, no reason',
        urn: PDF,
        url: 'https://lf.example/loi106.pdf',
        applied: 'none',
        reasons: [],
      },
      {
        name: 'depth 2 on a three-level partition',
        urn: `${XML}~art15;par3;let2`,
        url: 'https://jo.example/106.xml#art15;par3',
        applied: 'trimmed',
        reasons: ['PARTITION_TRIMMED'],
      },
      {
        name: 'depth 2 on a two-level partition: whole',
        urn: `${XML}~art15;par3`,
        url: 'https://jo.example/106.xml#art15;par3',
        applied: 'whole',
        reasons: [],
      },
      {
        name: 'depth deeper than the partition: whole',
        urn: `${XML}~art15`,
        url: 'https://jo.example/106.xml#art15',
        applied: 'whole',
        reasons: [],
      },
      {
        name: 'depth absent (unknown): the whole partition, as before',
        urn: `${SENAT}~art15;par3;let2`,
        url: 'https://senat.example/106#art15;par3;let2',
        applied: 'whole',
        reasons: [],
      },
      {
        name: 'only ";" separates levels: "-" is one level',
        urn: `${HTML}~art15-par3`,
        url: 'https://lf.example/loi106#art15-par3',
        applied: 'whole',
      },
      {
        name: 'only ";" separates levels: "." and "," are one level',
        urn: `${HTML}~art15.par3,al2`,
        url: 'https://lf.example/loi106#art15.par3,al2',
        applied: 'whole',
      },
      {
        name: 'only a literal ";" separates: "%3B" is one level',
        urn: `${HTML}~art15%3bpar3`,
        url: 'https://lf.example/loi106#art15%3Bpar3',
        applied: 'whole',
      },
      {
        name: 'an empty level at the cut is dropped',
        urn: `${XML}~art15;;par3`,
        url: 'https://jo.example/106.xml#art15',
        applied: 'trimmed',
      },
      {
        name: 'an empty first level leaves nothing: omitted',
        urn: `${HTML}~;par3`,
        url: 'https://lf.example/loi106',
        fragment: null,
        applied: 'omitted',
        reasons: ['PARTITION_OMITTED'],
      },
      {
        name: 'trimmed partition with a forwarded q-component',
        urn: `${HTML}~art15;par3?=view=print`,
        url: 'https://lf.example/loi106?view=print#art15',
        applied: 'trimmed',
      },
      {
        name: 'work URN: one reason per manifestation cut, best location first',
        urn: `${LOI}~art15;par3`,
        url: 'https://lf.example/loi106#art15',
        exact: true,
        reasons: ['PARTITION_TRIMMED', 'PARTITION_OMITTED', 'PARTITION_OMITTED'],
      },
      {
        name: 'an alias match trims too',
        urn: 'urn:lex:fr:republique:loi:2004-05-15;106~art15;par3',
        url: 'https://lf.example/loi106#art15',
        exact: true,
        reasons: ['ALIAS', 'PARTITION_TRIMMED', 'PARTITION_OMITTED', 'PARTITION_OMITTED'],
      },
      {
        name: 'a heuristic (year-only) match trims too',
        urn: `urn:lex:fr:etat:loi:2004;106$legifrance.gouv.fr:text-html~art15;par3`,
        url: 'https://lf.example/loi106#art15',
        exact: false,
        score: 90,
        reasons: ['DATE_YEAR_ONLY', 'PARTITION_TRIMMED'],
      },
      {
        name: 'Accept: application/pdf puts the depth-0 PDF first',
        urn: `${LOI}~art15;par3`,
        options: { accept: 'application/pdf' },
        url: 'https://lf.example/loi106.pdf',
        applied: 'omitted',
        reasons: ['PARTITION_OMITTED', 'PARTITION_OMITTED', 'PARTITION_TRIMMED'],
      },
    ];
    for (const c of cases) it(c.name, () => check(c));

    it('N2Ls: every location says what it applied, with its depth', () => {
      const r = resolve(`${LOI}~art15;par3;let2`);
      expect(r.kind).toBe('found');
      if (r.kind !== 'found') return;
      expect(
        r.locations.map((l) => [l.url, l.fragment, l.partitionApplied, l.partitionDepth]),
      ).toEqual([
        ['https://lf.example/loi106#art15', 'art15', 'trimmed', 1],
        ['https://lf.example/loi106.pdf', null, 'omitted', 0],
        ['https://jo.example/106.pdf#page=3', 'page=3', 'omitted', 0],
        ['https://jo.example/106.xml#art15;par3', 'art15;par3', 'trimmed', 2],
        ['https://senat.example/106#art15;par3;let2', 'art15;par3;let2', 'whole', null],
      ]);
      expect(r.reasons.map((x) => x.message)).toEqual([
        `partition art15;par3;let2 trimmed to art15 for ${HTML}: its markup has anchors for 1 level`,
        `partition art15;par3;let2 not applied to ${PDF}: its markup has no partition anchors, so the URL points at the beginning of the document`,
        `partition art15;par3;let2 not applied to ${JO_PDF}: its markup has no partition anchors, so the URL points at the beginning of the document`,
        `partition art15;par3;let2 trimmed to art15;par3 for ${XML}: its markup has anchors for 2 levels`,
      ]);
      expect(r.reasons.every((x) => x.penalty === 0)).toBe(true);
      expect(r.score).toBe(100);
    });

    it('without a partition, every location applies none and keeps its catalogued URL', () => {
      const r = resolve(LOI);
      expect(r.kind === 'found' && r.locations.map((l) => [l.url, l.partitionApplied])).toEqual([
        ['https://lf.example/loi106', 'none'],
        ['https://lf.example/loi106.pdf', 'none'],
        ['https://jo.example/106.pdf#page=3', 'none'],
        ['https://jo.example/106.xml', 'none'],
        ['https://senat.example/106', 'none'],
      ]);
    });
  });
});
