/**
 * Response-rate limiting (RRL) for UDP, with the semantics of BIND 9's
 * `rate-limit` and Knot DNS's `mod-rrl` (there is no RFC): a spoofed source
 * address must not draw more than a few identical responses per second,
 * so the server is useless as a reflector, while real clients, whose
 * dropped answers come back truncated now and then (`slip`), retry over TCP,
 * which is never limited.
 *
 * Accounting, per (client prefix, response identity):
 * - the client prefix is the source address masked to `ipv4PrefixLength`
 *   (24) or `ipv6PrefixLength` (56) bits;
 * - the identity is the question name and type for answers and NODATA, the
 *   zone for NXDOMAIN and referrals, the wildcard's owner (`*.<closest
 *   encloser>`) for wildcard answers, and the zone (or nothing, for REFUSED
 *   outside our zones and FORMERR) for errors;
 * - each entry holds a balance credited with the rate for every second
 *   elapsed (never above the rate) and debited one per response; at or
 *   above zero the response is sent; below it, the response is limited and
 *   the balance may fall to `-window * rate`, so a source that kept
 *   exceeding the rate stays limited for up to `window` seconds after it
 *   slows down (BIND's `window`);
 * - a limited response is dropped, except every `slip`-th one, sent with
 *   TC=1 and no records (slip 0: drop all; 1: truncate all);
 * - exempt prefixes are never limited; `logOnly` counts what would be
 *   limited and sends everything.
 *
 * Cost on the hot path: one Map lookup of the question's key (whose hash
 * the engine's own lookup cached) and one probe of a typed-array table per
 * UDP response, nothing allocated (`rrl-table.ts`).
 */
import { inCidr, parseCidr, type Cidr } from '../config/cidr.ts';
import { addressOctets } from '../kit/core/ip.ts';
import type { RrlConfig } from '../config/server.ts';
import type { EncodedBody } from './core/answer.ts';
import type { IndexedZone } from './core/zone-lookup.ts';
import { fnv1aText } from '../kit/core/hash.ts';
import { BoundedMemo } from '../kit/core/memo.ts';
import { RrlTable, v4PrefixInt } from './rrl-table.ts';

export const RRL_SEND = 0;
export const RRL_DROP = 1;
export const RRL_SLIP = 2;
export type RrlAction = typeof RRL_SEND | typeof RRL_DROP | typeof RRL_SLIP;

/**
 * What RRL needs to know about a response (the engine's `Answer` is one):
 * the body's rcode, AA and answer count (answer, NODATA, NXDOMAIN, referral
 * or error), the question's lookup key and type, the zone that answered and
 * whether a wildcard was used.
 */
export interface ResponseFacts {
  readonly body: Pick<EncodedBody, 'rcode' | 'aa' | 'ancount'>;
  readonly key: string;
  readonly qtype: number;
  readonly zone: IndexedZone | undefined;
  readonly wildcard: boolean;
}

export interface RrlCounters {
  /** Responses checked (UDP). */
  checked: number;
  /** Responses dropped. */
  dropped: number;
  /** Responses sent truncated instead (slip). */
  slipped: number;
  /** Responses that would have been limited, sent anyway (log-only mode or exempt prefix). */
  wouldLimit: number;
}

/** Identity tags: an answer's is its qtype (0-65535); the others sit above. */
const TAG_NXDOMAIN = 0x10000;
const TAG_ERROR = 0x20000;
const TAG_REFERRAL = 0x30000;
const TAG_WILDCARD = 0x40000;
/** Set on the tag of an IPv6 client's entries (its prefix is a hash, not an address). */
const TAG_V6 = 0x100000;

/**
 * The client prefix as a short string: the masked octets of the prefix,
 * IPv4 as `10.0.0` (for /24), IPv6 as `6:20.1.d.b8.0.0.0` (IPv4-mapped IPv6
 * addresses count as IPv4).
 */
function prefixOf(address: string, v4Bits: number, v6Bits: number): string {
  if (v4Bits === 24 && !address.includes(':')) {
    // The common case without parsing: drop the last octet.
    return address.slice(0, address.lastIndexOf('.'));
  }
  const b = addressOctets(address);
  if (!b) return address;
  const v4 = b.length === 4;
  let bits = v4 ? v4Bits : v6Bits;
  const parts: string[] = [];
  for (let i = 0; i < b.length && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    parts.push(v4 ? String(b[i]! & mask) : (b[i]! & mask).toString(16));
  }
  return v4 ? parts.join('.') : `6:${parts.join('.')}`;
}

/** `*.` + the closest encloser of `key` in `zone` (wire-form keys): the wildcard that answered. */
function wildcardOwner(key: string, zone: IndexedZone): string {
  let k = key;
  while (k.length > 1) {
    k = k.slice(k.charCodeAt(0) + 1);
    if (zone.nodes.has(k)) return `\x01*${k}`;
  }
  return `\x01*${k}`;
}

export class Rrl {
  readonly config: RrlConfig;
  readonly counters: RrlCounters = { checked: 0, dropped: 0, slipped: 0, wouldLimit: 0 };
  private readonly table = new RrlTable();
  private readonly ids: BoundedMemo<string, number>;
  private nextId = 0;
  private lastAddress = '';
  private lastPrefix = 0;
  private lastV6 = 0;
  private readonly exempt: readonly Cidr[];
  private readonly rates: readonly [number, number, number];

