/**
 * The client's hand-written DNS response decoder: a whole message into the
 * object shapes dns-packet 5.6.1's `decode` yields (same field names, same
 * strings), for the record types the client reads (A, AAAA, NS, CNAME, PTR,
 * DNAME, MX, SOA, SRV, NAPTR and OPT without options). Every other record is
 * handed to a fallback (the client passes dns-packet's `answer.decode`), one
 * record at a time, so the output is always what dns-packet would give.
 *
 * Stricter than dns-packet, on purpose: every record's RDATA must end exactly
 * at RDLENGTH (dns-packet trusts its own walk and, for NS and SRV, skips to
 * RDLENGTH without looking), character-strings and names may not run past
 * RDLENGTH, and header counts are checked against a limit before anything is
 * decoded. Every error is a WireError with a stable code and the byte offset
 * it is about; nothing else is ever thrown and every loop is bounded
 * (compression pointers must point strictly backwards).
 *
 * What dns-packet does with names, kept here: labels are decoded as UTF-8
 * (invalid sequences become U+FFFD, as Node's Buffer does), joined with `.`
 * without escaping (a `.` inside a label is not escaped, except in SOA RNAME,
 * where dns-packet's "mail" mode writes it as `\.`), case is preserved, no
 * trailing dot, and the root is `.`.
 *
 * Pure: Uint8Array and byte arithmetic only.
 *
 * @see RFC 1035 section 4.1 (message format), section 4.1.3 ("RDLENGTH an
 *   unsigned 16 bit integer that specifies the length in octets of the RDATA
 *   field"), section 4.1.4 (compression: "a pointer to a prior occurance of
 *   the same name")
 * @see RFC 3597 section 4 (compressed names in the RDATA of well-known types
 *   must still be decompressed by receivers)
 * @see RFC 6891 section 6.1.2 (OPT fields: UDP payload size in CLASS,
 *   extended RCODE, version and DO in TTL)
 */
import { decodeUtf8 } from '../kit/utf8.ts';
import {
  NAPTR_FLAGS,
  NAPTR_REGEXP,
  NAPTR_REPLACEMENT,
  NAPTR_SERVICES,
  naptrLayout,
  naptrOrder,
  naptrPreference,
} from '../rr/naptr.ts';
import type { ClientCode } from '../ddds/client-codes.ts';

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

/** dns-packet 5.6.1's `types.toString`: its names by code, `UNKNOWN_n` for the rest. */
const PACKET_TYPE_NAMES: ReadonlyMap<number, string> = new Map<number, string>([
  [1, 'A'],
  [10, 'NULL'],
  [28, 'AAAA'],
  [18, 'AFSDB'],
  [42, 'APL'],
  [257, 'CAA'],
  [60, 'CDNSKEY'],
  [59, 'CDS'],
  [37, 'CERT'],
  [5, 'CNAME'],
  [49, 'DHCID'],
  [32769, 'DLV'],
  [39, 'DNAME'],
  [48, 'DNSKEY'],
  [43, 'DS'],
  [55, 'HIP'],
  [13, 'HINFO'],
  [45, 'IPSECKEY'],
  [25, 'KEY'],
  [36, 'KX'],
  [29, 'LOC'],
  [15, 'MX'],
  [35, 'NAPTR'],
  [2, 'NS'],
  [47, 'NSEC'],
  [50, 'NSEC3'],
  [51, 'NSEC3PARAM'],
  [12, 'PTR'],
  [46, 'RRSIG'],
  [17, 'RP'],
  [24, 'SIG'],
  [6, 'SOA'],
  [99, 'SPF'],
  [33, 'SRV'],
  [44, 'SSHFP'],
  [32768, 'TA'],
  [249, 'TKEY'],
  [52, 'TLSA'],
  [250, 'TSIG'],
  [16, 'TXT'],
  [252, 'AXFR'],
  [251, 'IXFR'],
  [41, 'OPT'],
  [255, 'ANY'],
]);

