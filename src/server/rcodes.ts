/**
 * The one mapping from a failure to its DNS rcode at the server's edge
 * (issue 19): the query parser's codes (core/wire/query.ts) and the
 * engine's refusals (QUERY_REFUSAL_CODES, core/wire/codes.ts). A `Record`
 * over the closed union: a new code does not compile without its rcode, and
 * test/server/rcodes.test.ts checks each against the server's answers.
 */
import type { QueryParseCode, QueryRefusalCode } from '../core/wire/codes.ts';
import {
  RCODE_BADVERS,
  RCODE_FORMERR,
  RCODE_NOERROR,
  RCODE_NOTIMP,
  RCODE_NXDOMAIN,
  RCODE_REFUSED,
  RCODE_SERVFAIL,
} from '../core/zone/answer.ts';

/** The mnemonics (RFC 6895 section 2.3) of the rcodes the server sends: metric labels and tests. */
export const RCODE_NAMES: Readonly<Record<number, string>> = {
  [RCODE_NOERROR]: 'NOERROR',
  [RCODE_FORMERR]: 'FORMERR',
  [RCODE_SERVFAIL]: 'SERVFAIL',
  [RCODE_NXDOMAIN]: 'NXDOMAIN',
  [RCODE_NOTIMP]: 'NOTIMP',
  [RCODE_REFUSED]: 'REFUSED',
  [RCODE_BADVERS]: 'BADVERS',
};

/** Every failure the engine answers with an error rcode. */
export type DnsFailureCode = QueryParseCode | QueryRefusalCode;

export const RCODE_OF: Readonly<Record<DnsFailureCode, number>> = {
  // The query parser: a malformed message (RFC 1035 section 4.1.1).
  QUESTION_TRUNCATED: RCODE_FORMERR,
  QUESTION_BAD_LABEL: RCODE_FORMERR,
  QUESTION_NAME_TOO_LONG: RCODE_FORMERR,
  NO_QUESTION: RCODE_FORMERR,
  MULTIPLE_QUESTIONS: RCODE_FORMERR,
  RECORD_TRUNCATED: RCODE_FORMERR,
  MULTIPLE_OPT: RCODE_FORMERR,
  OPT_OWNER_NOT_ROOT: RCODE_FORMERR,
  OPT_OPTION_TRUNCATED: RCODE_FORMERR,
  BAD_COOKIE: RCODE_FORMERR,
  TRAILING_DATA: RCODE_FORMERR,
  // The engine's refusals.
  QUERY_OPCODE_NOT_IMPLEMENTED: RCODE_NOTIMP,
  QUERY_EDNS_VERSION: RCODE_BADVERS,
  QUERY_CLASS_REFUSED: RCODE_REFUSED,
  QUERY_TYPE_OPT: RCODE_FORMERR,
  QUERY_TRANSFER_REFUSED: RCODE_REFUSED,
  QUERY_TYPE_NOT_IMPLEMENTED: RCODE_NOTIMP,
  QUERY_NOT_AUTHORITATIVE: RCODE_REFUSED,
  QUERY_ZONE_EXPIRED: RCODE_SERVFAIL,
};

/** The rcode a failure is answered with. */
export function rcodeOf(code: DnsFailureCode): number {
  return RCODE_OF[code];
}
