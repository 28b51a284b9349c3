/**
 * The client's DNS response decoder: a message into the record model
 * (`core/rr/record.ts`). Strict: every RDATA must end exactly at RDLENGTH,
 * strings and names may not run past it, header counts are checked against a
 * limit before anything is decoded, compression pointers must point strictly
 * backwards (which bounds every loop). Every error is a WireError with a
 * stable code and the byte offset; nothing else is thrown.
 *
 * Names as dns-packet (the decoder this one replaced) wrote them: labels as
 * UTF-8 (invalid sequences U+FFFD), joined with `.` unescaped (but `\.` in
 * SOA RNAME), case kept, no trailing dot, the root `.`.
 * RFC 1035 section 4.1, RFC 3597 section 4, RFC 6891 section 6.1.2.
 */
import { decodeUtf8 } from '../../../kit/core/utf8.ts';
import { readU16, readU32 } from './bytes.ts';
import type { DnsQuestion, DnsRecord, EdnsOption } from '../rr/record.ts';
import {
  TYPE_A,
  TYPE_AAAA,
  TYPE_CNAME,
  TYPE_DNAME,
  TYPE_MX,
  TYPE_NAPTR,
  TYPE_NS,
  TYPE_OPT,
  TYPE_PTR,
  TYPE_SOA,
  TYPE_SRV,
  TYPE_TXT,
  className,
  typeName,
} from '../rr/types.ts';
import { expandRdata } from '../../../xfr/core/read.ts';
import {
  NAPTR_FLAGS,
  NAPTR_REGEXP,
  NAPTR_REPLACEMENT,
  NAPTR_SERVICES,
  naptrLayout,
  naptrOrder,
  naptrPreference,
} from '../rr/naptr.ts';
import type { ClientCode } from '../../../ddds/core/client-codes.ts';

export const WIRE_BAD_RESPONSE = 'DNS_BAD_RESPONSE';
export const WIRE_RRSET_TOO_LARGE = 'DNS_RRSET_TOO_LARGE';

/** The codes of the response decoder: client codes (core/ddds/client-codes.ts). */
export type WireErrorCode = Extract<ClientCode, 'DNS_BAD_RESPONSE' | 'DNS_RRSET_TOO_LARGE'>;

/** A malformed or over-large response. `offset` is the byte the problem is at. */
export class WireError extends Error {
  readonly code: WireErrorCode;
  readonly offset: number;
  constructor(code: WireErrorCode, message: string, offset = 0) {
    super(message);
    this.code = code;
    this.offset = offset;
    this.name = 'WireError';
  }
}

function bad(message: string, offset: number): WireError {
  return new WireError(WIRE_BAD_RESPONSE, message, offset);
}

export const RCODE_NAMES: readonly string[] = [
  'NOERROR',
  'FORMERR',
  'SERVFAIL',
  'NXDOMAIN',
  'NOTIMP',
  'REFUSED',
  'YXDOMAIN',
  'YXRRSET',
  'NXRRSET',
  'NOTAUTH',
  'NOTZONE',
];

const OPCODE_NAMES: readonly string[] = [
  'QUERY',
  'IQUERY',
  'STATUS',
  'OPCODE3',
  'NOTIFY',
  'UPDATE',
];

/** A decoded response. */
export interface DecodedResponse<Q = DnsQuestion, R = DnsRecord> {
  readonly id: number;
  readonly qr: boolean;
  readonly opcode: string;
  readonly aa: boolean;
  readonly tc: boolean;
  readonly rd: boolean;
  readonly ra: boolean;
  /** Authentic Data (RFC 4035 section 3.2.3): a validating resolver vouches for the answer. */
  readonly ad: boolean;
  readonly rcode: string;
  readonly questions: readonly Q[];
  readonly answers: readonly R[];
  readonly authorities: readonly R[];
  readonly additionals: readonly R[];
}

/**
 * The question we asked, as sent: a response whose question section is the
 * same bytes has this question (decoded once when the query was built).
 */
