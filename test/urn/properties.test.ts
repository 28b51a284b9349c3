/**
 * Property tests: parse(format(x)) equals x for generated trees, format is the
 * inverse of parse, normalisation is idempotent and keeps equivalence, and no
 * input makes the parser or the key conversion throw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatLexUrn,
  lexUrnEquivalent,
  normalizeLexUrn,
  parseLexUrn,
  parseUrn8141,
  toDnsKey,
  URN_CODES,
  type LexDate,
  type LexNumbers,
  type LexQualified,
  type LexUrn,
  type LexVersionItem,
  type Segment,
} from '../../src/urn/core/index.ts';
import { checkSpans } from './helpers.ts';

const NO_SPAN = { start: 0, end: 0 };
const seg = (text: string): Segment => ({ text, span: NO_SPAN });

const hexCase = (s: string, lower: boolean): string => (lower ? s.toLowerCase() : s);
const pctUtf8 = (ch: string): string =>
  Array.from(
    new TextEncoder().encode(ch),
    (b) => '%' + b.toString(16).toUpperCase().padStart(2, '0'),
  ).join('');

const letter = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ');
const digit = fc.constantFrom(...'0123456789');
/** `encoded`: an ASCII octet or a whole UTF-8 character, hex in either case. */
const encoded = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0x21, max: 0x7e }), fc.boolean())
    .map(([b, l]) => hexCase('%' + b.toString(16).toUpperCase().padStart(2, '0'), l)),
  fc
    .tuple(fc.constantFrom('ü', 'é', 'Ü', 'з', 'Д', 'ß', 'İ', 'ג', '中', '𝔘', 'Σ'), fc.boolean())
    .map(([c, l]) => hexCase(pctUtf8(c), l)),
);
const alfanum = fc.oneof(
  { arbitrary: letter, weight: 6 },
  { arbitrary: digit, weight: 3 },
  { arbitrary: encoded, weight: 1 },
);
const asciiAlnum = fc.oneof(letter, digit);
const word = (rest: fc.Arbitrary<string>, max = 8): fc.Arbitrary<string> =>
  fc.tuple(alfanum, fc.array(rest, { maxLength: max })).map(([a, b]) => a + b.join(''));
const alfDot = word(
  fc.oneof({ arbitrary: alfanum, weight: 5 }, { arbitrary: fc.constant('.'), weight: 1 }),
);
const alfDotHyp = word(
  fc.oneof({ arbitrary: alfanum, weight: 5 }, { arbitrary: fc.constantFrom('.', '-'), weight: 1 }),
);
const alfDotOth = word(
  fc.oneof(
    { arbitrary: alfanum, weight: 5 },
    { arbitrary: fc.constantFrom('.', '-', '_', "'", '=', '(', ')'), weight: 1 },
  ),
);
const code = fc
  .array(
    fc.array(asciiAlnum, { minLength: 1, maxLength: 6 }).map((a) => a.join('')),
    { minLength: 1, maxLength: 3 },
  )
  .map((parts) => parts.join('.'))
  .filter((s) => s.length >= 2);

const qualified = (
  value: fc.Arbitrary<string>,
  spec: fc.Arbitrary<string>,
): fc.Arbitrary<LexQualified> =>
  fc.record({ value, specs: fc.array(spec, { maxLength: 2 }) }).map((r) => ({
    value: seg(r.value),
    specifications: r.specs.map(seg),
    span: NO_SPAN,
  }));

