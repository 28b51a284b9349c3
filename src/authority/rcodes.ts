/**
 * The one mapping from a failure to its DNS rcode at the server's edge: a
 * `Record` over the closed union, so a new code does not compile without its
 * rcode (test/server/rcodes.test.ts checks each against the answers).
 */
import type { QueryParseCode, QueryRefusalCode } from '../dns/core/wire/codes.ts';
import type { NotifyRefusalCode, TsigMalformedCode, TsigRequestCode } from '../xfr/core/codes.ts';
import { RCODE_NOTAUTH } from '../xfr/core/tsig.ts';
import { RCODE_NAMES as WIRE_RCODE_NAMES } from '../dns/core/wire/response.ts';
import {
  RCODE_BADVERS,
  RCODE_FORMERR,
  RCODE_NOTIMP,
  RCODE_REFUSED,
  RCODE_SERVFAIL,
} from './core/answer.ts';

/** Rcode mnemonics (RFC 6895 section 2.3): the wire decoder's table and BADVERS. */
export const RCODE_NAMES: Readonly<Record<number, string>> = {
  ...WIRE_RCODE_NAMES,
  [RCODE_BADVERS]: 'BADVERS',
};

/** Every failure the engine answers with an error rcode. */
export type DnsFailureCode =
  QueryParseCode | QueryRefusalCode | NotifyRefusalCode | TsigRequestCode | TsigMalformedCode;

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
  // NOTIFY to a secondary (RFC 1996 section 3.10: not from a known primary;
  // BIND, Knot and NSD answer REFUSED, and a malformed one FORMERR).
  NOTIFY_REFUSED: RCODE_REFUSED,
  NOTIFY_TSIG: RCODE_REFUSED,
  NOTIFY_MALFORMED: RCODE_FORMERR,
  // A signed request whose TSIG fails (RFC 8945 section 5.2): NOTAUTH, the
  // TSIG error in the answer's TSIG record.
  TSIG_BAD_KEY: RCODE_NOTAUTH,
  TSIG_BAD_SIG: RCODE_NOTAUTH,
  TSIG_BAD_TRUNC: RCODE_NOTAUTH,
  TSIG_BAD_TIME: RCODE_NOTAUTH,
  // A TSIG record that cannot be read or is not the last (RFC 8945 sections
  // 5.1, 5.2): FORMERR, unsigned, as BIND and Knot.
  TSIG_MALFORMED: RCODE_FORMERR,
};

/** The rcode a failure is answered with. */
export function rcodeOf(code: DnsFailureCode): number {
  return RCODE_OF[code];
}
