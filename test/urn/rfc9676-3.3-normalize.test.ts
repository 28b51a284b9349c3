/**
 * Canonical form and LEX equivalence: RFC 9676 section 3.3 (case-insensitive
 * names, also for percent-encoded non-ASCII text), RFC 8141 section 3.1
 * (urn/NID case, %hh hex case), digest 11.7 (raw "|"), and the partition
 * split of RFC 9676 sections 5.8 and 10.3.
 */
import { describe, expect, it } from 'vitest';
import {
  lexUrnEquivalent,
  normalizeLexUrn,
  splitPartition,
  type NormalizationRule,
} from '../../src/urn/core/index.ts';

function norm(text: string): { canonical: string; rules: NormalizationRule[]; at: number[] } {
  const r = normalizeLexUrn(text);
  if (!r.ok) throw new Error(`${text}: ${JSON.stringify(r.errors)}`);
  return {
    canonical: r.canonical,
    rules: r.changes.map((c) => c.rule),
    at: r.changes.map((c) => c.span.start),
  };
}

describe('normalizeLexUrn', () => {
  it('leaves a canonical name unchanged and reports no change', () => {
    const s =
      'urn:lex:eu:tribunal.justicia:sentencia:2009-06-11;33-08@original:es$juradmin.eu;jurifast:text-html:todo:anonimo';
    expect(norm(s)).toEqual({ canonical: s, rules: [], at: [] });
  });

  it('lowercases "urn", the NID and the name (section 3.3: "Ministry" is recorded as "ministry")', () => {
    expect(norm('URN:LEX:IT:Ministry.Justice:Decree:1999-10-07;45')).toEqual({
      canonical: 'urn:lex:it:ministry.justice:decree:1999-10-07;45',
      rules: ['scheme-lowercase', 'nid-lowercase', 'case-fold'],
      at: [0, 4, 8],
    });
    expect(norm('urn:Lex:eu:commission:directive:2010-03-09;2010-19-EU')).toEqual({
      canonical: 'urn:lex:eu:commission:directive:2010-03-09;2010-19-eu',
      rules: ['nid-lowercase', 'case-fold'],
      at: [4, 51],
    });
  });

  it('case-folds percent-encoded non-ASCII text: decode, lowercase, re-encode', () => {
    // Ü (C3 9C) -> ü (C3 BC)
    expect(norm('urn:lex:de:stadt.m%C3%9Cnchen:rundschreiben:2000-01-01;1')).toEqual({
      canonical: 'urn:lex:de:stadt.m%C3%BCnchen:rundschreiben:2000-01-01;1',
      rules: ['case-fold-encoded'],
      at: [18],
    });
    // Cyrillic ЗАКОН -> закон
    expect(
      norm('urn:lex:ru:gosudarstvo:%D0%97%D0%90%D0%9A%D0%9E%D0%9D:2000-01-01;1').canonical,
    ).toBe('urn:lex:ru:gosudarstvo:%D0%B7%D0%B0%D0%BA%D0%BE%D0%BD:2000-01-01;1');
    // Greek final sigma is not context-dependent: Σ -> σ everywhere
    expect(norm('urn:lex:gr:%CE%9D%CE%9F%CE%A3:x:2000-01-01;1').canonical).toBe(
      'urn:lex:gr:%CE%BD%CE%BF%CF%83:x:2000-01-01;1',
    );
  });

  it('uppercases %hh hex, also in the partition, and never decodes encoded ASCII', () => {
    expect(norm('urn:lex:de:stadt.m%c3%bcnchen:x:2000-01-01;1')).toEqual({
      canonical: 'urn:lex:de:stadt.m%C3%BCnchen:x:2000-01-01;1',
      rules: ['percent-hex-uppercase'],
      at: [18],
    });
    expect(norm('urn:lex:it:a%2cb:x:2000-01-01;1').canonical).toBe(
      'urn:lex:it:a%2Cb:x:2000-01-01;1',
    );
    expect(norm('urn:lex:it:a:x:2000-01-01;1~art%c3%a8').canonical).toBe(
      'urn:lex:it:a:x:2000-01-01;1~art%C3%A8',
    );
  });

  it('writes a raw "|" date separator as %7C (digest 11.7) and warns on parse', () => {
    expect(norm('urn:lex:il:state:law:1999-09-02|x.y;5')).toEqual({
      canonical: 'urn:lex:il:state:law:1999-09-02%7Cx.y;5',
      rules: ['pipe-encoded'],
      at: [31],
    });
  });

  it('keeps the partition case and the r-, q-, f-components as written', () => {
    expect(norm('URN:LEX:FR:Etat:Loi:2004-05-15;106~Art15;Par3?+Res=A?=Q=B#Frag').canonical).toBe(
      'urn:lex:fr:etat:loi:2004-05-15;106~Art15;Par3?+Res=A?=Q=B#Frag',
    );
  });

  it('rejects invalid input with its diagnostic', () => {
    const r = normalizeLexUrn('urn:lex:it:stato:legge:2003-13-21;456');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]!.code).toBe('LEX_BAD_DATE');
  });
});

