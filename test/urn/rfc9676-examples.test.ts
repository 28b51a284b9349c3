/**
 * Every example URN of RFC 9676 (grep "urn:lex:" in spec/rfc9676-lex-urn-namespace.txt,
 * wrapped examples joined), with its parts written out by hand from the RFC text.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatLexUrn, parseLexUrn, toDnsKey } from '../../src/urn/core/index.ts';
import { corpusOrSkip, titled } from '../helpers/tools.ts';

const rfcText = corpusOrSkip('spec/rfc9676-lex-urn-namespace.txt');
import { checkSpans, codeOf, mustParse, summary } from './helpers.ts';

interface Example {
  section: string;
  urn: string;
  parts: Record<string, unknown>;
}

const EXAMPLES: Example[] = [
  // Section 2.1
  {
    section: '2.1',
    urn: 'urn:lex:it:stato:legge:2003-09-21;456',
    parts: {
      jurisdiction: ['it'],
      authority: [['stato']],
      measure: ['legge'],
      dates: ['2003-09-21'],
      numbers: ['456'],
    },
  },
  {
    section: '2.1',
    urn: 'urn:lex:fr:etat:loi:2004-12-06;321',
    parts: {
      jurisdiction: ['fr'],
      authority: [['etat']],
      measure: ['loi'],
      dates: ['2004-12-06'],
      numbers: ['321'],
    },
  },
  {
    section: '2.1',
    urn: 'urn:lex:es:estado:ley:2002-07-12;123',
    parts: {
      jurisdiction: ['es'],
      authority: [['estado']],
      measure: ['ley'],
      dates: ['2002-07-12'],
      numbers: ['123'],
    },
  },
  {
    section: '2.1 and 5.4',
    urn: 'urn:lex:ch;glarus:regiere:erlass:2007-10-15;963',
    parts: {
      jurisdiction: ['ch', 'glarus'],
      authority: [['regiere']],
      measure: ['erlass'],
      dates: ['2007-10-15'],
      numbers: ['963'],
    },
  },
  {
    section: '2.1',
    urn: 'urn:lex:eu:commission:directive:2010-03-09;2010-19-EU',
    parts: {
      jurisdiction: ['eu'],
      authority: [['commission']],
      measure: ['directive'],
      dates: ['2010-03-09'],
      numbers: ['2010-19-EU'],
    },
  },
  {
    section: '2.1',
    urn: 'urn:lex:us:supreme.court:decision:1978-04-28;77-5953',
    parts: {
      jurisdiction: ['us'],
      authority: [['supreme.court']],
      measure: ['decision'],
      dates: ['1978-04-28'],
      numbers: ['77-5953'],
    },
  },
  {
    section: '2.1',
    urn: 'urn:lex:be:conseil.etat:decision:2008-07-09;185.273',
    parts: {
      jurisdiction: ['be'],
      authority: [['conseil.etat']],
      measure: ['decision'],
      dates: ['2008-07-09'],
      numbers: ['185.273'],
    },
  },
  // Section 5.4
  {
    section: '5.4',
    urn: 'urn:lex:it:stato:legge:2006-05-14;22',
    parts: {
      jurisdiction: ['it'],
      authority: [['stato']],
      measure: ['legge'],
      dates: ['2006-05-14'],
      numbers: ['22'],
    },
  },
  {
    section: '5.4',
    urn: 'urn:lex:uk:ministry.justice:decree:1999-10-07;45',
    parts: {
      jurisdiction: ['uk'],
      authority: [['ministry.justice']],
      measure: ['decree'],
      dates: ['1999-10-07'],
      numbers: ['45'],
    },
  },
  {
    section: '5.4',
    urn: 'urn:lex:es:tribunal.supremo:decision:2001-09-28;68',
    parts: {
      jurisdiction: ['es'],
      authority: [['tribunal.supremo']],
      measure: ['decision'],
      dates: ['2001-09-28'],
      numbers: ['68'],
    },
  },
  {
    section: '5.4 (period instead of dates)',
    urn: 'urn:lex:fr:assemblee.nationale:proposition.loi:13.legislature;1762',
    parts: {
      jurisdiction: ['fr'],
      authority: [['assemblee.nationale']],
      measure: ['proposition.loi'],
      period: '13.legislature',
      numbers: ['1762'],
    },
  },
  {
    section: '5.4 (number-lex)',
    urn: 'urn:lex:br:estado:constituicao:1988-10-05;lex-1',
    parts: {
      jurisdiction: ['br'],
      authority: [['estado']],
      measure: ['constituicao'],
      dates: ['1988-10-05'],
      numbers: { lex: '1' },
    },
  },
  {
    section: '5.4 (wrapped over two lines in the RFC)',
    urn: 'urn:lex:un.org:united.nations;general.assembly:resolution:1961-11-28;a-res-1661',
    parts: {
      jurisdiction: ['un.org'],
      authority: [['united.nations', 'general.assembly']],
      measure: ['resolution'],
      dates: ['1961-11-28'],
      numbers: ['a-res-1661'],
    },
  },
  {
    section: '5.4',
    urn: 'urn:lex:nl:hoge.raad:besluit:2008-04-01;bc8581',
    parts: {
      jurisdiction: ['nl'],
      authority: [['hoge.raad']],
      measure: ['besluit'],
      dates: ['2008-04-01'],
      numbers: ['bc8581'],
    },
  },
  {
    section: '5.4',
    urn: 'urn:lex:eec.lex.arpa:court.justice:judgement:1960-04-04;4-59',
    parts: {
      jurisdiction: ['eec.lex.arpa'],
      authority: [['court.justice']],
      measure: ['judgement'],
      dates: ['1960-04-04'],
      numbers: ['4-59'],
    },
  },
  {
    section: '5.4',
    urn: 'urn:lex:eec.lex.arpa:court.justice:order:1960-05-18;4-59',
    parts: {
      jurisdiction: ['eec.lex.arpa'],
      authority: [['court.justice']],
      measure: ['order'],
      dates: ['1960-05-18'],
      numbers: ['4-59'],
    },
  },
  // Section 5.5
  {
    section: '5.5',
    urn: 'urn:lex:eu:council:directive:2004-12-07;31',
    parts: {
      jurisdiction: ['eu'],
      authority: [['council']],
      measure: ['directive'],
      dates: ['2004-12-07'],
      numbers: ['31'],
    },
  },
  {
    section: '5.5',
    urn: 'urn:lex:eu:consiglio:direttiva:2004-12-07;31',
    parts: {
      jurisdiction: ['eu'],
      authority: [['consiglio']],
      measure: ['direttiva'],
      dates: ['2004-12-07'],
      numbers: ['31'],
    },
  },
  // Section 5.6 (expressions)
  {
    section: '5.6',
    urn: 'urn:lex:ch:etat:loi:2006-05-14;22@originel:fr',
    parts: {
      jurisdiction: ['ch'],
      authority: [['etat']],
      measure: ['loi'],
      dates: ['2006-05-14'],
      numbers: ['22'],
      version: ['originel'],
      language: 'fr',
    },
  },
  {
    section: '5.6',
    urn: 'urn:lex:ch:staat:gesetz:2006-05-14;22@original:de',
    parts: {
      jurisdiction: ['ch'],
      authority: [['staat']],
      measure: ['gesetz'],
      dates: ['2006-05-14'],
      numbers: ['22'],
      version: ['original'],
      language: 'de',
    },
  },
  {
    section: '5.6',
    urn: 'urn:lex:ch:etat:loi:2006-05-14;22@2008-03-12:fr',
    parts: {
      jurisdiction: ['ch'],
      authority: [['etat']],
      measure: ['loi'],
      dates: ['2006-05-14'],
      numbers: ['22'],
      version: ['2008-03-12'],
      language: 'fr',
    },
  },
  {
    section: '5.6',
    urn: 'urn:lex:ch:staat:gesetz:2006-05-14;22@2008-03-12:de',
    parts: {
      jurisdiction: ['ch'],
      authority: [['staat']],
      measure: ['gesetz'],
      dates: ['2006-05-14'],
      numbers: ['22'],
      version: ['2008-03-12'],
      language: 'de',
    },
  },
  {
    section: '5.6',
    urn: 'urn:lex:be:conseil.etat:decision:2008-07-09;185.273@originel:fr',
    parts: {
      jurisdiction: ['be'],
      authority: [['conseil.etat']],
      measure: ['decision'],
      dates: ['2008-07-09'],
      numbers: ['185.273'],
      version: ['originel'],
      language: 'fr',
    },
  },
  // Section 5.7 (manifestations; wrapped lines joined)
  {
    section: '5.7',
    urn: 'urn:lex:it:stato:legge:2000-04-03;56$parlamento.it:application-pdf;1.7',
    parts: {
      jurisdiction: ['it'],
      authority: [['stato']],
      measure: ['legge'],
      dates: ['2000-04-03'],
      numbers: ['56'],
      editor: ['parlamento.it'],
      format: ['application-pdf', '1.7'],
    },
  },
  {
    section: '5.7',
    urn: 'urn:lex:it:stato:legge:2000-04-03;56$senato.it:text-xml;dtd-nir-2.2:testo',
    parts: {
      jurisdiction: ['it'],
      authority: [['stato']],
      measure: ['legge'],
      dates: ['2000-04-03'],
      numbers: ['56'],
      editor: ['senato.it'],
      format: ['text-xml', 'dtd-nir-2.2'],
      component: ['testo'],
    },
  },
  {
    section: '5.7',
    urn: 'urn:lex:it:stato:legge:2000-04-03;56$senato.it:application-pdf;1.7:figura.1',
    parts: {
      jurisdiction: ['it'],
      authority: [['stato']],
      measure: ['legge'],
      dates: ['2000-04-03'],
      numbers: ['56'],
      editor: ['senato.it'],
      format: ['application-pdf', '1.7'],
      component: ['figura.1'],
    },
  },
  {
    section: '5.7',
    urn: 'urn:lex:eu:tribunal.justicia:sentencia:2009-06-11;33-08@original:es$juradmin.eu;jurifast:text-html:todo:anonimo',
    parts: {
      jurisdiction: ['eu'],
      authority: [['tribunal.justicia']],
      measure: ['sentencia'],
      dates: ['2009-06-11'],
      numbers: ['33-08'],
      version: ['original'],
      language: 'es',
      editor: ['juradmin.eu', 'jurifast'],
      format: ['text-html'],
      component: ['todo'],
      feature: ['anonimo'],
    },
  },
  // Section 5.8 (partition)
  {
    section: '5.8',
    urn: 'urn:lex:fr:etat:loi:2004-05-15;106~art15;par3',
    parts: {
      jurisdiction: ['fr'],
      authority: [['etat']],
      measure: ['loi'],
      dates: ['2004-05-15'],
      numbers: ['106'],
      partition: 'art15;par3',
    },
  },
];

/**
 * Work-level fragments quoted in the RFC prose (sections 6.1-7.1), which have no
 * `urn:lex:<jurisdiction>:` in the text: checked under an `it` jurisdiction.
 */
