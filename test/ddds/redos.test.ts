/**
 * ReDoS: NAPTR REGEXP fields are untrusted (RFC 3403 section 10, RFC 3404
 * section 8). The classic catastrophic-backtracking patterns must run in time
 * linear in the input. Linearity is asserted structurally: the engine reads
 * the input through a counting proxy, and doubling the input must (at most)
 * double the number of reads. A backtracking engine re-reads the input
 * exponentially often on these patterns. The test timeout is a sanity net only.
 */
import { describe, expect, it } from 'vitest';
import { MatcherInput } from 're2js';
import { applySubstitution, parseSubstitution } from '../../src/ddds/core/subst.ts';

/** Number of input reads the compiled program makes for one search. */
function inputReads(field: string, input: string): { reads: number; found: boolean } {
  const parsed = parseSubstitution(field);
  if (!parsed.ok) throw new Error(`${field}: ${parsed.error.message}`);
  const bytes = [...new TextEncoder().encode(input)];
  let reads = 0;
  const counting = new Proxy(bytes, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  const m = parsed.value.ere.program.matcher(MatcherInput.utf8(counting));
  const found = m.find();
  return { reads, found };
}

const CLASSICS: { field: string; input: (n: number) => string }[] = [
  { field: '!^(a+)+$!x!', input: (n) => `${'a'.repeat(n)}b` },
  { field: '!(a+)+$!x!', input: (n) => `${'a'.repeat(n)}b` },
  { field: '!^(a|a)*$!x!', input: (n) => `${'a'.repeat(n)}b` },
  { field: '!^(a|aa)+$!x!', input: (n) => `${'a'.repeat(n)}b` },
  { field: '!^(a*)*$!x!', input: (n) => `${'a'.repeat(n)}b` },
  { field: '!^(.*a){12}$!x!', input: (n) => 'a'.repeat(n) + 'b' },
  { field: '!^(x+x+)+y$!x!', input: (n) => 'x'.repeat(n) },
  { field: '!^(([a-z])+.)+[A-Z]([a-z])+$!x!i', input: (n) => `${'aa'.repeat(n / 2)}!` },
  {
    // A LEX-shaped hostile rule: nested repetition over the jurisdiction part.
    field: '!^urn:lex:(([a-z.]+)+;?)+:.*X$!\\1!',
    input: (n) => `urn:lex:${'br.'.repeat(n / 3)};`,
  },
];

describe('ReDoS: catastrophic-backtracking classics run in linear time', () => {
  for (const c of CLASSICS) {
    it(`${c.field}: input reads grow linearly when the input doubles`, () => {
      const small = inputReads(c.field, c.input(2_000));
      const large = inputReads(c.field, c.input(4_000));
      const huge = inputReads(c.field, c.input(8_000));
      expect(small.found).toBe(false);
      expect(large.found).toBe(false);
      // Linear: doubling the input (about) doubles the reads; exponential growth would square them.
      expect(large.reads / small.reads).toBeLessThan(2.1);
      expect(huge.reads / large.reads).toBeLessThan(2.1);
      // And the reads per input character are bounded by a constant (the program's size).
      expect(huge.reads / c.input(8_000).length).toBeLessThan(32);
    });
  }

  it("'!^(a+)+$!x!' against 50,000 'a' followed by 'b' completes with no match", () => {
    const parsed = parseSubstitution('!^(a+)+$!x!');
    if (!parsed.ok) throw new Error(parsed.error.message);
    const input = `${'a'.repeat(50_000)}b`;
    expect(applySubstitution(parsed.value, input)).toEqual({ matched: false });
    // The same expression still matches where it should (not a vacuous "no").
    expect(applySubstitution(parsed.value, 'a'.repeat(50_000))).toEqual({
      matched: true,
      output: 'x',
    });
  }, 20_000);

  it('every classic against a 50,000-character input gives an answer through applySubstitution', () => {
    for (const c of CLASSICS) {
      const parsed = parseSubstitution(c.field);
      if (!parsed.ok) throw new Error(parsed.error.message);
      const r = applySubstitution(parsed.value, c.input(50_000));
      expect(r.matched, c.field).toBe(false);
      expect(r.error, c.field).toBeUndefined();
    }
  }, 60_000);
});