/** The type's name as dns-packet writes it. */
export function typeString(code: number): string {
  return PACKET_TYPE_NAMES.get(code) ?? `UNKNOWN_${code}`;
}

/** dns-packet 5.6.1's `classes.toString`. */
export function classString(code: number): string {
  switch (code) {
    case 1:
      return 'IN';
    case 2:
      return 'CS';
    case 3:
      return 'CH';
    case 4:
      return 'HS';
    case 255:
      return 'ANY';
  }
  return `UNKNOWN_${code}`;
}

export interface WireQuestion {
  readonly name: string;
  readonly type: string;
  readonly class: string;
}

/** A record as dns-packet's `answer.decode` shapes it. */
export interface WireAnswer {
  readonly name: string;
  readonly type: string;
  readonly ttl: number;
  readonly class: string;
  /** The top bit of CLASS (mDNS cache flush), as dns-packet reports it. */
  readonly flush: boolean;
  readonly data: unknown;
}

/** An OPT pseudo-record as dns-packet's `answer.decode` shapes it (no `data`, no `ttl`). */
export interface WireOpt {
  readonly name: string;
  readonly type: string;
  readonly udpPayloadSize: number;
  readonly extendedRcode: number;
  readonly ednsVersion: number;
  readonly flags: number;
  readonly flag_do: boolean;
  readonly options: readonly unknown[];
}

export type WireRecord = WireAnswer | WireOpt;

/**
 * A decoded response. `Q` and `R` are the question and record types: the
 * core's own (`WireQuestion`, `WireRecord`), or dns-packet's `Question` and
 * `Answer` in the client, which are the same objects typed by dns-packet.
 */
