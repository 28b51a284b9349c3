/**
 * Response-rate limiting for UDP, as BIND 9's `rate-limit` (no RFC): a spoofed source draws a few
 * identical responses per second; real clients, some dropped answers slipped back truncated, retry
 * over TCP. Per (client prefix, response identity: the question, the zone for NXDOMAIN, referrals
 * and errors, a wildcard's owner), a balance gains the rate each second (capped at it) and loses
 * one per response; below zero, down to `-window * rate`, responses are dropped but every
 * `slip`-th, sent with TC=1.
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

/** What RRL needs to know of a response (the engine's `Answer` is one). */
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

/** The client prefix as a short string of its masked octets (IPv4-mapped IPv6 counts as IPv4). */
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
   * The current whole second, read once per event-loop turn (libuv hands up
   * to 32 datagrams per turn; BIND reads a coarse clock for the same reason).
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

  /** Decide for one UDP response to `address` at `second`. */
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

  /** The client prefix as the table's integer: IPv4 masked, IPv6 a hash of its prefix, tagged apart. */
  private prefixKey(address: string): number {
    if (address === this.lastAddress) return this.lastPrefix;
    const v4 = v4PrefixInt(address, this.config.ipv4PrefixLength);
    this.lastAddress = address;
    this.lastPrefix = v4 >= 0 ? v4 : fnv1aText(this.prefix(address));
    this.lastV6 = v4 < 0 ? TAG_V6 : 0;
    return this.lastPrefix;
  }

  /**
   * The identity text's number (its hash cached by the engine's own lookup).
   * The map is emptied when it holds as many texts as the table has entries.
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

/** The response sent instead of a limited one: header and question, TC=1 (RFC 2181 section 9). */
export function slipResponse(out: Buffer, questionEnd: number): Buffer {
  const s = Buffer.from(out.subarray(0, questionEnd));
  s[2] = s[2]! | 0x02;
  s.fill(0, 6, 12);
  return s;
}
