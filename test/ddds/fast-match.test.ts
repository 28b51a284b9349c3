/**
 * The engine-free paths of fast-match.ts must give exactly the engine's
 * answer (match or not, and every sub-match) wherever they answer at all.
 * The linear-time engine (re2js, longest-match mode) is the reference: each
 * property runs both and compares. Patterns come from a grammar of the shapes
 * the fast paths handle, plus constructs that must make them stand aside
 * (alternation, quantified groups, overlapping repetitions, unanchored).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileEre, type EreNode } from '../../src/ddds/core/ere.ts';
import { asciiSetOf, fastMatch, isAscii, prefixRejects } from '../../src/ddds/core/fast-match.ts';
import { applySubstitution, parseSubstitution, type SubstExpr } from '../../src/ddds/core/subst.ts';

/** The same expression with the fast paths removed: the engine alone. */
function engineOnly(expr: SubstExpr): SubstExpr {
  // `program` and `fast` are getters on the prototype: copy the program by name.
  return { ...expr, ere: { ...expr.ere, program: expr.ere.program, fast: undefined } };
}

const ONE_CHAR_ATOMS = [
  'a',
  'b',
  'k',
  's',
  'K',
  'S',
  ':',
  ';',
  '.',
  '\\.',
  '[;:]',
  '[^;:]',
  '[a-k]',
  '[A-K]',
  '[[:upper:]]',
  '[[:alpha:]]',
  '[[:punct:]]',
  '[^[:digit:]]',
  '[^a]',
  '[^k]',
  '[^S]',
  '[\u212a]', // KELVIN SIGN: folds with k/K
  '[\u017f]', // LONG S: folds with s/S
  '[^\u212a]',
  '\u212a',
  '\u017f',
  '\u0130', // capital I with dot: not in i's simple fold orbit
  '[\u00e9-\u0180]',
  'é',
  '[[:space:]]',
  '[^[:alnum:]]',
];

describe('one-character sets agree with the engine on every ASCII character', () => {
  for (const atom of ONE_CHAR_ATOMS) {
    for (const ci of [false, true]) {
      it(`${atom}${ci ? ' (i)' : ''}`, () => {
        const compiled = compileEre(`^${atom}$`, { caseInsensitive: ci });
        if (!compiled.ok) throw new Error(compiled.error.message);
        const node = compiled.value.ast.branches[0]?.[1] as EreNode;
        const set = asciiSetOf(node, ci);
        expect(set).toBeDefined();
        const got: number[] = [];
        const want: number[] = [];
        for (let c = 0; c < 128; c++) {
          if (set?.[c] === 1) got.push(c);
          if (compiled.value.program.matches(String.fromCharCode(c))) want.push(c);
        }
        expect(got).toEqual(want);
      });
    }
  }
});

const piece = fc
  .tuple(
    fc.constantFrom(...ONE_CHAR_ATOMS),
    fc.constantFrom('', '', '*', '*', '+', '?', '?', '{0,2}', '{2}', '{1,}', '{0}'),
  )
  .map(([a, q]) => a + q);

const body: fc.Arbitrary<string> = fc.letrec<{ seq: string; item: string }>((tie) => ({
  item: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 6, arbitrary: piece },
    { weight: 2, arbitrary: tie('seq').map((s) => `(${s})`) },
    // Shapes the plan does not take: the engine must answer.
    { weight: 1, arbitrary: fc.tuple(tie('seq'), tie('seq')).map(([x, y]) => `(${x}|${y})`) },
    { weight: 1, arbitrary: tie('seq').map((s) => `(${s})*`) },
    { weight: 1, arbitrary: fc.constant('()') },
  ),
  seq: fc.array(tie('item'), { minLength: 1, maxLength: 3 }).map((xs) => xs.join('')),
})).seq;

const pattern = fc
  .tuple(fc.constantFrom('^', '^', '^', '', '^^'), body, fc.constantFrom('', '$', '$'))
  .map(([a, b, z]) => a + b + z);

const input = fc.string({
  unit: fc.oneof(
    {
      weight: 12,
      arbitrary: fc.constantFrom('a', 'b', 'k', 's', 'K', 'S', 'A', ':', ';', '.', '1', ' ', 'z'),
    },
    // Non-ASCII: the engine answers (after the prefix test).
    { weight: 1, arbitrary: fc.constantFrom('\u212a', '\u017f', 'é') },
  ),
  maxLength: 10,
});

/** Group references for every group of the pattern, so every sub-match reaches the output. */
function replFor(groupCount: number): string {
  let repl = '<';
  for (let g = 1; g <= Math.min(groupCount, 9); g++) repl += `\\${g}|`;
  return `${repl}>`;
}