  constructor(config: RrlConfig) {
    this.config = config;
    this.ids = new BoundedMemo(config.maxTableSize);
    const r = config.responsesPerSecond;
    this.rates = [r, config.nxdomainsPerSecond ?? r, config.errorsPerSecond ?? r];
    this.exempt = config.exempt.map((e) => {
      const c = parseCidr(e);
      if (typeof c === 'string') throw new Error(c);
      return c;
    });
  }

  /**
   * The current whole second, read from the clock once per event-loop turn:
   * libuv hands up to 32 datagrams to JavaScript per turn, and a
   * `Date.now()` per datagram cost as much as the rest of the check
   * (30-300 ns here; BIND reads a coarse clock for the same reason). The
   * value is never older than the turn that uses it.
   */
  nowSecond(): number {
    if (!this.fresh) {
      this.second = (Date.now() / 1000) | 0;
      this.fresh = true;
      setImmediate(this.expire);
    }
    return this.second;
  }
  private second = 0;
  private fresh = false;
  private readonly expire = () => {
    this.fresh = false;
  };

  /** Entries in the table now. */
  get size(): number {
    return this.table.size;
  }

  /** The client prefix of an address, as used in the table and in logs. */
  prefix(address: string): string {
    return prefixOf(address, this.config.ipv4PrefixLength, this.config.ipv6PrefixLength);
  }

  /**
   * Decide for one UDP response built for `address`.
   * `second` is the current time in whole seconds.
   */
  check(address: string, facts: ResponseFacts, second: number): RrlAction {
    this.counters.checked++;
    const body = facts.body;
    const zone = facts.zone;
    // The identity: a class tag (with the type where it counts) and a text.
    let cls: 0 | 1 | 2 = 0;
    let tag: number = facts.qtype;
    let text = zone?.originKey ?? '';
    if (body.rcode === 3) {
      cls = 1;
      tag = TAG_NXDOMAIN;
    } else if (body.rcode !== 0) {
      cls = 2;
      tag = TAG_ERROR;
    } else if (body.ancount === 0 && !body.aa) {
      tag = TAG_REFERRAL;
    } else if (facts.wildcard && zone !== undefined) {
      tag = TAG_WILDCARD + facts.qtype;
      text = wildcardOwner(facts.key, zone);
    } else {
      text = facts.key;
    }
    const rate = this.rates[cls];
    if (rate <= 0) return RRL_SEND;
    const t = this.table;
    const prefix = this.prefixKey(address);
    t.key(prefix, this.idOf(text), tag | this.lastV6);
    let i = t.find();
    let balance: number;
    if (i < 0) {
      if (t.size >= this.config.maxTableSize) {
        t.dropOldest(Math.max(1, Math.floor(this.config.maxTableSize / 10)));
        i = t.find();
      }
      i = t.insert(-1 - i, rate, second);
      balance = rate;
    } else {
      balance = t.balance(i);
      const elapsed = second - t.second(i);
      if (elapsed > 0) balance = Math.min(rate, balance + elapsed * rate);
    }
    balance--;
    if (balance >= 0) {
      t.set(i, balance, second);
      return RRL_SEND;
    }
    const floor = -this.config.window * rate;
    t.set(i, balance < floor ? floor : balance, second);
    if (this.config.logOnly || this.isExempt(address)) {
      this.counters.wouldLimit++;
      return RRL_SEND;
    }
    // As BIND: the first limited response slips, then every slip-th.
    const slip = this.config.slip;
    if (slip > 0) {
      const n = t.slip(i);
      t.setSlip(i, n + 1 >= slip ? 0 : n + 1);
      if (n === 0) {
        this.counters.slipped++;
        return RRL_SLIP;
      }
    }
    this.counters.dropped++;
    return RRL_DROP;
  }

  /**
   * The client prefix as the table's integer: IPv4 masked (the last
   * address's kept: a burst comes from one source), IPv6 as a hash of its
   * prefix text, marked apart from IPv4 by the tag.
   */
  private prefixKey(address: string): number {
    if (address === this.lastAddress) return this.lastPrefix;
    const v4 = v4PrefixInt(address, this.config.ipv4PrefixLength);
    this.lastAddress = address;
    this.lastPrefix = v4 >= 0 ? v4 : fnv1aText(this.prefix(address));
    this.lastV6 = v4 < 0 ? TAG_V6 : 0;
    return this.lastPrefix;
  }

  /**
   * The identity text's number. The engine looked the question's key up in
   * a Map just before, so its hash is cached and this lookup is cheap. The
   * map is emptied when it holds as many texts as the table may hold
   * entries (entries of forgotten numbers age out like any other).
   */
  private idOf(text: string): number {
    const id = this.ids.get(text);
    return id ?? this.ids.set(text, this.nextId++ & 0x3fffffff);
  }

  /** Drop entries not touched for longer than the window (called now and then, off the hot path). */
  sweep(second: number): void {
    this.table.dropStale(second, this.config.window + 1);
  }

  private isExempt(address: string): boolean {
    if (this.exempt.length === 0) return false;
    const b = addressOctets(address);
    return b !== undefined && this.exempt.some((c) => inCidr(b, c));
  }
}

/**
 * The truncated response sent instead of a limited one: the response's
 * header and question, TC=1, no records (RFC 2181 section 9: a client
 * seeing TC retries over TCP).
 */
export function slipResponse(out: Buffer, questionEnd: number): Buffer {
  const s = Buffer.from(out.subarray(0, questionEnd));
  s[2] = s[2]! | 0x02;
  s.fill(0, 6, 12);
  return s;
}
