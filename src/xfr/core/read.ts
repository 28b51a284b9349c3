/**
 * Zone transfers in, the pure part: the requests a secondary sends (SOA,
 * AXFR, IXFR) and the reading of an answer into a whole zone, differences,
 * or "current", RDATA uncompressed (RFC 3597 section 4).
 *
 * @see RFC 5936 section 2.2 (AXFR: SOA, records, SOA); RFC 1995 section 4
 * (IXFR: per version old SOA, deletions, new SOA, additions).
 */
import type { XfrInCode } from './codes.ts';
import { serialCompare } from './serial.ts';
import { soaSerialOf } from '../../dns/core/rr/soa.ts';
import { TYPE_IXFR, TYPE_SOA } from '../../dns/core/rr/types.ts';
import { latin1, sameBytes } from '../../kit/core/bytes.ts';
import { keyToWire } from '../../dns/core/wire/name.ts';

/** One record of a transfer: owner key (lowercased wire name), type, class, TTL, uncompressed RDATA. */
export interface XfrRr {
  readonly key: string;
  readonly type: number;
  readonly cls: number;
  readonly ttl: number;
  readonly rdata: Uint8Array;
}

export interface XfrStep {
  readonly from: XfrRr;
  readonly removed: XfrRr[];
  readonly to: XfrRr;
  readonly added: XfrRr[];
}

export type XfrResult =
  | { readonly kind: 'full'; readonly soa: XfrRr; readonly records: readonly XfrRr[] }
  | { readonly kind: 'incremental'; readonly soa: XfrRr; readonly steps: readonly XfrStep[] }
  | { readonly kind: 'current'; readonly soa: XfrRr };

export class XfrReadError extends Error {
  readonly code: XfrInCode;
  constructor(code: XfrInCode, message: string) {
    super(message);
    this.code = code;
    this.name = 'XfrReadError';
  }
}

const bad = (message: string) => new XfrReadError('XFR_BAD_MESSAGE', message);

/** The name at `off` as wire octets (case kept) and the offset after it; pointers only backwards. */
export function readWireName(msg: Uint8Array, off: number, limit = msg.length): [number[], number] {
  const out: number[] = [];
  let end = -1;
  let p = off;
  let floor = off;
  for (;;) {
    if (p >= (end < 0 ? limit : msg.length)) throw bad(`name runs past its end at byte ${p}`);
    const l = msg[p]!;
    if ((l & 0xc0) === 0xc0) {
      if (p + 1 >= msg.length) throw bad(`truncated pointer at byte ${p}`);
      const target = ((l & 0x3f) << 8) | msg[p + 1]!;
      if (target >= floor) throw bad(`compression pointer at byte ${p} does not point backwards`);
      if (end < 0) end = p + 2;
      floor = target;
      p = target;
      continue;
    }
    if (l > 63) throw bad(`reserved label type at byte ${p}`);
    if (p + 1 + l > (end < 0 ? limit : msg.length))
      throw bad(`label runs past its end at byte ${p}`);
    for (let i = p; i <= p + l; i++) out.push(msg[i]!);
    if (out.length > 255) throw bad(`name longer than 255 octets at byte ${off}`);
    p += 1 + l;
    if (l === 0) return [out, end < 0 ? p : end];
  }
}

export function wireKey(wire: readonly number[]): string {
  let s = '';
  for (const c of wire) s += String.fromCharCode(c >= 0x41 && c <= 0x5a ? c | 0x20 : c);
  return s;
}

/** Where a type's RDATA names are: `n` fixed octets, `N` a name, `s` a string, `*` the rest. */
export const LAYOUTS: Readonly<Record<number, string>> = {
  2: 'N', // NS
  3: 'N', // MD
  4: 'N', // MF
  5: 'N', // CNAME
  6: 'NN*', // SOA
  7: 'N', // MB
  8: 'N', // MG
  9: 'N', // MR
  12: 'N', // PTR
  14: 'NN', // MINFO
  15: '2N', // MX
  17: 'NN', // RP
  18: '2N', // AFSDB
  21: '2N', // RT
  26: '2NN', // PX
  33: '6N', // SRV
  35: '4sssN', // NAPTR
  36: '2N', // KX
  39: 'N', // DNAME
};

