/**
 * Every diagnostic code of the URN library, with its one-line meaning.
 * Codes are stable: they are never renamed or reused (add new ones instead).
 *
 * Prefixes: `URN_` the RFC 8141 layer, `LEX_` the RFC 9676 grammar,
 * `KEY_` the conversion of a string to a DNS key (IDNA2008 / Punycode).
 */
export const URN_CODES = {
  // RFC 8141 layer
  URN_EMPTY: 'the input is empty',
  URN_BAD_SCHEME: 'the input does not start with "urn:" (RFC 8141 section 2)',
  URN_BAD_NID:
    'the namespace identifier is not 2-32 letters, digits or hyphens with a letter or digit at each end (RFC 8141 section 2)',
  URN_EMPTY_NSS: 'nothing follows "urn:<NID>:" (the NSS must not be empty)',
  URN_BAD_NSS_START: 'the NSS starts with "/" (RFC 8141 section 2)',
  URN_BAD_CHAR:
    'a character that RFC 8141 does not allow raw (space, non-ASCII, " < > \\ ^ ` { | } [ ], a second "#")',
  URN_BAD_PERCENT: '"%" is not followed by two hexadecimal digits',
  URN_BAD_UTF8: 'percent-encoded octets are not valid UTF-8 (RFC 8141 section 2, RFC 3629)',
  URN_BAD_QUERY_MARK: 'a "?" not followed by "+" or "=" outside the r-, q- and f-components',
  URN_EMPTY_COMPONENT: '"?+" or "?=" with an empty r- or q-component',

  // RFC 9676 (LEX) grammar
  LEX_NOT_LEX: 'the namespace identifier is not "lex"',
  LEX_BAD_JURISDICTION: 'the jurisdiction code or a jurisdiction unit is missing or malformed',
  LEX_MISSING_AUTHORITY: 'the local name has no authority element',
  LEX_BAD_AUTHORITY: 'an issuer, body or function of the authority is empty or malformed',
  LEX_MISSING_MEASURE: 'the work has no measure element after the authority',
  LEX_BAD_MEASURE: 'the measure type or one of its specifications is empty or malformed',
  LEX_MISSING_DETAILS: 'the work has no details element (dates or period, then numbers)',
  LEX_BAD_DATE: 'a date is not a real YYYY-MM-DD date (RFC 9676 section 3.6)',
  LEX_BAD_PERIOD: 'the period in the details is empty or malformed',
  LEX_MISSING_NUMBER: 'the details have no ";" numbers part (RFC 9676 section 6.3)',
  LEX_BAD_NUMBER: 'a document number is empty or malformed',
  LEX_BAD_ANNEX: 'an annex id or one of its specifications is empty or malformed',
  LEX_BAD_VERSION: 'the version (after "@") is empty or malformed',
  LEX_BAD_LANGUAGE: 'the language is not a language tag of the RFC 9676 section 8 form',
  LEX_BAD_MANIFESTATION:
    'the manifestation (after "$") is not editor ":" format [":" component [":" feature]]',
  LEX_BAD_PARTITION: 'the partition id after "~" is empty or contains a character it cannot',
  LEX_SLASH: '"/" is not allowed in a LEX name; RFC 9676 section 3.2 converts it to "-"',
  LEX_FUTURE_CHAR: '"*" and "!" are reserved by RFC 9676 section 3.2 for future expansion',
  LEX_BAD_CHAR: 'a character that no part of a LEX name allows ("&"; RFC 9676 section 8)',
  LEX_CONTROL_CHAR:
    'a percent-encoded control character (%00-%1F, %7F, %C2%80-%C2%9F) in a LEX name',
  LEX_UNEXPECTED: 'a separator (: @ $ + ; , ~) where the LEX grammar has no place for it',

  // LEX warnings (severity 'warning'; the name is still accepted)
  LEX_RAW_PIPE:
    'warning: raw "|" date-loc separator; accepted, canonical form is "%7C" (not an RFC 8141 character)',
  LEX_UNUSUAL_YEAR: 'warning: a year before 1000, often a typing error (e.g. 0093 for 1993)',

  // DNS key (digest 9.5 (b), decisions.md item 2)
  KEY_EMPTY: 'the key is empty',
  KEY_BAD_PERCENT: '"%" is not followed by two hexadecimal digits',
  KEY_ENCODED_ASCII:
    'percent-encoded ASCII (e.g. %2E, %2F) in a key: decoding it would change the label structure',
  KEY_BAD_UTF8: 'the decoded octets are not valid UTF-8',
  KEY_EMPTY_LABEL: 'an empty label (leading dot, or two dots in a row)',
  KEY_LABEL_TOO_LONG:
    'a label is longer than 63 octets in its A-label form (RFC 1035 section 2.3.4)',
  KEY_NAME_TOO_LONG: 'the name is longer than 253 characters (RFC 1035 section 2.3.4)',
  KEY_BAD_LDH: 'an ASCII label has a character other than letters, digits and "-"',
  KEY_HYPHEN: 'a label starts or ends with "-"',
  KEY_RLDH:
    'a label has "--" in positions 3-4 but is not an A-label (R-LDH, RFC 5890 section 2.3.1)',
  KEY_FAKE_A_LABEL:
    'an "xn--" label that is not a valid A-label (bad Punycode, no round trip, or invalid U-label)',
  KEY_NOT_NFC: 'a Unicode label is not in Normalization Form C (RFC 5891 section 5.4)',
  KEY_DISALLOWED: 'a code point that IDNA2008 does not allow (DISALLOWED or UNASSIGNED, RFC 5892)',
  KEY_LEADING_COMBINING: 'a label starts with a combining mark (RFC 5891 section 5.4)',
  KEY_CONTEXTJ: 'ZERO WIDTH (NON-)JOINER outside the context RFC 5892 appendix A.1/A.2 allows',
  KEY_CONTEXTO: 'a CONTEXTO code point outside the context RFC 5892 appendix A allows',
  KEY_BIDI: 'the label breaks the Bidi rule of RFC 5893 section 2',
  KEY_PUNYCODE: 'Punycode encoding or decoding failed (e.g. overflow, RFC 3492 section 6.4)',
} as const;

export type UrnCode = keyof typeof URN_CODES;

/** The one-line meaning of a code. */
export function describeCode(code: UrnCode): string {
  return URN_CODES[code];
}
