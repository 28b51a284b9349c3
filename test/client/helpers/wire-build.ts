/**
 * A test-side builder of DNS messages from raw parts: labels as arbitrary
 * octets (a `.`, `\`, space, 0x00 or 0xff inside a label is a plain octet),
 * optional compression pointers to any name written before, and RDATA for
 * the types the client reads. dns-packet's encoder cannot write such labels
 * (it splits names on `.` and writes UTF-8), so the decoder is checked on
 * these messages against dns-packet's *decoder*.
 */

/** A name: its labels, then optionally a pointer to an earlier name (index into `Builder.names`). */
export interface RawName {
  readonly labels: readonly Uint8Array[];
  /** Index (mod the count) of an earlier name position to point to after the labels; -1 = none. */
  readonly pointer: number;
}

export type RawRecord =
  | { readonly kind: 'A'; readonly addr: readonly number[] }
  | { readonly kind: 'AAAA'; readonly groups: readonly number[] }
  | { readonly kind: 'NS' | 'CNAME' | 'PTR' | 'DNAME'; readonly target: RawName }
  | { readonly kind: 'MX'; readonly preference: number; readonly exchange: RawName }
  | {
      readonly kind: 'SRV';
      readonly priority: number;
      readonly weight: number;
      readonly port: number;
      readonly target: RawName;
    }
  | {
      readonly kind: 'NAPTR';
      readonly order: number;
      readonly preference: number;
      readonly strings: readonly [Uint8Array, Uint8Array, Uint8Array];
      readonly replacement: RawName;
    }
  | {
      readonly kind: 'SOA';
      readonly mname: RawName;
      readonly rname: RawName;
      readonly numbers: readonly [number, number, number, number, number];
    }
  | { readonly kind: 'TXT'; readonly strings: readonly Uint8Array[] }
  | { readonly kind: 'OPT'; readonly options: readonly { code: number; data: Uint8Array }[] }
  | { readonly kind: 'RAW'; readonly type: number; readonly data: Uint8Array };

export interface RawRR {
  readonly owner: RawName;
  readonly klass: number;
  readonly ttl: number;
  readonly rr: RawRecord;
}

export interface RawMessage {
  readonly id: number;
  readonly flags: number;
  readonly question?: { readonly name: RawName; readonly type: number; readonly klass: number };
  readonly sections: readonly [readonly RawRR[], readonly RawRR[], readonly RawRR[]];
}

const TYPE_CODES: Record<string, number> = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  NAPTR: 35,
  DNAME: 39,
  OPT: 41,
};

export class Builder {
  readonly out: number[] = [];
  /** Offsets where a name (or a name's suffix) starts: pointer targets. */
  readonly names: number[] = [];

  u8(v: number): void {
    this.out.push(v & 0xff);
  }
  u16(v: number): void {
    this.out.push((v >>> 8) & 0xff, v & 0xff);
  }
  u32(v: number): void {
    this.out.push((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
  }
  bytes(b: Uint8Array): void {
    for (const x of b) this.out.push(x);
  }

  name(n: RawName): void {
    const starts: number[] = [];
    const target =
      n.pointer >= 0 && this.names.length > 0
        ? this.names[n.pointer % this.names.length]
        : undefined;
    for (const l of n.labels) {
      starts.push(this.out.length);
      this.u8(l.length);
      this.bytes(l);
    }
    if (target !== undefined) this.u16(0xc000 | target);
    else this.u8(0);
    // Pointers must go strictly backwards: these become targets only now.
    for (const s of starts) if (s < 0x3fff) this.names.push(s);
  }

  record(r: RawRR): void {
    this.name(r.owner);
    const rr = r.rr;
    const type = rr.kind === 'RAW' ? rr.type : (TYPE_CODES[rr.kind] as number);
    this.u16(type);
    this.u16(r.klass);
    this.u32(r.ttl);
    const lenAt = this.out.length;
    this.u16(0);
    const start = this.out.length;
    switch (rr.kind) {
      case 'A':
        for (const x of rr.addr) this.u8(x);
        break;
      case 'AAAA':
        for (const g of rr.groups) this.u16(g);
        break;
      case 'NS':
      case 'CNAME':
      case 'PTR':
      case 'DNAME':
        this.name(rr.target);
        break;
      case 'MX':
        this.u16(rr.preference);
        this.name(rr.exchange);
        break;
      case 'SRV':
        this.u16(rr.priority);
        this.u16(rr.weight);
        this.u16(rr.port);
        this.name(rr.target);
        break;
      case 'NAPTR':
        this.u16(rr.order);
        this.u16(rr.preference);
        for (const s of rr.strings) {
          this.u8(s.length);
          this.bytes(s);
        }
        this.name(rr.replacement);
        break;
      case 'SOA':
        this.name(rr.mname);
        this.name(rr.rname);
        for (const x of rr.numbers) this.u32(x);
        break;
      case 'TXT':
        for (const s of rr.strings) {
          this.u8(s.length);
          this.bytes(s);
        }
        break;
      case 'OPT':
        for (const o of rr.options) {
          this.u16(o.code);
          this.u16(o.data.length);
          this.bytes(o.data);
        }
        break;
      case 'RAW':
        this.bytes(rr.data);
        break;
    }
    const len = this.out.length - start;
    this.out[lenAt] = len >>> 8;
    this.out[lenAt + 1] = len & 0xff;
  }
}

export function buildMessage(m: RawMessage): Buffer {
  const b = new Builder();
  b.u16(m.id);
  b.u16(m.flags);
  b.u16(m.question ? 1 : 0);
  b.u16(m.sections[0].length);
  b.u16(m.sections[1].length);
  b.u16(m.sections[2].length);
  if (m.question) {
    b.name(m.question.name);
    b.u16(m.question.type);
    b.u16(m.question.klass);
  }
  for (const s of m.sections) for (const r of s) b.record(r);
  return Buffer.from(b.out);
}