export interface KnownQuestion<B extends Uint8Array = Uint8Array, Q = DnsQuestion> {
  /** Our query; its question section starts at byte 12. */
  readonly wire: B;
  /** Length of the question section in `wire`. */
  readonly length: number;
  /** `wire`'s question, decoded. */
  readonly question: Q;
}

// Strings: UTF-8 as Buffer#toString('utf-8') decodes it.

/** Decodes `bytes[start, end)` as Buffer#toString('utf-8') does (the client passes Node's). */
export type Utf8Decoder = (bytes: Uint8Array, start: number, end: number) => string;

export const utf8ToString: Utf8Decoder = decodeUtf8;

// eslint-disable-next-line no-restricted-syntax -- module state: the decoder of the message being decoded (set per call).
let utf8: Utf8Decoder = utf8ToString;

/** Text of `bytes[start, end)`: short ASCII runs built here (cheaper than a native call), the rest decoded. */
function text(bytes: Uint8Array, start: number, end: number): string {
  const n = end - start;
  if (n <= 10) {
    let s = '';
    for (let i = start; i < end; i++) {
      const c = bytes[i]!;
      if (c >= 0x80) return utf8(bytes, start, end);
      s += String.fromCharCode(c);
    }
    return s;
  }
  return utf8(bytes, start, end);
}

// Names, with a per-message memo: owner names mostly point to a name decoded
// before (the question), so each distinct suffix is decoded once per message.

const MEMO_MAX = 32;
const memoOffset = new Int32Array(MEMO_MAX);
const memoLabelBytes = new Int32Array(MEMO_MAX);
const memoName: string[] = new Array<string>(MEMO_MAX).fill('');
// eslint-disable-next-line no-restricted-syntax -- module state: the per-message name memo (reset per message).
let memoCount = 0;

function memoPut(offset: number, name: string, labelBytes: number): void {
  if (memoCount < MEMO_MAX) {
    memoOffset[memoCount] = offset;
    memoLabelBytes[memoCount] = labelBytes;
    memoName[memoCount] = name;
    memoCount++;
  }
}

function memoFind(offset: number): number {
  for (let i = 0; i < memoCount; i++) if (memoOffset[i] === offset) return i;
  return -1;
}

/** Segments of the name being decoded (its start, then each pointer target). */
const SEG_MAX = 8;
const segOffset = new Int32Array(SEG_MAX);
const segOctet = new Int32Array(SEG_MAX);
const segLabelBytes = new Int32Array(SEG_MAX);

/**
 * The name's presentation octets, decoded at once: the same text as decoding
 * each label, since an ASCII `.` ends an unfinished UTF-8 sequence as a label's end does.
 */
const NAME_OCTETS = new Uint8Array(512);

/** For error messages: -2 a question, -1 a record's head, else the RDATA type; `ctxAt` its first byte. */
// eslint-disable-next-line no-restricted-syntax -- module state: error context of the decode in progress.
let ctxType = -1;
// eslint-disable-next-line no-restricted-syntax -- module state: error context of the decode in progress.
let ctxAt = 0;

function where(): string {
  if (ctxType === -2) return `question at byte ${ctxAt}`;
  if (ctxType === -1) return `record at byte ${ctxAt}`;
  return `${typeName(ctxType)} record at byte ${ctxAt}`;
}

/** Octets the last decodeName consumed at the name's own position. */
// eslint-disable-next-line no-restricted-syntax -- module state: an out-parameter of decodeName, read right after the call.
let nameBytes = 0;

/**
 * Decode the name at `start`. Its uncompressed part must end by `limit`
 * (RDLENGTH's end in RDATA; -1: the message's end). Sets `nameBytes`.
 * `mail` is dns-packet's SOA RNAME mode (a `.` inside a label written `\.`).
 * RFC 1035 sections 3.1 (255 octets) and 4.1.4 (pointers).
 */