/** RDATA of one record, names expanded, ending exactly at RDLENGTH (also the client decoder's). */
export function expandRdata(msg: Uint8Array, type: number, start: number, end: number): Uint8Array {
  const layout = LAYOUTS[type];
  if (layout === undefined) return msg.slice(start, end);
  const out: number[] = [];
  let p = start;
  for (const step of layout) {
    if (step === 'N') {
      const [wire, after] = readWireName(msg, p, end);
      for (const c of wire) out.push(c);
      p = after;
    } else if (step === 's') {
      if (p >= end || p + 1 + msg[p]! > end)
        throw bad(`character-string runs past RDATA at byte ${p}`);
      const n = 1 + msg[p]!;
      for (let i = p; i < p + n; i++) out.push(msg[i]!);
      p += n;
    } else if (step === '*') {
      for (let i = p; i < end; i++) out.push(msg[i]!);
      p = end;
    } else {
      const n = Number(step);
      if (p + n > end) throw bad(`RDATA shorter than its fixed fields at byte ${p}`);
      for (let i = p; i < p + n; i++) out.push(msg[i]!);
      p += n;
    }
  }
  if (p !== end)
    throw bad(`RDATA of type ${type} does not end at RDLENGTH (byte ${p}, not ${end})`);
  if (type === TYPE_SOA && out.length < 22) throw bad('SOA RDATA too short');
  return Uint8Array.from(out);
}

export interface XfrMessage {
  readonly id: number;
  readonly flags: number;
  readonly rcode: number;
  readonly answers: readonly XfrRr[];
}

/** Parse one answer message: header, question(s) skipped, answer records read (authority and additional skipped). */
export function parseXfrMessage(msg: Uint8Array): XfrMessage {
  if (msg.length < 12) throw bad(`a message of ${msg.length} octets (a header is 12)`);
  const count = (o: number) => (msg[o]! << 8) | msg[o + 1]!;
  const qd = count(4);
  const an = count(6);
  let p = 12;
  for (let i = 0; i < qd; i++) {
    p = readWireName(msg, p)[1];
    if (p + 4 > msg.length) throw bad('question runs past the message');
    p += 4;
  }
  const answers: XfrRr[] = [];
  readRecords(msg, p, an, answers);
  return { id: count(0), flags: count(2), rcode: msg[3]! & 0x0f, answers };
}

/** Read `count` records at `p` into `out`, RDATA names expanded; the offset after them. */
export function readRecords(msg: Uint8Array, p: number, count: number, out: XfrRr[]): number {
  const u16 = (o: number) => (msg[o]! << 8) | msg[o + 1]!;
  for (let i = 0; i < count; i++) {
    const [owner, after] = readWireName(msg, p);
    p = after;
    if (p + 10 > msg.length) throw bad(`record header runs past the message at byte ${p}`);
    const type = u16(p);
    const cls = u16(p + 2);
    const ttl =
      ((msg[p + 4]! << 24) | (msg[p + 5]! << 16) | (msg[p + 6]! << 8) | msg[p + 7]!) >>> 0;
    const rdlen = u16(p + 8);
    p += 10;
    if (p + rdlen > msg.length) throw bad(`RDATA runs past the message at byte ${p}`);
    out.push({ key: wireKey(owner), type, cls, ttl, rdata: expandRdata(msg, type, p, p + rdlen) });
    p += rdlen;
  }
  return p;
}

/** Two records are the same (owner, type, class, RDATA; the TTL is not part of identity). */
export function sameRr(a: XfrRr, b: XfrRr): boolean {
  return a.key === b.key && a.type === b.type && a.cls === b.cls && sameBytes(a.rdata, b.rdata);
}

const serialOf = (r: XfrRr) => soaSerialOf(r.rdata);

type Phase = 'first' | 'second' | 'full' | 'from' | 'removing' | 'adding' | 'done';

