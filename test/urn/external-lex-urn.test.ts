/**
 * External corpora in shared/external-test-data/lex-urn/:
 * - lexml-br-urns-oab-exams.txt: 410 LexML Brasil URNs written by researchers;
 * - urn-nir-normattiva-cad-2005-82.txt: 87 Italian urn:nir identifiers from Normattiva.
 *
 * Expected distributions were derived by reading the files (counts below come
 * from grep on the raw text, recomputed here with plain string tests), not from
 * the parser:
 * - 144 lines have no "!" and parse (including 1943;5452-style year-only
 *   details, which are a section 8 `period`, and 0093-03-17, a real if
 *   implausible date, accepted with a LEX_UNUSUAL_YEAR warning);
 * - 266 lines use LexML's "!fragment": 238 are otherwise valid and fail on the
 *   "!" (LEX_FUTURE_CHAR: "!" is reserved, RFC 9676 uses "~"), 27 also have the
 *   unpadded date 1995-2-13, found first (LEX_BAD_DATE), and 1 has "![" whose
 *   "[" is not an RFC 8141 character (URN_BAD_CHAR);
 * - urn:nir: all 87 are LEX_NOT_LEX; as RFC 8141 URNs 69 are valid and the 18
 *   with a space in the "#" fragment ("#27 bis") are URN_BAD_CHAR.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseLexUrn, parseUrn8141, splitPartition } from '../../src/urn/core/index.ts';
import { corpusOrSkip, titled } from '../helpers/tools.ts';
import { codeOf } from './helpers.ts';

const corpus = corpusOrSkip('external-test-data/lex-urn/');
const DIR = corpus.path;
const lines = (f: string): string[] =>
  (corpus.skipReason ? '' : readFileSync(DIR + f, 'utf8')).split('\n').filter(Boolean);

function tally(results: string[]): Record<string, number> {
  const t: Record<string, number> = {};
  for (const r of results) t[r] = (t[r] ?? 0) + 1;
  return t;
}

describe.skipIf(corpus.skipReason !== undefined)(titled('external LEX URN corpora', corpus), () => {
  const lexml = lines('lexml-br-urns-oab-exams.txt');

  it('LexML Brasil (oab-exams): 410 URNs, accepted/rejected by the real reason', () => {
    expect(lexml.length).toBe(410);
    const codes = lexml.map((u) => {
      const r = parseLexUrn(u);
      return r.ok ? 'OK' : r.errors[0]!.code;
    });
    const t = tally(codes);
    console.log(
      `lexml-br-urns-oab-exams.txt: accepted ${t.OK ?? 0}, rejected ${410 - (t.OK ?? 0)}: ${JSON.stringify(t)}`,
    );

    // Expectations from the text itself.
    const bang = lexml.filter((u) => u.includes('!'));
    const bracket = lexml.filter((u) => u.includes('['));
    const unpadded = lexml.filter((u) => /:\d{4}-\d-\d{1,2};/.test(u));
    expect([bang.length, bracket.length, unpadded.length]).toEqual([266, 1, 27]);
    expect(t).toEqual({
      OK: 410 - bang.length,
      LEX_FUTURE_CHAR: bang.length - bracket.length - unpadded.length,
      LEX_BAD_DATE: unpadded.length,
      URN_BAD_CHAR: bracket.length,
    });

    // Each rejection points at the right place.
    lexml.forEach((u, k) => {
      const r = parseLexUrn(u);
      if (r.ok) return;
      const e = r.errors[0]!;
      if (codes[k] === 'LEX_FUTURE_CHAR') expect(e.span.start).toBe(u.indexOf('!'));
      if (codes[k] === 'URN_BAD_CHAR') expect(u[e.span.start]).toBe('[');
      if (codes[k] === 'LEX_BAD_DATE') expect(u.slice(e.span.start, e.span.end)).toBe('1995-2-13');
    });
  });

  it('LexML: the "!" documents are valid LEX once the fragment is cut off, and "~" is the RFC 9676 way', () => {
    const docs = lexml.filter((u) => u.includes('!') && !u.includes('[') && !/:\d{4}-\d-/.test(u));
    for (const u of docs) {
      const bang = u.indexOf('!');
      const asPartition = u.slice(0, bang) + '~' + u.slice(bang + 1);
      const r = parseLexUrn(asPartition);
      expect(r.ok, asPartition).toBe(true);
      if (r.ok) expect(r.value.partition?.text).toBe(u.slice(bang + 1));
      expect(splitPartition(asPartition)).toEqual({
        document: u.slice(0, bang),
        partition: u.slice(bang + 1),
      });
    }
    expect(docs.length).toBe(238);
  });

  it('LexML: the accepted names include year-only periods and an implausible year with a warning', () => {
    const yearOnly = parseLexUrn('urn:lex:br:federal:decreto.lei:1943;5452');
    expect(yearOnly.ok && yearOnly.value.work.details.period?.text).toBe('1943');
    const oddYear = lexml.filter((u) => u.includes(':0093-03-17;'));
    expect(oddYear.length).toBe(1);
    const r = parseLexUrn(oddYear[0]!);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.warnings.map((w) => w.code)).toEqual(['LEX_UNUSUAL_YEAR']);
    const warned = lexml.filter((u) => {
      const p = parseLexUrn(u);
      return p.ok && p.warnings.length > 0;
    });
    // 0093, 0095, 0098, 0099 (emendas constitucionais written with a 2-digit year)
    expect(warned.length).toBe(lexml.filter((u) => /:00\d\d-/.test(u) && !u.includes('!')).length);
  });

  it('urn:nir (Normattiva): 87 identifiers, none is LEX; RFC 8141 rejects only the spaces', () => {
    const nir = lines('urn-nir-normattiva-cad-2005-82.txt');
    expect(nir.length).toBe(87);
    const lex = tally(nir.map(codeOf));
    const base = tally(
      nir.map((u) => {
        const r = parseUrn8141(u);
        return r.ok ? 'OK' : r.errors[0]!.code;
      }),
    );
    console.log(`urn-nir: as LEX ${JSON.stringify(lex)}; as RFC 8141 ${JSON.stringify(base)}`);
    const withSpace = nir.filter((u) => u.includes(' ')).length;
    expect(withSpace).toBe(18);
    expect(lex).toEqual({ LEX_NOT_LEX: 87 });
    expect(base).toEqual({ OK: 87 - withSpace, URN_BAD_CHAR: withSpace });
    for (const u of nir) {
      const r = parseUrn8141(u);
      if (r.ok) {
        expect(r.value.nid.text).toBe('nir');
        expect(r.value.nss.text).toBe(u.slice(8).split('#')[0]);
      } else {
        expect(u[r.errors[0]!.span.start]).toBe(' ');
      }
    }
  });
});