function decodeName(buf: Uint8Array, start: number, limit: number, mail: boolean): string {
  const len = buf.length;
  let o = start;
  let end = limit < 0 ? len : limit;
  // dns-packet's rule, which also bounds the walk: a pointer must point
  // before the start of the part it is found in (the name's start, then each
  // pointer's target), so targets strictly decrease.
  let segment = start;
  let segs = 0;
  let consumed = -1;
  let labelBytes = 0;
  let suffix = '';
  let past = limit < 0 ? 'the end of the message' : 'RDLENGTH';
  let n = 0;
  let high = 0;
  if (!mail) {
    segOffset[0] = start;
    segOctet[0] = 0;
    segLabelBytes[0] = 0;
    segs = 1;
  }
  for (;;) {
    if (o >= end) {
      throw bad(`${where()}: name at byte ${start} runs past ${past}`, o);
    }
    const b = buf[o]!;
    if (b === 0) {
      if (consumed < 0) consumed = o + 1 - start;
      break;
    }
    const kind = b & 0xc0;
    if (kind === 0) {
      if (o + 1 + b > end) {
        throw bad(`${where()}: label at byte ${o} runs past ${past}`, o);
      }
      labelBytes += b + 1;
      if (labelBytes > 254) {
        throw bad(`${where()}: name at byte ${start} is longer than 255 octets`, o);
      }
      if (n !== 0) NAME_OCTETS[n++] = 0x2e;
      const stop = o + 1 + b;
      for (let i = o + 1; i < stop; i++) {
        const c = buf[i]!;
        if (c === 0x2e && mail) NAME_OCTETS[n++] = 0x5c;
        high |= c;
        NAME_OCTETS[n++] = c;
      }
      o = stop;
      continue;
    }
    if (kind !== 0xc0) {
      throw bad(`${where()}: bad label type 0x${b.toString(16)} at byte ${o}`, o);
    }
    if (o + 2 > len) {
      throw bad(`${where()}: compression pointer at byte ${o} is cut short`, o);
    }
    const target = ((b & 0x3f) << 8) | buf[o + 1]!;
    if (target >= segment) {
      throw bad(
        `${where()}: compression pointer at byte ${o} points to byte ${target}, not before byte ${segment}`,
        o,
      );
    }
    if (consumed < 0) consumed = o + 2 - start;
    if (!mail) {
      const hit = memoFind(target);
      if (hit >= 0) {
        labelBytes += memoLabelBytes[hit]!;
        if (labelBytes > 254) {
          throw bad(`${where()}: name at byte ${start} is longer than 255 octets`, o);
        }
        suffix = memoName[hit]!;
        break;
      }
      if (segs < SEG_MAX) {
        segOffset[segs] = target;
        segOctet[segs] = n;
        segLabelBytes[segs] = labelBytes;
        segs++;
      }
    }
    segment = target;
    o = target;
    end = len;
    past = 'the end of the message';
  }
  nameBytes = consumed;
  if (n === 0) return suffix === '' ? '.' : suffix;
  const own = text(NAME_OCTETS, 0, n);
  const name = suffix === '' ? own : `${own}.${suffix}`;
  // Memoise each part decoded here that starts with a label: a later pointer
  // to it takes the text from there on. Octet positions are text positions
  // only when every octet is ASCII.
  if (high < 0x80) {
    for (let k = 0; k < segs; k++) {
      const u = segOctet[k]!;
      if (u >= n) break;
      const at = segOffset[k]!;
      if ((buf[at]! & 0xc0) !== 0 || buf[at] === 0 || memoFind(at) >= 0) continue;
      memoPut(at, u === 0 ? name : name.slice(u + 1), labelBytes - segLabelBytes[k]!);
    }
  }
  return name;
}

/** Where the fields of the NAPTR being decoded are (scratch of `naptrLayout`). */
const NAPTR_AT = new Int32Array(4);