/** Reads an AXFR or IXFR answer message by message until its closing SOA; throws `XfrReadError`. */
export class XfrReader {
  private readonly originKey: string;
  private readonly id: number;
  private readonly qtype: number;
  private readonly clientSerial: number | undefined;
  private phase: Phase = 'first';
  private first: XfrRr | undefined;
  private readonly records: XfrRr[] = [];
  private readonly steps: { from: XfrRr; removed: XfrRr[]; to?: XfrRr; added: XfrRr[] }[] = [];
  private readonly maxRecords: number;
  /** Messages and records read so far. */
  messages = 0;
  count = 0;

  /** `maxRecords`: one more record (SOAs included) fails with XFR_TOO_MANY_RECORDS before it is kept. */
  constructor(
    originKey: string,
    id: number,
    qtype: number,
    clientSerial?: number,
    maxRecords = Infinity,
  ) {
    this.originKey = originKey;
    this.id = id;
    this.qtype = qtype;
    this.clientSerial = clientSerial;
    this.maxRecords = maxRecords;
  }

  /** The first record read (the zone SOA), if any: what an SOA query's answer gives. */
  get firstSoa(): XfrRr | undefined {
    return this.first;
  }

  /** Read one message of the answer; true once the closing SOA has been read. */
  push(msg: Uint8Array): boolean {
    const m = parseXfrMessage(msg);
    if (this.phase === 'done')
      throw new XfrReadError('XFR_TRAILING_DATA', 'a message after the closing SOA');
    if (m.id !== this.id || (m.flags & 0x8000) === 0 || ((m.flags >> 11) & 0xf) !== 0)
      throw new XfrReadError(
        'XFR_BAD_ANSWER',
        `not an answer to our request (ID ${m.id}, flags 0x${m.flags.toString(16)})`,
      );
    if (m.rcode !== 0) throw new XfrReadError('XFR_RCODE', `the primary answered rcode ${m.rcode}`);
    if (m.flags & 0x0200)
      throw new XfrReadError('XFR_BAD_ANSWER', 'a truncated (TC) transfer message');
    this.messages++;
    const phase = () => this.phase as Phase;
    const single = this.messages === 1 && m.answers.length === 1;
    for (let i = 0; i < m.answers.length; i++) {
      if (phase() === 'done')
        throw new XfrReadError(
          'XFR_TRAILING_DATA',
          `${m.answers.length - i} record(s) after the closing SOA`,
        );
      if (this.count >= this.maxRecords)
        throw new XfrReadError(
          'XFR_TOO_MANY_RECORDS',
          `more than ${this.maxRecords} records (maxRecords); aborted after ${this.messages} message(s)`,
        );
      this.record(m.answers[i]!, single);
      this.count++;
    }
    return phase() === 'done';
  }

  private isSoa(r: XfrRr): boolean {
    return r.type === TYPE_SOA && r.key === this.originKey;
  }

  private record(r: XfrRr, single: boolean): void {
    switch (this.phase) {
      case 'first':
        if (!this.isSoa(r))
          throw new XfrReadError('XFR_NO_SOA', 'the first record is not the zone SOA');
        this.first = r;
        if (this.qtype === TYPE_IXFR && single) {
          // RFC 1995 section 2: a single SOA: the client is current.
          const c = this.clientSerial;
          if (c !== undefined && serialCompare(serialOf(r), c) <= 0) this.phase = 'done';
          else this.phase = 'second';
        } else this.phase = this.qtype === TYPE_IXFR ? 'second' : 'full';
        return;
      case 'second':
        if (this.isSoa(r) && !sameRr(r, this.first!)) {
          this.steps.push({ from: r, removed: [], added: [] });
          this.phase = 'removing';
          return;
        }
        this.phase = 'full';
        return this.record(r, false);
      case 'full':
        if (this.isSoa(r)) return this.closing(r);
        this.records.push(r);
        return;
      default:
        return this.incremental(r);
    }
  }

