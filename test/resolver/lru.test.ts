/**
 * The resolver's answer cache: least recently used entries leave first, in
 * O(1) per operation (checked against a reference model with fast-check).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LruCache } from '../../src/resolver-http/lru.ts';

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
