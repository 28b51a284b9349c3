/**
 * The answer cache of the request path: answers kept by service, HTTP
 * version, the preferences as negotiation reads them and the raw URN; LRU;
 * emptied when the catalogue changes.
 */
import { parsePreferences } from '../core/negotiate.ts';
import { Doorkeeper, LruCache } from '../../kit/core/lru.ts';
import type { AppRequest, AppResponse, Service } from './types.ts';

export type CacheAdmission = 'first-request' | 'second-request';

export interface AnswerCacheOptions {
  readonly entries: number;
  /** At most about this many bytes of answers and keys (default: no bound beyond `entries`). */
  readonly maxBytes?: number;
  readonly checkMs: number;
  readonly version: () => number;
  readonly now?: () => number;
  /**
   * `second-request` (the default): an answer is kept only when its
   * request was seen recently (Doorkeeper), so URNs asked once do not
   * evict popular answers. `first-request`: every answer is kept.
   */
  readonly admission?: CacheAdmission;
}

/** Doorkeeper slots per cache entry: enough to remember a few cache-fulls of recent keys. */
const DOORKEEPER_SLOTS_PER_ENTRY = 4;
const DOORKEEPER_MAX_SLOTS = 1 << 22;

/** A preference header in the form the negotiation reads it (see `parsePreferences`). */
function preferenceKey(header: string | undefined): string {
  if (header === undefined || header === '') return '';
  let out = '';
  for (const p of parsePreferences(header)) out += `${p.value};${p.q},`;
  return out;
}

/** About how many bytes one cached answer holds (UTF-16 strings: 2 bytes a character, plus overhead). */
function answerBytes(key: string, res: AppResponse): number {
  let n = 2 * (key.length + res.body.length) + 256;
  for (const [k, v] of Object.entries(res.headers)) n += 2 * (k.length + v.length) + 32;
  return n;
}

export class AnswerCache {
  private readonly options: AnswerCacheOptions;
  private readonly cache: LruCache<AppResponse>;
  private readonly doorkeeper: Doorkeeper | null;
  private readonly now: () => number;
  private version: number;
  private checkedAt: number;
  hits = 0;
  misses = 0;

  constructor(options: AnswerCacheOptions) {
    this.options = options;
    this.cache = new LruCache<AppResponse>(
      options.entries,
      options.maxBytes ?? Number.POSITIVE_INFINITY,
      answerBytes,
    );
    this.doorkeeper =
      (options.admission ?? 'second-request') === 'second-request'
        ? new Doorkeeper(
            Math.min(DOORKEEPER_MAX_SLOTS, options.entries * DOORKEEPER_SLOTS_PER_ENTRY),
          )
        : null;
    this.now = options.now ?? (() => performance.now());
    this.version = options.version();
    this.checkedAt = this.now();
  }

  get size(): number {
    return this.cache.size;
  }

  get bytes(): number {
    return this.cache.bytes;
  }

  /** The cached answer, or the one `produce` makes (kept when not a 5xx and admitted). */
  through(
    req: AppRequest,
    service: Service,
    rawUrn: string,
    produce: () => AppResponse | Promise<AppResponse>,
  ): AppResponse | Promise<AppResponse> {
    this.checkVersion();
    // Preferences as the negotiation reads them: spellings that negotiate alike share an entry.
    const key = `${service}\n${req.httpVersion === '1.0' ? 0 : 1}\n${preferenceKey(req.header('accept'))}\n${preferenceKey(req.header('accept-language'))}\n${rawUrn}`;
    const hit = this.cache.get(key);
    if (hit) {
      this.hits++;
      return hit;
    }
    this.misses++;
    const keep = (res: AppResponse): AppResponse => {
      if (res.status < 500 && (this.doorkeeper === null || this.doorkeeper.offer(key))) {
        this.cache.set(key, res);
      }
      return res;
    };
    const res = produce();
    return res instanceof Promise ? res.then(keep) : keep(res);
  }

  /** Empty the cache now (`lexroute ctl flush-cache`); returns what it held. */
  flush(): { entries: number; bytes: number } {
    const held = { entries: this.cache.size, bytes: this.cache.bytes };
    this.cache.clear();
    this.doorkeeper?.clear();
    return held;
  }

  /** Empty the cache when the catalogue's version changed (read at most every `checkMs`). */
  private checkVersion(): void {
    const t = this.now();
    if (t - this.checkedAt < this.options.checkMs) return;
    this.checkedAt = t;
    const v = this.options.version();
    if (v !== this.version) {
      this.version = v;
      this.cache.clear();
      this.doorkeeper?.clear();
    }
  }
}