  /** The closing SOA: the first one again. */
  private closing(r: XfrRr): void {
    if (!sameRr(r, this.first!))
      throw new XfrReadError(
        'XFR_SOA_MISMATCH',
        `closing SOA serial ${serialOf(r)}, first ${serialOf(this.first!)}`,
      );
    this.phase = 'done';
  }

  private incremental(r: XfrRr): void {
    const step = this.steps[this.steps.length - 1]!;
    if (!this.isSoa(r)) {
      if (this.phase === 'from')
        throw new XfrReadError('XFR_IXFR_SEQUENCE', 'a record where an old SOA is expected');
      (this.phase === 'removing' ? step.removed : step.added).push(r);
      return;
    }
    if (this.phase === 'removing') {
      step.to = r;
      this.phase = 'adding';
      return;
    }
    // After the additions: the closing SOA (the new version reached), or the next step's old SOA.
    const toSerial = serialOf(step.to!);
    if (toSerial === serialOf(this.first!)) return this.closing(r);
    if (serialOf(r) !== toSerial)
      throw new XfrReadError(
        'XFR_IXFR_SEQUENCE',
        `a step from serial ${serialOf(r)} after a step to ${toSerial}`,
      );
    this.steps.push({ from: r, removed: [], added: [] });
    this.phase = 'removing';
  }

  /** The answer read (once `push` returned true). */
  result(): XfrResult {
    if (this.phase !== 'done' || this.first === undefined)
      throw new XfrReadError(
        'XFR_CUT_SHORT',
        `the stream ended after ${this.count} record(s), before its closing SOA`,
      );
    const soa = this.first;
    if (this.steps.length > 0) {
      const steps = this.steps.map((s) => ({
        from: s.from,
        removed: s.removed,
        to: s.to!,
        added: s.added,
      }));
      return { kind: 'incremental', soa, steps };
    }
    if (this.records.length === 0 && this.qtype === TYPE_IXFR) return { kind: 'current', soa };
    return { kind: 'full', soa, records: [soa, ...this.records] };
  }
}

/** Apply IXFR steps to a zone's records (SOA included): each step's old SOA and deletions must be there. */
export function applyIxfr(records: readonly XfrRr[], steps: readonly XfrStep[]): XfrRr[] {
  const id = (r: XfrRr) => `${r.key}\u0000${r.type}\u0000${r.cls}\u0000${latin1(r.rdata)}`;
  const map = new Map<string, XfrRr>();
  let soa: XfrRr | undefined;
  for (const r of records) {
    if (r.type === TYPE_SOA) soa = r;
    else map.set(id(r), r);
  }
  for (const s of steps) {
    if (soa === undefined || serialOf(soa) !== serialOf(s.from))
      throw new XfrReadError(
        'XFR_IXFR_SEQUENCE',
        `a step from serial ${serialOf(s.from)}, the zone has ${soa ? serialOf(soa) : 'none'}`,
      );
    for (const r of s.removed) {
      if (!map.delete(id(r)))
        throw new XfrReadError(
          'XFR_IXFR_SEQUENCE',
          `serial ${serialOf(s.to)} deletes a record the zone does not hold (type ${r.type})`,
        );
    }
    for (const r of s.added) map.set(id(r), r);
    soa = s.to;
  }
  return [soa!, ...map.values()];
}

/** A request for the zone: SOA, AXFR, or IXFR with the client's SOA in authority (RFC 1995 section 3). */
export function transferRequest(
  originKey: string,
  qtype: number,
  id: number,
  soa?: XfrRr,
): Uint8Array {
  const out: number[] = [id >>> 8, id & 0xff, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0];
  out.push(...keyToWire(originKey), qtype >>> 8, qtype & 0xff, 0, 1);
  if (qtype === TYPE_IXFR && soa !== undefined) {
    out[9] = 1;
    // Its owner a pointer to the question's name, class IN, TTL 0.
    const rdlen = soa.rdata.length;
    out.push(0xc0, 12, 0, TYPE_SOA, 0, 1, 0, 0, 0, 0, rdlen >>> 8, rdlen & 0xff, ...soa.rdata);
  }
  return Uint8Array.from(out);
}