/** A character-string at `o` inside RDATA ending at `end`. */
function decodeString(buf: Uint8Array, o: number, end: number): string {
  if (o >= end) throw bad(`${where()}: character-string at byte ${o} runs past RDLENGTH`, o);
  const n = buf[o]!;
  if (o + 1 + n > end) {
    throw bad(`${where()}: character-string at byte ${o} (${n} octets) runs past RDLENGTH`, o);
  }
  return n === 0 ? '' : text(buf, o + 1, o + 1 + n);
}

/** IPv6 text exactly as dns-packet's ip-codec writes it (first run of zero groups compressed). */
function ipv6Text(buf: Uint8Array, o: number): string {
  let s = '';
  for (let i = 0; i < 16; i += 2) {
    if (i !== 0) s += ':';
    s += readU16(buf, o + i).toString(16);
  }
  return s.replace(/(^|:)0(:0)*:0(:|$)/, '$1::$3').replace(/:{3,4}/, '::');
}

function lengthMismatch(type: string, start: number, used: number, rdlength: number): WireError {
  return bad(
    `${type} record at byte ${start}: RDATA is ${used} bytes but RDLENGTH says ${rdlength}`,
    start,
  );
}

/** The record fields every variant starts with (kept in one order: one object shape per type). */
interface Head {
  name: string;
  code: number;
  class: number;
  ttl: number;
}

/** A plain Uint8Array copy of `buf[start, end)` (not a Buffer when `buf` is one). */
function copy(buf: Uint8Array, start: number, end: number): Uint8Array {
  return new Uint8Array(buf.subarray(start, end));
}

/** The record scratch head (filled per record, its fields copied into the record). */
const HEAD: Head = { name: '', code: 0, class: 0, ttl: 0 };

function head(name: string, code: number, klass: number, ttl: number): Head {
  HEAD.name = name;
  HEAD.code = code;
  HEAD.class = klass;
  HEAD.ttl = ttl;
  return HEAD;
}

/** The names of RDATA holding one domain name. */
function nameRecord(buf: Uint8Array, h: Head, start: number, rd: number, end: number): DnsRecord {
  const target = decodeName(buf, rd, end, false);
  const t = h.code;
  if (nameBytes !== end - rd) throw lengthMismatch(typeName(t), start, nameBytes, end - rd);
  const type =
    t === TYPE_NS ? 'NS' : t === TYPE_CNAME ? 'CNAME' : t === TYPE_DNAME ? 'DNAME' : 'PTR';
  return { name: h.name, code: t, class: h.class, ttl: h.ttl, type, target };
}

function srvRecord(buf: Uint8Array, h: Head, start: number, rd: number, end: number): DnsRecord {
  const rdlength = end - rd;
  if (rdlength < 6) throw bad(`${where()}: RDATA of ${rdlength} bytes is cut short`, rd);
  const priority = readU16(buf, rd);
  const weight = readU16(buf, rd + 2);
  const port = readU16(buf, rd + 4);
  const target = decodeName(buf, rd + 6, end, false);
  if (6 + nameBytes !== rdlength) throw lengthMismatch('SRV', start, 6 + nameBytes, rdlength);
  const { name, code, ttl } = h;
  return { name, code, class: h.class, ttl, type: 'SRV', priority, weight, port, target };
}

/** RFC 3403 section 4.1: ORDER, PREFERENCE, FLAGS, SERVICES, REGEXP, REPLACEMENT. */
function naptrRecord(buf: Uint8Array, h: Head, start: number, rd: number, end: number): DnsRecord {
  const rdlength = end - rd;
  if (rdlength < 4) throw bad(`${where()}: RDATA of ${rdlength} bytes is cut short`, rd);
  const short = naptrLayout(buf, rd, end, NAPTR_AT);
  if (short >= 0) decodeString(buf, short, end); // throws: the string runs past RDLENGTH
  const flags = decodeString(buf, NAPTR_AT[NAPTR_FLAGS]!, end);
  const services = decodeString(buf, NAPTR_AT[NAPTR_SERVICES]!, end);
  const regexp = decodeString(buf, NAPTR_AT[NAPTR_REGEXP]!, end);
  const at = NAPTR_AT[NAPTR_REPLACEMENT]!;
  const next = decodeName(buf, at, end, false);
  if (at + nameBytes !== end) throw lengthMismatch('NAPTR', start, at + nameBytes - rd, rdlength);
  return {
    name: h.name,
    code: h.code,
    class: h.class,
    ttl: h.ttl,
    type: 'NAPTR',
    order: naptrOrder(buf, rd),
    preference: naptrPreference(buf, rd),
    flags,
    services,
    regexp,
    // Fully qualified, as the DDDS reads it (core/rr/record.ts).
    replacement: next === '.' ? '.' : `${next}.`,
  };
}

