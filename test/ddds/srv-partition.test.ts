import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { selectSrv, type SrvRecord } from '../../src/ddds/core/srv.ts';
import { applyPartition, applyPartitionDetailed } from '../../src/ddds/core/partition.ts';

/** Deterministic generator for tests (mulberry32). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const srv = (priority: number, weight: number, target: string, port = 80): SrvRecord => ({
  priority,
  weight,
  port,
  target,
});

describe('RFC 2782 SRV selection', () => {
  it('lowest priority first, whatever the weights', () => {
    const r = selectSrv([srv(20, 100, 'b.'), srv(10, 0, 'a.'), srv(30, 5, 'c.')], () => 0.99);
    expect(r.kind === 'targets' && r.targets.map((t) => t.target)).toEqual(['a.', 'b.', 'c.']);
  });

  it('a single "." target means decidedly unavailable; no records means none', () => {
    expect(selectSrv([srv(0, 0, '.')], () => 0).kind).toBe('unavailable');
    expect(selectSrv([], () => 0).kind).toBe('none');
  });

  it('"." targets are dropped when real targets exist', () => {
    const r = selectSrv([srv(0, 0, '.'), srv(1, 0, 'x.')], () => 0);
    expect(r.kind === 'targets' && r.targets.map((t) => t.target)).toEqual(['x.']);
  });

  it('zero-weight records come first in the running sum (draw 0 picks them)', () => {
    const r = selectSrv([srv(0, 10, 'heavy.'), srv(0, 0, 'zero.')], () => 0);
    expect(r.kind === 'targets' && r.targets.map((t) => t.target)).toEqual(['zero.', 'heavy.']);
  });

  it('weights drive the first choice in proportion (60/30/10 over 20,000 seeded draws)', () => {
    const records = [srv(10, 60, 'a.'), srv(10, 30, 'b.'), srv(10, 10, 'c.')];
    const rnd = seeded(42);
    const counts: Record<string, number> = { 'a.': 0, 'b.': 0, 'c.': 0 };
    for (let i = 0; i < 20_000; i++) {
      const r = selectSrv(records, rnd);
      if (r.kind === 'targets') counts[r.targets[0]?.target ?? '']! += 1;
    }
    expect(counts['a.']! / 20_000).toBeCloseTo(0.6, 1);
    expect(counts['b.']! / 20_000).toBeCloseTo(0.3, 1);
    expect(counts['c.']! / 20_000).toBeCloseTo(0.1, 1);
  });

  it('property: the result is a permutation of the non-root records, sorted by priority', () => {
    const rec = fc.record({
      priority: fc.integer({ min: 0, max: 3 }),
      weight: fc.integer({ min: 0, max: 5 }),
      port: fc.integer({ min: 1, max: 65535 }),
      target: fc.constantFrom('a.', 'b.', 'c.', 'd.', '.'),
    });
    fc.assert(
      fc.property(fc.array(rec, { maxLength: 10 }), fc.integer(), (records, seed) => {
        const r = selectSrv(records, seeded(seed));
        const real = records.filter((x) => x.target !== '.');
        if (records.length === 0) {
          expect(r.kind).toBe('none');
          return;
        }
        if (real.length === 0) {
          expect(r.kind).toBe('unavailable');
          return;
        }
        expect(r.kind).toBe('targets');
        if (r.kind !== 'targets') return;
        expect(r.targets).toHaveLength(real.length);
        expect([...r.targets].sort(cmp)).toEqual([...real].sort(cmp));
        for (let i = 1; i < r.targets.length; i++) {
          expect(r.targets[i]!.priority).toBeGreaterThanOrEqual(r.targets[i - 1]!.priority);
        }
      }),
    );
  });
});

function cmp(a: SrvRecord, b: SrvRecord): number {
  return JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0;
}

describe('partition and fragment on the final URL (decisions 6, digest 15.44, 15.47)', () => {
  const cases: [string, { fragment?: string; partition?: string }, string, string][] = [
    ['https://d.example/doc', { partition: 'art1' }, 'https://d.example/doc#art1', 'partition'],
    [
      'https://d.example/doc#art1;par3',
      { partition: 'art1' },
      'https://d.example/doc#art1;par3',
      'kept',
    ],
    [
      'https://d.example/doc',
      { fragment: 'sec2', partition: 'art1' },
      'https://d.example/doc#sec2',
      'fragment',
    ],
    ['https://d.example/doc#x', { fragment: 'sec2' }, 'https://d.example/doc#sec2', 'fragment'],
    ['https://d.example/doc', {}, 'https://d.example/doc', 'none'],
    [
      'https://d.example/doc?a=1',
      { partition: 'art15;par3' },
      'https://d.example/doc?a=1#art15;par3',
      'partition',
    ],
    ['https://d.example/doc', { fragment: '' }, 'https://d.example/doc#', 'fragment'],
  ];
  for (const [url, opts, expected, applied] of cases) {
    it(`${url} ${JSON.stringify(opts)} -> ${expected}`, () => {
      expect(applyPartition(url, opts)).toBe(expected);
      expect(applyPartitionDetailed(url, opts).applied).toBe(applied);
    });
  }
});
