/**
 * RFC 8141 section 2 (syntax: NID, NSS, r-/q-/f-components) and section 3
 * (URN-equivalence), with the RFC's own examples (digest 10.3).
 */
import { describe, expect, it } from 'vitest';
import { parseLexUrn, parseUrn8141, urn8141Equivalent } from '../../src/urn/core/index.ts';

function parts(text: string): Record<string, string | undefined> {
  const r = parseUrn8141(text);
  if (!r.ok) throw new Error(`${text}: ${JSON.stringify(r.errors)}`);
  return {
    scheme: r.value.scheme.text,
    nid: r.value.nid.text,
    nss: r.value.nss.text,
    r: r.value.rComponent?.text,
    q: r.value.qComponent?.text,
    f: r.value.fComponent?.text,
  };
}

describe('RFC 8141 section 2: syntax', () => {
  it('splits assigned-name and the optional components', () => {
    expect(parts('urn:example:a123,z456')).toEqual({
      scheme: 'urn',
      nid: 'example',
      nss: 'a123,z456',
    });
    expect(parts('URN:example:a123,z456?+abc')).toMatchObject({
      scheme: 'URN',
      nss: 'a123,z456',
      r: 'abc',
    });
    expect(parts('urn:example:a123,z456?=xyz')).toMatchObject({ q: 'xyz', r: undefined });
    expect(parts('urn:example:a123,z456#789')).toMatchObject({ f: '789' });
    expect(parts('urn:example:a?+r1?=q1#f1')).toMatchObject({
      nss: 'a',
      r: 'r1',
      q: 'q1',
      f: 'f1',
    });
    expect(parts('urn:example:a/b/c')).toMatchObject({ nss: 'a/b/c' });
    expect(parts('urn:example:a#')).toMatchObject({ f: '' });
  });

  it('"?+" after "?=" belongs to the q-component; "?" inside r/q/f is allowed', () => {
    expect(parts('urn:example:a?=x?+y')).toMatchObject({ q: 'x?+y', r: undefined });
    expect(parts('urn:example:a?+x?y?=z')).toMatchObject({ r: 'x?y', q: 'z' });
    expect(parts('urn:example:a#x?y/z')).toMatchObject({ f: 'x?y/z' });
  });

  it('NID: 2 to 32 letters, digits, hyphens; letter or digit at both ends', () => {
    expect(parts('urn:ab:x').nid).toBe('ab');
    expect(parts(`urn:${'a'.repeat(32)}:x`).nid).toBe('a'.repeat(32));
    expect(parts('urn:a-1:x').nid).toBe('a-1');
    for (const bad of [
      'urn:a:x',
      `urn:${'a'.repeat(33)}:x`,
      'urn:-ab:x',
      'urn:ab-:x',
      'urn:a.b:x',
    ]) {
      const r = parseUrn8141(bad);
      expect(r.ok ? 'OK' : r.errors[0]!.code, bad).toBe('URN_BAD_NID');
    }
  });

  it('a "?" not followed by "+" or "=" is a syntax error (section 2.3)', () => {
    for (const bad of [
      'urn:example:a?b',
      'urn:example:a?',
      'urn:lex:it:stato:legge:2000-01-01;1?b',
    ]) {
      const r = bad.startsWith('urn:lex') ? parseLexUrn(bad) : parseUrn8141(bad);
      expect(r.ok ? 'OK' : r.errors[0]!.code, bad).toBe('URN_BAD_QUERY_MARK');
    }
  });

  it('no raw non-ASCII, space or excluded characters', () => {
    for (const [bad, at] of [
      ['urn:example:münchen', 13],
      ['urn:example:a b', 13],
      ['urn:example:a<b', 13],
      ['urn:example:a|b', 13],
      ['urn:example:a#b#c', 15],
      ['urn:example:a#b c', 15],
    ] as const) {
      const r = parseUrn8141(bad);
      expect(r.ok ? 'OK' : `${r.errors[0]!.code}@${r.errors[0]!.span.start}`, bad).toBe(
        `URN_BAD_CHAR@${at}`,
      );
    }
  });

  it('the NSS cannot be empty or start with "/"', () => {
    const code = (t: string): string => {
      const r = parseUrn8141(t);
      return r.ok ? 'OK' : r.errors[0]!.code;
    };
    expect(code('urn:example:')).toBe('URN_EMPTY_NSS');
    expect(code('urn:example:?=a')).toBe('URN_EMPTY_NSS');
    expect(code('urn:example')).toBe('URN_EMPTY_NSS');
    expect(code('urn:example:/a')).toBe('URN_BAD_NSS_START');
  });
});

describe('RFC 8141 section 3: URN-equivalence', () => {
  it('the section 3.2 examples', () => {
    const base = 'urn:example:a123,z456';
    for (const same of [
      'URN:example:a123,z456',
      'urn:EXAMPLE:a123,z456',
      'urn:example:a123,z456?+abc',
      'urn:example:a123,z456?=xyz',
      'urn:example:a123,z456#789',
    ]) {
      expect(urn8141Equivalent(base, same), same).toBe(true);
    }
    for (const different of [
      'urn:example:a123,z456/foo',
      'urn:example:a123,z456/bar',
      'urn:example:a123,z456/baz',
      'urn:example:a123%2Cz456',
      'urn:example:A123,z456',
      'urn:example:%D0%B0123,z456',
    ]) {
      expect(urn8141Equivalent(base, different), different).toBe(false);
    }
    expect(urn8141Equivalent('urn:example:a123%2cz456', 'urn:example:a123%2Cz456')).toBe(true);
    expect(urn8141Equivalent('URN:EXAMPLE:a123%2cz456', 'urn:example:a123%2Cz456')).toBe(true);
  });

  it('invalid input is equivalent to nothing, not even itself', () => {
    expect(urn8141Equivalent('urn:example:a b', 'urn:example:a b')).toBe(false);
    expect(urn8141Equivalent('', '')).toBe(false);
  });

  it('the LEX raw "|" and "%7C" are different RFC 8141 names (digest 11.7)', () => {
    expect(
      urn8141Equivalent(
        'urn:lex:il:state:law:1999-09-02|x;5',
        'urn:lex:il:state:law:1999-09-02%7Cx;5',
      ),
    ).toBe(false);
  });
});
