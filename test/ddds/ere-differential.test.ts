/**
 * Differential property: the ERE translation decides "is there a match" exactly
 * like an independent JavaScript RegExp written for the same language. Match
 * existence does not depend on leftmost-longest versus leftmost-first, so the
 * two engines must agree on every generated pattern and input. Patterns are
 * built in pairs (POSIX ERE text, JS text) from one grammar; inputs are short,
 * so the backtracking reference stays cheap.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileEre } from '../../src/ddds/core/ere.ts';

type Pair = { ere: string; js: string };

const atoms: Pair[] = [
  { ere: 'a', js: 'a' },
  { ere: 'b', js: 'b' },
  { ere: '.', js: '.' },
  { ere: '\\.', js: '\\.' },
  { ere: '\\*', js: '\\*' },
  { ere: '[ab]', js: '[ab]' },
  { ere: '[^a]', js: '[^a]' },
  { ere: '[a-c]', js: '[a-c]' },
  { ere: '[[:digit:]]', js: '[0-9]' },
  { ere: '[^\\.]', js: '[^\\\\.]' }, // POSIX: backslash is literal inside brackets
  { ere: '[]a]', js: '[\\]a]' },
  { ere: '[a-]', js: '[a\\-]' },
  { ere: 'é', js: 'é' },
  { ere: '{', js: '\\{' },
];

const pair: fc.Arbitrary<Pair> = fc.letrec<{ expr: Pair; branch: Pair; piece: Pair; atom: Pair }>(
  (tie) => ({
    atom: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 5, arbitrary: fc.constantFrom(...atoms) },
      {
        weight: 1,
        arbitrary: tie('expr').map((e) => ({ ere: `(${e.ere})`, js: `(${e.js})` })),
      },
    ),
    piece: fc
      .tuple(tie('atom'), fc.constantFrom('', '', '*', '+', '?', '{1,2}', '{2}'))
      .map(([a, q]) => ({ ere: a.ere + q, js: a.js + q })),
    branch: fc
      .array(tie('piece'), { minLength: 1, maxLength: 3 })
      .map((ps) => ({ ere: ps.map((p) => p.ere).join(''), js: ps.map((p) => p.js).join('') })),
    expr: fc
      .array(tie('branch'), { minLength: 1, maxLength: 2 })
      .map((bs) => ({ ere: bs.map((b) => b.ere).join('|'), js: bs.map((b) => b.js).join('|') })),
  }),
).expr;

const input = fc.string({
  unit: fc.constantFrom('a', 'b', 'c', '.', '*', '\\', '1', '\n', ']', '-', 'é', '{'),
  maxLength: 8,
});

describe('ERE translation agrees with an independent RegExp on match existence', () => {
  it('search and anchored match', () => {
    fc.assert(
      fc.property(
        pair,
        fc.array(input, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (p, inputs, anchored) => {
          const ere = anchored ? `^(${p.ere})$` : p.ere;
          const js = anchored ? `^(?:${p.js})$` : p.js;
          const compiled = compileEre(ere);
          if (!compiled.ok)
            throw new Error(`${ere}: ${compiled.error.code} ${compiled.error.message}`);
          const reference = new RegExp(js, 'su');
          for (const s of inputs) {
            expect(compiled.value.program.test(s), `${ere} on ${JSON.stringify(s)}`).toBe(
              reference.test(s),
            );
          }
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('case-insensitive search', () => {
    fc.assert(
      fc.property(pair, input, (p, s) => {
        const compiled = compileEre(p.ere, { caseInsensitive: true });
        if (!compiled.ok) throw new Error(compiled.error.message);
        const upper = s.toUpperCase();
        expect(compiled.value.program.test(upper)).toBe(new RegExp(p.js, 'sui').test(upper));
      }),
      { numRuns: 500 },
    );
  });
});
