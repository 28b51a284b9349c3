/**
 * The cache's recency list against a model: a Map in insertion order where
 * a touched entry is deleted and set again (least recently used first).
 * Random sequences of stores, lookups and clock moves must give the same
 * hits, remaining TTLs, sizes and counters.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DnsCache } from '../../src/client/cache.ts';
import type { DnsLookupResult as LookupResult } from '../../src/client/stub.ts';

function result(qname: string, ttl: number): LookupResult {
  return {
    kind: 'answer',
    qname,
    qtype: 'NAPTR',
    name: qname,
    records: [],
    cnames: [],
    ttl,
    server: '127.0.0.1:53',
    protocol: 'udp',
    rttMs: 1,
    ignored: 0,
    additionals: [],
  };
}

class Model {
  readonly entries = new Map<string, { ttl: number; expires: number }>();
  evictions = 0;
  expirations = 0;
  readonly max: number;
  readonly now: () => number;
  constructor(max: number, now: () => number) {
    this.max = max;
    this.now = now;
  }
  set(name: string, ttl: number): void {
    if (ttl <= 0) return;
    this.entries.delete(name);
    this.entries.set(name, { ttl, expires: this.now() + ttl * 1000 });
    while (this.entries.size > this.max) {
      this.entries.delete(this.entries.keys().next().value as string);
      this.evictions++;
    }
  }
  get(name: string): number | undefined {
    const e = this.entries.get(name);
    if (!e) return undefined;
    if (this.now() >= e.expires) {
      this.entries.delete(name);
      this.expirations++;
      return undefined;
    }
    this.entries.delete(name);
    this.entries.set(name, e);
    return Math.floor((e.expires - this.now()) / 1000);
  }
}

const op = fc.oneof(
  fc.record({
    kind: fc.constant('set' as const),
    name: fc.integer({ min: 0, max: 7 }),
    ttl: fc.integer({ min: -1, max: 30 }),
  }),
  fc.record({ kind: fc.constant('get' as const), name: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 15_000 }) }),
  fc.record({ kind: fc.constant('clear' as const) }),
);

describe('cache recency list (least recently used goes first)', () => {
  it('behaves as the insertion-ordered Map model', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 80 }), (max, ops) => {
        let clock = 1_000_000;
        const now = () => clock;
        const cache = new DnsCache({ maxEntries: max, now });
        const model = new Model(max, now);
        for (const o of ops) {
          if (o.kind === 'tick') clock += o.ms;
          else if (o.kind === 'clear') {
            cache.clear();
            model.entries.clear();
          } else if (o.kind === 'set') {
            cache.set(result(`n${o.name}.test.`, o.ttl));
            model.set(`n${o.name}.test`, o.ttl);
          } else {
            const hit = cache.get(`N${o.name}.test`, 'NAPTR');
            const want = model.get(`n${o.name}.test`);
            expect(hit?.remaining).toBe(want);
            if (hit) expect(hit.result.qname).toBe(`n${o.name}.test.`);
          }
          expect(cache.size).toBe(model.entries.size);
        }
        expect(cache.stats.evictions).toBe(model.evictions);
        expect(cache.stats.expirations).toBe(model.expirations);
      }),
      { numRuns: 500 },
    );
  });
});
