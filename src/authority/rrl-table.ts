/**
 * The table behind RRL: (client prefix, identity number, tag) buckets in typed arrays with open
 * addressing (a lookup allocates nothing); rebuilt to drop entries (a sweep, or the oldest tenth
 * when full), doubled as it fills.
 */
import { FNV_PRIME } from '../kit/core/hash.ts';

const INITIAL_SLOTS = 1024;

/** MurmurHash3's 32-bit finalizer: spreads every input bit over the word. */
function fmix32(x: number): number {
  let h = x ^ (x >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** The IPv4 prefix of `address` (dotted quad or `::ffff:a.b.c.d`) as an integer, -1 for IPv6. */
export function v4PrefixInt(address: string, bits: number): number {
  let i = 0;
  if (address.charCodeAt(0) === 58 /* : */) {
    if (!address.startsWith('::ffff:') || address.indexOf(':', 7) >= 0) return -1;
    i = 7;
  }
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (; i < address.length; i++) {
    const c = address.charCodeAt(i);
    if (c === 46 /* . */) {
      if (digits === 0 || octet > 255) return -1;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      octet = octet * 10 + (c - 48);
      digits++;
    } else return -1;
  }
  if (dots !== 3 || digits === 0 || octet > 255) return -1;
  value = value * 256 + octet;
  return bits >= 32
    ? value
    : bits <= 0
      ? 0
      : Math.floor(value / 2 ** (32 - bits)) * 2 ** (32 - bits);
}

export class RrlTable {
  private slots = INITIAL_SLOTS;
  private pre = new Int32Array(INITIAL_SLOTS);
  /** The identity's number + 1: 0 marks an empty slot. */
  private ids = new Int32Array(INITIAL_SLOTS);
  private tags = new Int32Array(INITIAL_SLOTS);
  private sec = new Int32Array(INITIAL_SLOTS);
  private bal = new Float64Array(INITIAL_SLOTS);
  private slp = new Int32Array(INITIAL_SLOTS);
  /** Insertion order, for evicting the oldest entries when the table is full. */
  private seq = new Float64Array(INITIAL_SLOTS);
  private nextSeq = 0;
  size = 0;

  /** The key of the last `key` call (read by `find` and `insert`). */
  private kp = 0;
  private ki = 0;
  private kt = 0;

  /** Set the key to look up: client prefix, identity number (>= 0), tag. */
  key(prefix: number, id: number, tag: number): void {
    this.kp = prefix | 0;
    this.ki = (id + 1) | 0;
    this.kt = tag | 0;
  }

  /** The slot holding the key, or `-1 - slot` of the free slot where it would go. */
  find(): number {
    const { kp, ki, kt } = this;
    const mask = this.slots - 1;
    let i = fmix32(kp ^ Math.imul(ki, 0x9e3779b1) ^ Math.imul(kt, FNV_PRIME)) & mask;
    for (;;) {
      const id = this.ids[i]!;
      if (id === 0) return -1 - i;
      if (id === ki && this.pre[i] === kp && this.tags[i] === kt) return i;
      i = (i + 1) & mask;
    }
  }

  /** Put the key in the free slot `find` gave; its slot (the table may have grown). */
  insert(free: number, balance: number, second: number): number {
    const { kp, ki, kt } = this;
    let i = free;
    if ((this.size + 1) * 2 > this.slots) {
      this.rebuild(this.slots * 2, () => true);
      [this.kp, this.ki, this.kt] = [kp, ki, kt];
      i = -1 - this.find();
    }
    this.pre[i] = kp;
    this.ids[i] = ki;
    this.tags[i] = kt;
    this.bal[i] = balance;
    this.sec[i] = second;
    this.slp[i] = 0;
    this.seq[i] = this.nextSeq++;
    this.size++;
    return i;
  }

  second(i: number): number {
    return this.sec[i]!;
  }
  balance(i: number): number {
    return this.bal[i]!;
  }
  slip(i: number): number {
    return this.slp[i]!;
  }
  set(i: number, balance: number, second: number): void {
    this.bal[i] = balance;
    this.sec[i] = second;
  }
  setSlip(i: number, n: number): void {
    this.slp[i] = n;
  }

  /** Keep the entries last touched after `second - stale` seconds. */
  dropStale(second: number, stale: number): void {
    this.rebuild(this.slots, (i) => second - this.sec[i]! <= stale);
  }

  /** Drop the oldest `n` entries by insertion. */
  dropOldest(n: number): void {
    const live: number[] = [];
    for (let i = 0; i < this.slots; i++) if (this.ids[i] !== 0) live.push(this.seq[i]!);
    if (live.length === 0) return;
    live.sort((x, y) => x - y);
    const cut = live[Math.min(n, live.length) - 1]!;
    this.rebuild(this.slots, (i) => this.seq[i]! > cut);
  }

  /** Re-insert the entries `keep` accepts into `slots` fresh slots. */
  private rebuild(slots: number, keep: (slot: number) => boolean): void {
    const old = { pre: this.pre, ids: this.ids, tags: this.tags, sec: this.sec };
    const [bal, slp, seq] = [this.bal, this.slp, this.seq];
    const kept: number[] = [];
    for (let i = 0; i < this.slots; i++) if (old.ids[i] !== 0 && keep(i)) kept.push(i);
    let n = slots;
    while (n > INITIAL_SLOTS && kept.length * 4 < n) n /= 2; // shrink after a flood has gone
    this.slots = n;
    this.pre = new Int32Array(n);
    this.ids = new Int32Array(n);
    this.tags = new Int32Array(n);
    this.sec = new Int32Array(n);
    this.bal = new Float64Array(n);
    this.slp = new Int32Array(n);
    this.seq = new Float64Array(n);
    this.size = kept.length;
    for (const j of kept) {
      [this.kp, this.ki, this.kt] = [old.pre[j]!, old.ids[j]!, old.tags[j]!];
      const i = -1 - this.find();
      this.pre[i] = this.kp;
      this.ids[i] = this.ki;
      this.tags[i] = this.kt;
      this.sec[i] = old.sec[j]!;
      this.bal[i] = bal[j]!;
      this.slp[i] = slp[j]!;
      this.seq[i] = seq[j]!;
    }
  }
}