const date: fc.Arbitrary<LexDate> = fc
  .record({
    year: fc.integer({ min: 1000, max: 2999 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    local: fc.option(
      fc.tuple(
        fc.constantFrom('|', '%7C', '%7c'),
        fc.array(fc.oneof(alfanum, fc.constantFrom('.', '-', '_', "'", '=', '(', ')')), {
          maxLength: 6,
        }),
      ),
      { nil: undefined },
    ),
  })
  .map(({ year, month, day, local }) => {
    const iso = `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
    return {
      iso: seg(iso),
      year,
      month,
      day,
      ...(local && { separator: local[0], local: seg(local[1].join('')) }),
      span: NO_SPAN,
    };
  });

const numbers: fc.Arbitrary<LexNumbers> = fc.oneof(
  fc.integer({ min: 0, max: 99999 }).map((n) => ({
    kind: 'lex' as const,
    text: seg(`lex-${n}`),
    digits: String(n),
    span: NO_SPAN,
  })),
  fc
    .array(alfDotOth, { minLength: 1, maxLength: 3 })
    .filter((ids) => !(ids.length === 1 && /^lex-[0-9]+$/i.test(ids[0]!)))
    .map((ids) => ({ kind: 'ids' as const, ids: ids.map(seg), span: NO_SPAN })),
);

const versionItem: fc.Arbitrary<LexVersionItem> = fc.oneof(
  date.map((d) => ({ kind: 'date' as const, date: d, span: NO_SPAN })),
  alfDot.map((t) => ({ kind: 'text' as const, text: seg(t), span: NO_SPAN })),
);

const language = fc
  .tuple(
    fc.array(letter, { minLength: 2, maxLength: 8 }),
    fc.array(fc.array(fc.oneof(letter, digit), { minLength: 1, maxLength: 8 }), { maxLength: 2 }),
  )
  .map(([p, subs]) => [p.join(''), ...subs.map((s) => s.join(''))].join('-'));

const partitionText = fc
  .array(fc.oneof(alfanum, fc.constantFrom('.', '-', '_', ';', ',', ':', '+', "'", '(', ')')), {
    minLength: 1,
    maxLength: 10,
  })
  .map((a) => a.join(''));
const component = fc
  .array(fc.oneof(asciiAlnum, fc.constantFrom('-', '.', '=', '&', '/')), {
    minLength: 1,
    maxLength: 8,
  })
  .map(
    (a) =>
      // must start with a pchar (not "/")
      'x' + a.join(''),
  );
const caseOf = (word: string): fc.Arbitrary<string> =>
  fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((ups) => Array.from(word, (c, i) => (ups[i] ? c.toUpperCase() : c)).join(''));

const lexUrn: fc.Arbitrary<LexUrn> = fc
  .record({
    scheme: caseOf('urn'),
    nid: caseOf('lex'),
    code,
    units: fc.array(alfDot, { maxLength: 2 }),
    issuers: fc.array(fc.record({ name: alfDot, bodies: fc.array(alfDot, { maxLength: 2 }) }), {
      minLength: 1,
      maxLength: 3,
    }),
    measure: qualified(alfDot, alfDot),
    when: fc.oneof(
      fc.array(date, { minLength: 1, maxLength: 3 }).map((dates) => ({ dates })),
      alfDot.map((p) => ({ period: seg(p) })),
    ),
    numbers,
    annexes: fc.array(qualified(alfDot, alfDot), { maxLength: 2 }),
    expression: fc.option(
      fc.record({
        amendment: versionItem,
        events: fc.array(versionItem, { maxLength: 2 }),
        language: fc.option(language, { nil: undefined }),
      }),
      { nil: undefined },
    ),
    manifestation: fc.option(
      fc.record({
        editor: qualified(alfDotHyp, alfDotHyp),
        format: qualified(alfDotHyp, alfDotHyp),
        rest: fc.option(
          fc.tuple(
            qualified(alfDotHyp, alfDotHyp),
            fc.option(qualified(alfDotHyp, alfDotHyp), { nil: undefined }),
          ),
          { nil: undefined },
        ),
      }),
      { nil: undefined },
    ),
    partition: fc.option(partitionText, { nil: undefined }),
    r: fc.option(component, { nil: undefined }),
    q: fc.option(component, { nil: undefined }),
    f: fc.option(fc.oneof(fc.constant(''), component), { nil: undefined }),
  })
  .map((g): LexUrn => {
    const e = g.expression;
    const m = g.manifestation;
    return {
      input: '',
      span: NO_SPAN,
      scheme: seg(g.scheme),
      nid: seg(g.nid),
      jurisdiction: { code: seg(g.code), units: g.units.map(seg), span: NO_SPAN },
      work: {
        authority: {
          issuers: g.issuers.map((i) => ({
            name: seg(i.name),
            bodyFunctions: i.bodies.map(seg),
            span: NO_SPAN,
          })),
          span: NO_SPAN,
        },
        measure: g.measure,
        details: { ...g.when, numbers: g.numbers, span: NO_SPAN },
        annexes: g.annexes,
        span: NO_SPAN,
      },
      ...(e && {
        expression: {
          version: { amendment: e.amendment, events: e.events, span: NO_SPAN },
          ...(e.language !== undefined && { language: seg(e.language) }),
          span: NO_SPAN,
        },
      }),
      ...(m && {
        manifestation: {
          editor: m.editor,
          format: m.format,
          ...(m.rest && { component: m.rest[0] }),
          ...(m.rest?.[1] && { feature: m.rest[1] }),
          span: NO_SPAN,
        },
      }),
      ...(g.partition !== undefined && { partition: seg(g.partition) }),
      ...(g.r !== undefined && { rComponent: seg(g.r) }),
      ...(g.q !== undefined && { qComponent: seg(g.q) }),
      ...(g.f !== undefined && { fComponent: seg(g.f) }),
    };
  });

/** The tree without positions (spans and the input text). */
function withoutSpans(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(withoutSpans);
  if (x && typeof x === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x))
      if (k !== 'span' && k !== 'input') out[k] = withoutSpans(v);
    return out;
  }
  return x;
}

const RUNS = { numRuns: 1000 };

describe('URN properties', () => {
  it('parse(format(x)) equals x, with consistent spans', () => {
    fc.assert(
      fc.property(lexUrn, (x) => {
        const text = formatLexUrn(x);
        const r = parseLexUrn(text);
        if (!r.ok) throw new Error(`${text}: ${JSON.stringify(r.errors)}`);
        expect(withoutSpans(r.value)).toEqual(withoutSpans(x));
        expect(r.value.input).toBe(text);
        checkSpans(r.value);
        expect(formatLexUrn(r.value)).toBe(text);
      }),
      RUNS,
    );
  });

  it('every generated LEX URN is also an RFC 8141 URN once "|" is written %7C', () => {
    fc.assert(
      fc.property(lexUrn, (x) => {
        const n = normalizeLexUrn(formatLexUrn(x));
        expect(n.ok).toBe(true);
        if (n.ok) expect(parseUrn8141(n.canonical).ok).toBe(true);
      }),
      RUNS,
    );
  });

  it('normalisation is idempotent and keeps equivalence', () => {
    fc.assert(
      fc.property(lexUrn, (x) => {
        const text = formatLexUrn(x);
        const once = normalizeLexUrn(text);
        if (!once.ok) throw new Error(JSON.stringify(once.errors));
        const twice = normalizeLexUrn(once.canonical);
        if (!twice.ok) throw new Error(JSON.stringify(twice.errors));
        expect(twice.canonical).toBe(once.canonical);
        expect(twice.changes).toEqual([]);
        expect(lexUrnEquivalent(text, once.canonical)).toBe(true);
        if (once.canonical === text) expect(once.changes).toEqual([]);
        else expect(once.changes.length).toBeGreaterThan(0);
      }),
      RUNS,
    );
  });

  it('changing the case of the name never changes the canonical form', () => {
    fc.assert(
      fc.property(lexUrn, fc.boolean(), (x, upper) => {
        const plain = {
          ...x,
          partition: undefined,
          rComponent: undefined,
          qComponent: undefined,
          fComponent: undefined,
        };
        const text = formatLexUrn(plain);
        const flipped = upper ? text.toUpperCase() : text.toLowerCase();
        const a = normalizeLexUrn(text);
        const b = normalizeLexUrn(flipped);
        if (!a.ok || !b.ok) throw new Error(`${text} / ${flipped}`);
        expect(b.canonical).toBe(a.canonical);
        expect(lexUrnEquivalent(text, flipped)).toBe(true);
      }),
      RUNS,
    );
  });

  it('any string: parse and key conversion return values, never throw', () => {
    const codes = Object.keys(URN_CODES);
    const alphabet = fc.constantFrom(
      ..."urnlex:;@$+,|~?#=%/!*&.-_()'aZ09 üÜ\u0000\u200d".split(''),
      '%C3%BC',
      '%2E',
      'urn:lex:',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(alphabet, { maxLength: 40 }).map((a) => a.join('')),
        ),
        (s) => {
          for (const r of [parseLexUrn(s), parseUrn8141(s), normalizeLexUrn(s)]) {
            if (!r.ok) {
              expect(r.errors).toHaveLength(1);
              const e = r.errors[0]!;
              expect(codes).toContain(e.code);
              expect(e.span.start).toBeGreaterThanOrEqual(0);
              expect(e.span.end).toBeLessThanOrEqual(s.length);
            }
          }
          const k = toDnsKey(s);
          if (!k.ok) {
            expect(codes).toContain(k.error.code);
            expect(k.error.span.end).toBeLessThanOrEqual(s.length);
          } else {
            expect(k.value.endsWith('.')).toBe(true);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('any prefix of a valid URN parses or fails with a code (no crash on truncation)', () => {
    fc.assert(
      fc.property(lexUrn, fc.nat(), (x, cut) => {
        const text = formatLexUrn(x);
        const r = parseLexUrn(text.slice(0, cut % (text.length + 1)));
        expect(r.ok || r.errors.length === 1).toBe(true);
      }),
      RUNS,
    );
  });
});
