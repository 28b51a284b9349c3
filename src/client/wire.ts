/**
 * Strict decoding of DNS responses on top of dns-packet.
 *
 * dns-packet decodes each record by walking its RDATA and trusts the result;
 * it never checks that the walk ended exactly at RDLENGTH. A NAPTR whose
 * strings run past RDLENGTH would silently swallow the next record. Here every
 * record is decoded on its own and its consumed length is compared with
 * RDLENGTH.
 *
 * @see RFC 1035 section 4.1.3 (RDLENGTH "specifies the length in octets of
 *   the RDATA field")
 * @see RFC 3597 section 4 (NAPTR REPLACEMENT may be compressed in legacy
 *   data, so decompression is kept)
 */
import * as dnsPacket from 'dns-packet';
import type { Answer, Question } from 'dns-packet';

interface NameCodec {
  decode: ((buf: Buffer, offset: number) => string) & { bytes: number };
}
interface RecordCodec {
  decode: ((buf: Buffer, offset: number) => Answer) & { bytes: number };
}
interface QuestionCodec {
  decode: ((buf: Buffer, offset: number) => Question) & { bytes: number };
}

// dns-packet exports its per-part codecs at runtime; @types does not declare them.
const lib = dnsPacket as unknown as {
  name: NameCodec;
  answer: RecordCodec;
  question: QuestionCodec;
};

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

export interface Header {
  readonly id: number;
  readonly qr: boolean;
  readonly opcode: number;
  readonly aa: boolean;
  readonly tc: boolean;
  readonly rcode: number;
  readonly qdcount: number;
  readonly ancount: number;
  readonly nscount: number;
  readonly arcount: number;
}

/** The 12-byte header, or undefined when the buffer is shorter. */
export function readHeader(buf: Buffer): Header | undefined {
  if (buf.length < 12) return undefined;
  const flags = buf.readUInt16BE(2);
  return {
    id: buf.readUInt16BE(0),
    qr: (flags & 0x8000) !== 0,
    opcode: (flags >> 11) & 0xf,
    aa: (flags & 0x0400) !== 0,
    tc: (flags & 0x0200) !== 0,
    rcode: flags & 0xf,
    qdcount: buf.readUInt16BE(4),
    ancount: buf.readUInt16BE(6),
    nscount: buf.readUInt16BE(8),
    arcount: buf.readUInt16BE(10),
  };
}

/** A decoded response, with every section present. */
export interface Message {
  readonly id: number;
  readonly qr: boolean;
  readonly opcode: string;
  readonly aa: boolean;
  readonly tc: boolean;
  readonly rd: boolean;
  readonly ra: boolean;
  readonly rcode: string;
  readonly questions: readonly Question[];
  readonly answers: readonly Answer[];
  readonly authorities: readonly Answer[];
  readonly additionals: readonly Answer[];
}

export class WireError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
    this.name = 'WireError';
  }
}

/**
 * Decode a whole response. Throws WireError `DNS_BAD_RESPONSE` when the
 * message is malformed (short, a record past the end, RDATA not matching
 * RDLENGTH) and `DNS_RRSET_TOO_LARGE` when it carries more than `maxRecords`
 * records (checked from the header counts before any record is decoded).
 */
/**
 * The question we asked, as sent: a response whose question section is the
 * same bytes has this question, decoded once when the query was built.
 */
export interface KnownQuestion {
  /** Our query; its question section starts at byte 12. */
  readonly wire: Buffer;
  /** Length of the question section in `wire`. */
  readonly length: number;
  /** `wire`'s question as dns-packet decodes it. */
  readonly question: Question;
}

/** The KnownQuestion of an encoded one-question query. */
export function knownQuestion(wire: Buffer): KnownQuestion {
  const question = lib.question.decode(wire, 12);
  return { wire, length: lib.question.decode.bytes, question };
}