function soaRecord(buf: Uint8Array, h: Head, start: number, rd: number, end: number): DnsRecord {
  let o = rd;
  const mname = decodeName(buf, o, end, false);
  o += nameBytes;
  const rname = decodeName(buf, o, end, true);
  o += nameBytes;
  if (o + 20 > end) throw bad(`${where()}: RDATA of ${end - rd} bytes is cut short`, o);
  if (o + 20 !== end) throw lengthMismatch('SOA', start, o + 20 - rd, end - rd);
  return {
    name: h.name,
    code: h.code,
    class: h.class,
    ttl: h.ttl,
    type: 'SOA',
    mname,
    rname,
    serial: readU32(buf, o),
    refresh: readU32(buf, o + 4),
    retry: readU32(buf, o + 8),
    expire: readU32(buf, o + 12),
    minimum: readU32(buf, o + 16),
  };
}

/** TXT (RFC 1035 section 3.3.14): character-strings filling RDATA exactly. */
function txtRecord(buf: Uint8Array, h: Head, rd: number, end: number): DnsRecord {
  const strings: Uint8Array[] = [];
  for (let o = rd; o < end;) {
    const n = buf[o]!;
    if (o + 1 + n > end) {
      throw bad(`${where()}: character-string at byte ${o} (${n} octets) runs past RDLENGTH`, o);
    }
    strings.push(copy(buf, o + 1, o + 1 + n));
    o += 1 + n;
  }
  return { name: h.name, code: h.code, class: h.class, ttl: h.ttl, type: 'TXT', strings };
}

/**
 * OPT (RFC 6891 section 6.1.2-6.1.3): the payload size in CLASS, extended
 * RCODE, version, DO and Z in TTL; options (code, length, value) fill RDATA.
 */
function optRecord(
  buf: Uint8Array,
  name: string,
  fixed: number,
  rd: number,
  end: number,
): DnsRecord {
  const options: EdnsOption[] = [];
  for (let o = rd; o < end;) {
    if (o + 4 > end) throw bad(`${where()}: EDNS option at byte ${o} is cut short`, o);
    const n = readU16(buf, o + 2);
    if (o + 4 + n > end) {
      throw bad(`${where()}: EDNS option at byte ${o} (${n} octets) runs past RDLENGTH`, o);
    }
    options.push({ code: readU16(buf, o), value: copy(buf, o + 4, o + 4 + n) });
    o += 4 + n;
  }
  const flags = readU16(buf, fixed + 6);
  return {
    name,
    code: TYPE_OPT,
    class: readU16(buf, fixed + 2),
    ttl: readU32(buf, fixed + 4),
    type: 'OPT',
    udpPayloadSize: readU16(buf, fixed + 2),
    extendedRcode: buf[fixed + 4]!,
    ednsVersion: buf[fixed + 5]!,
    flags,
    dnssecOk: (flags & 0x8000) !== 0,
    options,
  };
}

/** Any other type: its RDATA's octets, names expanded where RFC 3597 lets them be compressed. */
function opaqueRecord(buf: Uint8Array, h: Head, start: number, rd: number, end: number): DnsRecord {
  let rdata: Uint8Array;
  try {
    rdata = new Uint8Array(expandRdata(buf, h.code, rd, end));
  } catch (e) {
    throw bad(`${where()}: ${e instanceof Error ? e.message : String(e)}`, start);
  }
  const { name, code, ttl } = h;
  return { name, code, class: h.class, ttl, type: 'unknown', typeName: typeName(code), rdata };
}

