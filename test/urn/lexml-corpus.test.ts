/**
 * The LexML Brasil data in shared/data/anchors-ddds/ as a corpus.
 *
 * - localidade.csv: 5,664 jurisdiction codes (`br;sao.paulo;campinas`);
 * - urn_prefixos.csv: 3,441 prefixes `jurisdiction:authority:measure`;
 * - grupo1.csv: full canonical URNs of well-known codes;
 * - legal-nlp-oab-exams/*.yaml: hand-written URNs, with the malformed ones the README names.
 *
 * Expected validity is derived independently of the parser: each part of a
 * jurisdiction or prefix must match the section 8 `alf-dot` shape
 * (a letter or digit, then letters, digits or dots), checked with a regexp here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseLexUrn } from '../../src/urn/core/index.ts';
import { corpusOrSkip, titled } from '../helpers/tools.ts';
import { codeOf, mustParse } from './helpers.ts';

const corpus = corpusOrSkip('data/anchors-ddds/');
const DIR = corpus.path;

/** Minimal CSV reader (quoted fields with commas, as in localidade.csv). */
function readCsv(path: string): string[][] {
  const rows: string[][] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line) continue;
    const row: string[] = [];
    let cur = '';
    let quoted = false;
    for (const ch of line) {
      if (ch === '"') quoted = !quoted;
      else if (ch === ',' && !quoted) {
        row.push(cur);
        cur = '';
      } else cur += ch;
    }
    row.push(cur);
    rows.push(row);
  }
  return rows;
}

const ALF_DOT = /^[a-z0-9][a-z0-9.]*$/i;

/** Independent oracle: every ";"/":"/"+"-separated part is alf-dot, the code has 2+ chars and no empty dot part. */
function looksValid(parts: string): boolean {
  const [code] = parts.split(/[;:]/);
  if (!code || code.length < 2 || /\.\.|\.$/.test(code)) return false;
  return parts.split(/[;:+]/).every((p) => ALF_DOT.test(p));
}