export function decodeResponse(buf: Buffer, maxRecords: number, known?: KnownQuestion): Message {
  const h = readHeader(buf);
  if (!h) throw new WireError('DNS_BAD_RESPONSE', `message of ${buf.length} bytes has no header`);
  const total = h.ancount + h.nscount + h.arcount;
  if (total > maxRecords) {
    throw new WireError(
      'DNS_RRSET_TOO_LARGE',
      `response carries ${total} records, over the client's limit of ${maxRecords}`,
    );
  }
  const flags = buf.readUInt16BE(2);
  let offset = 12;
  const questions: Question[] = [];
  try {
    if (
      known !== undefined &&
      h.qdcount === 1 &&
      buf.length >= 12 + known.length &&
      buf.compare(known.wire, 12, 12 + known.length, 12, 12 + known.length) === 0
    ) {
      // Our own question, byte for byte: dns-packet would decode it to the same value.
      questions.push(known.question);
      offset += known.length;
    } else {
      for (let i = 0; i < h.qdcount; i++) {
        questions.push(lib.question.decode(buf, offset));
        offset += lib.question.decode.bytes;
      }
    }
    const sections: Answer[][] = [[], [], []];
    const counts = [h.ancount, h.nscount, h.arcount];
    for (let s = 0; s < 3; s++) {
      const list = sections[s] as Answer[];
      const count = counts[s] ?? 0;
      for (let i = 0; i < count; i++) {
        const start = offset;
        const nameBytes = skipName(buf, start);
        const fixed = start + nameBytes;
        if (fixed + 10 > buf.length) {
          throw new WireError('DNS_BAD_RESPONSE', `record at byte ${start} is cut short`);
        }
        const rdlength = buf.readUInt16BE(fixed + 8);
        const end = fixed + 10 + rdlength;
        if (end > buf.length) {
          throw new WireError(
            'DNS_BAD_RESPONSE',
            `record at byte ${start}: RDLENGTH ${rdlength} runs past the end of the message (${buf.length} bytes)`,
          );
        }
        const rr = lib.answer.decode(buf, start);
        if (start + lib.answer.decode.bytes !== end) {
          throw new WireError(
            'DNS_BAD_RESPONSE',
            `${rr.type} record at byte ${start}: RDATA is ${lib.answer.decode.bytes - nameBytes - 10} bytes but RDLENGTH says ${rdlength}`,
          );
        }
        list.push(rr);
        offset = end;
      }
    }
    return {
      id: h.id,
      qr: h.qr,
      opcode: OPCODE_NAMES[h.opcode] ?? `OPCODE${h.opcode}`,
      aa: h.aa,
      tc: h.tc,
      rd: (flags & 0x0100) !== 0,
      ra: (flags & 0x0080) !== 0,
      rcode: RCODE_NAMES[h.rcode] ?? `RCODE${h.rcode}`,
      questions,
      answers: sections[0] as Answer[],
      authorities: sections[1] as Answer[],
      additionals: sections[2] as Answer[],
    };
  } catch (e) {
    if (e instanceof WireError) throw e;
    throw new WireError(
      'DNS_BAD_RESPONSE',
      `malformed message at byte ${offset}: ${(e as Error).message}`,
    );
  }
}

/**
 * Length of the (possibly compressed) name at `start`, without decoding it.
 * Throws WireError on a label or pointer past the end.
 */
function skipName(buf: Buffer, start: number): number {
  let o = start;
  for (;;) {
    if (o >= buf.length)
      throw new WireError('DNS_BAD_RESPONSE', `name at byte ${start} runs past the end`);
    const len = buf[o] as number;
    if (len === 0) return o + 1 - start;
    if ((len & 0xc0) === 0xc0) {
      if (o + 1 >= buf.length)
        throw new WireError('DNS_BAD_RESPONSE', `pointer at byte ${o} is cut short`);
      return o + 2 - start;
    }
    if ((len & 0xc0) !== 0) throw new WireError('DNS_BAD_RESPONSE', `bad label type at byte ${o}`);
    o += len + 1;
  }
}

/** Lowercase and strip one trailing dot, for comparing names. */
export function canonicalName(name: string): string {
  const n = name.endsWith('.') && name.length > 1 ? name.slice(0, -1) : name;
  return n === '.' ? '' : n.toLowerCase();
}

/** Question names compare case-insensitively (RFC 4343). */
export function sameName(a: string, b: string): boolean {
  if (a === b) return true;
  // The common case: the same name with and without its trailing dot.
  const la = a.length;
  const lb = b.length;
  if (
    lb === la + 1 &&
    b.charCodeAt(la) === 0x2e &&
    a.charCodeAt(la - 1) !== 0x2e &&
    b.startsWith(a)
  ) {
    return true;
  }
  if (
    la === lb + 1 &&
    a.charCodeAt(lb) === 0x2e &&
    b.charCodeAt(lb - 1) !== 0x2e &&
    a.startsWith(b)
  ) {
    return true;
  }
  return canonicalName(a) === canonicalName(b);
}

/** The RDATA of a record (OPT has none in dns-packet's shape). */
export function rdataOf(a: Answer): unknown {
  return (a as { data?: unknown }).data;
}