/** The record whose RDATA is `buf[rd, end)`; `start` is its first byte. */
function decodeRdata(buf: Uint8Array, h: Head, start: number, rd: number, end: number): DnsRecord {
  const rdlength = end - rd;
  const type = h.code;
  ctxType = type;
  switch (type) {
    case TYPE_A: {
      if (rdlength !== 4) throw lengthMismatch('A', start, 4, rdlength);
      const address = `${buf[rd]}.${buf[rd + 1]}.${buf[rd + 2]}.${buf[rd + 3]}`;
      return { name: h.name, code: type, class: h.class, ttl: h.ttl, type: 'A', address };
    }
    case TYPE_AAAA: {
      if (rdlength !== 16) throw lengthMismatch('AAAA', start, 16, rdlength);
      const address = ipv6Text(buf, rd);
      return { name: h.name, code: type, class: h.class, ttl: h.ttl, type: 'AAAA', address };
    }
    case TYPE_NS:
    case TYPE_CNAME:
    case TYPE_PTR:
    case TYPE_DNAME:
      return nameRecord(buf, h, start, rd, end);
    case TYPE_MX: {
      if (rdlength < 2) throw bad(`${where()}: RDATA of ${rdlength} bytes is cut short`, rd);
      const preference = readU16(buf, rd);
      const exchange = decodeName(buf, rd + 2, end, false);
      if (2 + nameBytes !== rdlength) throw lengthMismatch('MX', start, 2 + nameBytes, rdlength);
      const { name, ttl } = h;
      return { name, code: type, class: h.class, ttl, type: 'MX', preference, exchange };
    }
    case TYPE_SRV:
      return srvRecord(buf, h, start, rd, end);
    case TYPE_NAPTR:
      return naptrRecord(buf, h, start, rd, end);
    case TYPE_SOA:
      return soaRecord(buf, h, start, rd, end);
    case TYPE_TXT:
      return txtRecord(buf, h, rd, end);
  }
  return opaqueRecord(buf, h, start, rd, end);
}

function decodeQuestion(buf: Uint8Array, o: number): DnsQuestion {
  ctxType = -2;
  ctxAt = o;
  const name = decodeName(buf, o, -1, false);
  const f = o + nameBytes;
  if (f + 4 > buf.length) throw bad(`question at byte ${o} is cut short`, o);
  return { name, type: typeName(readU16(buf, f)), class: className(readU16(buf, f + 2)) };
}

/** The question at byte 12 of a one-question message and the octets it takes. */
export function readQuestion(buf: Uint8Array): { question: DnsQuestion; length: number } {
  memoCount = 0;
  const question = decodeQuestion(buf, 12);
  return { question, length: nameBytes + 4 };
}

/**
 * A record of the model from uncompressed RDATA (a zone's record), read as a
 * response's records are. Throws WireError DNS_BAD_RESPONSE when the RDATA
 * does not read as its type.
 */
export function decodeRecordData(
  name: string,
  code: number,
  klass: number,
  ttl: number,
  rdata: Uint8Array,
): DnsRecord {
  utf8 = utf8ToString;
  memoCount = 0;
  ctxAt = 0;
  ctxType = code;
  if (code === TYPE_OPT) {
    const head = { name, code, class: klass, ttl, type: 'unknown' as const };
    return { ...head, typeName: typeName(code), rdata: copy(rdata, 0, rdata.length) };
  }
  return decodeRdata(rdata, head(name, code, klass, ttl), 0, 0, rdata.length);
}

/** Offset just past the last record decodeRecord read. */
// eslint-disable-next-line no-restricted-syntax -- module state: an out-parameter of decodeRecord, read right after the call.
let recordEnd = 0;

