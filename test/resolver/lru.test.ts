/**
 * The resolver's answer cache: least recently used entries leave first, in
 * O(1) per operation (checked against a reference model with fast-check);
 * the doorkeeper admits a key on its second offer.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Doorkeeper, LruCache } from '../../src/kit/core/lru.ts';

describe('LruCache', () => {
  it('drops the least recently used entry when full; get marks an entry used', () => {
    const c = new LruCache<number>(2);
    c.set('a', 1);
    c.set('b', 2);
    expect(c.get('a')).toBe(1);
    c.set('c', 3);
    expect(c.get('b')).toBeUndefined();
    expect(c.keys()).toEqual(['c', 'a']);
    c.set('a', 10);
    c.set('d', 4);
    expect(c.keys()).toEqual(['d', 'a']);
    expect(c.get('a')).toBe(10);
    expect(c.size).toBe(2);
    c.clear();
    expect(c.size).toBe(0);
    expect(c.get('a')).toBeUndefined();
    c.set('e', 5);
    expect(c.keys()).toEqual(['e']);
  });

  it('delete frees a slot that the next set reuses, without counting an eviction', () => {
    const c = new LruCache<number>(2);
    c.set('a', 1);
    c.set('b', 2);
    expect(c.delete('a')).toBe(true);
    expect(c.delete('a')).toBe(false);
    c.set('c', 3);
    expect(c.keys()).toEqual(['c', 'b']);
    expect(c.evictions).toBe(0);
    c.set('d', 4);
    expect(c.keys()).toEqual(['d', 'c']);
    expect(c.evictions).toBe(1);
  });

  it('rejects a capacity that is not a positive integer', () => {
    expect(() => new LruCache(0)).toThrow(RangeError);
    expect(() => new LruCache(1.5)).toThrow(RangeError);
  });

  it('behaves like a list kept in recency order (property)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 9 }) }),
      fc.record({
        kind: fc.constant('set' as const),
        key: fc.integer({ min: 0, max: 9 }),
        value: fc.integer(),
      }),
      fc.record({ kind: fc.constant('clear' as const) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 60 }), (cap, ops) => {
        const c = new LruCache<number>(cap);
        // Reference: most recent first.
        let model: [string, number][] = [];
        for (const o of ops) {
          if (o.kind === 'clear') {
            c.clear();
            model = [];
            continue;
          }
          const key = String(o.key);
          const at = model.findIndex(([k]) => k === key);
          if (o.kind === 'get') {
            const want = at >= 0 ? model[at]![1] : undefined;
            if (at >= 0) model.unshift(...model.splice(at, 1));
            expect(c.get(key)).toBe(want);
          } else {
            if (at >= 0) model.splice(at, 1);
            model.unshift([key, o.value]);
            if (model.length > cap) model.pop();
            c.set(key, o.value);
          }
          expect(c.keys()).toEqual(model.map(([k]) => k));
          expect(c.size).toBe(model.length);
        }
      }),
    );
  });
});

describe('Doorkeeper', () => {
  it('refuses a key the first time and admits it the second time', () => {
    const d = new Doorkeeper(1024);
    expect(d.offer('N2L\n1\n\n\nurn:lex:br:federal:lei:2008-06-19;11705')).toBe(false);
    expect(d.offer('N2L\n1\n\n\nurn:lex:br:federal:lei:2008-06-19;11705')).toBe(true);
    expect(d.offer('N2L\n1\n\n\nurn:lex:br:federal:lei:2008-06-19;11705')).toBe(true);
    // Another service or header set is another key.
    expect(d.offer('N2Ls\n1\n\n\nurn:lex:br:federal:lei:2008-06-19;11705')).toBe(false);
    d.clear();
    expect(d.offer('N2L\n1\n\n\nurn:lex:br:federal:lei:2008-06-19;11705')).toBe(false);
  });

  it('a stream of distinct keys is refused; remembered keys survive a few table-fulls of them', () => {
    const d = new Doorkeeper(4096);
    const popular = Array.from({ length: 100 }, (_, i) => `urn:lex:it:stato:legge:2000;${i}`);
    for (const k of popular) d.offer(k);
    let admitted = 0;
    for (let i = 0; i < 4096; i++) if (d.offer(`urn:lex:br:federal:lei:1990;${i}`)) admitted++;
    // Distinct keys are never admitted (barring fingerprint collisions: 2^-31 each).
    expect(admitted).toBe(0);
    // Direct-mapped: each of 4096 distinct offers overwrote one slot, so a
    // popular key is still remembered with probability (1 - 1/4096)^4096, about e^-1.
    const remembered = popular.filter((k) => d.offer(k)).length;
    expect(remembered).toBeGreaterThan(15);
    expect(remembered).toBeLessThan(70);
  });

  it('spreads similar keys over the table (the slot depends on every character)', () => {
    const d = new Doorkeeper(1 << 16);
    // 20,000 keys that differ only in their last characters: with a good
    // spread few evict each other, so nearly all are remembered.
    const keys = Array.from({ length: 20_000 }, (_, i) => `urn:lex:br:federal:lei:2008-06-19;${i}`);
    for (const k of keys) d.offer(k);
    const remembered = keys.filter((k) => d.offer(k)).length;
    // Expected about 20,000 * e^(-20000/65536) = 14,740 for a uniform hash.
    expect(remembered).toBeGreaterThan(14_000);
  });

  it('rejects a size that is not a positive integer', () => {
    expect(() => new Doorkeeper(0)).toThrow(RangeError);
    expect(() => new Doorkeeper(1.5)).toThrow(RangeError);
  });
});