const FRAGMENTS: Example[] = [
  {
    section: '6.1.2 + 6.3.3',
    urn: 'urn:lex:it:ministry.justice+ministry.finances:decree:1999-12-20;lex-3',
    parts: {
      jurisdiction: ['it'],
      authority: [['ministry.justice'], ['ministry.finances']],
      measure: ['decree'],
      dates: ['1999-12-20'],
      numbers: { lex: '3' },
    },
  },
  {
    section: '6.1.3',
    urn: 'urn:lex:it:ministry.finances;department.revenues;manager:decree:2000-01-01;7',
    parts: {
      jurisdiction: ['it'],
      authority: [['ministry.finances', 'department.revenues', 'manager']],
      measure: ['decree'],
      dates: ['2000-01-01'],
      numbers: ['7'],
    },
  },
  {
    section: '6.2.2',
    urn: 'urn:lex:it:state:act;bankruptcy:1942-03-16;267',
    parts: {
      jurisdiction: ['it'],
      authority: [['state']],
      measure: ['act', 'bankruptcy'],
      dates: ['1942-03-16'],
      numbers: ['267'],
    },
  },
  {
    section: '6.2.3',
    urn: 'urn:lex:it:state:consolidation;public.contracts:1992-07-24;358',
    parts: {
      jurisdiction: ['it'],
      authority: [['state']],
      measure: ['consolidation', 'public.contracts'],
      dates: ['1992-07-24'],
      numbers: ['358'],
    },
  },
  {
    section: '6.3.1',
    urn: 'urn:lex:it:senate:bill:14.legislature;s.2544',
    parts: {
      jurisdiction: ['it'],
      authority: [['senate']],
      measure: ['bill'],
      period: '14.legislature',
      numbers: ['s.2544'],
    },
  },
  {
    section: '6.3.2 (multiple dates)',
    urn: 'urn:lex:it:personal.data.protection.authority:measure:1999-12-30,2000-01-13;1-p-2000',
    parts: {
      jurisdiction: ['it'],
      authority: [['personal.data.protection.authority']],
      measure: ['measure'],
      dates: ['1999-12-30', '2000-01-13'],
      numbers: ['1-p-2000'],
    },
  },
  {
    section: '6.3.4 (multiple numbers)',
    urn: 'urn:lex:eu:court.justice:judgement:2000-06-12;c-10-97,c-11-97,c-12-97',
    parts: {
      jurisdiction: ['eu'],
      authority: [['court.justice']],
      measure: ['judgement'],
      dates: ['2000-06-12'],
      numbers: ['c-10-97', 'c-11-97', 'c-12-97'],
    },
  },
  {
    section: '6.4.1 (annex)',
    urn: 'urn:lex:it:region.sicily;council:deliberation:1998-02-12;14:annex.a;borders.park',
    parts: {
      jurisdiction: ['it'],
      authority: [['region.sicily', 'council']],
      measure: ['deliberation'],
      dates: ['1998-02-12'],
      numbers: ['14'],
      annexes: [['annex.a', 'borders.park']],
    },
  },
  {
    section: '6.4.2 (annex of an annex)',
    urn: 'urn:lex:it:region.sicily;council:deliberation:1998-02-12;14:annex.a;borders.park:table.1;municipality.territories',
    parts: {
      jurisdiction: ['it'],
      authority: [['region.sicily', 'council']],
      measure: ['deliberation'],
      dates: ['1998-02-12'],
      numbers: ['14'],
      annexes: [
        ['annex.a', 'borders.park'],
        ['table.1', 'municipality.territories'],
      ],
    },
  },
  {
    section: '7.1.2 (version with an event date)',
    urn: 'urn:lex:it:state:royal.decree:1941-01-30;12@1998-02-19;1999-01-01',
    parts: {
      jurisdiction: ['it'],
      authority: [['state']],
      measure: ['royal.decree'],
      dates: ['1941-01-30'],
      numbers: ['12'],
      version: ['1998-02-19', '1999-01-01'],
    },
  },
  {
    section: '3.6 (ISO date plus the Hebrew local date, UTF-8 as the RFC prints it)',
    urn: 'urn:lex:il:state:law:1999-09-02%7C%d7%98%d7%b4%d7%a0%d7%a9%d7%aa-%d7%9c%d7%95%d6%bc%d7%9c%d7%90%d6%b1%d7%91%d6%b6%d6%bc-%d7%90%d7%b4%d7%9b;5',
    parts: {
      jurisdiction: ['il'],
      authority: [['state']],
      measure: ['law'],
      dates: [
        '1999-09-02|%d7%98%d7%b4%d7%a0%d7%a9%d7%aa-%d7%9c%d7%95%d6%bc%d7%9c%d7%90%d6%b1%d7%91%d6%b6%d6%bc-%d7%90%d7%b4%d7%9b',
      ],
      numbers: ['5'],
    },
  },
];

