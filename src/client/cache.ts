/**
 * A DNS cache in front of a DnsResolver: TTLs honoured (RFC 1035 section
 * 3.2.1, RFC 3402 section 3.3 note 2; negative ones per RFC 2308 section 5),
 * LRU-bounded, identical lookups in flight shared.
 */
import type { QueryType } from '../dns/core/rr/types.ts';
import type { DnsLookupResult, DnsResolver } from './stub.ts';
import { LruCache } from '../kit/core/lru.ts';
import { canonicalName } from './names.ts';

export interface CacheOptions {
  /** Most entries kept (default 10,000). */
  readonly maxEntries?: number;
  /** The clock, in ms (default Date.now); injectable for tests. */
  readonly now?: () => number;
  /** Cap on positive TTLs, in seconds (default one week). */
  readonly maxTtl?: number;
  /** Cap on negative TTLs, in seconds (default 3 hours, RFC 2308 section 5). */
  readonly maxNegativeTtl?: number;
}

export interface CacheStats {
  hits: number;
  misses: number;
  /** Lookups that joined a query already in flight. */
  shared: number;
  evictions: number;
  expirations: number;
}

interface Entry {
  readonly result: DnsLookupResult;
  readonly expires: number;
}

/** A cached result and how long it has left. */
export interface CacheHit {
  readonly result: DnsLookupResult;
  /** Remaining seconds (rounded down). */
  readonly remaining: number;
}

export function cacheKey(qname: string, qtype: string): string {
  return `${canonicalName(qname)}|${qtype}`;
}

/** `cacheKey` memoised per (qtype, qname): the same string object keeps its hash. */
const KEY_MEMO_MAX = 4096;

class KeyMemo {
  private readonly byType = new Map<string, Map<string, string>>();
  private size = 0;

  key(qname: string, qtype: string): string {
    let byName = this.byType.get(qtype);
    if (byName === undefined) {
      byName = new Map();
      this.byType.set(qtype, byName);
    }
    let k = byName.get(qname);
    if (k === undefined) {
      k = cacheKey(qname, qtype);
      if (this.size >= KEY_MEMO_MAX) {
        for (const m of this.byType.values()) m.clear();
        this.size = 0;
      }
      byName.set(qname, k);
      this.size++;
    }
    return k;
  }
}

export class DnsCache {
  readonly stats: CacheStats = { hits: 0, misses: 0, shared: 0, evictions: 0, expirations: 0 };
  private readonly entries: LruCache<Entry>;
  private readonly keys = new KeyMemo();
  private readonly inflight = new Map<string, Promise<DnsLookupResult>>();
  private readonly maxTtl: number;
  private readonly maxNegativeTtl: number;
  readonly now: () => number;

  constructor(options: CacheOptions = {}) {
    this.entries = new LruCache(Math.max(1, options.maxEntries ?? 10_000));
    this.maxTtl = options.maxTtl ?? 7 * 86400;
    this.maxNegativeTtl = options.maxNegativeTtl ?? 3 * 3600;
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The live entry for (qname, qtype), or undefined. Touches it for LRU. */
  get(qname: string, qtype: string): CacheHit | undefined {
    return this.getByKey(this.keys.key(qname, qtype));
  }

  getByKey(key: string): CacheHit | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    const now = this.now();
    if (now >= e.expires) {
      this.entries.delete(key);
      this.stats.expirations++;
      return undefined;
    }
    return { result: e.result, remaining: Math.floor((e.expires - now) / 1000) };
  }

  /** Store a result under its question. Results with ttl < 0 or 0 are not kept. */
  set(result: DnsLookupResult): void {
    this.setByKey(this.keys.key(result.qname, result.qtype), result);
  }

  private setByKey(key: string, result: DnsLookupResult): void {
    if (result.ttl <= 0) return;
    const ttl = Math.min(result.ttl, result.kind === 'answer' ? this.maxTtl : this.maxNegativeTtl);
    const evicted = this.entries.evictions;
    this.entries.set(key, { result, expires: this.now() + ttl * 1000 });
    this.stats.evictions += this.entries.evictions - evicted;
  }

  /** The cached result, or `fetch`'s (stored, and shared with identical lookups meanwhile). */
  async through(
    qname: string,
    qtype: string,
    fetch: () => Promise<DnsLookupResult>,
  ): Promise<{ result: DnsLookupResult; cached: boolean; remaining?: number }> {
    const key = this.keys.key(qname, qtype);
    const hit = this.getByKey(key);
    if (hit) {
      this.stats.hits++;
      return { result: hit.result, cached: true, remaining: hit.remaining };
    }
    const running = this.inflight.get(key);
    if (running) {
      this.stats.shared++;
      return { result: await running, cached: false };
    }
    this.stats.misses++;
    const p = fetch().then(
      (r) => {
        this.inflight.delete(key);
        this.setByKey(key, r);
        return r;
      },
      (e: unknown) => {
        this.inflight.delete(key);
        throw e;
      },
    );
    this.inflight.set(key, p);
    return { result: await p, cached: false };
  }

  clear(): void {
    this.entries.clear();
  }
}

/** A DnsResolver with a cache in front. `peek` is the synchronous warm path. */
export class CachingResolver implements DnsResolver {
  readonly cache: DnsCache;
  private readonly inner: DnsResolver;

  constructor(inner: DnsResolver, cache: DnsCache) {
    this.inner = inner;
    this.cache = cache;
  }

  peek(qname: string, qtype: QueryType): CacheHit | undefined {
    const hit = this.cache.get(qname, qtype);
    if (hit) this.cache.stats.hits++;
    return hit;
  }

  async lookup(qname: string, qtype: QueryType, signal?: AbortSignal): Promise<DnsLookupResult> {
    const r = await this.cache.through(qname, qtype, () => this.inner.lookup(qname, qtype, signal));
    return r.result;
  }
}
