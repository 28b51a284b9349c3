import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  applySubstitution,
  formatSubstitution,
  parseSubstitution,
  type SubstErrorCode,
} from '../../src/ddds/core/subst.ts';
import { parseEre, quoteEre } from '../../src/ddds/core/ere.ts';

interface Vector {
  id: string;
  ref: string;
  regexp: string;
  note?: string;
  cases?: ({ input: string; output: string } | { input: string; match: false })[];
  error?: { code: string; span?: [number, number] };
}

const file = JSON.parse(
  readFileSync(new URL('../vectors/ddds/subst.json', import.meta.url), 'utf8'),
) as { vectors: Vector[] };

const CODES: readonly SubstErrorCode[] = [
  'SUBST_EMPTY',
  'SUBST_TOO_LONG',
  'SUBST_BAD_DELIMITER',
  'SUBST_DELIMITER_COUNT',
  'SUBST_BAD_FLAG',
  'SUBST_BACKREF_ZERO',
  'SUBST_BACKREF_RANGE',
  'SUBST_NUL',
  'ERE_SYNTAX',
  'ERE_UNSUPPORTED',
  'ERE_INTERVAL_LIMIT',
  'ERE_EMPTY',
];

describe('RFC 3402 section 3.2 substitution vectors', () => {
  it('has vectors', () => expect(file.vectors.length).toBeGreaterThan(80));
  for (const v of file.vectors) {
    it(`${v.id} (${v.ref}): ${v.regexp}`, () => {
      const parsed = parseSubstitution(v.regexp);
      if (v.error) {
        expect(parsed.ok).toBe(false);
        if (parsed.ok) return;
        expect(parsed.error.code).toBe(v.error.code);
        expect(parsed.error.message.length).toBeGreaterThan(10);
        if (v.error.span) {
          expect([parsed.error.span.start, parsed.error.span.end]).toEqual(v.error.span);
        }
        return;
      }
      if (!parsed.ok) throw new Error(`${parsed.error.code}: ${parsed.error.message}`);
      expect(v.cases?.length).toBeGreaterThan(0);
      for (const c of v.cases ?? []) {
        const r = applySubstitution(parsed.value, c.input);
        if ('output' in c) expect(r, c.input).toEqual({ matched: true, output: c.output });
        else expect(r, c.input).toEqual({ matched: false });
      }
    });
  }
});

describe('substitution structure', () => {
  it('exposes the parts, group count and the RE2 translation', () => {
    const r = parseSubstitution('!^urn:lex:([^;:]+)[;:].*$!\\1.lex.example!i');
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.delimiter).toBe('!');
    expect(r.value.caseInsensitive).toBe(true);
    expect(r.value.ere.groupCount).toBe(1);
    expect(r.value.ere.source).toBe('^urn:lex:([^;:]+)[;:].*$');
    expect(r.value.ere.translated).toBe('^urn\\:lex\\:([^\\;\\:]+)[\\;\\:].*$');
    expect(r.value.repl).toEqual([
      { kind: 'backref', group: 1, span: { start: 26, end: 28 } },
      { kind: 'text', text: '.lex.example' },
    ]);
    expect(r.value.ereSpan).toEqual({ start: 1, end: 25 });
    expect(r.value.maxBackref).toBe(1);
  });

  it('maps ERE error positions back into the field across escaped delimiters', () => {
    // '\/' collapses to '/', so the ERE is shorter than the field; \d sits at field offset 6.
    const r = parseSubstitution('/a\\/b\\/\\d/x/');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('ERE_UNSUPPORTED');
    expect(r.error.span).toEqual({ start: 7, end: 9 });
  });

  it('rejects a trailing backslash in a bare ERE', () => {
    const r = parseEre('ab\\');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: 'ERE_SYNTAX', span: { start: 2, end: 3 } });
  });

  it('an unpaired surrogate in the input is an error value, not a throw', () => {
    const r = parseSubstitution('!^(.*)$!\\1!');
    if (!r.ok) throw new Error(r.error.message);
    const out = applySubstitution(r.value, 'a\uD800b');
    expect(out.matched).toBe(false);
    expect(out.error?.code).toBe('SUBST_BAD_INPUT');
  });

  it('the RFC 3402 section 3.2 example groups, from the external vector file', () => {
    // (also in the external file; checked here through the back-references)
    const r = parseSubstitution('!(A(B(C)DE)(F)G)!\\4\\3\\2\\1!');
    if (!r.ok) throw new Error(r.error.message);
    expect(applySubstitution(r.value, 'ABCDEFG')).toEqual({
      matched: true,
      output: 'FCBCDEABCDEFG',
    });
  });
});

