/**
 * Substitution templates (`substitutionTemplate`): fields that differ only in
 * runs of plain literal characters share a template, and then
 * `parseSubstitution` gives both the same verdict and group count. The NAPTR
 * lint relies on it (`SubstitutionChecker`) to read the ERE of a known
 * template only once. The claim is tested on generated pairs of fields built
 * from one skeleton with different literal runs, and the checker is compared
 * with `parseSubstitution` on generated sequences of fields.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  parseSubstitution,
  SUBST_MAX_OCTETS,
  substitutionTemplate,
  SubstitutionChecker,
  type SubstCheck,
} from '../../src/ddds/core/subst.ts';

const SAFE = [...'abcxyzKS019_:;@~=,%&-'];
const DELIMS = ['!', '/', '#', '.', '|', 'x', '(', '*', 'a', '1', 'i', '\\', ':', '+', '$', 'é'];

/** Tokens of a skeleton; `RUN` is filled with a run of plain characters. */
const RUN = '\u0002RUN';
const ERE_TOKENS = [
  RUN,
  RUN,
  RUN,
  '^',
  '$',
  '.',
  '*',
  '+',
  '?',
  '(',
  ')',
  '|',
  '[',
  ']',
  '[^',
  '[;:]',
  '[a-z]',
  '[z-a]',
  '[[:alpha:]]',
  '[:',
  '{',
  '{2}',
  '}',
  '\\.',
  '\\d',
  '\\1',
  '\\a',
  '\\',
  'é',
  '\u212a',
  '\ud83d\ude00',
  '\u0000',
  'D', // stands for the delimiter
  '\\D', // escaped delimiter
  // Runs where the characters matter: the template must keep them.
  `[${RUN}-${RUN}]`,
  `[^${RUN}]`,
  `[[:${RUN}:]]`,
  `[[.${RUN}.]]`,
  `${RUN}{${RUN}}`,
  `${RUN}{${RUN},${RUN}}`,
  `\\${RUN}`,
  `(?${RUN})`,
];
const REPL_TOKENS = [
  RUN,
  RUN,
  '\\1',
  '\\2',
  '\\0',
  '\\9',
  '.',
  'http:',
  '\\\\',
  '\\D',
  'D',
  '\\x',
  'é',
  `\\${RUN}`,
];
const FLAG_TOKENS = ['', '', 'i', 'ii', 'x', 'D', RUN];

const skeleton = fc.record({
  delim: fc.constantFrom(...DELIMS),
  ere: fc.array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(RUN) },
      { weight: 4, arbitrary: fc.constantFrom(...ERE_TOKENS) },
    ),
    { maxLength: 10 },
  ),
  repl: fc.array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(RUN) },
      { weight: 2, arbitrary: fc.constantFrom(...REPL_TOKENS) },
    ),
    { maxLength: 6 },
  ),
  flags: fc.constantFrom(...FLAG_TOKENS),
});

type Skeleton = { delim: string; ere: string[]; repl: string[]; flags: string };

/** A field from a skeleton, runs filled from `fill` (lengths and characters). */
function fieldOf(s: Skeleton, fill: number[]): string {
  let k = 0;
  const run = (): string => {
    const len = 1 + ((fill[k++ % fill.length] ?? 0) % 4);
    let out = '';
    for (let i = 0; i < len; i++) {
      const c = SAFE[(fill[k++ % fill.length] ?? 0) % SAFE.length] as string;
      out += c === s.delim ? 'q' : c;
    }
    return out;
  };
  const tok = (t: string): string =>
    t === 'D' ? s.delim : t === '\\D' ? `\\${s.delim}` : t.replaceAll(RUN, run);
  return `${s.delim}${s.ere.map(tok).join('')}${s.delim}${s.repl.map(tok).join('')}${s.delim}${tok(s.flags)}`;
}

