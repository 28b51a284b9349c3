/**
 * Transfer responses: records packed into messages of at most `maxSize`
 * octets (RFC 5936 section 2.2), names compressed where RFC 3597 section 4
 * allows; the question in the first message only (section 2.2.1).
 */
import type { RecordCursor, XfrRecord } from './records.ts';
import { newXfrRecord } from './records.ts';
import { TYPE_CNAME, TYPE_MX, TYPE_NS, TYPE_PTR, TYPE_SOA } from '../../dns/core/rr/types.ts';

/** Types whose RDATA names may be compressed (RFC 3597 section 4): where the names are. */
function rdataNameKind(type: number): 0 | 1 | 2 | 3 {
  switch (type) {
    case TYPE_NS:
    case TYPE_CNAME:
    case TYPE_PTR:
      return 1;
    case TYPE_MX:
      return 2;
    case TYPE_SOA:
      return 3;
    default:
      return 0;
  }
}

export interface XfrMessageOptions {
  /** Message ID (the query's). */
  readonly id: number;
  /** The query's flags word: RD is copied, as BIND does. */
  readonly queryFlags: number;
  /** The query's question (name, type, class), copied into the first message only. */
  readonly question: Uint8Array | undefined;
  /** Most octets per message (at most 65535). */
  readonly maxSize: number;
}

/** Packs records into messages: `add` until false, `take`, `add` that record again; `take` the last. */
export class XfrMessageWriter {
  private readonly o: XfrMessageOptions;
  private readonly buf: Uint8Array;
  private readonly dict = new Map<string, number>();
  private len = 0;
  private count = 0;
  /** The previous record's owner and where its name is in this message (consecutive records mostly share it). */
  private lastKey = '';
  private lastAt = -1;
  private first = true;

  constructor(options: XfrMessageOptions) {
    this.o = options;
    this.buf = new Uint8Array(65535 + 1024);
    this.start();
  }

  private start(): void {
    const b = this.buf;
    const o = this.o;
    b.fill(0, 0, 12);
    b[0] = o.id >>> 8;
    b[1] = o.id & 0xff;
    // QR, opcode 0, AA; RD copied; RA 0.
    b[2] = 0x84 | ((o.queryFlags >>> 8) & 0x01);
    this.len = 12;
    this.count = 0;
    this.dict.clear();
    this.lastKey = '';
    this.lastAt = -1;
    const q = o.question;
    if (this.first && q !== undefined) {
      b[5] = 1;
      b.set(q, 12);
      this.len += q.length;
      // The question name may be pointed at when it is lowercase (names are compared as keys).
      const qn = q.length - 4;
      if (q.subarray(0, qn).some((c) => c >= 0x41 && c <= 0x5a)) return;
      for (let p = 0; p < qn && q[p] !== 0; p += 1 + q[p]!)
        this.dict.set(String.fromCharCode(...q.subarray(p, qn)), 12 + p);
    }
  }

  /** Write a name given by its key, compressed against earlier names of this message. */
  private name(key: string): void {
    const b = this.buf;
    let off = 0;
    while (off < key.length) {
      const suffix = off === 0 ? key : key.slice(off);
      const len = key.charCodeAt(off);
      if (len === 0) break;
      const target = this.dict.get(suffix);
      if (target !== undefined) {
        b[this.len++] = 0xc0 | (target >>> 8);
        b[this.len++] = target & 0xff;
        return;
      }
      if (this.len < 0x3fff) this.dict.set(suffix, this.len);
      b[this.len++] = len;
      for (let i = off + 1; i <= off + len; i++) b[this.len++] = key.charCodeAt(i);
      off += 1 + len;
    }
    b[this.len++] = 0;
  }

