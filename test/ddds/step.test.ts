import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dddsStep, type NaptrRecord, type StepOutcome } from '../../src/ddds/core/step.ts';

type Row = [number, number, string, string, string, string];
interface Vector {
  id: string;
  ref: string;
  aus: string;
  service: string;
  key: string;
  records: Row[];
  expect: Partial<Record<string, unknown>> & { kind: StepOutcome['kind'] };
  fates?: Record<string, string>;
  note?: string;
  requires?: 'idna';
}

const file = JSON.parse(
  readFileSync(new URL('../vectors/ddds/step.json', import.meta.url), 'utf8'),
) as { vectors: Vector[] };

export function toRecord(row: Row): NaptrRecord {
  const [order, preference, flags, services, regexp, replacement] = row;
  return { order, preference, flags, services, regexp, replacement };
}

describe('DDDS step vectors (digest section 15)', () => {
  it('has vectors', () => expect(file.vectors.length).toBeGreaterThan(60));
  for (const v of file.vectors) {
    it(`${v.id} (${v.ref})`, () => {
      const records = v.records.map(toRecord);
      const result = dddsStep({ aus: v.aus, key: v.key, records, service: v.service });
      const { outcome } = result;
      expect(outcome.kind, JSON.stringify(outcome)).toBe(v.expect.kind);
      for (const [field, value] of Object.entries(v.expect)) {
        expect((outcome as Record<string, unknown>)[field], field).toEqual(value);
      }
      if (outcome.kind !== 'failure') {
        expect(outcome.record).toEqual(records.find((r) => r === outcome.record));
      } else {
        expect(outcome.message).toContain(v.key);
      }
      // Every record carries a fate with a reason.
      expect(result.considered).toHaveLength(records.length);
      for (const f of result.considered) {
        expect(f.reason.length).toBeGreaterThan(5);
        expect(f.record).toBe(records[f.index]);
      }
      if (v.fates) {
        const got = Object.fromEntries(
          result.considered.map((f) => [String(f.index), `${f.fate}:${f.code}`]),
        );
        expect(got).toEqual(v.fates);
      }
    });
  }
});

describe('step properties', () => {
  const row = fc.record({
    order: fc.integer({ min: 0, max: 3 }),
    preference: fc.integer({ min: 0, max: 3 }),
    flags: fc.constantFrom('', 'u', 'U', 's', 'a', 'p', 'Z', 'SU'),
    services: fc.constantFrom('', 'http+N2L', 'thttp+I2L', 'http+N2C', 'ftp+N2L', 'x:y'),
    regexp: fc.constantFrom('', '!^(.*)$!https://a.example/\\1!', '!^nomatch!x!', '!bad'),
    replacement: fc.constantFrom('.', 'n.example.'),
  });

  it('never throws; exactly one record is used unless the outcome is a failure; the used record has the smallest (order, preference) among matching candidates of its order', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 8 }), (records) => {
        const r = dddsStep({ aus: 'urn:lex:br:x', key: 'k.', records, service: 'N2L' });
        const used = r.considered.filter((f) => f.fate === 'used');
        expect(r.considered).toHaveLength(records.length);
        if (r.outcome.kind === 'failure') {
          expect(used).toHaveLength(0);
          return;
        }
        expect(used).toHaveLength(1);
        const u = used[0];
        if (u === undefined) return;
        // Nothing with a lower (order, preference) was reached after it.
        for (const f of r.considered) {
          if (f.code === 'DDDS_NOT_REACHED') {
            const a = f.record;
            const b = u.record;
            expect(a.order > b.order || (a.order === b.order && a.preference >= b.preference)).toBe(
              true,
            );
          }
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('sort is stable: among identical (order, preference) the first in response order wins', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 6 }), fc.integer({ min: 0, max: 5 }), (n, pick) => {
        const records: NaptrRecord[] = Array.from({ length: n }, (_, i) => ({
          order: 10,
          preference: 10,
          flags: 'u',
          services: 'http+N2L',
          regexp: `!^(.*)$!https://r${i}.example/\\1!`,
          replacement: '.',
        }));
        // Put lower-ORDER non-matching noise in front and behind.
        const noise: NaptrRecord = { ...records[0]!, order: 5, regexp: '!^zzz!x!' };
        const all = [noise, ...records.slice(pick % n), ...records.slice(0, pick % n)];
        const r = dddsStep({ aus: 'urn:lex:x:y', key: 'k.', records: all, service: 'N2L' });
        expect(r.outcome.kind).toBe('terminal');
        if (r.outcome.kind === 'terminal') expect(r.outcome.record).toBe(all[1]);
      }),
      { numRuns: 200 },
    );
  });
});
