import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  canonicalService,
  checkServices,
  isAbsoluteUri,
  parseFlags,
  parseServices,
  protocolInfo,
} from '../../src/ddds/core/naptr.ts';

describe('FLAGS (RFC 3403 4.1, RFC 3404 4.3)', () => {
  const table: [string, string][] = [
    ['', 'non-terminal'],
    ['u', 'U'],
    ['U', 'U'],
    ['s', 'S'],
    ['a', 'A'],
    ['p', 'P'],
    ['SU', 'NAPTR_FLAG_MULTIPLE'],
    ['uu', 'NAPTR_FLAG_MULTIPLE'],
    ['Z', 'NAPTR_FLAG_UNKNOWN'],
    ['5', 'NAPTR_FLAG_UNKNOWN'],
    ['u5', 'NAPTR_FLAG_UNKNOWN'],
    ['u ', 'NAPTR_FLAG_INVALID'],
    ['é', 'NAPTR_FLAG_INVALID'],
  ];
  for (const [flags, want] of table) {
    it(`${JSON.stringify(flags)} -> ${want}`, () => {
      const r = parseFlags(flags);
      const got = r.kind === 'non-terminal' ? r.kind : r.kind === 'flag' ? r.flag : r.code;
      expect(got).toBe(want);
    });
  }
});

describe('SERVICES (RFC 3404 4.4 ABNF)', () => {
  const ok: [string, string | undefined, string[]][] = [
    ['', undefined, []],
    ['http+N2L+N2C', 'http', ['N2L', 'N2C']],
    ['thttp', 'thttp', []],
    ['+N2L', undefined, ['N2L']],
    ['E2U+sip', 'E2U', ['sip']],
    [`a${'b'.repeat(31)}+N2L`, `a${'b'.repeat(31)}`, ['N2L']],
  ];
  for (const [field, protocol, services] of ok) {
    it(`parses ${JSON.stringify(field)}`, () => {
      expect(parseServices(field)).toEqual({ ok: true, value: { protocol, services } });
    });
  }
  const bad = [
    'WP:ldap',
    'E2U+email:mailto',
    `a${'b'.repeat(32)}`,
    'http+',
    'http++N2L',
    '1http',
    'http+2L',
    'http N2L',
  ];
  for (const field of bad) {
    it(`rejects ${JSON.stringify(field)}`, () => {
      expect(parseServices(field)).toMatchObject({
        ok: false,
        error: { code: 'NAPTR_SERVICES_SYNTAX' },
      });
    });
  }

  it('N2x and I2x are synonyms, case-insensitive (decisions 5)', () => {
    expect(canonicalService('I2L')).toBe(canonicalService('n2l'));
    expect(canonicalService('I2Ls')).toBe(canonicalService('N2LS'));
    expect(canonicalService('N2C')).not.toBe(canonicalService('N2L'));
  });

  it('protocols: thttp and http are HTTP, https is HTTPS; nothing else', () => {
    expect(protocolInfo('THTTP')).toEqual({ scheme: 'http', defaultPort: 80 });
    expect(protocolInfo('http')).toEqual({ scheme: 'http', defaultPort: 80 });
    expect(protocolInfo('HTTPS')).toEqual({ scheme: 'https', defaultPort: 443 });
    expect(protocolInfo('ftp')).toBeUndefined();
    expect(protocolInfo(undefined)).toBeUndefined();
  });

  it('checkServices: S and A need a protocol we speak, U does not, P needs one', () => {
    const svc = (s: string) => parseServices(s);
    expect(checkServices(parseFlags('s'), svc(''), 'N2L')).toMatchObject({
      usable: false,
      code: 'NAPTR_PROTOCOL_MISSING',
    });
    expect(checkServices(parseFlags('a'), svc('rcds+N2L'), 'N2L')).toMatchObject({
      usable: false,
      code: 'NAPTR_PROTOCOL_UNKNOWN',
    });
    expect(checkServices(parseFlags('u'), svc(''), 'N2L').usable).toBe(true);
    expect(checkServices(parseFlags('p'), svc('+N2L'), 'N2L')).toMatchObject({
      usable: false,
      code: 'NAPTR_PROTOCOL_MISSING',
    });
    expect(checkServices(parseFlags(''), svc(''), 'N2C').usable).toBe(true);
    expect(checkServices(parseFlags('u'), svc('http+N2C'), 'N2L')).toMatchObject({
      usable: false,
      code: 'NAPTR_SERVICE_UNWANTED',
    });
  });

  it('property: every field built from the ABNF parses back to its parts', () => {
    const token = fc
      .tuple(
        fc.constantFrom(...'abcXYZ'.split('')),
        fc.string({ unit: fc.constantFrom(...'aZ09'.split('')), maxLength: 31 }),
      )
      .map(([a, b]) => a + b);
    fc.assert(
      fc.property(
        fc.option(token, { nil: undefined }),
        fc.array(token, { maxLength: 4 }),
        (p, rs) => {
          const field = (p ?? '') + rs.map((r) => `+${r}`).join('');
          expect(parseServices(field)).toEqual({ ok: true, value: { protocol: p, services: rs } });
        },
      ),
    );
  });
});

describe('absolute URI check for U output (RFC 3404 4.3, RFC 3986 4.3)', () => {
  const table: [string, boolean][] = [
    ['https://r.example/uri-res/N2L?urn:lex:br:x;1~art1', true],
    ['http://x/a%2Fb', true],
    ['mailto:info@example.com', true],
    ['sip:+441632960083@example.com', true],
    ['urn:lex:br:x', true],
    ['www.example.com', false],
    ['1http://x', false],
    ['http://x/#frag', false],
    ['http://x/a b', false],
    ['http://x/%zz', false],
    ['http://x/é', false],
    [':x', false],
  ];
  for (const [uri, want] of table) {
    it(`${uri} -> ${want}`, () => expect(isAbsoluteUri(uri)).toBe(want));
  }
});