  /** An RDATA name at `block[p]`: compressed when it is lowercase, copied otherwise. Returns the offset after it. */
  private rdataName(block: Uint8Array, p: number, end: number): number {
    let q = p;
    let lower = true;
    for (;;) {
      if (q >= end) {
        this.copy(block, p, end);
        return end;
      }
      const l = block[q]!;
      if (l === 0) break;
      if (l > 63) {
        this.copy(block, p, end);
        return end;
      }
      for (let k = q + 1; k <= q + l && k < end; k++) {
        const c = block[k]!;
        if (c >= 0x41 && c <= 0x5a) lower = false;
      }
      q += 1 + l;
    }
    q++;
    if (!lower) {
      this.copy(block, p, q);
      return q;
    }
    let key = '';
    for (let k = p; k < q; k++) key += String.fromCharCode(block[k]!);
    this.name(key);
    return q;
  }

  private copy(block: Uint8Array, from: number, to: number): void {
    this.buf.set(block.subarray(from, to), this.len);
    this.len += to - from;
  }

  /** Add one record; false (nothing written) when it does not fit beside the records already there. */
  add(r: XfrRecord): boolean {
    const worst = r.key.length + 10 + r.len;
    const limit = this.o.maxSize;
    if (this.count > 0 && this.len + worst > limit) return false;
    const mark = this.len;
    const dictSize = this.dict.size;
    if (r.key === this.lastKey && this.lastAt >= 0) {
      this.buf[this.len++] = 0xc0 | (this.lastAt >>> 8);
      this.buf[this.len++] = this.lastAt & 0xff;
    } else {
      this.name(r.key);
      this.lastKey = r.key;
      this.lastAt = this.dict.get(r.key) ?? -1;
    }
    const b = this.buf;
    b[this.len] = r.type >>> 8;
    b[this.len + 1] = r.type & 0xff;
    b[this.len + 2] = 0;
    b[this.len + 3] = 1;
    const ttl = r.ttl >>> 0;
    b[this.len + 4] = ttl >>> 24;
    b[this.len + 5] = (ttl >>> 16) & 0xff;
    b[this.len + 6] = (ttl >>> 8) & 0xff;
    b[this.len + 7] = ttl & 0xff;
    const lenAt = this.len + 8;
    this.len += 10;
    const rdStart = this.len;
    const end = r.start + r.len;
    const kind = rdataNameKind(r.type);
    if (kind === 0) this.copy(r.block, r.start, end);
    else if (kind === 1) this.rdataName(r.block, r.start, end);
    else if (kind === 2) {
      this.copy(r.block, r.start, Math.min(end, r.start + 2));
      if (r.len > 2) this.rdataName(r.block, r.start + 2, end);
    } else {
      const a = this.rdataName(r.block, r.start, end);
      const c = a < end ? this.rdataName(r.block, a, end) : end;
      if (c < end) this.copy(r.block, c, end);
    }
    const rdlen = this.len - rdStart;
    b[lenAt] = rdlen >>> 8;
    b[lenAt + 1] = rdlen & 0xff;
    if (this.count > 0 && this.len > limit) {
      // Compression made it no smaller than feared: undo.
      this.len = mark;
      if (this.dict.size !== dictSize) this.trimDict(mark);
      if (this.lastAt >= mark) this.lastAt = -1;
      return false;
    }
    this.count++;
    return true;
  }

  private trimDict(mark: number): void {
    for (const [k, v] of this.dict) if (v >= mark) this.dict.delete(k);
  }

  /** The message built so far (a copy), and a fresh one started. */
  take(): Uint8Array {
    const b = this.buf;
    b[6] = this.count >>> 8;
    b[7] = this.count & 0xff;
    const out = b.slice(0, this.len);
    this.first = false;
    this.start();
    return out;
  }
}

/** Pull messages from a cursor (undefined at the end; an empty cursor still gives one message). */
export function messagePump(
  cursor: RecordCursor,
  options: XfrMessageOptions,
): () => Uint8Array | undefined {
  const w = new XfrMessageWriter(options);
  const rec = newXfrRecord();
  let held = false;
  let done = false;
  return () => {
    if (done) return undefined;
    for (;;) {
      if (!held && !cursor.next(rec)) {
        done = true;
        return w.take();
      }
      held = false;
      if (!w.add(rec)) {
        held = true;
        return w.take();
      }
    }
  };
}
