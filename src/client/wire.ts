/**
 * Strict decoding of DNS responses for the client into the record model, by
 * `dns/core/wire/response.ts`: each record's length is checked against
 * RDLENGTH (RFC 1035 section 4.1.3), or a NAPTR running past it would
 * swallow the next record.
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

/** The question as sent, decoded once: a response echoing its bytes is not decoded again. */
export type KnownQuestion = CoreKnownQuestion<Buffer, DnsQuestion>;

/** The KnownQuestion of an encoded one-question query. */
export function knownQuestion(wire: Buffer): KnownQuestion {
  const { question, length } = readQuestion(wire);
  return { wire, length, question };
}

/** Node's own UTF-8 decoder on any Uint8Array, when the runtime has it (else the core's own). */
const utf8Slice = (
  Buffer.prototype as unknown as {
    utf8Slice?: (this: Uint8Array, start: number, end: number) => string;
  }
).utf8Slice;
const nativeUtf8: Utf8Decoder | undefined =
  typeof utf8Slice === 'function' ? (b, start, end) => utf8Slice.call(b, start, end) : undefined;

/**
 * Decode a whole response. Throws WireError `DNS_BAD_RESPONSE` (with the
 * byte `offset`) when malformed, `DNS_RRSET_TOO_LARGE` over `maxRecords`
 * (from the header counts, before decoding).
 */
export function decodeResponse(buf: Buffer, maxRecords: number, known?: KnownQuestion): Message {
  return decodeResponseMessage(buf, maxRecords, known, nativeUtf8);
}
