/**
 * Regression (issue 31 item 19): `chain check --html` drew nodes over each
 * other and clipped them (`<rect y="130" height="22">` over `<rect
 * y="137.5" height="67">` in a 200-high SVG), labelled groups `(various)`,
 * and its table was wider than the page. The boxes of a mixed list are
 * computed from the SVG and checked pairwise.
 */
import { describe, expect, it } from 'vitest';
import { groupLabel, reportHtml } from '../../src/routes/html.ts';
import type { CoverageGroup, CoverageReport } from '../../src/routes/coverage.ts';

/** A mixed list: long single-child chains (tall boxes), branches, failures, hand-offs, no common prefix. */
export const MIXED: CoverageGroup[] = [
  {
    prefix: 'br;sao.paulo;campinas',
    kind: 'resolved',
    outcome: 'http://r.campinas.example/',
    path: ['lex.urn.arpa.', 'br.lex.arpa.', 'sp.br.lex.arpa.', 'campinas.sp.br.lex.arpa.'],
    count: 40,
    examples: ['urn:lex:br;sao.paulo;campinas:municipal:lei:2018-01-08;189'],
  },
  {
    prefix: 'br;sao.paulo',
    kind: 'resolved',
    outcome: 'http://r.sp.example/',
    path: ['lex.urn.arpa.', 'br.lex.arpa.', 'sp.br.lex.arpa.'],
    count: 12,
    examples: ['urn:lex:br;sao.paulo:estadual:lei:1998-12-30;10177'],
  },
  {
    prefix: 'br:federal',
    kind: 'resolved',
    outcome: 'http://r.senado.example/',
    path: ['lex.urn.arpa.', 'br.lex.arpa.'],
    count: 30,
    examples: ['urn:lex:br:federal:lei:2002-01-10;10406'],
  },
  {
    prefix: 'it',
    kind: 'resolved',
    outcome: 'http://r.normattiva.example/',
    path: [
      'lex.urn.arpa.',
      'it.lex.arpa.',
      'stato.it.lex.arpa.',
      'leggi.stato.it.lex.arpa.',
      'x.leggi.stato.it.lex.arpa.',
    ],
    count: 25,
    examples: ['urn:lex:it:stato:legge:2000-04-03;56'],
  },
  {
    prefix: 'it:regione',
    kind: 'failed',
    outcome: 'CHAIN_NO_RULE',
    path: ['lex.urn.arpa.', 'it.lex.arpa.'],
    count: 4,
    examples: ['urn:lex:it:regione.lazio:legge:2001-01-01;1'],
  },
  {
    prefix: '',
    kind: 'failed',
    outcome: 'CHAIN_NXDOMAIN',
    path: ['lex.urn.arpa.'],
    count: 7,
    examples: ['urn:lex:xx:a:b:2000-01-01;1', 'urn:lex:yy:a:b:2000-01-01;2'],
  },
  {
    prefix: 'eu',
    kind: 'handoff',
    outcome: 'z3950 eur-lex',
    path: ['lex.urn.arpa.', 'eu.lex.arpa.', 'eur.eu.lex.arpa.'],
    count: 9,
    examples: ['urn:lex:eu:commission:directive:2010-03-09;2010-19'],
  },
  {
    prefix: 'de',
    kind: 'resolved',
    outcome: 'http://r.de.example/',
    path: [
      'lex.urn.arpa.',
      'de.lex.arpa.',
      'bund.de.lex.arpa.',
      'x.bund.de.lex.arpa.',
      'y.x.bund.de.lex.arpa.',
      'z.y.x.bund.de.lex.arpa.',
    ],
    count: 2,
    examples: ['urn:lex:de:bund:gesetz:2000-01-01;1'],
  },
  {
    prefix: 'de;bayern',
    kind: 'failed',
    outcome: 'CHAIN_TIMEOUT',
    path: ['lex.urn.arpa.', 'de.lex.arpa.'],
    count: 1,
    examples: ['urn:lex:de;bayern:land:gesetz:2000-01-01;1'],
  },
];

export function mixedReport(): CoverageReport {
  const count = (k: CoverageGroup['kind']) =>
    MIXED.filter((g) => g.kind === k).reduce((a, g) => a + g.count, 0);
  return {
    total: MIXED.reduce((a, g) => a + g.count, 0),
    resolved: count('resolved'),
    handoff: count('handoff'),
    failed: count('failed'),
    byResolver: [],
    byFailure: [],
    groups: MIXED,
  };
}

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

function boxes(svg: string): Box[] {
  return [
    ...svg.matchAll(/<rect x="([\d.]+)" y="([\d.-]+)" width="([\d.]+)" height="([\d.]+)"/g),
  ].map((m) => ({ x: Number(m[1]), y: Number(m[2]), w: Number(m[3]), h: Number(m[4]) }));
}

/** The area two boxes share (0 when they do not overlap). */
function overlap(a: Box, b: Box): number {
  const dx = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const dy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return dx > 0 && dy > 0 ? dx * dy : 0;
}

describe('chain check --html over a mixed list', () => {
  const html = reportHtml(mixedReport(), 'mixed');
  const svg = /<svg[^>]*>.*<\/svg>/s.exec(html)![0];
  const [width, height] = /width="([\d.]+)" height="([\d.]+)"/.exec(svg)!.slice(1).map(Number);
  const all = boxes(svg);

  it('no two boxes overlap, and every box is inside the drawing', () => {
    expect(all.length).toBeGreaterThan(15);
    const shared: string[] = [];
    for (let i = 0; i < all.length; i++) {
      for (let j = i + 1; j < all.length; j++) {
        const o = overlap(all[i]!, all[j]!);
        if (o > 0) shared.push(`${JSON.stringify(all[i])} ~ ${JSON.stringify(all[j])}: ${o}`);
      }
    }
    expect(shared).toEqual([]);
    for (const b of all) {
      expect(b.y).toBeGreaterThanOrEqual(0);
      expect(b.x).toBeGreaterThanOrEqual(0);
      expect(b.y + b.h).toBeLessThanOrEqual(height!);
      expect(b.x + b.w).toBeLessThanOrEqual(width!);
    }
  });

  it('groups without a common prefix are labelled by jurisdiction, not (various)', () => {
    expect(html).not.toContain('(various)');
    expect(groupLabel({ prefix: '', examples: ['urn:lex:xx:a:b:2000;1', 'urn:LEX:YY:c'] })).toBe(
      'xx, yy',
    );
    expect(html).toContain('<td>xx, yy</td>');
  });

  it('the table fits the page: fixed layout at 100%, long cells wrap', () => {
    expect(html).toMatch(/table\{[^}]*width:100%[^}]*table-layout:fixed/);
    expect(html).toMatch(/td,th\{[^}]*overflow-wrap:anywhere/);
  });
});
