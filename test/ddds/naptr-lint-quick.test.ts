/**
 * The NAPTR lint's quick reading (src/ddds/core/lint/quick.ts): a record it
 * calls clean has nothing to report, and the lint over a zone's store (the
 * server's load) reports what it reports over the records (`zone check`).
 * - property, a fresh quick reading: on generated records, each after a twin
 *   of the same template whose literals differ where the template hides them
 *   (`urn:lex:`, a scheme), every record called clean has no finding read in
 *   full, every one called malformed only NAPTR_MALFORMED (and many are
 *   called clean: the reading is exercised); again on jurisdiction patterns;
 * - property, the lint (shared memos) equals the lint that reads every
 *   record in full;
 * - rules that differ only in their literals are read quickly once one was
 *   read in full;
 * - a loaded zone with findings: the same findings from its store's rows.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ResourceRecord } from '../../src/dns/core/zone/model.ts';
import { lintNaptrRecords, lintNaptrRows } from '../../src/ddds/core/lint/naptr-lint.ts';
import { recordRows, storeRows } from '../../src/ddds/core/lint/rows.ts';
import { CLEAN, LOOK, MALFORMED, QuickCheck } from '../../src/ddds/core/lint/quick.ts';
import { parseSubstitution } from '../../src/ddds/core/subst.ts';
import { lintDelegationCuts } from '../../src/ddds/core/lint/cuts.ts';
import { loadZoneText } from '../../src/authority/zones/load.ts';
import { StoreZone } from '../../src/dns/core/zone/views.ts';

const enc = new TextEncoder();

function charString(s: string | Uint8Array): number[] {
  const b = typeof s === 'string' ? [...enc.encode(s)] : [...s];
  return [b.length, ...b];
}

function rdata(
  flags: string,
  services: string,
  regexp: string | Uint8Array,
  next: string,
): Uint8Array {
  const name =
    next === '.'
      ? [0]
      : [
          ...next
            .replace(/\.$/, '')
            .split('.')
            .flatMap((l) => charString(l)),
          0,
        ];
  return new Uint8Array([
    0,
    100,
    0,
    10,
    ...charString(flags),
    ...charString(services),
    ...charString(regexp),
    ...name,
  ]);
}

const DELIMS = ['!', '/', '#', '+', ':', '^', 'a', '.', '|', '\\', '1', 'é'];
const ERE_PARTS = [
  '^',
  'urn:lex:',
  'URN:Lex:',
  'br',
  ';sp',
  '\\.',
  '.',
  '(.*)',
  '([a-z]+)',
  '[;:]',
  '$',
  '{2}',
  '\\!',
  '\\\\',
  'é',
  '\u0001',
  '\0',
  'x',
];
const REPL_PARTS = [
  'http:',
  'https://x.example/',
  '\\1',
  '\\2',
  '\\0',
  'x',
  '1abc:',
  'a+b.c-d:',
  'a_b:',
  '\\!',
  '\\/',
  'é',
  'lex.example',
];

/** Fields of few shapes, mostly valid: literals that differ, what the template hides. */
const shaped = fc
  .tuple(
    fc.constantFrom('!', '!', '!', '!', '/', '#', ':', '+', '.', 'a'),
    fc.constantFrom('^', '^', ''),
    fc.constantFrom('', 'urn:lex:', 'URN:LEX:', 'urn:lex', 'urn\\:lex\\:', '\\u\\r\\n:lex:'),
    fc.array(
      fc.constantFrom(
        'br',
        'it',
        'z9',
        '.',
        '\\.',
        '(.*)',
        '([a-z]+)',
        '[;:]',
        '.*',
        ';sp',
        'x+',
        'a{2}',
        'a{300}',
        'a:b',
      ),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
    fc.constantFrom('$', ''),
    fc.constantFrom(
      'http://x.example/\\1',
      'https://r.example/',
      'H1+.-:x',
      '1abc:x',
      'a_b:c',
      'lex.example',
      '\\1.lex.example',
      '',
      'x\\!y:',
      'http\\/:x',
      'http\\:x',
      'é:x',
      'ab',
    ),
    fc.constantFrom('', 'i'),
  )
  .map(
    ([d, a, lex, atoms, end, repl, flags]) =>
      `${d}${a}${lex}${atoms.join('')}${end}${d}${repl}${d}${flags}`,
  );

const regexp = fc.oneof(
  shaped,
  shaped,
  fc
    .tuple(
      fc.constantFrom(...DELIMS),
      fc.array(fc.constantFrom(...ERE_PARTS), { maxLength: 6 }),
      fc.array(fc.constantFrom(...REPL_PARTS), { maxLength: 4 }),
      fc.constantFrom('', 'i', 'ii', 'x', '!'),
    )
    .map(([d, ere, repl, flags]) => `${d}${ere.join('')}${d}${repl.join('')}${d}${flags}`),
  fc.constantFrom('', '!^(.*)$!https://r.example/\\1!', '!^urn:lex:br[;:].*$!lex.example!i'),
);

interface Spec {
  owner: string;
  flags: string;
  services: string;
  regexp: string;
  next: string;
  bad: number;
}

const spec: fc.Arbitrary<Spec> = fc.record({
  owner: fc.constantFrom('a.example.', 'b.example.', 'c.example.'),
  flags: fc.constantFrom('', '', '', 'u', 'u', 'U', 's', 'a', 'p', 'x', 'us', 'é'),
  services: fc.constantFrom('', '', 'http+N2L', 'http+N2L', 'E2U+sip', '+x', 'http'),
  regexp,
  next: fc.constantFrom('.', '.', '.', 'next.example.'),
  bad: fc.integer({ min: 0, max: 40 }),
});

function record(s: Spec, line: number): ResourceRecord {
  let data = rdata(s.flags, s.services, s.regexp, s.next);
  if (s.bad === 0) data = new Uint8Array([0, 1, 0, 2, 0]);
  if (s.bad === 1)
    data = rdata(s.flags, s.services, new Uint8Array([0x21, 0xc3, 0x28, 0x21, 0x78, 0x21]), s.next);
  if (s.bad === 2) data = data.subarray(0, data.length - 1);
  if (s.bad === 4) data = new Uint8Array([...data, 0]);
  return {
    owner: s.owner,
    type: 35,
    class: 1,
    ttl: 300,
    rdata: data,
    source: { file: 'g.zone', line, column: 1 },
  };
}

/**
 * The same field with other literals where the template hides them: a
 * pattern that starts "qqq:qqq:" where it started "urn:lex:", a replacement
 * that starts with a scheme where it started with a digit.
 */
function twin(s: Spec): Spec {
  return { ...s, regexp: s.regexp.replace(/urn:lex:/gi, 'qqq:qqq:').replace('1abc:', 'qabc:') };
}

/**
 * A fresh quick reading over `specs` in order (each after its twin), with
 * what the lint records in it (templates of REGEXP fields valid and
 * anchored): a record it calls clean has no finding when read in full, one it
 * calls malformed only NAPTR_MALFORMED. Returns how many it called clean.
 */
function quickAgreesWithFull(specs: readonly Spec[]): number {
  const q = new QuickCheck();
  let clean = 0;
  specs
    .flatMap((s) => [twin(s), s])
    .forEach((s, i) => {
      const rr = record(s, i + 1);
      const full = lintNaptrRows(recordRows([rr]), { quick: false }).map((d) => d.code);
      const verdict = rr.rdata.length < 8 ? MALFORMED : q.check(rr.rdata, 0, rr.rdata.length);
      if (verdict === CLEAN) {
        clean++;
        expect([s.regexp, full]).toEqual([s.regexp, []]);
      }
      if (verdict === MALFORMED) expect(full).toEqual(['NAPTR_MALFORMED']);
      const parsed = parseSubstitution(s.regexp);
      if (parsed.ok && parsed.value.ere.source.startsWith('^')) q.validAnchoredText(s.regexp);
    });
  return clean;
}

describe('the quick reading reports what the full reading reports', () => {
  it('a fresh quick reading on generated records (fast-check)', () => {
    let clean = 0;
    fc.assert(
      fc.property(fc.array(spec, { maxLength: 20 }), (specs) => {
        clean += quickAgreesWithFull(specs);
      }),
      { numRuns: 1000, seed: 3404 },
    );
    expect(clean).toBeGreaterThan(500);
  });

  it('on generated records (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(spec, { maxLength: 20 }), (specs) => {
        // Each record after its twin: the twin's template is known when the record is read.
        const records = specs.flatMap((s, i) => [record(twin(s), 2 * i + 1), record(s, 2 * i + 2)]);
        lintNaptrRecords(records);
        const quick = lintNaptrRecords(records);
        expect(quick).toEqual(lintNaptrRows(recordRows(records), { quick: false }));
      }),
      { numRuns: 1500, seed: 3402 },
    );
  });

  it('on generated jurisdiction patterns (fast-check)', () => {
    const code = fc.array(
      fc.constantFrom(
        'br',
        'x',
        '9',
        '.',
        '\\.',
        ';',
        ';sp',
        '[;:]',
        '(.*)',
        '.*',
        'x+',
        '$',
        '-',
        '%C3',
      ),
      { minLength: 1, maxLength: 4 },
    );
    const field = fc
      .tuple(fc.constantFrom('^', ''), fc.constantFrom('urn:lex:', 'URN:Lex:'), code)
      .map(([a, lex, c]) => `!${a}${lex}${c.join('')}!lex.example!`);
    let clean = 0;
    fc.assert(
      fc.property(fc.array(field, { minLength: 1, maxLength: 10 }), (fields) => {
        clean += quickAgreesWithFull(
          fields.map((regexp) => ({
            owner: 'a.',
            flags: '',
            services: '',
            regexp,
            next: '.',
            bad: 3,
          })),
        );
      }),
      { numRuns: 300, seed: 8 },
    );
    expect(clean).toBeGreaterThan(100);
  });

  it('rules that differ in literals only are read quickly once one was read in full', () => {
    const q = new QuickCheck();
    const rule = (k: number, scheme = 'http') =>
      rdata('u', 'http+N2L', `!^(.*)$!${scheme}://r${k}.example/N2L?\\1!`, '.');
    const first = rule(1);
    expect(q.check(first, 0, first.length)).toBe(LOOK);
    q.validAnchoredText('!^(.*)$!http://r1.example/N2L?\\1!');
    for (let k = 2; k < 50; k++) {
      const r = rule(k);
      expect(q.check(r, 0, r.length)).toBe(CLEAN);
    }
    // A jurisdiction pattern is read on its text: bounded, clean; unbounded, read in full.
    q.validAnchoredText('!^urn:lex:br;([a-z]+)[;:].*$!\\1.example!');
    const bounded = rdata('', '', '!^urn:lex:it;([a-z]+)[;:].*$!\\1.example!', '.');
    expect(q.check(bounded, 0, bounded.length)).toBe(CLEAN);
    // What the template hides: a scheme that is not one, an unbounded jurisdiction.
    const noScheme = rule(3, '1http');
    expect(q.check(noScheme, 0, noScheme.length)).toBe(LOOK);
    q.validAnchoredText('!^urn:lex:br.*$!y.example!');
    const lex = rdata('', '', '!^urn:lex:it.*$!x.example!', '.');
    expect(q.check(lex, 0, lex.length)).toBe(LOOK);
    expect(
      lintNaptrRecords([{ owner: 'x.', type: 35, class: 1, ttl: 1, rdata: lex }]).map(
        (d) => d.code,
      ),
    ).toEqual(['NAPTR_JURISDICTION_UNBOUNDED']);
  });
});

