/** Stable codes of the wire layer: the query parser's FORMERRs, name encoding, DNS over HTTPS. */
export const WIRE_CODES = {
  // Query parser (query.ts): the message is answered FORMERR.
  QUESTION_TRUNCATED: 'the message ends inside the question',
  QUESTION_BAD_LABEL: 'a question name label uses the reserved 0x40/0x80 bits (or a pointer)',
  QUESTION_NAME_TOO_LONG: 'the question name is over 255 octets',
  NO_QUESTION: 'QDCOUNT is 0',
  MULTIPLE_QUESTIONS: 'QDCOUNT is above 1',
  RECORD_TRUNCATED: 'the message ends inside a record after the question',
  MULTIPLE_OPT: 'more than one OPT record (RFC 6891 section 6.1.1)',
  OPT_OWNER_NOT_ROOT: 'the OPT record is not owned by the root (RFC 6891 section 6.1.2)',
  OPT_OPTION_TRUNCATED: 'an EDNS option runs past the end of the OPT RDATA',
  BAD_COOKIE: 'a COOKIE option of a length RFC 7873 section 5.2.2 calls malformed',
  TRAILING_DATA: 'octets after the last record the header counts announce',
  // Presentation names to wire form (name.ts).
  EMPTY_LABEL: 'an empty label (two dots in a row, or a leading dot)',
  LABEL_TOO_LONG: 'a label over 63 octets',
  NAME_TOO_LONG: 'a name over 255 octets in wire form',
  BAD_ESCAPE: 'a bad \\DDD escape, a trailing backslash, or a character above U+00FF',
} as const;

export type WireCode = keyof typeof WIRE_CODES;

/** Why the engine answers a well-formed query with an error rcode (`authority/rcodes.ts` maps each). */
export const QUERY_REFUSAL_CODES = {
  QUERY_OPCODE_NOT_IMPLEMENTED: 'an opcode other than QUERY (NOTIMP, RFC 8906 section 3.1.5)',
  QUERY_EDNS_VERSION: 'an EDNS version above 0 (BADVERS, RFC 6891 section 6.1.3)',
  QUERY_CLASS_REFUSED: 'a class other than IN, or a CH name the server does not answer (REFUSED)',
  QUERY_TYPE_OPT: 'a question for the OPT pseudo-type (FORMERR, RFC 6891 section 6.1.1)',
  QUERY_TRANSFER_REFUSED: 'AXFR or IXFR over UDP or where transfers are not served (REFUSED)',
  QUERY_TYPE_NOT_IMPLEMENTED: 'a question for TKEY, TSIG, MAILB or MAILA (NOTIMP)',
  QUERY_NOT_AUTHORITATIVE: 'a name in no zone the server serves (REFUSED)',
  QUERY_ZONE_EXPIRED:
    'a name in a secondary zone past its SOA expire time, or not transferred yet (SERVFAIL)',
} as const;

export type QueryRefusalCode = keyof typeof QUERY_REFUSAL_CODES;

/** The query parser's codes (query.ts): the message is answered FORMERR. */
export type QueryParseCode = Exclude<
  WireCode,
  'EMPTY_LABEL' | 'LABEL_TOO_LONG' | 'NAME_TOO_LONG' | 'BAD_ESCAPE'
>;

/** DNS over HTTPS (RFC 8484): the server's problem codes and the base64url decoder's. */
export const DOH_CODES = {
  DOH_BAD_BASE64URL: 'the dns parameter is not base64url (RFC 4648 section 5, no padding)',
  DOH_BAD_METHOD: 'a method other than GET or POST (405)',
  DOH_NOT_FOUND: 'a path other than the DoH path (404)',
  DOH_NO_DNS_PARAMETER: 'GET without exactly one non-empty dns parameter (400)',
  DOH_BAD_CONTENT_TYPE: 'POST whose content type is not application/dns-message (415)',
  DOH_TOO_LARGE: 'a DNS message over 65535 octets (414 in the URL, 413 in the body)',
  DOH_NOT_A_QUERY: 'the body is not a DNS query: shorter than a header, or a response (400)',
  DOH_BAD_MESSAGE: 'the DNS message could not be answered (400)',
  DOH_BAD_REQUEST: 'the HTTP request could not be read (400)',
  DOH_REQUEST_TIMEOUT: 'the HTTP request was not received in time (408)',
  DOH_HEAD_TOO_LARGE: 'the HTTP request head is over the size node:http reads (431)',
  DOH_PLAIN_NOT_LOOPBACK: 'DoH without TLS on an address that is not loopback (start-up error)',
  DOH_TLS_FILES: 'only one of the TLS certificate and key files is given (start-up error)',
  DOH_TLS_UNREADABLE: 'the TLS certificate or key file cannot be read (start-up error)',
} as const;

export type DohCode = keyof typeof DOH_CODES;

/** The DoH codes answered as an HTTP problem (the others stop the server at start-up). */
export type DohHttpCode = Exclude<
  DohCode,
  'DOH_PLAIN_NOT_LOOPBACK' | 'DOH_TLS_FILES' | 'DOH_TLS_UNREADABLE'
>;

/** The HTTP status of each DoH failure (a new code does not compile without one). */
export const DOH_HTTP_STATUS: Readonly<Record<DohHttpCode, number>> = {
  DOH_BAD_BASE64URL: 400,
  DOH_BAD_METHOD: 405,
  DOH_NOT_FOUND: 404,
  DOH_NO_DNS_PARAMETER: 400,
  DOH_BAD_CONTENT_TYPE: 415,
  DOH_TOO_LARGE: 413,
  DOH_NOT_A_QUERY: 400,
  DOH_BAD_MESSAGE: 400,
  DOH_BAD_REQUEST: 400,
  DOH_REQUEST_TIMEOUT: 408,
  DOH_HEAD_TOO_LARGE: 431,
};

/**
 * The status of a DoH problem. DOH_TOO_LARGE is 413 for a body and 414 (URI
 * Too Long) for a GET's dns parameter (`inUrl`).
 */
export function dohStatus(code: DohHttpCode, inUrl = false): number {
  return inUrl && code === 'DOH_TOO_LARGE' ? 414 : DOH_HTTP_STATUS[code];
}