describe.skipIf(corpus.skipReason !== undefined)(
  titled('LexML Brasil corpus (anchors-ddds)', corpus),
  () => {
    it('every jurisdiction code of localidade.csv that is valid LEX is accepted', () => {
      const rows = readCsv(`${DIR}okfn-brasil-lexml-vocabulary/localidade.csv`);
      expect(rows[0]).toContain('about');
      const codes = rows.slice(1).map((r) => r[1]!);
      expect(codes.length).toBe(5664);
      let accepted = 0;
      let expectedValid = 0;
      for (const c of codes) {
        const urn = `urn:lex:${c}:prefeitura:lei:2001-01-01;1`;
        const ok = parseLexUrn(urn).ok;
        if (looksValid(c)) {
          expectedValid++;
          expect(ok, urn).toBe(true);
          const parsed = mustParse(urn);
          expect(
            [parsed.jurisdiction.code.text, ...parsed.jurisdiction.units.map((u) => u.text)].join(
              ';',
            ),
          ).toBe(c);
        } else {
          expect(ok, urn).toBe(false);
        }
        if (ok) accepted++;
      }
      console.log(
        `localidade.csv: ${accepted} of ${codes.length} jurisdiction codes accepted (${expectedValid} expected valid)`,
      );
      expect(accepted).toBe(expectedValid);
      expect(accepted).toBe(5664);
    });

    it('every prefix of urn_prefixos.csv that is valid LEX is accepted, split into its parts', () => {
      const rows = readCsv(`${DIR}okfn-brasil-getlex/urn_prefixos.csv`);
      expect(rows[0]).toEqual(['id', 'prefixo', 'kx_n_urns', 'grupo_id', 'escopo']);
      const prefixes = rows.slice(1).map((r) => r[1]!);
      expect(prefixes.length).toBe(3441);
      let accepted = 0;
      let expectedValid = 0;
      let multiIssuer = 0;
      for (const p of prefixes) {
        const urn = `urn:lex:${p}:2001-01-01;1`;
        const r = parseLexUrn(urn);
        if (looksValid(p)) expectedValid++;
        expect(r.ok, urn).toBe(looksValid(p));
        if (!r.ok) continue;
        accepted++;
        const [jur, auth, measure] = p.split(':');
        const u = r.value;
        expect(
          [u.jurisdiction.code.text, ...u.jurisdiction.units.map((x) => x.text)].join(';'),
        ).toBe(jur);
        expect(
          u.work.authority.issuers
            .map((i) => [i.name.text, ...i.bodyFunctions.map((b) => b.text)].join(';'))
            .join('+'),
        ).toBe(auth);
        expect(
          [u.work.measure.value.text, ...u.work.measure.specifications.map((s) => s.text)].join(
            ';',
          ),
        ).toBe(measure);
        if (u.work.authority.issuers.length > 1) multiIssuer++;
      }
      console.log(
        `urn_prefixos.csv: ${accepted} of ${prefixes.length} prefixes accepted (${multiIssuer} with several issuers)`,
      );
      expect(accepted).toBe(expectedValid);
      expect(accepted).toBe(3441);
    });

    it('the full URNs of grupo1.csv parse', () => {
      const rows = readCsv(`${DIR}okfn-brasil-getlex/grupo1.csv`).slice(1);
      const urns = rows.map((r) => r[2]!).filter(Boolean);
      expect(urns.length).toBe(15);
      for (const u of urns) expect(codeOf(u), u).toBe('OK');
      const cf = mustParse(urns[0]!);
      expect(cf.work.measure.value.text).toBe('constituicao');
      expect(cf.work.details.dates![0]!.iso.text).toBe('1988-10-05');
    });

    describe('malformed examples named in the anchors-ddds README are rejected', () => {
      const yaml = (corpus.skipReason ? [] : ['const.yaml', 'ethics.yaml'])
        .map((f) => readFileSync(`${DIR}legal-nlp-oab-exams/${f}`, 'utf8'))
        .join('\n');
      const urns = [...new Set([...yaml.matchAll(/urn:lex:[^\s"'<>]+/g)].map((m) => m[0]))];

      it('reads the 177 distinct URNs of the two YAML files', () => {
        expect(urns.length).toBe(177);
      });

      it('non-padded date 1995-2-13: LEX_BAD_DATE', () => {
        const bad = urns.filter((u) => u.includes(':1995-2-13;'));
        expect(bad.length).toBeGreaterThan(0);
        for (const u of bad) expect(codeOf(u), u).toBe('LEX_BAD_DATE');
      });

      it('fragment range ![a,b]: the "[" is not a URN character (URN_BAD_CHAR)', () => {
        const bad = urns.filter((u) => u.includes('!['));
        expect(bad.length).toBe(1);
        // "!" comes first, but "[" makes the string no URN at all: the RFC 8141 check names it.
        expect(codeOf(bad[0]!)).toBe('URN_BAD_CHAR');
      });

      it('";seq" without a number: syntactically a document-id, rejected here for its "!" fragment', () => {
        const bad = urns.filter((u) => /;seq!/.test(u));
        expect(bad.length).toBeGreaterThan(0);
        for (const u of bad) expect(codeOf(u), u).toBe('LEX_FUTURE_CHAR');
        // Without the LexML fragment, "seq" is a valid alf-dot-oth document-id (RFC 9676 section 8).
        expect(codeOf(bad[0]!.slice(0, bad[0]!.indexOf('!')))).toBe('OK');
      });

      it('all YAML URNs: accepted and rejected counts by code', () => {
        const byCode = new Map<string, number>();
        for (const u of urns) byCode.set(codeOf(u), (byCode.get(codeOf(u)) ?? 0) + 1);
        console.log(`oab-exams YAML: ${JSON.stringify(Object.fromEntries(byCode))}`);
        // Derived from the text: URNs with "!" are LexML fragments, "1995-2-13" is unpadded, one has "![".
        const withBang = urns.filter((u) => u.includes('!'));
        const unpadded = urns.filter((u) => /:\d{4}-\d-/.test(u));
        const bracket = urns.filter((u) => u.includes('['));
        expect(byCode.get('OK')).toBe(urns.length - withBang.length);
        expect(byCode.get('LEX_BAD_DATE')).toBe(unpadded.length);
        expect(byCode.get('URN_BAD_CHAR')).toBe(bracket.length);
        expect(byCode.get('LEX_FUTURE_CHAR')).toBe(
          withBang.length - unpadded.length - bracket.length,
        );
      });
    });
  },
);