describe("a loaded zone's store", () => {
  it('gives the findings of its records', () => {
    const lines = [
      '$ORIGIN lex.example.',
      '$TTL 300',
      '@ SOA ns hostmaster 1 3600 600 86400 300',
      '@ NS ns',
      'ns A 192.0.2.1',
      'a NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://a.example/\\\\1!" .',
      'a NAPTR 100 20 "u" "http+N2L" "!^(.*)$!http://b.example/\\\\1!" .',
      'b NAPTR 100 10 "" "" "!urn:lex:br.*$!x.lex.example!" .',
      'c NAPTR 100 10 "" "" "!^urn:lex:it;([a-z]+)[;:].*$!\\\\1.sub.lex.example!i" .',
      'd NAPTR 100 10 "" "" "" sub.lex.example.',
      'a NAPTR 100 30 "u" "http+N2L" "!^(.*)$!http://c.example/\\\\1!" .',
      'e NAPTR 100 10 "s" "" "" e.lex.example.',
      'other.example. NAPTR 100 10 "u" "x" "!^(.*)$!\\\\1!" .',
    ];
    for (let k = 0; k < 200; k++)
      lines.push(`j${k} NAPTR 100 10 "u" "http+N2L" "!^(.*)$!https://r${k}.example/\\\\1!" .`);
    const r = loadZoneText(lines.join('\n') + '\n', 'lex.example.zone', {});
    expect(r.zone).toBeInstanceOf(StoreZone);
    const zone = r.zone as StoreZone;
    const fromRecords = lintNaptrRecords(r.naptr);
    expect(fromRecords.map((d) => d.code).sort()).toEqual([
      'NAPTR_JURISDICTION_UNBOUNDED',
      'NAPTR_PREFERENCE_AS_ORDER',
      'NAPTR_PREFERENCE_AS_ORDER',
      'NAPTR_PREFERENCE_AS_ORDER',
      'NAPTR_TERMINAL_NO_PROTOCOL',
      'NAPTR_UNANCHORED',
    ]);
    expect(lintNaptrRows(storeRows(zone.store))).toEqual(fromRecords);
    const cuts = lintDelegationCuts(zone, storeRows(zone.store));
    expect(cuts.map((d) => [d.code, d.position?.line])).toEqual([
      ['NAPTR_DELEGATION_NO_CUT', 8],
      ['NAPTR_DELEGATION_NO_CUT', 10],
    ]);
    expect(lintDelegationCuts(zone, recordRows(r.naptr))).toEqual(cuts);
  });
});
