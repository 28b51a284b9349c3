/**
 * Invalid inputs across all grammar rules (test/vectors/urn/invalid.json):
 * each is rejected with the expected stable code at the expected offset.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  parseLexUrn,
  parseUrn8141,
  URN_CODES,
  type UrnDiagnostic,
} from '../../src/urn/core/index.ts';

interface Case {
  rule: string;
  input: string;
  code: keyof typeof URN_CODES;
  start: number;
  end?: number;
  layer?: '8141';
}

const { cases } = JSON.parse(
  readFileSync(new URL('../vectors/urn/invalid.json', import.meta.url), 'utf8'),
) as { cases: Case[] };

function errorsOf(c: Case): readonly UrnDiagnostic[] {
  const r = c.layer === '8141' ? parseUrn8141(c.input) : parseLexUrn(c.input);
  if (r.ok) expect.fail(`${JSON.stringify(c.input)} (${c.rule}) was accepted`);
  return r.errors;
}

describe('invalid URN vectors', () => {
  it('has at least 40 distinct inputs and every expected code is a documented code', () => {
    expect(new Set(cases.map((c) => c.input)).size).toBe(cases.length);
    expect(cases.length).toBeGreaterThanOrEqual(40);
    for (const c of cases) expect(Object.keys(URN_CODES)).toContain(c.code);
  });

  for (const c of cases) {
    it(`${c.rule}: ${JSON.stringify(c.input)} -> ${c.code} at ${c.start}`, () => {
      const [e] = errorsOf(c);
      expect(e).toBeDefined();
      expect({ code: e!.code, start: e!.span.start }).toEqual({ code: c.code, start: c.start });
      if (c.end !== undefined) expect(e!.span.end).toBe(c.end);
      expect(e!.severity).toBe('error');
      expect(e!.message.length).toBeGreaterThan(10);
      expect(e!.span.end).toBeGreaterThanOrEqual(e!.span.start);
      expect(e!.span.end).toBeLessThanOrEqual(c.input.length);
    });
  }

  it('every documented code is produced somewhere in src/urn/core, and documented once', () => {
    const dir = new URL('../../src/urn/core/', import.meta.url);
    const sources = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && f !== 'codes.ts')
      .map((f) => readFileSync(new URL(f, dir), 'utf8'))
      .join('\n');
    for (const code of Object.keys(URN_CODES)) expect(sources, code).toContain(`'${code}'`);
  });

  it('very long input is handled in one linear pass (no backtracking)', () => {
    const long = 'urn:lex:it:' + 'a.'.repeat(500_000) + 'b';
    const r = parseLexUrn(long);
    expect(r.ok ? 'OK' : r.errors[0]!.code).toBe('LEX_MISSING_MEASURE');
    const longOk = parseLexUrn(`urn:lex:it:stato:legge:2000-01-01;${'1,'.repeat(200_000)}2`);
    expect(
      longOk.ok &&
        longOk.value.work.details.numbers.kind === 'ids' &&
        longOk.value.work.details.numbers.ids.length,
    ).toBe(200_001);
  });

  it('the section 3.6 example message: month 13', () => {
    const r = parseLexUrn('urn:lex:it:stato:legge:2003-13-21;456');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]!.message).toBe('month 13 does not exist');
  });
});