describe('fast paths agree with the engine (fast-check)', () => {
  it('sub-matches and no-match decisions on generated anchored patterns', () => {
    let decided = 0;
    let matched = 0;
    let planned = 0;
    fc.assert(
      fc.property(
        pattern,
        fc.boolean(),
        fc.array(input, { minLength: 1, maxLength: 8 }),
        (ere, ci, inputs) => {
          const compiled = compileEre(ere, { caseInsensitive: ci });
          fc.pre(compiled.ok);
          if (!compiled.ok) return;
          const { fast, program, groupCount } = compiled.value;
          if (fast?.plan !== undefined) planned++;
          for (const s of inputs) {
            if (fast === undefined) break;
            const m = program.matcher(s);
            const found = m.find();
            if (!isAscii(s)) {
              if (prefixRejects(fast, s))
                expect(found, `${ere} on ${JSON.stringify(s)}`).toBe(false);
              continue;
            }
            const r = fastMatch(fast, s);
            if (r === undefined) continue;
            decided++;
            if (r === false) {
              expect(found, `${ere} on ${JSON.stringify(s)}: fast path says no match`).toBe(false);
              continue;
            }
            expect(found, `${ere} on ${JSON.stringify(s)}: fast path says match`).toBe(true);
            matched++;
            for (let g = 0; g <= groupCount; g++) {
              expect(
                s.slice(r[2 * g], r[2 * g + 1]),
                `${ere}${ci ? ' (i)' : ''} group ${g} on ${JSON.stringify(s)}`,
              ).toBe(m.group(g));
            }
          }
        },
      ),
      { numRuns: Number(process.env.FAST_MATCH_RUNS ?? 3000) },
    );
    // The property is not vacuous: the fast paths decided many inputs and planned many patterns.
    expect(decided).toBeGreaterThan(2000);
    expect(matched).toBeGreaterThan(300);
    expect(planned).toBeGreaterThan(500);
  });

  it('applySubstitution gives the same result with and without the fast paths', () => {
    fc.assert(
      fc.property(
        pattern,
        fc.boolean(),
        fc.array(input, { minLength: 1, maxLength: 8 }),
        (ere, ci, inputs) => {
          const compiled = compileEre(ere, { caseInsensitive: ci });
          fc.pre(compiled.ok);
          if (!compiled.ok) return;
          const parsed = parseSubstitution(
            `!${ere}!${replFor(compiled.value.groupCount)}!${ci ? 'i' : ''}`,
          );
          // A generated pattern may exceed the 255-octet <character-string>.
          fc.pre(parsed.ok || parsed.error.code !== 'SUBST_TOO_LONG');
          if (!parsed.ok) throw new Error(`${ere}: ${parsed.error.message}`);
          const reference = engineOnly(parsed.value);
          for (const s of [...inputs, `${inputs[0] ?? ''}\uD800`]) {
            expect(applySubstitution(parsed.value, s), `${ere} on ${JSON.stringify(s)}`).toEqual(
              applySubstitution(reference, s),
            );
          }
        },
      ),
      { numRuns: Number(process.env.FAST_MATCH_RUNS ?? 2000) },
    );
  });
});

describe('LEX routing patterns take the engine-free path', () => {
  const AUS = 'urn:lex:br;sao.paulo:governo:decreto:2008-03-05;52789';
  const CASES: { field: string; plan: boolean; out: string | undefined }[] = [
    {
      field: '!^urn:lex:br;sao\\.paulo[;:].*$!lex.sao-paulo.gov.br!i',
      plan: true,
      out: 'lex.sao-paulo.gov.br',
    },
    { field: '!^urn:lex:br[;:].*$!lex.senado.gov.br!i', plan: true, out: 'lex.senado.gov.br' },
    { field: '!^urn:lex:it[;:].*$!lex.normattiva.it!i', plan: true, out: undefined },
    {
      field: '!^(.*)$!https://r.example/uri-res/N2L?\\1!',
      plan: true,
      out: `https://r.example/uri-res/N2L?${AUS}`,
    },
    { field: '!^urn:lex:([^;:]+)[;:].*$!\\1.lex.example!i', plan: true, out: 'br.lex.example' },
    {
      field: '!^urn:lex:br;([^:;@$~]+)[;:].*$!\\1.lex.senado.gov.br!i',
      plan: true,
      out: 'sao.paulo.lex.senado.gov.br',
    },
    // `.+` can take the '@': not deterministic, the engine answers after the prefix check.
    { field: '!^urn:cid:.+@([^\\.]+\\.)(.*)$!\\2!i', plan: false, out: undefined },
  ];
  for (const c of CASES) {
    it(c.field, () => {
      const parsed = parseSubstitution(c.field);
      if (!parsed.ok) throw new Error(parsed.error.message);
      expect(parsed.value.ere.fast?.plan !== undefined).toBe(c.plan);
      if (!c.plan) expect(parsed.value.ere.fast?.prefix.length).toBe('urn:cid:'.length);
      const want = c.out === undefined ? { matched: false } : { matched: true, output: c.out };
      expect(applySubstitution(parsed.value, AUS)).toEqual(want);
      expect(applySubstitution(engineOnly(parsed.value), AUS)).toEqual(want);
    });
  }

  it('the fast path is linear: a long hostile input is one forward scan', () => {
    const parsed = parseSubstitution('!^[a-z]*[;:](.*)$!\\1!');
    if (!parsed.ok) throw new Error(parsed.error.message);
    expect(parsed.value.ere.fast?.plan).toBeDefined();
    const long = `${'a'.repeat(200_000)}!`;
    expect(applySubstitution(parsed.value, long)).toEqual({ matched: false });
    expect(applySubstitution(parsed.value, `${'a'.repeat(200_000)}:x`)).toEqual({
      matched: true,
      output: 'x',
    });
  });
});
