import { describe, expect, it } from 'vitest';
import type { RecordType } from 'dns-packet';
import { CachingResolver, DnsCache } from '../../src/client/cache.ts';
import type {
  DnsLookupResult as LookupResult,
  DnsResolver as Resolver,
} from '../../src/client/stub.ts';

function result(qname: string, kind: LookupResult['kind'], ttl: number): LookupResult {
  return {
    kind,
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

/** A resolver that counts calls and answers from a table, after a tick. */
class Counting implements Resolver {
  calls = 0;
  readonly table: Record<string, LookupResult>;
  constructor(table: Record<string, LookupResult>) {
    this.table = table;
  }
  async lookup(qname: string, _qtype: RecordType): Promise<LookupResult> {
    this.calls++;
    await new Promise((r) => setTimeout(r, 5));
    const r = this.table[qname];
    if (!r) throw new Error(`no entry for ${qname}`);
    return r;
  }
}

describe('cache (RFC 1035 3.2.1, RFC 2308 section 5)', () => {
  it('keeps a positive answer for its TTL and no longer', async () => {
    let now = 1_000_000;
    const inner = new Counting({ 'a.test': result('a.test', 'answer', 60) });
    const r = new CachingResolver(inner, new DnsCache({ now: () => now }));
    await r.lookup('a.test', 'NAPTR');
    await r.lookup('A.TEST.', 'NAPTR');
    expect(inner.calls).toBe(1);
    now += 59_999;
    expect(r.peek('a.test', 'NAPTR')?.remaining).toBe(0);
    now += 1;
    expect(r.peek('a.test', 'NAPTR')).toBeUndefined();
    await r.lookup('a.test', 'NAPTR');
    expect(inner.calls).toBe(2);
  });

  it('caches NXDOMAIN/NODATA for the SOA-derived TTL, and not at all without an SOA', async () => {
    let now = 0;
    const inner = new Counting({
      'nx.test': result('nx.test', 'nxdomain', 30),
      'nosoa.test': result('nosoa.test', 'nodata', -1),
    });
    const r = new CachingResolver(inner, new DnsCache({ now: () => now }));
    expect((await r.lookup('nx.test', 'NAPTR')).kind).toBe('nxdomain');
    await r.lookup('nx.test', 'NAPTR');
    expect(inner.calls).toBe(1);
    now += 30_000;
    await r.lookup('nx.test', 'NAPTR');
    expect(inner.calls).toBe(2);
    await r.lookup('nosoa.test', 'NAPTR');
    await r.lookup('nosoa.test', 'NAPTR');
    expect(inner.calls).toBe(4);
  });

  it('caps negative TTLs at three hours and positive at one week', () => {
    let now = 0;
    const cache = new DnsCache({ now: () => now });
    cache.set(result('neg.test', 'nxdomain', 86400));
    cache.set(result('pos.test', 'answer', 10 * 86400));
    now = 3 * 3600 * 1000;
    expect(cache.get('neg.test', 'NAPTR')).toBeUndefined();
    expect(cache.get('pos.test', 'NAPTR')).toBeDefined();
    now = 7 * 86400 * 1000;
    expect(cache.get('pos.test', 'NAPTR')).toBeUndefined();
  });

  it('does not store TTL 0 answers', async () => {
    const inner = new Counting({ 'z.test': result('z.test', 'answer', 0) });
    const r = new CachingResolver(inner, new DnsCache());
    await r.lookup('z.test', 'NAPTR');
    await r.lookup('z.test', 'NAPTR');
    expect(inner.calls).toBe(2);
  });

  it('evicts the least recently used entry when full', () => {
    const cache = new DnsCache({ maxEntries: 2 });
    cache.set(result('a.test', 'answer', 60));
    cache.set(result('b.test', 'answer', 60));
    expect(cache.get('a.test', 'NAPTR')).toBeDefined(); // a is now the most recent
    cache.set(result('c.test', 'answer', 60));
    expect(cache.get('b.test', 'NAPTR')).toBeUndefined();
    expect(cache.get('a.test', 'NAPTR')).toBeDefined();
    expect(cache.get('c.test', 'NAPTR')).toBeDefined();
    expect(cache.size).toBe(2);
    expect(cache.stats.evictions).toBe(1);
  });

  it('shares one query among concurrent identical lookups', async () => {
    const inner = new Counting({ 'a.test': result('a.test', 'answer', 60) });
    const cache = new DnsCache();
    const r = new CachingResolver(inner, cache);
    const all = await Promise.all(Array.from({ length: 10 }, () => r.lookup('a.test', 'NAPTR')));
    expect(inner.calls).toBe(1);
    expect(new Set(all).size).toBe(1);
    expect(cache.stats.shared).toBe(9);
  });

  it('does not cache failures, and lets the next lookup try again', async () => {
    const inner = new Counting({});
    const r = new CachingResolver(inner, new DnsCache());
    await expect(
      Promise.all([r.lookup('x.test', 'NAPTR'), r.lookup('x.test', 'NAPTR')]),
    ).rejects.toThrow(/no entry/);
    expect(inner.calls).toBe(1);
    await expect(r.lookup('x.test', 'NAPTR')).rejects.toThrow(/no entry/);
    expect(inner.calls).toBe(2);
  });
});
