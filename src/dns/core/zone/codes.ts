/** Every stable code of the zone layer: parser, RDATA codecs, checks, loading, reloads, DNSSEC check. */
import type { LintCode } from '../../../ddds/core/lint/codes.ts';
import type { DnssecKeyCode } from '../../../dnssec/core/codes.ts';

export const ZONE_CODES = {
  // Lexer and parser (lexer.ts, parser.ts)
  ZONE_UNTERMINATED_QUOTE: 'a quoted string is not closed on its line',
  ZONE_UNCLOSED_PAREN: 'an opening parenthesis is never closed',
  ZONE_UNBALANCED_PAREN: 'a closing parenthesis without an opening one',
  ZONE_ENTRY_TOO_LONG:
    'an entry (or comment line) is longer than the parser accepts; the rest of the file is not read',
  ZONE_BAD_DIRECTIVE: '$ORIGIN, $TTL or $INCLUDE with the wrong number or kind of arguments',
  ZONE_UNKNOWN_DIRECTIVE: 'a "$" directive other than $ORIGIN, $INCLUDE and $TTL',
  ZONE_UNSUPPORTED_DIRECTIVE: '$GENERATE (a BIND extension): write the records out',
  ZONE_INCLUDE_DISABLED:
    '$INCLUDE without a file source given to the parser (library parse functions)',
  ZONE_INCLUDE_DEPTH: '$INCLUDE nested deeper than the parser allows',
  ZONE_INCLUDE_NOT_FOUND: 'an $INCLUDE file cannot be read',
  ZONE_INCLUDE_OUTSIDE:
    "an $INCLUDE file is outside the zone file's directory (zoneFiles.includeDirs allows others)",
  ZONE_NO_ORIGIN:
    'a relative name or "@" but no origin is known ($ORIGIN, --origin, the file name)',
  ZONE_BAD_ORIGIN: 'the origin given is not a valid domain name',
  ZONE_NO_OWNER: 'the first record has a blank owner (a blank owner repeats the previous one)',
  ZONE_INHERITED_OWNER:
    'warning: a record with a blank owner right after $ORIGIN keeps the previous owner, not the new origin',
  ZONE_BAD_NAME: 'a malformed owner or RDATA domain name (quoted, or not in the model spelling)',
  ZONE_NO_TTL: 'a record with no TTL and no $TTL before it',
  ZONE_TTL_FROM_SOA: 'warning: no TTL and no $TTL; the SOA MINIMUM is used as TTL',
  ZONE_BAD_TTL: 'a TTL above 4294967295, malformed, or given twice on one record',
  ZONE_MISSING_TYPE: 'a record has no type',
  ZONE_UNKNOWN_TYPE: 'an unknown type mnemonic (write TYPEnnn with \\# RDATA, RFC 3597)',
  ZONE_BAD_TYPE: 'a type number out of range, or a bad type in a type bitmap or type-covered field',
  ZONE_META_TYPE: 'a query or meta type (ANY, AXFR, OPT ...) that cannot appear in a zone file',
  ZONE_CLASS_MISMATCH: "a record's class differs from the first record of the zone",
  // Domain names (names.ts)
  ZONE_EMPTY_LABEL: 'an empty label in a domain name (only the root may be empty)',
  ZONE_LABEL_TOO_LONG: 'a label over 63 octets (RFC 1035 section 2.3.4)',
  ZONE_NAME_TOO_LONG: 'a domain name over 255 octets in wire form (RFC 1035 section 2.3.4)',
  ZONE_BAD_ESCAPE: 'a backslash not followed by one character or by \\DDD up to 255',
  ZONE_NON_ASCII_NAME: 'a raw non-ASCII character in a domain name (write the A-label)',
  ZONE_BAD_NAME_CHAR: 'a character that a domain name in a zone file cannot hold unescaped',
  // RDATA (rdata*.ts, packet.ts)
  ZONE_MISSING_RDATA: 'the RDATA lacks a field its type requires',
  ZONE_EXTRA_RDATA: 'data after the last RDATA field of the type',
  ZONE_BAD_RDATA: 'an RDATA field that does not fit its type',
  ZONE_RDATA_TOO_LONG: 'RDATA (or an SVCB parameter value) over 65535 octets',
  ZONE_STRING_TOO_LONG: 'a <character-string> over 255 octets (RFC 1035 section 3.3)',
  ZONE_BAD_NUMBER: 'a number field out of range or not a number',
  ZONE_BAD_IPV4: 'not an IPv4 address where one is required',
  ZONE_BAD_IPV6: 'not an IPv6 address where one is required',
  ZONE_BAD_HEX: 'not hexadecimal octets where they are required',
  ZONE_BAD_BASE32: 'not base32hex where it is required (NSEC3 next hashed owner)',
  ZONE_BAD_BASE64: 'not base64 where it is required (RFC 4648 section 4)',
  ZONE_BAD_TIME: 'an RRSIG time that is not YYYYMMDDHHmmSS nor seconds 0-4294967295',
  ZONE_BAD_DIGEST: 'a ZONEMD digest of the wrong length for its hash algorithm',
  ZONE_BAD_LOC: 'a LOC field out of range or malformed (RFC 1876 section 3)',
  ZONE_BAD_EUI: 'an EUI48/EUI64 address that is not hyphen-separated hex octets (RFC 7043)',
  ZONE_BAD_GENERIC_RDATA: 'malformed generic RDATA (\\# length hex, RFC 3597 section 5)',
  ZONE_UNSUPPORTED_TYPE_SYNTAX: 'a type whose RDATA is only read in the generic \\# form',
  ZONE_SVCB_BAD_PARAM: 'an SVCB/HTTPS SvcParam that is not key or key=value',
  ZONE_SVCB_UNKNOWN_KEY: 'an unknown SvcParamKey (RFC 9460 section 14.3.2)',
  ZONE_SVCB_DUPLICATE_KEY: 'a SvcParamKey given twice (RFC 9460 section 2.1)',
  ZONE_SVCB_BAD_VALUE: 'a SvcParam value missing or malformed for its key (RFC 9460 section 7)',
  ZONE_SVCB_MANDATORY: 'mandatory lists a key the record does not have (RFC 9460 section 8)',
  ZONE_SVCB_INCONSISTENT: 'no-default-alpn without alpn (RFC 9460 section 7.1.1)',
  // Zone content checks (store.ts, build.ts, validate.ts)
  ZONE_DUPLICATE_RECORD: 'warning: the same record twice; the copy is ignored (RFC 2181 section 5)',
  ZONE_MIXED_TTL:
    'warning: an RRset with different TTLs; the smallest is used (RFC 2181 section 5.2)',
  ZONE_OUT_OF_ZONE: 'warning: a record outside the zone origin; it is ignored',
  ZONE_NO_SOA: 'no SOA record at the zone apex (RFC 1035 section 5.2)',
  ZONE_MULTIPLE_SOA: 'more than one SOA record at the apex',
  ZONE_SOA_NOT_AT_APEX: 'an SOA record below the zone apex',
  ZONE_NO_APEX_NS: 'no NS records at the zone apex',
  ZONE_DS_AT_APEX: 'a DS record at the apex: DS belongs in the parent zone (RFC 4035 section 2.4)',
  ZONE_CNAME_AND_OTHER: 'a CNAME beside other data at one owner (RFC 2181 section 10.1)',
  ZONE_MULTIPLE_CNAME: 'several CNAME records at one owner (RFC 2181 section 10.1)',
  ZONE_MULTIPLE_DNAME: 'several DNAME records at one owner (RFC 6672 section 2.4)',
  ZONE_NONTERMINAL_WILDCARD: 'warning: a "*" label that is not leftmost is not a wildcard',
  ZONE_OCCLUDED: 'warning: data below a zone cut (or non-authoritative at it) that is not served',
  ZONE_MISSING_GLUE: 'an NS target inside a delegated child zone without a glue address',
  ZONE_NS_TARGET_CNAME: 'an NS target that is an alias (CNAME) (RFC 2181 section 10.3)',
  ZONE_TARGET_CNAME: 'an MX/SRV/NAPTR target that is an alias (CNAME) (RFC 2181 section 10.3)',
  ZONE_TARGET_NO_ADDRESS: 'a target inside the zone without an A or AAAA record',
  ZONE_TTL_RANGE:
    'warning: a TTL above 2147483647, which resolvers treat as 0 (RFC 2181 section 8)',
  // Zone files on disk (zonefile/load.ts, zonefile/worker.ts)
  ZONE_FILE_UNREADABLE: 'a zone file cannot be read',
  ZONE_FILE_TOO_LARGE: 'a zone file (with its includes) is over zoneFiles.maxBytes',
  ZONE_NOT_REGULAR_FILE: 'a zone source is not a regular file (a FIFO, device, folder ...)',
  ZONE_LOAD_ABORTED: 'loading the zone file was stopped (abort signal)',
  ZONE_LOAD_FAILED: 'loading a zone failed unexpectedly (worker or reload)',
  ZONE_LOAD_TIMEOUT:
    'loading the zone file took longer than the bound (zone-load worker stopped; the previous version is kept)',
  ZONE_FILE_NAME_NOT_ORIGIN:
    "warning: the file name does not spell a domain name; the origin comes from the file's content",
  ZONE_ORIGIN_MISMATCH: "the origin the file name gives differs from the owner of the file's SOA",
  // Serving (server/control.ts)
  ZONE_RELOAD_FAILED: 'a reload failed; the previous version of the zone is still served',
  // DNSSEC (dnssec/sign.ts, dnssec/verify.ts)
  ZONE_INVALID: 'the zone to sign does not load',
  ZONE_RRSIG_MISSING: 'a signed zone has an RRset without RRSIG (RFC 4035 section 2.2)',
  ZONE_RRSIG_BAD: 'an RRSIG that does not verify, or whose Labels field is above the owner',
  ZONE_RRSIG_EXPIRED: 'an RRSIG past its expiration time',
  ZONE_RRSIG_NOT_YET_VALID: 'an RRSIG before its inception time',
  ZONE_RRSIG_NO_KEY: 'an RRSIG naming a key that is not a usable DNSKEY at the apex',
  // Denial-of-existence chains of a signed zone (core/dnssec/chain-check.ts).
  ZONE_DENIAL_MISSING: 'a signed zone (DNSKEY at the apex) with neither an NSEC nor an NSEC3 chain',
  ZONE_NSEC_MISSING:
    'an authoritative name or delegation point without NSEC (RFC 4035 section 2.3)',
  ZONE_NSEC_EXTRA: 'an NSEC below a zone cut (glue has none)',
  ZONE_NSEC_MULTIPLE: 'more than one NSEC record at a name',
  ZONE_NSEC_CHAIN_BROKEN: 'an NSEC whose next name is not the next name in canonical order',
  ZONE_NSEC_BITMAP: 'an NSEC type bitmap that does not match the types at its name',
  ZONE_NSEC3PARAM_MISSING: 'NSEC3 records without an NSEC3PARAM at the apex (RFC 5155 section 4)',
  ZONE_NSEC3_HASH: 'an NSEC3 hash algorithm other than SHA-1 (1)',
  ZONE_NSEC3_PARAMS: 'an NSEC3 whose hash, iterations or salt differ from the NSEC3PARAM',
  ZONE_NSEC3_BAD_OWNER: 'an NSEC3 owner that is not one hash label directly under the apex',
  ZONE_NSEC3_MISSING: 'a name that needs an NSEC3 without one (RFC 5155 section 7.1)',
  ZONE_NSEC3_EXTRA: 'an NSEC3 that is the hash of no name that needs one',
  ZONE_NSEC3_MULTIPLE: 'more than one NSEC3 record at a hashed owner',
  ZONE_NSEC3_CHAIN_BROKEN: 'an NSEC3 whose next hashed owner is not the next hash of the chain',
  ZONE_NSEC3_BITMAP: 'an NSEC3 type bitmap that does not match the types of its name',
  // lexroute zone diff.
  ZONE_DIFF_ORIGINS: 'lexroute zone diff: the two files hold zones of different origins',
} as const;

export type ZoneCode = keyof typeof ZONE_CODES;

/** Every code a `ZoneDiagnostic` can carry: the zone layer's, the NAPTR lint's, inline signing's. */
export type ZoneDiagnosticCode = ZoneCode | LintCode | DnssecKeyCode;

/** True when `code` is a registered zone code (a code carried by a thrown error, for example). */
export function isZoneCode(code: unknown): code is ZoneCode {
  return typeof code === 'string' && Object.hasOwn(ZONE_CODES, code);
}
