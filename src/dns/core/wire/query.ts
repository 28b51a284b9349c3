/**
 * The server's query parser: header, question and OPT (RFC 1035 section 4.1,
 * RFC 6891 section 6.1) read into a reused object; the rest is skipped.
 */
import { TYPE_OPT, TYPE_TSIG } from '../rr/types.ts';
import type { QueryParseCode } from './codes.ts';

export const OPCODE_QUERY = 0;

/** EDNS option codes: NSID (RFC 5001), COOKIE (RFC 7873). */
export const OPTION_NSID = 3;
export const OPTION_COOKIE = 10;

/** What the parser decided about a message. */
export const PARSE_OK = 0;
/** Not answerable at all: shorter than a header, or a response (QR=1). Dropped silently. */
export const PARSE_DROP = 1;
/** The header is readable but the rest is malformed: answer FORMERR. */
export const PARSE_FORMERR = 2;
/** An opcode other than QUERY: answer NOTIMP. */
export const PARSE_NOTIMP = 3;
export type ParseStatus =
  typeof PARSE_OK | typeof PARSE_DROP | typeof PARSE_FORMERR | typeof PARSE_NOTIMP;

/** Reused per socket: the parser overwrites every field on each call. */
export interface ParsedQuery {
  id: number;
  /** The second 16-bit word of the header, as sent. */
  flags: number;
  opcode: number;
  /** True when the question was read completely (it can be echoed). */
  hasQuestion: boolean;
  /** Offset just past the question name's root octet (the name starts at 12). */
  qnameEnd: number;
  qtype: number;
  qclass: number;
  /** Offset just past the question (qname + type + class). */
  questionEnd: number;
  /** True when one valid OPT record was read. */
  edns: boolean;
  ednsVersion: number;
  /** The requestor's UDP payload size as sent (OPT CLASS). */
  udpSize: number;
  /** The DO bit (RFC 3225), copied into the response's OPT. */
  dnssecOk: boolean;
  /** An NSID option (RFC 5001 section 2.1) was in the OPT. */
  nsid: boolean;
  /** Offset of the first COOKIE option's data (RFC 7873 section 4), -1 when there is none. */
  cookieAt: number;
  /** Length of that option's data: 8 (client cookie only) or 16-40 (with a server cookie). */
  cookieLen: number;
  /**
   * Offset of a TSIG record (RFC 8945) among the additional records, -1 when
   * there is none; read and verified by the query pipeline, not here.
   */
  tsigAt: number;
  /** Why a FORMERR was chosen (stable code, for logs and tests); '' when none. */
  error: QueryParseCode | '';
}

export function newParsedQuery(): ParsedQuery {
  return {
    id: 0,
    flags: 0,
    opcode: 0,
    hasQuestion: false,
    qnameEnd: 0,
    qtype: 0,
    qclass: 0,
    questionEnd: 0,
    edns: false,
    ednsVersion: 0,
    udpSize: 0,
    dnssecOk: false,
    nsid: false,
    cookieAt: -1,
    cookieLen: 0,
    tsigAt: -1,
    error: '',
  };
}

/** Set the reason of a malformed message: FORMERR, or NOTIMP when the opcode is not QUERY. */
function malformed(
  q: ParsedQuery,
  code: QueryParseCode,
  status: ParseStatus = q.opcode === OPCODE_QUERY ? PARSE_FORMERR : PARSE_NOTIMP,
): ParseStatus {
  q.error = code;
  return status;
}

/** Skip a possibly compressed name; returns the offset after it or -1 when malformed. */
export function skipName(buf: Uint8Array, off: number, len: number): number {
  for (let guard = 0; guard < 128; guard++) {
    if (off >= len) return -1;
    const b = buf[off]!;
    if (b === 0) return off + 1;
    const kind = b & 0xc0;
    if (kind === 0xc0) return off + 2 <= len ? off + 2 : -1;
    if (kind !== 0) return -1;
    off += 1 + b;
  }
  return -1;
}

