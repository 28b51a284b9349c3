/**
 * Stable codes of zone transfers in (secondary mode): what makes a transfer
 * from a primary fail. A transfer that fails with any of these keeps the
 * zone version served before it.
 *
 * Codes are never renamed or reused. test/codes.test.ts checks that every code
 * used in src is in exactly one table; docs/codes.md is generated (npm run codes).
 */
export const XFR_IN_CODES = {
  XFR_BAD_MESSAGE: 'a transfer message that is not a valid DNS message (header, names, RDLENGTH)',
  XFR_BAD_ANSWER:
    'a transfer answer whose ID, opcode or flags are not those of an answer to our request',
  XFR_RCODE: 'the primary answered the transfer or SOA request with an error rcode',
  XFR_NO_SOA: 'the first record of a transfer is not the zone SOA',
  XFR_SOA_MISMATCH: 'the last SOA of a transfer differs from the first',
  XFR_IXFR_SEQUENCE:
    'an IXFR answer whose difference sequence does not chain (serials, deleted records not in the zone)',
  XFR_TRAILING_DATA: 'records after the closing SOA of a transfer',
  XFR_CUT_SHORT: 'the transfer stream ended (or timed out) before its closing SOA',
  XFR_TIMEOUT: 'the primary did not answer in time',
  XFR_CONNECT: 'the primary could not be reached',
  XFR_TSIG_MISSING:
    'a transfer message that must be signed (first, last, or after 99 unsigned) is not',
  XFR_TSIG_BAD: 'a transfer message signed with another key, a wrong MAC or out of the time window',
  XFR_TSIG_ERROR: 'the primary refused our TSIG key (BADKEY, BADSIG, BADTIME in its answer)',
  XFR_ZONE_REJECTED: 'the transferred zone did not load (zone diagnostics name the errors)',
  XFR_SERIAL_OLDER: 'the primary serves an older serial than ours (RFC 1982); nothing transferred',
  NOTIFY_REFUSED:
    'a NOTIFY from an address that is not a primary of the zone, or for no secondary zone',
  NOTIFY_TSIG: 'a NOTIFY without the TSIG key the zone requires, or signed wrongly',
  SECONDARY_EXPIRED: 'a secondary zone was not refreshed within its SOA expire time: SERVFAIL',
} as const;

export type XfrInCode = keyof typeof XFR_IN_CODES;
