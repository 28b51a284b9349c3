/**
 * Strict decoding of DNS responses for the client.
 *
 * The message is decoded by the hand-written decoder of
 * `src/core/wire/response.ts` into the objects dns-packet's `decode` yields
 * (tested equal on generated messages): dns-packet's per-record decoding cost
 * 9-11 us of every response on the client's measured hot path (issue 5).
 * Types the hand decoder does not know go through dns-packet's
 * `answer.decode`, one record at a time, here.
 *
 * dns-packet alone would not do: it decodes each record by walking its RDATA
 * and trusts the result; it never checks that the walk ended exactly at
 * RDLENGTH. A NAPTR whose strings run past RDLENGTH would silently swallow
 * the next record. Every record's consumed length is compared with RDLENGTH.
 *
 * @see RFC 1035 section 4.1.3 (RDLENGTH "specifies the length in octets of
 *   the RDATA field")
 * @see RFC 3597 section 4 (NAPTR REPLACEMENT may be compressed in legacy
 *   data, so decompression is kept)
 */
// The `buffer` package in a browser build (what dns-packet itself imports); Node's own in Node.
import { Buffer } from 'buffer';
import * as dnsPacket from 'dns-packet';
import type { Answer, Question } from 'dns-packet';
import {
  decodeResponseMessage,
  type DecodedResponse,
  type KnownQuestion as CoreKnownQuestion,
  type RecordFallback,
  type Utf8Decoder,
  type WireRecord,
} from '../core/wire/response.ts';

export { RCODE_NAMES, WireError } from '../core/wire/response.ts';
export { canonicalName, sameName } from './names.ts';

interface RecordCodec {
  decode: ((buf: Buffer, offset: number) => Answer) & { bytes: number };
}
interface QuestionCodec {
  decode: ((buf: Buffer, offset: number) => Question) & { bytes: number };
}

// dns-packet exports its per-part codecs at runtime; @types does not declare them.
const lib = dnsPacket as unknown as {
  answer: RecordCodec;
  question: QuestionCodec;
};

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

/** A decoded response, with every section present, typed by dns-packet. */
export type Message = DecodedResponse<Question, Answer>;

/**
 * The question we asked, as sent: a response whose question section is the
 * same bytes has this question, decoded once (by dns-packet) when the query
 * was built.
 */
export type KnownQuestion = CoreKnownQuestion<Buffer, Question>;

/** The KnownQuestion of an encoded one-question query. */
export function knownQuestion(wire: Buffer): KnownQuestion {
  const question = lib.question.decode(wire, 12);
  return { wire, length: lib.question.decode.bytes, question };
}

/**
 * Node's own UTF-8 decoder (what dns-packet's `toString('utf-8')` runs),
 * called on any Uint8Array: about 50 ns for any short string, where building
 * a 50-character string in JavaScript costs several times that. Undefined
 * if a Node version lacks it: the core's JavaScript decoder then decodes the
 * same text.
 */
const utf8Slice = (
  Buffer.prototype as unknown as {
    utf8Slice?: (this: Uint8Array, start: number, end: number) => string;
  }
).utf8Slice;
const nativeUtf8: Utf8Decoder | undefined =
  typeof utf8Slice === 'function' ? (b, start, end) => utf8Slice.call(b, start, end) : undefined;

/** dns-packet's own decoding of one record, for the types the hand decoder leaves to it. */
export const dnsPacketFallback: RecordFallback = (buf, start) => {
  const record = lib.answer.decode(buf as Buffer, start) as unknown as WireRecord;
  return { record, length: lib.answer.decode.bytes };
};

/**
 * Decode a whole response. Throws WireError `DNS_BAD_RESPONSE` (with the
 * byte `offset` of the problem) when the message is malformed (short, a
 * name, record or string past the end or past RDLENGTH, RDATA not matching
 * RDLENGTH, a bad label or pointer, a name over 255 octets) and
 * `DNS_RRSET_TOO_LARGE` when it carries more than `maxRecords` records
 * (checked from the header counts before any record is decoded).
 */
export function decodeResponse(buf: Buffer, maxRecords: number, known?: KnownQuestion): Message {
  return decodeResponseMessage(
    buf,
    maxRecords,
    dnsPacketFallback,
    known as CoreKnownQuestion | undefined,
    nativeUtf8,
  ) as unknown as Message;
}

/** The RDATA of a record (OPT has none in dns-packet's shape). */
export function rdataOf(a: Answer): unknown {
  return (a as { data?: unknown }).data;
}
