/** Stable codes of a failed transfer in; the zone version served before it is kept. */
export const XFR_IN_CODES = {
  XFR_BAD_MESSAGE: 'a transfer message that is not a valid DNS message (header, names, RDLENGTH)',
  XFR_BAD_ANSWER:
    'a transfer answer whose ID, opcode or flags are not those of an answer to our request',
  XFR_RCODE: 'the primary answered the transfer or SOA request with an error rcode',
  XFR_NO_SOA: 'the first record of a transfer is not the zone SOA',
  XFR_SOA_MISMATCH: 'the last SOA of a transfer differs from the first',
  XFR_IXFR_SEQUENCE:
    'an IXFR answer whose difference sequence does not chain (serials, deleted records not in the zone)',
  XFR_IXFR_MISMATCH:
    'an IXFR deletes a record the zone served does not hold: the versions differ, the zone is transferred whole (AXFR)',
  XFR_TRAILING_DATA: 'records after the closing SOA of a transfer',
  XFR_CUT_SHORT: 'the transfer stream ended (or timed out) before its closing SOA',
  XFR_TIMEOUT: 'the primary did not answer in time',
  XFR_CONNECT: 'the primary could not be reached',
  XFR_TSIG_MISSING:
    'a transfer message that must be signed (first, last, or after 99 unsigned) is not',
  XFR_TSIG_BAD: 'a transfer message signed with another key, a wrong MAC or out of the time window',
  XFR_TSIG_ERROR: 'the primary refused our TSIG key (BADKEY, BADSIG, BADTIME in its answer)',
  XFR_ZONE_REJECTED: 'the transferred zone did not load (zone diagnostics name the errors)',
  XFR_SERIAL_OLDER:
    'the primary serves, or a transfer ends on, an older serial than ours (RFC 1982): nothing installed (ctl retransfer ZONE --force goes back)',
  XFR_TOO_MANY_RECORDS:
    'a transfer (or the zone an IXFR makes) has more records than its limit (maxRecords): aborted while receiving',
  XFR_TOO_LARGE: 'a transfer sent more octets than its limit (maxBytes): aborted while receiving',
  XFR_TIME_LIMIT:
    'a transfer took longer than its overall deadline (maxSeconds), however steadily data came: aborted',
  NOTIFY_REFUSED:
    'a NOTIFY from an address that is not a primary of the zone, or for no secondary zone (REFUSED)',
  NOTIFY_TSIG:
    'a NOTIFY unsigned or signed with another key than the one the zone requires (REFUSED); a TSIG that fails is answered by the query pipeline first (NOTAUTH, xfr_tsig_failed with its TSIG_ code)',
  NOTIFY_MALFORMED: 'a NOTIFY whose question cannot be read, or that has more than one (FORMERR)',
  SECONDARY_EXPIRED: 'a secondary zone was not refreshed within its SOA expire time: SERVFAIL',
} as const;

export type XfrInCode = keyof typeof XFR_IN_CODES;

/** Stable codes of the TSIG checks (RFC 8945): of signed requests, and of answers to ours. */
export const TSIG_CODES = {
  TSIG_BAD_KEY:
    'a key that is not known, or not of the algorithm named (TSIG error BADKEY; a request is answered NOTAUTH)',
  TSIG_BAD_SIG:
    'a MAC that does not verify, or is empty (TSIG error BADSIG; a request is answered NOTAUTH)',
  TSIG_BAD_TRUNC:
    'a MAC truncated below half its length or 10 octets (TSIG error BADTRUNC; a request is answered NOTAUTH)',
  TSIG_BAD_TIME:
    'signed outside the time fudge (TSIG error BADTIME; a request is answered NOTAUTH, signed, with our time)',
  TSIG_MALFORMED:
    'a TSIG record that cannot be read, or that is not the last record (a request is answered FORMERR, RFC 8945 sections 5.1 and 5.2)',
  TSIG_UNSIGNED: 'the answer to a request we signed is not signed',
  TSIG_PEER_ERROR:
    'the peer answers our signed request with a TSIG error (BADKEY, BADSIG, BADTIME)',
} as const;

export type TsigCode = keyof typeof TSIG_CODES;

/** The failures of a signed request's TSIG (`verifyRequest`): each answered NOTAUTH with its TSIG error. */
export type TsigRequestCode = 'TSIG_BAD_KEY' | 'TSIG_BAD_SIG' | 'TSIG_BAD_TRUNC' | 'TSIG_BAD_TIME';

/** A request whose TSIG record cannot be read: answered FORMERR, unsigned (RFC 8945 section 5.2). */
export type TsigMalformedCode = 'TSIG_MALFORMED';

/** The failures of the answer to a request we signed (`verifyResponse`): any TSIG code. */
export type TsigResponseCode = TsigCode;

/** NOTIFY requests a secondary refuses (server/secondary.ts); server/rcodes.ts gives their rcodes. */
export type NotifyRefusalCode = 'NOTIFY_REFUSED' | 'NOTIFY_TSIG' | 'NOTIFY_MALFORMED';

/** Stable codes of a catalog consumed (RFC 9432): a version or member not applied (the members stay). */
export const CATALOG_IN_CODES = {
  CATALOG_NO_VERSION:
    'a catalog zone without its version property (version.CATALOG TXT "2"): the version is not applied, the members stay as they were',
  CATALOG_VERSION:
    'a catalog zone whose version property is not one TXT record "2" (RFC 9432 schema version 2 only): not applied, the members stay as they were',
  CATALOG_BAD_PTR:
    'a member node (ID.zones.CATALOG) without exactly one PTR, or whose PTR is not a zone name lexroute can hold (letters, digits, - and _ per label; not the catalog or below it): that member stays as it was',
  CATALOG_DUPLICATE_MEMBER:
    'a member zone listed twice in a catalog (two IDs): that member stays as it was',
  CATALOG_MEMBER_CONFLICT:
    'a catalog member that is already a zone here (a zone file, a configured secondary zone, another catalog without a change of ownership to this one): not provisioned from the catalog',
  CATALOG_BAD_COO:
    "a member's change of ownership property (coo.ID.zones.CATALOG) that is not one PTR naming a catalog: the version is not applied (RFC 9432 section 5.3), the members stay as they were",
} as const;

export type CatalogInCode = keyof typeof CATALOG_IN_CODES;
