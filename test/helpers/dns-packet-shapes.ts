/**
 * dns-packet's record shapes and the record model (`src/dns/core/rr/record.ts`),
 * for tests only: the decoder tests compare the model with dns-packet's
 * `decode`, and some walk fixtures are written in dns-packet's shapes.
 * (Until 1.0 this was the client's deprecated compatibility layer.)
 *
 * Before the model, `DnsLookupResult.records` held dns-packet's objects
 * (`{name, type: 'NAPTR', ttl, class, flush, data: {order, ...}}`), and a
 * `DnsResolver` a user passed had to return them. Now:
 * - `toDnsPacketAnswer(record)` gives a model record in dns-packet's shape,
 *   for code that still reads `.data` (deprecated; dns-packet decodes the
 *   opaque types and the EDNS options, so the result is what dns-packet's
 *   `decode` gave);
 * - a user's resolver may still return dns-packet shapes: the client
 *   converts them (`fromDnsPacketAnswer`) and warns once per process.
 *
 * dns-packet is kept here (as for encoding queries); the decoder does not
 * use it.
 */
// The `buffer` package in a browser build (what dns-packet itself imports); Node's own in Node.
import { Buffer } from 'buffer';
import * as dnsPacket from 'dns-packet';
import type { Answer, Question } from 'dns-packet';
import type {
  DnsQuestion,
  DnsRecord,
  NaptrData,
  SoaData,
  SrvData,
} from '../../src/dns/core/rr/record.ts';
import { CLASS_CODES, TYPE_CODES, type QueryType } from '../../src/dns/core/rr/types.ts';
import type { DnsLookupResult, DnsResolver } from '../../src/client/stub.ts';

interface RdataCodec {
  decode: ((buf: Buffer, offset: number) => unknown) & { bytes: number };
  encode: ((data: unknown, buf?: Buffer, offset?: number) => Buffer) & { bytes: number };
}

// dns-packet exports its per-type codecs at runtime; @types does not declare them.
const lib = dnsPacket as unknown as {
  record(type: string): RdataCodec;
  question: { decode(buf: Buffer, offset: number): Question };
};

/** dns-packet's names of a type and a class code (its own tables, through a question it decodes). */
function packetNames(type: number, klass: number): Question {
  const buf = Buffer.alloc(5);
  buf.writeUInt16BE(type, 1);
  buf.writeUInt16BE(klass, 3);
  return lib.question.decode(buf, 0);
}

/** dns-packet's `decode` of RDATA `rdata` as type `name`; the octets where it cannot read them. */
function packetRdata(name: string, rdata: Uint8Array): unknown {
  const buf = Buffer.alloc(2 + rdata.length);
  buf.writeUInt16BE(rdata.length, 0);
  buf.set(rdata, 2);
  try {
    return lib.record(name).decode(buf, 0);
  } catch {
    return buf.subarray(2);
  }
}

/** The part of a record dns-packet puts in `data`. */
function dataOf(r: Exclude<DnsRecord, { type: 'OPT' }>, typeName: string): unknown {
  switch (r.type) {
    case 'A':
    case 'AAAA':
      return r.address;
    case 'NS':
    case 'CNAME':
    case 'DNAME':
    case 'PTR':
      return r.target;
    case 'MX':
      return { preference: r.preference, exchange: r.exchange };
    case 'SRV':
      return { priority: r.priority, weight: r.weight, port: r.port, target: r.target };
    case 'NAPTR': {
      const { order, preference, flags, services, regexp } = r;
      // dns-packet writes names without the final dot.
      const replacement = r.replacement === '.' ? '.' : r.replacement.replace(/\.$/, '');
      return { order, preference, flags, services, regexp, replacement };
    }
    case 'SOA': {
      const { mname, rname, serial, refresh, retry, expire, minimum } = r;
      return { mname, rname, serial, refresh, retry, expire, minimum };
    }
    case 'TXT':
      return r.strings.map((s) => Buffer.from(s));
    case 'unknown':
      return packetRdata(typeName, r.rdata);
  }
}

/**
 * A record of the model in dns-packet 5's shape (what
 * `DnsLookupResult.records` held before the record model): read the
 * record's own fields instead (`record.order`, `record.target`, ...).
 */
export function toDnsPacketAnswer(r: DnsRecord): Answer {
  const names = packetNames(r.code, r.class & 0x7fff);
  const type = names.type;
  if (r.type === 'OPT') {
    const parts: number[] = [];
    for (const o of r.options)
      parts.push(
        o.code >> 8,
        o.code & 0xff,
        o.value.length >> 8,
        o.value.length & 0xff,
        ...o.value,
      );
    return {
      name: r.name,
      type: 'OPT',
      udpPayloadSize: r.udpPayloadSize,
      extendedRcode: r.extendedRcode,
      ednsVersion: r.ednsVersion,
      flags: r.flags,
      flag_do: r.dnssecOk,
      options: parts.length === 0 ? [] : packetRdata('OPT', Uint8Array.from(parts)),
    } as unknown as Answer;
  }
  return {
    name: r.name,
    type,
    ttl: r.ttl,
    class: names.class,
    flush: (r.class & 0x8000) !== 0,
    data: dataOf(r, type),
  } as unknown as Answer;
}

/** A mnemonic of `core/rr/types.ts` (or `TYPEnnn`/`CLASSnnn`) to its code. */
function codeOf(table: ReadonlyMap<string, number>, name: string, prefix: string): number {
  return table.get(name) ?? Number(name.startsWith(prefix) ? name.slice(prefix.length) : NaN);
}

