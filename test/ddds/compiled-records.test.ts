/**
 * Records are compiled once and memoised by their field values (naptr.ts):
 * the memo must never answer for a record whose fields differ. A record
 * object changed between two steps is read again; records that share a
 * REGEXP but differ in another field are compiled apart.
 */
import { describe, expect, it } from 'vitest';
import { dddsStep, type NaptrRecord } from '../../src/ddds/core/step.ts';
import { compileRecord, rewrite } from '../../src/ddds/core/naptr.ts';

const AUS = 'urn:lex:br;sao.paulo:governo:decreto:2008-03-05;52789';

function record(fields: Partial<NaptrRecord>): NaptrRecord {
  return {
    order: 100,
    preference: 10,
    flags: '',
    services: '',
    regexp: '!^urn:lex:br;sao\\.paulo[;:].*$!lex.sao-paulo.gov.br!i',
    replacement: '.',
    ...fields,
  };
}

describe('compiled records follow the fields', () => {
  it('a record changed after a step is read again', () => {
    const r = record({});
    const first = dddsStep({ aus: AUS, key: 'k.', records: [r], service: 'N2L' });
    expect(first.outcome).toMatchObject({ kind: 'next', key: 'lex.sao-paulo.gov.br.' });
    r.regexp = '!^urn:lex:br;minas\\.gerais[;:].*$!lex.mg.gov.br!i';
    const second = dddsStep({ aus: AUS, key: 'k.', records: [r], service: 'N2L' });
    expect(second.outcome).toMatchObject({ kind: 'failure', code: 'DDDS_NO_VALID_OUTPUT' });
    expect(second.considered[0]?.code).toBe('NAPTR_NO_MATCH');
    r.flags = 'x';
    expect(compileRecord(r).flags).toMatchObject({ kind: 'unusable', code: 'NAPTR_FLAG_UNKNOWN' });
    r.flags = '';
    r.regexp = '';
    r.replacement = 'lex.example.';
    expect(rewrite(r, AUS)).toEqual({
      ok: true,
      value: { output: 'lex.example.', via: 'replacement' },
    });
  });

  it('records sharing a REGEXP but not their other fields are compiled apart', () => {
    const plain = record({});
    const terminal = record({
      flags: 'u',
      services: 'http+N2L',
      regexp: '!^(.*)$!http://r.example/?\\1!',
    });
    const unusable = record({ flags: 'u', services: 'ftp+N2L', regexp: terminal.regexp });
    const both = record({ regexp: terminal.regexp, replacement: 'x.example.' });
    expect(compileRecord(plain)).not.toBe(compileRecord(terminal));
    expect(compileRecord(terminal)).not.toBe(compileRecord(unusable));
    expect(rewrite(both, AUS)).toMatchObject({ ok: false, error: { code: 'NAPTR_BOTH_FIELDS' } });
    expect(rewrite(terminal, AUS)).toEqual({
      ok: true,
      value: { output: `http://r.example/?${AUS}`, via: 'regexp' },
    });
    const step = dddsStep({ aus: AUS, key: 'k.', records: [unusable, terminal], service: 'N2L' });
    expect(step.considered.map((f) => f.code)).toEqual(['NAPTR_PROTOCOL_UNKNOWN', 'DDDS_TERMINAL']);
  });

  it('equal records in different objects give equal steps', () => {
    const a = [
      record({}),
      record({
        order: 200,
        flags: 'u',
        services: 'http+N2L',
        regexp: '!^(.*)$!http://r.example/?\\1!',
      }),
    ];
    const b = a.map((r) => ({ ...r }));
    const sa = dddsStep({ aus: AUS, key: 'k.', records: a, service: 'N2L' });
    const sb = dddsStep({ aus: AUS, key: 'k.', records: b, service: 'N2L' });
    expect(sb.outcome.kind).toBe('next');
    expect({ ...sb, outcome: { ...sb.outcome, record: undefined } }).toEqual({
      ...sa,
      outcome: { ...sa.outcome, record: undefined },
    });
    expect(sb.considered.map((f) => f.record)).toEqual(b);
  });
});
