import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildAus } from '../../src/ddds/core/aus.ts';

interface Vector {
  id: string;
  ref: string;
  urn: string;
  expect: Record<string, unknown> & { error?: string };
}
const file = JSON.parse(
  readFileSync(new URL('../vectors/ddds/aus.json', import.meta.url), 'utf8'),
) as { vectors: Vector[] };

describe('buildAus (digest 10.4, 15.43-15.52)', () => {
  for (const v of file.vectors) {
    it(`${v.id} (${v.ref}): ${v.urn}`, () => {
      const r = buildAus(v.urn);
      if (v.expect.error !== undefined) {
        expect(r.ok).toBe(false);
        if (r.ok) return;
        expect(r.errors.length).toBeGreaterThan(0);
        if (v.expect.error !== '*') expect(r.errors.map((e) => e.code)).toContain(v.expect.error);
        return;
      }
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      expect(r.value.firstKey).toBe(`${r.value.nid}.urn.arpa.`);
      for (const [k, want] of Object.entries(v.expect)) {
        const got = (r.value as unknown as Record<string, unknown>)[k];
        if (want === null) expect(got, k).toBeUndefined();
        else expect(got, k).toEqual(want);
      }
      // The AUS never carries a fragment.
      expect(r.value.aus.includes('#')).toBe(false);
    });
  }
});
