/**
 * `compileEre` compiles the engine program on first use, except when the
 * engine might refuse the expression (`engineCertainlyAccepts` is false): then
 * at once, so the refusal is still an ERE_UNSUPPORTED result of the parse.
 * These tests hold the claim against the engine itself (re2js): wherever the
 * predicate says "certainly", the engine accepts, and the lazy result is the
 * eager one (ok or the same error) on generated expressions, nested intervals
 * and large ones included.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { compileEre, engineCertainlyAccepts, parseEre } from '../../src/ddds/core/ere.ts';
import { applySubstitution, parseSubstitution } from '../../src/ddds/core/subst.ts';

const FLAGS = RE2JS.LONGEST_MATCH | RE2JS.DOTALL;

/** The engine's verdict on a translated expression: undefined when it accepts, else its message. */
function engineRefusal(translated: string, ci: boolean): string | undefined {
  try {
    RE2JS.compile(translated, FLAGS | (ci ? RE2JS.CASE_INSENSITIVE : 0));
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

const atom = fc.constantFrom('a', 'K', 's', '.', '[a-z]', '[^;:]', '[[:alpha:]]', '\\.', 'é', ':');
const quant = fc.constantFrom(
  '',
  '',
  '*',
  '+',
  '?',
  '{2}',
  '{0,3}',
  '{1,}',
  '{10}',
  '{31}',
  '{100}',
  '{255}',
  '{200,255}',
);
const ere: fc.Arbitrary<string> = fc.letrec<{ seq: string; item: string }>((tie) => ({
  item: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 5, arbitrary: fc.tuple(atom, quant).map(([a, q]) => a + q) },
    { weight: 2, arbitrary: fc.tuple(tie('seq'), quant).map(([s, q]) => `(${s})${q}`) },
    {
      weight: 1,
      arbitrary: fc.tuple(tie('seq'), tie('seq'), quant).map(([x, y, q]) => `(${x}|${y})${q}`),
    },
  ),
  seq: fc.array(tie('item'), { minLength: 1, maxLength: 4 }).map((xs) => xs.join('')),
})).seq;

describe('engineCertainlyAccepts holds against the engine', () => {
  it('every generated expression the predicate accepts compiles in the engine', () => {
    let certain = 0;
    let refused = 0;
    fc.assert(
      fc.property(ere, fc.boolean(), (e, ci) => {
        const parsed = parseEre(e);
        if (!parsed.ok) return;
        const refusal = engineRefusal(parsed.value.translated, ci);
        if (refusal !== undefined) refused++;
        if (engineCertainlyAccepts(parsed.value)) {
          certain++;
          expect(refusal, e).toBeUndefined();
        }
      }),
      { numRuns: 1500, seed: 9676 },
    );
    // The generator reaches both sides.
    expect(certain).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(10);
  });

  it('compileEre gives the eager verdict: ok exactly when the engine accepts, same error otherwise', () => {
    fc.assert(
      fc.property(ere, fc.boolean(), (e, ci) => {
        const parsed = parseEre(e);
        const lazy = compileEre(e, { caseInsensitive: ci });
        if (!parsed.ok) {
          expect(lazy).toEqual(parsed);
          return;
        }
        const refusal = engineRefusal(parsed.value.translated, ci);
        if (refusal === undefined) {
          expect(lazy.ok, e).toBe(true);
          if (lazy.ok)
            expect(lazy.value.program.matches('')).toBe(
              RE2JS.compile(
                parsed.value.translated,
                FLAGS | (ci ? RE2JS.CASE_INSENSITIVE : 0),
              ).matches(''),
            );
        } else {
          expect(lazy).toEqual({
            ok: false,
            error: {
              code: 'ERE_UNSUPPORTED',
              message: `the linear-time engine refuses this expression (${refusal})`,
              span: { start: 0, end: e.length },
            },
          });
        }
      }),
      { numRuns: 800, seed: 3402 },
    );
  });

  it('nested intervals over the repeat limit are refused when parsed, with the span of the ERE in the field', () => {
    const r = parseSubstitution('!^((a{10}){10}){11}$!x!');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('ERE_UNSUPPORTED');
    expect(r.error.span).toEqual({ start: 1, end: 20 });
    expect(parseSubstitution('!^((a{10}){10}){10}$!x!').ok).toBe(true);
  });

  it('the LEX routing idioms need no engine check', () => {
    for (const e of [
      '^urn:lex:br;sao\\.paulo;([^:;@$~]+)[;:].*$',
      '^(.*)$',
      '^urn:lex:(br|it)[;:]',
    ]) {
      const parsed = parseEre(e);
      if (!parsed.ok) throw new Error(parsed.error.message);
      expect(engineCertainlyAccepts(parsed.value)).toBe(true);
    }
  });
});

describe('program and fast paths made on first use', () => {
  it('each is made once and kept', () => {
    const c = compileEre('^urn:lex:([a-z]+)[;:]', { caseInsensitive: true });
    if (!c.ok) throw new Error(c.error.message);
    const p = c.value.program;
    expect(c.value.program).toBe(p);
    const f = c.value.fast;
    expect(f).toBeDefined();
    expect(c.value.fast).toBe(f);
    expect(p.matches('URN:LEX:br;x')).toBe(false);
    expect(p.matcher('URN:LEX:br;x').find()).toBe(true);
  });

  it('an expression used before either was made matches as the engine does', () => {
    // Fresh parses: the first apply builds the fast path (ASCII) or compiles (non-ASCII).
    const field = '!^urn:lex:([^;:]+);(.*)$!\\2@\\1!i';
    const ascii = parseSubstitution(field);
    const other = parseSubstitution(field);
    if (!ascii.ok || !other.ok) throw new Error('parse');
    expect(applySubstitution(ascii.value, 'URN:LEX:br;sp')).toEqual({
      matched: true,
      output: 'sp@br',
    });
    expect(applySubstitution(other.value, 'urn:lex:br;são')).toEqual({
      matched: true,
      output: 'são@br',
    });
    expect(applySubstitution(other.value, 'urn:lex:br:x')).toEqual({ matched: false });
  });

  it('an object spread copies the parsed fields but not the lazy getters', () => {
    const c = compileEre('^a$');
    if (!c.ok) throw new Error(c.error.message);
    const copy = { ...c.value };
    expect(copy.translated).toBe('^a$');
    expect('program' in copy).toBe(false);
    expect({ ...c.value, program: c.value.program }.program.matches('a')).toBe(true);
  });
});