function decodeRecord(buf: Uint8Array, start: number): DnsRecord {
  const len = buf.length;
  ctxType = -1;
  ctxAt = start;
  const name = decodeName(buf, start, -1, false);
  const fixed = start + nameBytes;
  if (fixed + 10 > len) throw bad(`record at byte ${start} is cut short`, start);
  const type = readU16(buf, fixed);
  const rdlength = readU16(buf, fixed + 8);
  const rd = fixed + 10;
  const end = rd + rdlength;
  if (end > len) {
    throw bad(
      `record at byte ${start}: RDLENGTH ${rdlength} runs past the end of the message (${len} bytes)`,
      fixed + 8,
    );
  }
  recordEnd = end;
  if (type === TYPE_OPT) {
    ctxType = type;
    return optRecord(buf, name, fixed, rd, end);
  }
  const h = head(name, type, readU16(buf, fixed + 2), readU32(buf, fixed + 4));
  return decodeRdata(buf, h, start, rd, end);
}

/**
 * Decode a whole response. Throws WireError `DNS_BAD_RESPONSE` when it is
 * malformed, `DNS_RRSET_TOO_LARGE` when its header counts more than
 * `maxRecords` records. Octets after the last record are ignored.
 * `utf8Decoder` replaces the JavaScript UTF-8 decoder.
 */
export function decodeResponseMessage(
  buf: Uint8Array,
  maxRecords: number,
  known?: KnownQuestion,
  utf8Decoder?: Utf8Decoder,
): DecodedResponse {
  const len = buf.length;
  utf8 = utf8Decoder ?? utf8ToString;
  if (len < 12) throw bad(`message of ${len} bytes has no header`, 0);
  const ancount = readU16(buf, 6);
  const nscount = readU16(buf, 8);
  const arcount = readU16(buf, 10);
  const total = ancount + nscount + arcount;
  if (total > maxRecords) {
    throw new WireError(
      WIRE_RRSET_TOO_LARGE,
      `response carries ${total} records, over the client's limit of ${maxRecords}`,
      6,
    );
  }
  const flags = readU16(buf, 2);
  const qdcount = readU16(buf, 4);
  memoCount = 0;
  let offset = 12;
  const questions: DnsQuestion[] = [];
  if (known !== undefined && qdcount === 1 && sameQuestion(buf, known)) {
    // Our own question, byte for byte: it decodes to the question we built.
    questions.push(known.question);
    offset += known.length;
    const labelBytes = known.length - 5;
    if (labelBytes > 0) memoPut(12, known.question.name, labelBytes);
  } else {
    for (let i = 0; i < qdcount; i++) {
      questions.push(decodeQuestion(buf, offset));
      offset += nameBytes + 4;
    }
  }
  recordEnd = offset;
  const answers = decodeRecords(buf, ancount);
  const authorities = decodeRecords(buf, nscount);
  const additionals = decodeRecords(buf, arcount);
  const opcode = (flags >> 11) & 0xf;
  const rcode = flags & 0xf;
  return {
    id: readU16(buf, 0),
    qr: (flags & 0x8000) !== 0,
    opcode: OPCODE_NAMES[opcode] ?? `OPCODE${opcode}`,
    aa: (flags & 0x0400) !== 0,
    tc: (flags & 0x0200) !== 0,
    rd: (flags & 0x0100) !== 0,
    ra: (flags & 0x0080) !== 0,
    ad: (flags & 0x0020) !== 0,
    rcode: RCODE_NAMES[rcode] ?? `RCODE${rcode}`,
    questions,
    answers,
    authorities,
    additionals,
  };
}

/** The next `count` records, from `recordEnd` on. */
function decodeRecords(buf: Uint8Array, count: number): DnsRecord[] {
  const out: DnsRecord[] = [];
  for (let i = 0; i < count; i++) out.push(decodeRecord(buf, recordEnd));
  return out;
}

function sameQuestion(buf: Uint8Array, known: KnownQuestion): boolean {
  const n = known.length;
  if (buf.length < 12 + n) return false;
  const w = known.wire;
  for (let i = 12; i < 12 + n; i++) if (buf[i] !== w[i]) return false;
  return true;
}
