/**
 * Strict decoding of DNS responses for the client, into the project's record
 * model (`core/rr/record.ts`), by the decoder of `src/dns/core/wire/response.ts`
 * (dns-packet only encodes the queries).
 *
 * Every record's consumed length is compared with RDLENGTH: a NAPTR whose
 * strings run past RDLENGTH would otherwise swallow the next record.
 *
 * @see RFC 1035 section 4.1.3 (RDLENGTH "specifies the length in octets of
 *   the RDATA field")
 * @see RFC 3597 section 4 (NAPTR REPLACEMENT may be compressed in legacy
 *   data, so decompression is kept)
 */
// The `buffer` package in a browser build (what dns-packet itself imports); Node's own in Node.
import { Buffer } from 'buffer';
import type { DnsQuestion } from '../dns/core/rr/record.ts';
import {
  decodeResponseMessage,
  readQuestion,
  type DecodedResponse,
  type KnownQuestion as CoreKnownQuestion,
  type Utf8Decoder,
} from '../dns/core/wire/response.ts';

export { RCODE_NAMES, WireError } from '../dns/core/wire/response.ts';
export { canonicalName, sameName } from './names.ts';

/** What the UDP transport checks of a response's header before decoding it. */
export interface Header {
  readonly id: number;
  readonly qr: boolean;
  readonly opcode: number;
  readonly tc: boolean;
}

/** The 12-byte header, or undefined when the buffer is shorter. */
export function readHeader(buf: Buffer): Header | undefined {
  if (buf.length < 12) return undefined;
  const flags = buf.readUInt16BE(2);
  return {
    id: buf.readUInt16BE(0),
    qr: (flags & 0x8000) !== 0,
    opcode: (flags >> 11) & 0xf,
    tc: (flags & 0x0200) !== 0,
  };
}

/** A decoded response, with every section present, in the record model. */
export type Message = DecodedResponse;

/**
 * The question we asked, as sent: a response whose question section is the
 * same bytes has this question, decoded once when the query was built.
 */
export type KnownQuestion = CoreKnownQuestion<Buffer, DnsQuestion>;

/** The KnownQuestion of an encoded one-question query. */
export function knownQuestion(wire: Buffer): KnownQuestion {
  const { question, length } = readQuestion(wire);
  return { wire, length, question };
}

/**
 * Node's own UTF-8 decoder, called on any Uint8Array (cheaper than building
 * short strings in JavaScript); undefined if a Node version lacks it, and
 * the core's JavaScript decoder then decodes the same text.
 */
const utf8Slice = (
  Buffer.prototype as unknown as {
    utf8Slice?: (this: Uint8Array, start: number, end: number) => string;
  }
).utf8Slice;
const nativeUtf8: Utf8Decoder | undefined =
  typeof utf8Slice === 'function' ? (b, start, end) => utf8Slice.call(b, start, end) : undefined;

/**
 * Decode a whole response. Throws WireError `DNS_BAD_RESPONSE` (with the
 * byte `offset` of the problem) when the message is malformed (short, a
 * name, record or string past the end or past RDLENGTH, RDATA not matching
 * RDLENGTH, a bad label or pointer, a name over 255 octets) and
 * `DNS_RRSET_TOO_LARGE` when it carries more than `maxRecords` records
 * (checked from the header counts before any record is decoded).
 */
export function decodeResponse(buf: Buffer, maxRecords: number, known?: KnownQuestion): Message {
  return decodeResponseMessage(buf, maxRecords, known, nativeUtf8);
}