describe('lexUrnEquivalent', () => {
  it('names that differ only in case are equivalent (section 3.3), also in encoded text', () => {
    expect(
      lexUrnEquivalent(
        'urn:lex:it:Stato:LEGGE:2003-09-21;456',
        'URN:LEX:it:stato:legge:2003-09-21;456',
      ),
    ).toBe(true);
    expect(
      lexUrnEquivalent(
        'urn:lex:de:stadt.m%C3%9Cnchen:x:2000-01-01;1',
        'urn:lex:de:stadt.m%c3%bcnchen:x:2000-01-01;1',
      ),
    ).toBe(true);
  });

  it('r-, q- and f-components are ignored; the partition is part of the name', () => {
    const a = 'urn:lex:fr:etat:loi:2004-05-15;106~art15';
    expect(lexUrnEquivalent(a, a + '?+x')).toBe(true);
    expect(lexUrnEquivalent(a, a + '?=y#z')).toBe(true);
    expect(lexUrnEquivalent(a, 'urn:lex:fr:etat:loi:2004-05-15;106~art16')).toBe(false);
    expect(lexUrnEquivalent(a, 'urn:lex:fr:etat:loi:2004-05-15;106')).toBe(false);
  });

  it('%2C is not ",", a raw "|" is "%7C", aliases are different names', () => {
    expect(
      lexUrnEquivalent('urn:lex:it:a%2Cb:x:2000-01-01;1', 'urn:lex:it:a,b:x:2000-01-01;1'),
    ).toBe(false);
    expect(
      lexUrnEquivalent(
        'urn:lex:il:state:law:1999-09-02|x;5',
        'urn:lex:il:state:law:1999-09-02%7cx;5',
      ),
    ).toBe(true);
    expect(
      lexUrnEquivalent(
        'urn:lex:eu:council:directive:2004-12-07;31',
        'urn:lex:eu:consiglio:direttiva:2004-12-07;31',
      ),
    ).toBe(false);
  });

  it('invalid input is equivalent to nothing', () => {
    expect(lexUrnEquivalent('urn:lex:it', 'urn:lex:it')).toBe(false);
  });
});

describe('splitPartition (RFC 9676 sections 5.8, 10.3)', () => {
  it('separates the partition at a literal "~" only', () => {
    expect(splitPartition('urn:lex:fr:etat:loi:2004-05-15;106~art15;par3')).toEqual({
      document: 'urn:lex:fr:etat:loi:2004-05-15;106',
      partition: 'art15;par3',
    });
    expect(splitPartition('urn:lex:fr:etat:loi:2004-05-15;106%7Eart15')).toEqual({
      document: 'urn:lex:fr:etat:loi:2004-05-15;106%7Eart15',
    });
    expect(splitPartition('urn:lex:fr:etat:loi:2004-05-15;106')).toEqual({
      document: 'urn:lex:fr:etat:loi:2004-05-15;106',
    });
  });

  it('keeps r-, q- and f-components with the document; a "~" inside them is not a partition', () => {
    expect(splitPartition('urn:lex:fr:etat:loi:2004-05-15;106~art15?=x~y#f~g')).toEqual({
      document: 'urn:lex:fr:etat:loi:2004-05-15;106?=x~y#f~g',
      partition: 'art15',
    });
    expect(splitPartition('urn:lex:fr:etat:loi:2004-05-15;106#a~b')).toEqual({
      document: 'urn:lex:fr:etat:loi:2004-05-15;106#a~b',
    });
  });
});
