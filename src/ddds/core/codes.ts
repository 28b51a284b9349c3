/** Every stable code the DDDS core reports, with its meaning (never renamed). */
import type { UrnCode } from '../../urn/core/codes.ts';
import type { ClientCode } from './client-codes.ts';

export const DDDS_CODES = {
  // Substitution expression (RFC 3402 section 3.2): parseSubstitution / applySubstitution.
  SUBST_EMPTY: 'the REGEXP field is empty where an expression is required',
  SUBST_TOO_LONG: 'the REGEXP field is over 255 octets (a <character-string>)',
  SUBST_NUL: 'a NUL character in the field (BIND refuses it)',
  SUBST_BAD_DELIMITER: 'the delimiter is a digit, "\\", "i", NUL or non-ASCII',
  SUBST_DELIMITER_COUNT: 'not exactly three unescaped delimiters',
  SUBST_BAD_FLAG: 'a flag other than "i" after the last delimiter',
  SUBST_BACKREF_ZERO: '"\\0" in the replacement (only \\1-\\9 exist)',
  SUBST_BACKREF_RANGE: 'a back-reference above the number of groups in the ERE',
  SUBST_BAD_INPUT: 'the input is not Unicode text (unpaired surrogate)',
  SUBST_ENGINE: 'the regular expression engine failed (should not happen)',
  SUBST_UNREPRESENTABLE: 'formatSubstitution: the parts have no RFC 3402 spelling',
  // POSIX ERE translated to the linear-time engine (ere.ts).
  ERE_EMPTY: 'the ERE is empty',
  ERE_SYNTAX:
    'malformed ERE: unclosed ( or [, bad interval, range out of order, empty alternative, quantifier without atom or after a quantifier, unknown [:class:], trailing backslash',
  ERE_UNSUPPORTED:
    'valid elsewhere but refused: back-reference inside the ERE, Perl/GNU escapes (\\d \\w \\s \\b \\< ...), (? groups, lazy or possessive quantifiers, multi-character collating elements, expansion beyond the engine limit, nesting deeper than 64',
  ERE_INTERVAL_LIMIT: 'an interval bound above 255 (POSIX RE_DUP_MAX)',
  // NAPTR record level (naptr.ts).
  NAPTR_FLAG_UNKNOWN: 'a flag other than S, A, U, P: record dropped before ordering',
  NAPTR_FLAG_MULTIPLE: 'several flags: record dropped before ordering',
  NAPTR_FLAG_INVALID: 'a flag character outside A-Z0-9: record dropped before ordering',
  NAPTR_BOTH_FIELDS:
    'REGEXP and REPLACEMENT both set (RFC 3403 section 4.1): ignored, does not lock the ORDER',
  NAPTR_NO_FIELDS: 'REGEXP empty and REPLACEMENT "."',
  NAPTR_U_WITHOUT_REGEXP: 'a U record with only a REPLACEMENT',
  NAPTR_U_NOT_URI: 'a U output that is not an absolute URI',
  NAPTR_NO_MATCH: 'the REGEXP does not match the AUS',
  NAPTR_EMPTY_OUTPUT: 'the REGEXP matches but the output is empty (counts as no match)',
  NAPTR_SERVICES_SYNTAX: 'SERVICES does not parse under RFC 3404 section 4.4 (unknown services)',
  NAPTR_SERVICE_UNWANTED: 'the service list does not include the wanted service',
  NAPTR_PROTOCOL_MISSING: 'an S, A or P record names no protocol',
  NAPTR_PROTOCOL_UNKNOWN: 'a protocol other than thttp, http, https',
  // The step (step.ts): record fates and outcomes.
  DDDS_NEXT_KEY: 'fate: the record was used; its output is the next key',
  DDDS_TERMINAL: 'fate: the record was used; terminal U, S or A',
  DDDS_HANDOFF: 'fate: the record was used; P hand-off',
  DDDS_ORDER_LOCKED: 'fate: skipped, another ORDER was locked by an earlier successful rewrite',
  DDDS_NOT_REACHED: 'fate: skipped, an earlier record of the same ORDER was used',
  DDDS_BAD_KEY:
    'fate: the output is not a valid DNS key (the key converter code is in the reason: KEY_* from the URN library, or DDDS_KEY_* for names taken verbatim)',
  DDDS_KEY_EMPTY: 'detail of DDDS_BAD_KEY: a verbatim name is the root',
  DDDS_KEY_EMPTY_LABEL: 'detail of DDDS_BAD_KEY: a verbatim name has an empty label',
  DDDS_KEY_LABEL_TOO_LONG: 'detail of DDDS_BAD_KEY: a verbatim name has a label over 63 octets',
  DDDS_KEY_TOO_LONG: 'detail of DDDS_BAD_KEY: a verbatim name is over 253 characters',
  DDDS_NO_RECORDS: 'outcome: the RRset is empty',
  DDDS_NO_VALID_OUTPUT: 'outcome: no record gives a usable result (RFC 3402 section 3.3)',
  DDDS_LOOP: 'DddsLoopGuard: a key was visited twice',
  DDDS_STEP_LIMIT: 'DddsLoopGuard: more keys than the step limit (10 by default)',
  // The walk (walk.ts).
  DDDS_URL_SCHEME:
    'a resolver answered a URL whose scheme is not accepted (http and https by default; option urlSchemes)',
} as const;

export type DddsCode = keyof typeof DDDS_CODES;

/** The walk's own outcome codes (it also reports the client's DNS_ and HTTP_ ones). */
export const WALK_CODES = {
  URN_INVALID: 'the input is not a valid URN, so the walk does not start',
  SRV_NONE: 'an S record led to a name without usable SRV records',
  SRV_UNAVAILABLE: 'the SRV RRset says the service is not available (target ".", RFC 2782)',
  ADDRESS_NONE: 'no SRV target (or A-record host) has an address',
} as const;

export type WalkCode = keyof typeof WALK_CODES;

/** Every code a resolution can fail or record a fate with. */
export type ResolutionCode = DddsCode | WalkCode | ClientCode | UrnCode;
