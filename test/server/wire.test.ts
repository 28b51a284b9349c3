/**
 * The pure hot-path pieces: name keys (RFC 1035 section 5.1 escapes, RFC
 * 4343 case) and the header/question/OPT parser.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  keyIsSubdomain,
  keyParent,
  keyToName,
  nameKey,
  nameToWire,
  NameError,
} from '../../src/dns/core/wire/name.ts';
import {
  newParsedQuery,
  parseQuery,
  PARSE_DROP,
  PARSE_FORMERR,
  PARSE_NOTIMP,
  PARSE_OK,
} from '../../src/dns/core/wire/query.ts';
import { buildQuery } from './harness.ts';

describe('name keys', () => {
  it.each([
    ['.', [0]],
    ['a.b.', [1, 97, 1, 98, 0]],
    ['A.b', [1, 65, 1, 98, 0]],
    ['a\\.b.c.', [3, 97, 46, 98, 1, 99, 0]],
    ['a\\046b.c.', [3, 97, 46, 98, 1, 99, 0]],
    ['\\000.x.', [1, 0, 1, 120, 0]],
    ['_http._tcp.x.', [5, 95, 104, 116, 116, 112, 4, 95, 116, 99, 112, 1, 120, 0]],
  ])('%s -> wire', (name, wire) => {
    expect([...nameToWire(name)]).toEqual(wire);
  });
  it.each([
    ['a..b.', 'EMPTY_LABEL'],
    [`${'x'.repeat(64)}.`, 'LABEL_TOO_LONG'],
    [`${'abcdefghi.'.repeat(26)}`, 'NAME_TOO_LONG'],
    ['a\\25.', 'BAD_ESCAPE'],
    ['a\\256.', 'BAD_ESCAPE'],
  ])('%s is rejected with %s', (name, code) => {
    expect(() => nameToWire(name)).toThrow(NameError);
    try {
      nameToWire(name);
    } catch (e) {
      expect((e as NameError).code).toBe(code);
    }
  });
  it('keys are case-insensitive for ASCII letters only (RFC 4343)', () => {
    expect(nameKey('WWW.Example.')).toBe(nameKey('www.example.'));
    expect(nameKey('\\195.x.')).not.toBe(nameKey('\\227.x.'));
  });
  it('keyToName round-trips through nameKey (property)', () => {
    const label = fc.uint8Array({ minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(fc.array(label, { minLength: 0, maxLength: 5 }), (labels) => {
        const wire = [...labels.flatMap((l) => [l.length, ...l]), 0];
        const key = String.fromCharCode(...wire.map((c) => (c >= 65 && c <= 90 ? c | 32 : c)));
        expect(nameKey(keyToName(key))).toBe(key);
      }),
      { numRuns: 500 },
    );
  });
  it('subdomain and parent on label boundaries', () => {
    const k = nameKey('a.bc.d.');
    expect(keyIsSubdomain(k, nameKey('bc.d.'))).toBe(true);
    expect(keyIsSubdomain(k, nameKey('c.d.'))).toBe(false);
    expect(keyIsSubdomain(k, nameKey('.'))).toBe(true);
    expect(keyParent(k)).toBe(nameKey('bc.d.'));
    expect(keyParent(nameKey('.'))).toBeUndefined();
  });
});

describe('parseQuery', () => {
  const q = newParsedQuery();
  it('reads header, question and OPT', () => {
    const m = buildQuery('Lex.Urn.Arpa', 'NAPTR', {
      id: 0xabcd,
      edns: { udpSize: 4096, do: true },
    });
    expect(parseQuery(m, m.length, q)).toBe(PARSE_OK);
    expect(q).toMatchObject({
      id: 0xabcd,
      opcode: 0,
      qtype: 35,
      qclass: 1,
      edns: true,
      udpSize: 4096,
      dnssecOk: true,
      ednsVersion: 0,
    });
    expect(q.qnameEnd).toBe(12 + 14);
    expect(q.questionEnd).toBe(12 + 14 + 4);
  });
  it.each([
    ['short', Buffer.alloc(11), PARSE_DROP, ''],
    ['a response', Buffer.from([0, 1, 0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0]), PARSE_DROP, ''],
    [
      'no question',
      Buffer.from([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
      PARSE_FORMERR,
      'NO_QUESTION',
    ],
    [
      'two questions',
      Buffer.from([0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1]),
      PARSE_FORMERR,
      'MULTIPLE_QUESTIONS',
    ],
    [
      'truncated question',
      Buffer.from([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 3, 97]),
      PARSE_FORMERR,
      'QUESTION_TRUNCATED',
    ],
    [
      'pointer in question',
      Buffer.from([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1]),
      PARSE_FORMERR,
      'QUESTION_BAD_LABEL',
    ],
    [
      'opcode 2',
      Buffer.from([0, 1, 0x10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1]),
      PARSE_NOTIMP,
      '',
    ],
  ])('%s', (_label, msg, status, error) => {
    expect(parseQuery(msg, msg.length, q)).toBe(status);
    expect(q.error).toBe(error);
  });
  it('a name over 255 octets is FORMERR', () => {
    const labels = Array.from({ length: 5 }, () => [63, ...Array(63).fill(97)]).flat();
    const m = Buffer.from([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, ...labels, 0, 0, 1, 0, 1]);
    expect(parseQuery(m, m.length, q)).toBe(PARSE_FORMERR);
    expect(q.error).toBe('QUESTION_NAME_TOO_LONG');
  });
});