export interface DecodedResponse<Q = WireQuestion, R = WireRecord> {
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
export interface KnownQuestion<B extends Uint8Array = Uint8Array, Q = WireQuestion> {
  /** Our query; its question section starts at byte 12. */
  readonly wire: B;
  /** Length of the question section in `wire`. */
  readonly length: number;
  /** `wire`'s question, decoded. */
  readonly question: Q;
}

/**
 * Decodes one record the hand decoder does not know, starting at its owner
 * name (`start`); returns the record and the octets it consumed. May throw
 * anything: the decoder turns a non-WireError into DNS_BAD_RESPONSE.
 */
export type RecordFallback = (
  buf: Uint8Array,
  start: number,
) => { readonly record: WireRecord; readonly length: number };

// ---------------------------------------------------------------------------
// Strings: UTF-8 as Node's Buffer#toString('utf-8') decodes it (the WHATWG
// Encoding Standard's decoder: each maximal invalid subpart becomes U+FFFD).

/**
 * Decodes `bytes[start, end)` as UTF-8 exactly as Buffer#toString('utf-8')
 * does. The client passes Node's native one; without it a JavaScript decoder
 * of the same rules is used.
 */
export type Utf8Decoder = (bytes: Uint8Array, start: number, end: number) => string;

/** The JavaScript UTF-8 decoder (the Encoding Standard's algorithm): the one of core/kit/utf8.ts. */
export const utf8ToString: Utf8Decoder = decodeUtf8;

/** The decoder of the message being decoded. */
// eslint-disable-next-line no-restricted-syntax -- module state: the decoder of the message being decoded (set per call).
let utf8: Utf8Decoder = utf8ToString;

/**
 * Text of `bytes[start, end)`. Short ASCII runs are built here (cheaper than
 * any call into native code); the rest goes to the UTF-8 decoder.
 */
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

// ---------------------------------------------------------------------------
// Names, with a per-message memo: owner names are mostly pointers to a name
// decoded before (0xC00C, the question), so each distinct suffix is decoded
// once per message.

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
 * The name's presentation octets: labels joined by `.` (and, in mail mode,
 * `\` before a `.` inside a label). Decoding these octets at once gives the
 * same text as decoding each label and joining, as dns-packet does: an ASCII
 * octet ends any unfinished UTF-8 sequence exactly as the end of a label does.
 */
const NAME_OCTETS = new Uint8Array(512);

/**
 * Where the decoder is, for error messages (set by the callers, read only
 * when something is wrong): -2 a question, -1 a record's owner or fixed
 * fields, otherwise the RDATA of a record of that type; `ctxAt` is the
 * question's or record's first byte.
 */
// eslint-disable-next-line no-restricted-syntax -- module state: error context of the decode in progress.
let ctxType = -1;
// eslint-disable-next-line no-restricted-syntax -- module state: error context of the decode in progress.
let ctxAt = 0;

function where(): string {
  if (ctxType === -2) return `question at byte ${ctxAt}`;
  if (ctxType === -1) return `record at byte ${ctxAt}`;
  return `${typeString(ctxType)} record at byte ${ctxAt}`;
}

/** Octets the last decodeName consumed at the name's own position. */
// eslint-disable-next-line no-restricted-syntax -- module state: an out-parameter of decodeName, read right after the call.
let nameBytes = 0;

/**
 * Decode the name at `start`. Its uncompressed part must end by `limit`
 * (RDLENGTH's end for a name in RDATA; -1: the message's end); data
 * reached through a pointer may lie anywhere before. Errors name the context
 * set in `ctxType`/`ctxAt`. Sets `nameBytes`. `mail` is dns-packet's SOA RNAME
 * mode (a `.` inside a label written `\.`).
 *
 * @see RFC 1035 section 4.1.4: "The first two bits are ones. This allows a
 *   pointer to be distinguished from a label, since the label must begin
 *   with two zero bits"; the 10 and 01 combinations "are reserved".
 * @see RFC 1035 section 3.1: "the total length of a domain name (i.e., label
 *   octets and label length octets) is restricted to 255 octets or less."
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

function u16(buf: Uint8Array, o: number): number {
  return (buf[o]! << 8) | buf[o + 1]!;
}

function u32(buf: Uint8Array, o: number): number {
  return ((buf[o]! << 24) | (buf[o + 1]! << 16) | (buf[o + 2]! << 8) | buf[o + 3]!) >>> 0;
}

/** IPv6 text exactly as dns-packet's ip-codec writes it (first run of zero groups compressed). */
function ipv6Text(buf: Uint8Array, o: number): string {
  let s = '';
  for (let i = 0; i < 16; i += 2) {
    if (i !== 0) s += ':';
    s += u16(buf, o + i).toString(16);
  }
  return s.replace(/(^|:)0(:0)*:0(:|$)/, '$1::$3').replace(/:{3,4}/, '::');
}

function lengthMismatch(type: string, start: number, used: number, rdlength: number): WireError {
  return bad(
    `${type} record at byte ${start}: RDATA is ${used} bytes but RDLENGTH says ${rdlength}`,
    start,
  );
}

/**
 * The RDATA of a hand-decoded type, or `undefined` for a type left to the
 * fallback. `rd` is the RDATA's first byte, `end` its end (RDLENGTH).
 */
function decodeRdata(
  buf: Uint8Array,
  type: number,
  start: number,
  rd: number,
  end: number,
): unknown {
  const rdlength = end - rd;
  ctxType = type;
  switch (type) {
    case 1: {
      if (rdlength !== 4) throw lengthMismatch('A', start, 4, rdlength);
      return `${buf[rd]}.${buf[rd + 1]}.${buf[rd + 2]}.${buf[rd + 3]}`;
    }
    case 28: {
      if (rdlength !== 16) throw lengthMismatch('AAAA', start, 16, rdlength);
      return ipv6Text(buf, rd);
    }
    case 2:
    case 5:
    case 12:
    case 39: {
      const target = decodeName(buf, rd, end, false);
      if (nameBytes !== rdlength)
        throw lengthMismatch(typeString(type), start, nameBytes, rdlength);
      return target;
    }
    case 15: {
      if (rdlength < 2) throw bad(`${where()}: RDATA of ${rdlength} bytes is cut short`, rd);
      const preference = u16(buf, rd);
      const exchange = decodeName(buf, rd + 2, end, false);
      if (2 + nameBytes !== rdlength) throw lengthMismatch('MX', start, 2 + nameBytes, rdlength);
      return { preference, exchange };
    }
    case 33: {
      if (rdlength < 6) throw bad(`${where()}: RDATA of ${rdlength} bytes is cut short`, rd);
      const priority = u16(buf, rd);
      const weight = u16(buf, rd + 2);
      const port = u16(buf, rd + 4);
      const target = decodeName(buf, rd + 6, end, false);
      if (6 + nameBytes !== rdlength) throw lengthMismatch('SRV', start, 6 + nameBytes, rdlength);
      return { priority, weight, port, target };
    }
    case 35: {
      // RFC 3403 section 4.1: ORDER, PREFERENCE, FLAGS, SERVICES, REGEXP, REPLACEMENT.
      if (rdlength < 4) throw bad(`${where()}: RDATA of ${rdlength} bytes is cut short`, rd);
      const short = naptrLayout(buf, rd, end, NAPTR_AT);
      if (short >= 0) decodeString(buf, short, end); // throws: the string runs past RDLENGTH
      const flags = decodeString(buf, NAPTR_AT[NAPTR_FLAGS]!, end);
      const services = decodeString(buf, NAPTR_AT[NAPTR_SERVICES]!, end);
      const regexp = decodeString(buf, NAPTR_AT[NAPTR_REGEXP]!, end);
      const at = NAPTR_AT[NAPTR_REPLACEMENT]!;
      const replacement = decodeName(buf, at, end, false);
      if (at + nameBytes !== end)
        throw lengthMismatch('NAPTR', start, at + nameBytes - rd, rdlength);
      return {
        order: naptrOrder(buf, rd),
        preference: naptrPreference(buf, rd),
        flags,
        services,
        regexp,
        replacement,
      };
    }
    case 6: {
      let o = rd;
      const mname = decodeName(buf, o, end, false);
      o += nameBytes;
      const rname = decodeName(buf, o, end, true);
      o += nameBytes;
      if (o + 20 > end) throw bad(`${where()}: RDATA of ${rdlength} bytes is cut short`, o);
      const data = {
        mname,
        rname,
        serial: u32(buf, o),
        refresh: u32(buf, o + 4),
        retry: u32(buf, o + 8),
        expire: u32(buf, o + 12),
        minimum: u32(buf, o + 16),
      };
      if (o + 20 !== end) throw lengthMismatch('SOA', start, o + 20 - rd, rdlength);
      return data;
    }
  }
  return undefined;
}

function decodeQuestion(buf: Uint8Array, o: number): WireQuestion {
  ctxType = -2;
  ctxAt = o;
  const name = decodeName(buf, o, -1, false);
  const f = o + nameBytes;
  if (f + 4 > buf.length) throw bad(`question at byte ${o} is cut short`, o);
  return { name, type: typeString(u16(buf, f)), class: classString(u16(buf, f + 2)) };
}

/** Offset just past the last record decodeRecord read. */
// eslint-disable-next-line no-restricted-syntax -- module state: an out-parameter of decodeRecord, read right after the call.
let recordEnd = 0;

function decodeRecord(buf: Uint8Array, start: number, fallback: RecordFallback): WireRecord {
  const len = buf.length;
  ctxType = -1;
  ctxAt = start;
  const name = decodeName(buf, start, -1, false);
  const fixed = start + nameBytes;
  if (fixed + 10 > len) throw bad(`record at byte ${start} is cut short`, start);
  const type = u16(buf, fixed);
  const rdlength = u16(buf, fixed + 8);
  const rd = fixed + 10;
  const end = rd + rdlength;
  if (end > len) {
    throw bad(
      `record at byte ${start}: RDLENGTH ${rdlength} runs past the end of the message (${len} bytes)`,
      fixed + 8,
    );
  }
  recordEnd = end;
  if (type === 41) {
    if (rdlength === 0) {
      // RFC 6891 section 6.1.3: EXTENDED-RCODE, VERSION, then DO and Z in the TTL field.
      const flags = u16(buf, fixed + 6);
      return {
        name,
        type: 'OPT',
        udpPayloadSize: u16(buf, fixed + 2),
        extendedRcode: buf[fixed + 4]!,
        ednsVersion: buf[fixed + 5]!,
        flags,
        flag_do: (flags & 0x8000) !== 0,
        options: [],
      };
    }
  } else {
    const data = decodeRdata(buf, type, start, rd, end);
    if (data !== undefined) {
      const klass = u16(buf, fixed + 2);
      return {
        name,
        type: typeString(type),
        ttl: u32(buf, fixed + 4),
        class: classString(klass & 0x7fff),
        flush: (klass & 0x8000) !== 0,
        data,
      };
    }
  }
  let out: { readonly record: WireRecord; readonly length: number };
  try {
    out = fallback(buf, start);
  } catch (e) {
    throw bad(
      `${typeString(type)} record at byte ${start}: ${e instanceof Error ? e.message : String(e)}`,
      start,
    );
  }
  if (start + out.length !== end) {
    throw lengthMismatch(typeString(type), start, out.length - (rd - start), rdlength);
  }
  return out.record;
}

/**
 * Decode a whole response. Throws WireError `DNS_BAD_RESPONSE` when the
 * message is malformed (short, a name, record or string past the end or past
 * RDLENGTH, RDATA not matching RDLENGTH, a bad label type, a pointer not
 * pointing backwards, a name over 255 octets) and `DNS_RRSET_TOO_LARGE` when
 * it carries more than `maxRecords` records (from the header counts, before
 * any record is decoded). Octets after the last record are ignored, as
 * dns-packet does. `utf8Decoder` replaces the JavaScript UTF-8 decoder (the
 * client passes Node's; both follow the same rules).
 *
 * @see RFC 1035 section 4.1.1 (header)
 */
export function decodeResponseMessage(
  buf: Uint8Array,
  maxRecords: number,
  fallback: RecordFallback,
  known?: KnownQuestion,
  utf8Decoder?: Utf8Decoder,
): DecodedResponse {
  const len = buf.length;
  utf8 = utf8Decoder ?? utf8ToString;
  if (len < 12) throw bad(`message of ${len} bytes has no header`, 0);
  const ancount = u16(buf, 6);
  const nscount = u16(buf, 8);
  const arcount = u16(buf, 10);
  const total = ancount + nscount + arcount;
  if (total > maxRecords) {
    throw new WireError(
      WIRE_RRSET_TOO_LARGE,
      `response carries ${total} records, over the client's limit of ${maxRecords}`,
      6,
    );
  }
  const flags = u16(buf, 2);
  const qdcount = u16(buf, 4);
  memoCount = 0;
  let offset = 12;
  const questions: WireQuestion[] = [];
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
  const answers: WireRecord[] = [];
  const authorities: WireRecord[] = [];
  const additionals: WireRecord[] = [];
  for (let i = 0; i < ancount; i++) {
    answers.push(decodeRecord(buf, offset, fallback));
    offset = recordEnd;
  }
  for (let i = 0; i < nscount; i++) {
    authorities.push(decodeRecord(buf, offset, fallback));
    offset = recordEnd;
  }
  for (let i = 0; i < arcount; i++) {
    additionals.push(decodeRecord(buf, offset, fallback));
    offset = recordEnd;
  }
  const opcode = (flags >> 11) & 0xf;
  const rcode = flags & 0xf;
  return {
    id: u16(buf, 0),
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

function sameQuestion(buf: Uint8Array, known: KnownQuestion): boolean {
  const n = known.length;
  if (buf.length < 12 + n) return false;
  const w = known.wire;
  for (let i = 12; i < 12 + n; i++) if (buf[i] !== w[i]) return false;
  return true;
}
