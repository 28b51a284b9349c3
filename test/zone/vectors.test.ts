import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseZoneText } from '../../src/dns/core/zone/parser.ts';

interface VectorRecord {
  owner: string;
  type: number;
  ttl: number;
  class: number;
  rdata: string;
}
interface Vector {
  name: string;
  zone: string;
  origin?: string;
  defaultTtl?: number;
  records?: VectorRecord[];
  errors?: { code: string; line: number; column: number; token?: string }[];
}

const vectors = JSON.parse(
  readFileSync(new URL('../vectors/zonefile/syntax.json', import.meta.url), 'utf8'),
) as Vector[];

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('zone-file syntax vectors (test/vectors/zonefile/syntax.json)', () => {
  it('has vectors', () => expect(vectors.length).toBeGreaterThan(50));
  for (const v of vectors) {
    it(v.name, () => {
      const r = parseZoneText(v.zone, {
        file: 'v.zone',
        ...(v.origin ? { origin: v.origin } : {}),
        ...(v.defaultTtl !== undefined ? { defaultTtl: v.defaultTtl } : {}),
      });
      const errors = r.diagnostics.filter((d) => d.severity === 'error');
      if (v.errors) {
        expect(
          errors.map((d) => ({
            code: d.code,
            line: d.position?.line,
            column: d.position?.column,
          })),
        ).toEqual(v.errors.map((e) => ({ code: e.code, line: e.line, column: e.column })));
        for (const [i, e] of v.errors.entries()) {
          if (e.token !== undefined) expect(errors[i]!.token).toBe(e.token);
          expect(errors[i]!.position?.file).toBe('v.zone');
          expect(errors[i]!.message.length).toBeGreaterThan(10);
        }
      } else {
        expect(errors).toEqual([]);
      }
      if (v.records) {
        expect(
          r.records.map((rr) => ({
            owner: rr.owner,
            type: rr.type,
            ttl: rr.ttl,
            class: rr.class,
            rdata: hex(rr.rdata),
          })),
        ).toEqual(v.records);
      }
    });
  }
});