describe('RFC 9676 example URNs', () => {
  it.skipIf(rfcText.skipReason !== undefined)(
    titled('the list covers every complete urn:lex: example of the RFC text', rfcText),
    () => {
      const rfc = readFileSync(rfcText.path, 'utf8');
      const found = new Set<string>();
      for (const m of rfc.matchAll(/urn:lex:[^\s"]+/g)) {
        if (m[0].includes('...') || m[0].includes('U+')) continue;
        const s = m[0].replace(/[".,)]+$/, '');
        if (s.split(':').length < 5) continue;
        found.add(s);
      }
      const ours = EXAMPLES.map((e) => e.urn);
      // A wrapped example appears as its first line in the text: it must start one of ours.
      for (const s of found)
        expect(
          ours.some((u) => u === s || u.startsWith(s)),
          s,
        ).toBe(true);
      expect(found.size).toBeGreaterThanOrEqual(25);
    },
  );

  for (const ex of [...EXAMPLES, ...FRAGMENTS]) {
    it(`section ${ex.section}: ${ex.urn}`, () => {
      const urn = mustParse(ex.urn);
      expect(summary(urn)).toEqual(ex.parts);
      expect(formatLexUrn(urn)).toBe(ex.urn);
      expect(checkSpans(urn)).toBeGreaterThan(8);
    });
  }

  it('date node of the Hebrew example carries year, month and day', () => {
    const urn = mustParse(FRAGMENTS.at(-1)!.urn);
    const date = urn.work.details.dates![0]!;
    expect([date.year, date.month, date.day, date.separator]).toEqual([1999, 9, 2, '%7C']);
    expect(date.span.start).toBe('urn:lex:il:state:law:'.length);
  });

  describe('section 3.4 examples with elided details ("...")', () => {
    it('are rejected at the elision, with the element that is missing', () => {
      expect(codeOf('urn:lex:de:stadt.munchen:rundschreiben:...;')).toBe('LEX_BAD_PERIOD');
      expect(codeOf('urn:lex:ru:gosudarstvo:zakon:...')).toBe('LEX_BAD_PERIOD');
      expect(codeOf('urn:lex:fr:etat:traite:...')).toBe('LEX_BAD_PERIOD');
      const r = parseLexUrn('urn:lex:de:staat:vertrag:...');
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors[0]!.span.start).toBe('urn:lex:de:staat:vertrag:'.length);
    });

    it('ASCII and UTF-8 forms parse once the details are filled in', () => {
      for (const prefix of [
        'urn:lex:de:stadt.munchen:rundschreiben:',
        'urn:lex:de:stadt.m%C3%BCnchen:rundschreiben:',
        'urn:lex:ru:gosudarstvo:zakon:',
        'urn:lex:ru:%D1%81%D0%BE%D1%81%D1%82%D0%BE%D1%8F%D0%BD%D0%B8%D0%B5:%D0%B7%D0%B0%D0%BA%D0%BE%D0%BD:',
      ]) {
        expect(codeOf(prefix + '2000-01-01;1'), prefix).toBe('OK');
      }
    });

    it('the PUNYCODE forms are not section 8 syntax: alf-dot has no "-"', () => {
      expect(codeOf('urn:lex:de:stadt.xn--mnchen-3ya:rundschreiben:2000-01-01;1')).toBe(
        'LEX_BAD_AUTHORITY',
      );
      expect(codeOf('urn:lex:ru:xn--80aebe3cdmfdkg:xn--80ankme:2000-01-01;1')).toBe(
        'LEX_BAD_AUTHORITY',
      );
    });

    it('the UTF-8 parts convert to the correct A-labels (not the RFC Russian vector)', () => {
      const urn = mustParse(
        'urn:lex:ru:%D1%81%D0%BE%D1%81%D1%82%D0%BE%D1%8F%D0%BD%D0%B8%D0%B5:%D0%B7%D0%B0%D0%BA%D0%BE%D0%BD:2000-01-01;1',
      );
      const issuer = urn.work.authority.issuers[0]!.name.text;
      const measure = urn.work.measure.value.text;
      expect(toDnsKey(issuer)).toEqual({ ok: true, value: 'xn--e1afodaqbi2j.' });
      expect(toDnsKey(measure)).toEqual({ ok: true, value: 'xn--80ankme.' });
      // digest 9.6: RFC 9676 pairs "состояние" with xn--80aebe3cdmfdkg, which is "государство".
      expect(toDnsKey(issuer)).not.toEqual({ ok: true, value: 'xn--80aebe3cdmfdkg.' });
      const munchen = mustParse('urn:lex:de:stadt.m%C3%BCnchen:rundschreiben:2000-01-01;1');
      expect(toDnsKey(munchen.work.authority.issuers[0]!.name.text)).toEqual({
        ok: true,
        value: 'stadt.xn--mnchen-3ya.',
      });
    });
  });
});