/**
 * A question of the model in dns-packet 5's shape (its names
 * for types and classes: `UNKNOWN_65280` where the model says `TYPE65280`).
 */
export function toDnsPacketQuestion(q: DnsQuestion): Question {
  const type = codeOf(TYPE_CODES, q.type, 'TYPE');
  const klass = q.class === 'ANY' ? 255 : codeOf(CLASS_CODES, q.class, 'CLASS');
  const names = packetNames(type, klass);
  return { name: q.name, type: names.type, class: names.class };
}

const CLASS_BY_NAME: Readonly<Record<string, number>> = { IN: 1, CS: 2, CH: 3, HS: 4, ANY: 255 };

function str(v: unknown): string {
  return Buffer.isBuffer(v) ? v.toString('utf-8') : String(v ?? '');
}

/** The model's fields of dns-packet's `data` for the types the model takes apart. */
function modelFields(type: string, d: unknown): object | undefined {
  const o = (d ?? {}) as Record<string, unknown>;
  switch (type) {
    case 'A':
    case 'AAAA':
      return { address: String(d) };
    case 'NS':
    case 'CNAME':
    case 'DNAME':
    case 'PTR':
      return { target: String(d) };
    case 'MX':
      return { preference: Number(o.preference ?? 0), exchange: String(o.exchange) };
    case 'SRV':
      return { priority: o.priority, weight: o.weight, port: o.port, target: o.target } as SrvData;
    case 'NAPTR': {
      const r = String(o.replacement ?? '');
      const replacement = r === '' || r === '.' ? '.' : r.endsWith('.') ? r : `${r}.`;
      const f = { flags: str(o.flags), services: str(o.services), regexp: str(o.regexp) };
      return { order: o.order, preference: o.preference, ...f, replacement } as NaptrData;
    }
    case 'SOA':
      return { ...o } as unknown as SoaData;
    case 'TXT': {
      const list = Array.isArray(d) ? d : [d];
      return { strings: list.map((s) => Uint8Array.from(Buffer.from(s as string))) };
    }
  }
  return undefined;
}

/**
 * A record in dns-packet's shape (as a user's `DnsResolver` returned before
 * the record model) in the model: the inverse of `toDnsPacketAnswer`.
 * Types the model keeps opaque are encoded by dns-packet.
 */
export function fromDnsPacketAnswer(a: DnsPacketRecord): DnsRecord {
  const code =
    TYPE_CODES.get(a.type.toUpperCase()) ?? Number(/^UNKNOWN_(\d+)$/.exec(a.type)?.[1] ?? 0);
  if (a.type === 'OPT') {
    const o = a as unknown as {
      udpPayloadSize?: number;
      flags?: number;
      extendedRcode?: number;
      ednsVersion?: number;
    };
    const flags = o.flags ?? 0;
    const size = o.udpPayloadSize ?? 4096;
    return {
      name: a.name,
      code,
      class: size,
      ttl: 0,
      type: 'OPT',
      udpPayloadSize: size,
      extendedRcode: o.extendedRcode ?? 0,
      ednsVersion: o.ednsVersion ?? 0,
      flags,
      dnssecOk: (flags & 0x8000) !== 0,
      options: [],
    };
  }
  const head = { name: a.name, code, class: CLASS_BY_NAME[a.class ?? 'IN'] ?? 1, ttl: a.ttl ?? 0 };
  const type = a.type.toUpperCase();
  const fields = modelFields(type, a.data);
  if (fields !== undefined) return { ...head, type, ...fields } as DnsRecord;
  const rdata =
    a.data instanceof Uint8Array
      ? Uint8Array.from(a.data)
      : Uint8Array.from(lib.record(type).encode(a.data).subarray(2));
  return { ...head, type: 'unknown', typeName: type, rdata };
}

/** A record of the model has a numeric `code`; dns-packet's objects have none. */
function isModel(records: readonly object[]): boolean {
  for (const r of records) if (typeof (r as { code?: unknown }).code !== 'number') return false;
  return true;
}

/** A lookup result in dns-packet's record shapes (what test fixtures are written in). */
export interface DnsPacketLookupResult extends Omit<DnsLookupResult, 'records' | 'additionals'> {
  readonly records: readonly DnsPacketRecord[];
  readonly additionals: readonly DnsPacketRecord[];
}

/** An answer in dns-packet's shape (`{name, type, ttl, class, data}`). */
export interface DnsPacketRecord {
  readonly name: string;
  readonly type: string;
  readonly ttl?: number;
  readonly class?: string;
  readonly data?: unknown;
}

/** A result in the record model: dns-packet shapes converted. */
export function toRecordModel(r: DnsLookupResult | DnsPacketLookupResult): DnsLookupResult {
  if (isModel(r.records) && isModel(r.additionals ?? [])) return r as DnsLookupResult;
  const one = (a: DnsRecord | DnsPacketRecord): DnsRecord =>
    isModel([a]) ? (a as DnsRecord) : fromDnsPacketAnswer(a as DnsPacketRecord);
  return { ...r, records: r.records.map(one), additionals: (r.additionals ?? []).map(one) };
}

/** A test resolver written in dns-packet's shapes, as a DnsResolver of the record model. */
export function packetResolver(
  lookup: (
    qname: string,
    qtype: QueryType,
    signal?: AbortSignal,
  ) => Promise<DnsLookupResult | DnsPacketLookupResult>,
): DnsResolver {
  return { lookup: (qname, qtype, signal) => lookup(qname, qtype, signal).then(toRecordModel) };
}