describe('properties', () => {
  const delimiters = fc.constantFrom('!', '/', '#', '%', '|', '.', '+', ',', 'x', '@', '~');
  // Text without a backslash (a backslash before a digit has no RFC 3402 spelling).
  const text = fc.string({ unit: 'grapheme', maxLength: 30 }).filter((s) => !s.includes('\\'));

  it('quoteEre + formatSubstitution round-trip: a quoted literal matches itself and outputs the replacement', () => {
    fc.assert(
      fc.property(delimiters, text, text, fc.boolean(), (d, s, t, i) => {
        const ereText = `^${quoteEre(s)}$`;
        const built = formatSubstitution({
          delimiter: d,
          ere: ereText,
          repl: t === '' ? [] : [{ kind: 'text', text: t }],
          caseInsensitive: i,
        });
        if (!built.ok) {
          // Only length can make this fail.
          expect(built.error.code).toBe('SUBST_TOO_LONG');
          return;
        }
        const parsed = parseSubstitution(built.value);
        if (!parsed.ok) throw new Error(`${built.value}: ${parsed.error.message}`);
        expect(applySubstitution(parsed.value, s)).toEqual({ matched: true, output: t });
        expect(applySubstitution(parsed.value, `${s}x`)).toEqual({ matched: false });
      }),
      { numRuns: 400 },
    );
  });

  it('back-references copy the captured text, whatever the delimiter', () => {
    fc.assert(
      fc.property(delimiters, text, text, text, (d, a, b, lit) => {
        const built = formatSubstitution({
          delimiter: d,
          ere: `^(${quoteEre(a)})(${quoteEre(b)})$`,
          repl: [
            { kind: 'backref', group: 2, span: { start: 0, end: 0 } },
            { kind: 'text', text: `${lit}` === '' ? '-' : `-${lit}` },
            { kind: 'backref', group: 1, span: { start: 0, end: 0 } },
          ],
        });
        if (!built.ok) return;
        const parsed = parseSubstitution(built.value);
        if (!parsed.ok) throw new Error(parsed.error.message);
        expect(applySubstitution(parsed.value, a + b)).toEqual({
          matched: true,
          output: `${b}${lit === '' ? '-' : `-${lit}`}${a}`,
        });
      }),
      { numRuns: 300 },
    );
  });

  it('parse never throws: any field gives an expression or a documented error inside the field', () => {
    const alphabet = fc.constantFrom(
      ...'!/\\()[]{}|*+?^$.:-0123456789aibdw,=~ é😀'.split(''),
      '\\1',
      '\\0',
      '[:',
      ':]',
      '(?',
    );
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 40 }).map((a) => a.join('')),
        fc.string(),
        (field, input) => {
          const r = parseSubstitution(field);
          if (r.ok) {
            const out = applySubstitution(r.value, input);
            if (out.matched) expect(typeof out.output).toBe('string');
          } else {
            expect(CODES).toContain(r.error.code);
            expect(r.error.span.start).toBeGreaterThanOrEqual(0);
            expect(r.error.span.end).toBeLessThanOrEqual(field.length);
            expect(r.error.span.start).toBeLessThanOrEqual(r.error.span.end);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