/** Parse the query in `buf[0, len)`; more than one OPT is a FORMERR (RFC 6891 section 6.1.1). */
export function parseQuery(buf: Uint8Array, len: number, q: ParsedQuery): ParseStatus {
  q.hasQuestion = false;
  q.edns = false;
  q.ednsVersion = 0;
  q.udpSize = 0;
  q.dnssecOk = false;
  q.nsid = false;
  q.cookieAt = -1;
  q.cookieLen = 0;
  q.tsigAt = -1;
  q.error = '';
  q.qnameEnd = 0;
  q.questionEnd = 0;
  q.qtype = 0;
  q.qclass = 0;
  if (len < 12) return PARSE_DROP;
  q.id = (buf[0]! << 8) | buf[1]!;
  const flags = (buf[2]! << 8) | buf[3]!;
  q.flags = flags;
  // RFC 1035 section 4.1.1: QR=1 is a response; answering it could start a loop.
  if (flags & 0x8000) return PARSE_DROP;
  q.opcode = (flags >> 11) & 0xf;
  const qdcount = (buf[4]! << 8) | buf[5]!;
  const ancount = (buf[6]! << 8) | buf[7]!;
  const nscount = (buf[8]! << 8) | buf[9]!;
  const arcount = (buf[10]! << 8) | buf[11]!;

  let off = 12;
  if (qdcount === 1) {
    // The question name: plain labels only (nothing to point back to yet).
    let total = 0;
    for (;;) {
      if (off >= len) return malformed(q, 'QUESTION_TRUNCATED');
      const b = buf[off]!;
      if (b === 0) {
        off += 1;
        break;
      }
      if (b & 0xc0) return malformed(q, 'QUESTION_BAD_LABEL');
      off += 1 + b;
      total += 1 + b;
      // RFC 1035 section 3.1: at most 255 octets, the root octet still to come.
      if (total > 254) return malformed(q, 'QUESTION_NAME_TOO_LONG');
    }
    if (off + 4 > len) return malformed(q, 'QUESTION_TRUNCATED');
    q.qnameEnd = off;
    q.qtype = (buf[off]! << 8) | buf[off + 1]!;
    q.qclass = (buf[off + 2]! << 8) | buf[off + 3]!;
    off += 4;
    q.questionEnd = off;
    q.hasQuestion = true;
  } else if (q.opcode === OPCODE_QUERY) {
    q.error = qdcount === 0 ? 'NO_QUESTION' : 'MULTIPLE_QUESTIONS';
    return PARSE_FORMERR;
  } else {
    return PARSE_NOTIMP;
  }

  // Answer and authority records of a query are skipped, not interpreted.
  for (let i = 0; i < ancount + nscount; i++) {
    off = skipName(buf, off, len);
    if (off < 0 || off + 10 > len) return malformed(q, 'RECORD_TRUNCATED');
    off += 10 + ((buf[off + 8]! << 8) | buf[off + 9]!);
    if (off > len) return malformed(q, 'RECORD_TRUNCATED');
  }
  let opts = 0;
  for (let i = 0; i < arcount; i++) {
    const start = off;
    off = skipName(buf, off, len);
    if (off < 0 || off + 10 > len) return malformed(q, 'RECORD_TRUNCATED');
    const type = (buf[off]! << 8) | buf[off + 1]!;
    const rdlen = (buf[off + 8]! << 8) | buf[off + 9]!;
    const rdStart = off + 10;
    const rdEnd = rdStart + rdlen;
    if (rdEnd > len) return malformed(q, 'RECORD_TRUNCATED');
    if (type === TYPE_TSIG) q.tsigAt = start;
    else if (type === TYPE_OPT) {
      opts++;
      // RFC 6891 section 6.1.1: "MUST be the only OPT RR", owner "MUST be 0 (root domain)".
      if (opts > 1) {
        q.edns = false;
        q.error = 'MULTIPLE_OPT';
        return PARSE_FORMERR;
      }
      if (off !== start + 1 || buf[start] !== 0)
        return malformed(q, 'OPT_OWNER_NOT_ROOT', PARSE_FORMERR);
      // Options are {code, length, data}; a malformed list is a malformed message.
      let o = rdStart;
      while (o < rdEnd) {
        if (o + 4 > rdEnd) return malformed(q, 'OPT_OPTION_TRUNCATED', PARSE_FORMERR);
        const code = (buf[o]! << 8) | buf[o + 1]!;
        const olen = (buf[o + 2]! << 8) | buf[o + 3]!;
        if (code === OPTION_NSID) q.nsid = true;
        else if (code === OPTION_COOKIE && q.cookieAt < 0) {
          q.cookieAt = o + 4;
          q.cookieLen = olen;
        }
        o += 4 + olen;
      }
      if (o !== rdEnd) return malformed(q, 'OPT_OPTION_TRUNCATED', PARSE_FORMERR);
      q.edns = true;
      q.udpSize = (buf[off + 2]! << 8) | buf[off + 3]!;
      q.ednsVersion = buf[off + 5]!;
      q.dnssecOk = (buf[off + 6]! & 0x80) !== 0;
      // RFC 7873 section 5.2.2: a COOKIE option shorter than a client cookie, or
      // with a server cookie outside 8-32 octets, is malformed: FORMERR.
      const cl = q.cookieLen;
      if (q.cookieAt >= 0 && (cl < 8 || (cl > 8 && cl < 16) || cl > 40)) {
        q.cookieAt = -1;
        q.error = 'BAD_COOKIE';
        return PARSE_FORMERR;
      }
    }
    off = rdEnd;
  }
  if (q.opcode !== OPCODE_QUERY) return PARSE_NOTIMP;
  if (off !== len) {
    // Octets after the last record the counts announce: FORMERR, as Knot (BIND ignores them).
    q.error = 'TRAILING_DATA';
    return PARSE_FORMERR;
  }
  return PARSE_OK;
}