function octets(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** parseSubstitution projected onto what the checker returns. */
function expected(field: string): SubstCheck {
  const p = parseSubstitution(field);
  if (!p.ok) return p;
  return {
    ok: true,
    ere: p.value.ere.source,
    repl: p.value.repl,
    caseInsensitive: p.value.caseInsensitive,
  };
}

describe('substitution templates', () => {
  it('fields of one template get the same verdict and group count (fast-check)', () => {
    let shared = 0;
    let sharedValid = 0;
    fc.assert(
      fc.property(
        skeleton,
        fc.array(fc.nat(1000), { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(1000), { minLength: 1, maxLength: 30 }),
        (s, fa, fb) => {
          const a = fieldOf(s, fa);
          const b = fieldOf(s, fb);
          const ta = substitutionTemplate(a);
          if (ta === undefined || ta !== substitutionTemplate(b)) return;
          if (octets(a) > SUBST_MAX_OCTETS || octets(b) > SUBST_MAX_OCTETS) return;
          shared++;
          const pa = parseSubstitution(a);
          const pb = parseSubstitution(b);
          expect(pb.ok, `${JSON.stringify(a)} / ${JSON.stringify(b)}`).toBe(pa.ok);
          if (pa.ok && pb.ok) {
            sharedValid++;
            expect(pb.value.ere.groupCount).toBe(pa.value.ere.groupCount);
          }
        },
      ),
      { numRuns: 8000, seed: 3402 },
    );
    expect(shared).toBeGreaterThan(1000);
    expect(sharedValid).toBeGreaterThan(200);
  });

  it('the checker agrees with parseSubstitution on sequences that reuse templates', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            skeleton,
            fc.array(fc.array(fc.nat(1000), { minLength: 1, maxLength: 20 }), {
              minLength: 1,
              maxLength: 4,
            }),
          ),
          { minLength: 1, maxLength: 20 },
        ),
        fc.integer({ min: 1, max: 8 }),
        (groups, limit) => {
          const checker = new SubstitutionChecker(limit);
          for (const [s, fills] of groups) {
            for (const fill of fills) {
              const field = fieldOf(s, fill);
              expect(checker.check(field), JSON.stringify(field)).toEqual(expected(field));
            }
          }
        },
      ),
      { numRuns: 400, seed: 9676 },
    );
  });

  it('the LEX routing rules of one shape share a template; other parts keep theirs', () => {
    const t = substitutionTemplate(
      '!^urn:lex:br;sao\\.paulo;([^:;@$~]+)[;:].*$!\\1.sao-paulo.br.lex.example!i',
    );
    expect(t).toBe(
      substitutionTemplate(
        '!^urn:lex:it;roma\\.lazio;([^:;@$~]+)[;:].*$!\\1.roma-lazio.it.lex.example!i',
      ),
    );
    expect(t).toBe('!^\u0001\\.\u0001([^:;@$~]+)[;:].*$!\\1.\u0001.\u0001.\u0001.\u0001!i');
    // Brackets, escapes, back-references and flags are kept.
    expect(substitutionTemplate('!^[a-z]b!x!')).not.toBe(substitutionTemplate('!^[z-a]b!x!'));
    expect(substitutionTemplate('!^a\\d!x!')).not.toBe(substitutionTemplate('!^a\\a!x!'));
    expect(substitutionTemplate('!^(a)!\\1!')).not.toBe(substitutionTemplate('!^(a)!\\2!'));
    expect(substitutionTemplate('!^a!b!i')).not.toBe(substitutionTemplate('!^a!b!x'));
    // The delimiter is never part of a run.
    expect(substitutionTemplate('a^bab!a')).toBe('a^\u0001a\u0001!a');
    // No template: intervals, the placeholder itself.
    expect(substitutionTemplate('!^a{2}!x!')).toBeUndefined();
    expect(substitutionTemplate('!^\u0001!x!')).toBeUndefined();
    expect(substitutionTemplate('')).toBeUndefined();
  });

  it('a field of a known template that is too long is still refused', () => {
    const checker = new SubstitutionChecker();
    expect(checker.check('!^urn:lex:ab[;:]!x!').ok).toBe(true);
    const long = `!^urn:lex:${'a'.repeat(250)}[;:]!x!`;
    expect(substitutionTemplate(long)).toBe(substitutionTemplate('!^urn:lex:ab[;:]!x!'));
    expect(checker.check(long)).toEqual(expected(long));
    expect(checker.check(long).ok).toBe(false);
  });
});
