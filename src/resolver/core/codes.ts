/**
 * Stable codes of the catalogue core: why a row is refused (row.ts), and the
 * match outcomes and reasons (match.ts; penalties in `PENALTIES`).
 * Codes are never renamed or reused (test/codes.test.ts; docs/codes.md is generated).
 */
import type { UrnCode } from '../../urn/core/codes.ts';

export const ROW_CODES = {
  ROW_NOT_OBJECT: 'a JSON Lines row is not a JSON object',
  ROW_BAD_JSON: 'a JSON Lines row is not valid JSON',
  ROW_UNKNOWN_FIELD: 'a field the row format does not have',
  ROW_MISSING_URN: "the row has no 'urn'",
  ROW_BAD_URN: "'urn' is not a string",
  ROW_URN_TOO_LONG: 'the URN or an alias is longer than the resolver serves',
  ROW_COMPONENT: 'a catalogue URN with a ?+, ?= or # component',
  ROW_PARTITION: 'a catalogue URN naming a partition ("~...") instead of a document',
  ROW_BAD_URL: "'url' is not an absolute http: or https: URL without spaces",
  ROW_BAD_PRIORITY: "'priority' is not an integer 0-65535",
  ROW_PRIORITY_WITHOUT_URL: "'priority' on a row without 'url'",
  ROW_BAD_IN_FORCE: "'inForce' is not a date YYYY-MM-DD",
  ROW_IN_FORCE_WITHOUT_VERSION: "'inForce' on a URN without an '@' expression",
  ROW_BAD_PARTITION_DEPTH: "'partitionDepth' is not an integer in range",
  ROW_PARTITION_DEPTH_WITHOUT_MANIFESTATION:
    "'partitionDepth' on a URN without a '$' manifestation",
  ROW_BAD_TITLE: "'title' is not a string of bounded length without control characters",
  ROW_BAD_ALIAS: "'aliases' is not a list of URNs (or a space-separated string), or too many",
  ROW_ALIAS_NOT_WORK: 'an alias that is not a work-level URN (it has @, $, ~ or ? parts)',
} as const;

export type RowCode = keyof typeof ROW_CODES;

/** What `RowError.code` carries: a row code, or the URN library's code for a bad URN. */
export type RowErrorCode = RowCode | UrnCode;

/** Outcomes (not found, invalid) and reasons (penalties, notes) of the catalogue match. */
export const MATCH_CODES = {
  // Outcomes: the URN is not resolved.
  UNKNOWN_URN: 'no catalogued work matches the URN (404)',
  NO_LOCATION: 'the work or expression is catalogued but has no location (404)',
  VERSION_NOT_FOUND: 'no such version, nor one in force at its date (404)',
  NOT_IN_FORCE: "no version is in force at the 'at' date (404)",
  LANGUAGE_NOT_AVAILABLE: 'no expression in the language asked for (404)',
  MANIFESTATION_NOT_FOUND: 'the expression has no such manifestation (404)',
  INVALID_AT_DATE: "'at' is not a date YYYY-MM-DD (400)",
  // Reasons: how a candidate was found, or why it scored less than 100.
  ALIAS: 'matched through an alias of the work',
  NUMBERS_PARTIAL: "the query's numbers are a strict subset or superset of the work's",
  NUMBER_MISSING: 'the query has no number',
  DATE_YEAR_ONLY: 'the query gives only the year of the date',
  DATES_PARTIAL: "the query gives some, not all, of the work's dates",
  DATE_MISSING: 'the query has no date',
  DATE_DIFFERS: 'same year, different full date, while the numbers agree',
  AUTHORITY_PARTIAL: 'one authority is a ";"-prefix of the other (RFC 9676 section 6.2.4)',
  AUTHORITY_DIFFERS: 'the authorities differ',
  MEASURE_PARTIAL: 'same measure type, different specification',
  MEASURE_DIFFERS: 'the measures differ',
  VERSION_IN_FORCE_AT: 'the version is not catalogued; the one in force at its date was chosen',
  VERSION_EVENTS_DIFFER: 'the version is not catalogued; one of the same date was chosen',
  LANGUAGE_UNRECORDED:
    'no expression is tagged with the language; the one with no recorded language was chosen',
  PARTITION_TRIMMED:
    "the partition was cut to the levels the manifestation's markup has anchors for",
  REGISTRY_REWRITE: 'an acronym or alternative label of the query was rewritten to its code',
  PARTITION_OMITTED:
    "the manifestation's markup has no partition anchors: the URL points at the document",
} as const;

export type MatchCode = keyof typeof MATCH_CODES;

/** The outcomes that leave a URN unresolved (404 at the HTTP edge). */
export type NotFoundCode = Extract<
  MatchCode,
  | 'UNKNOWN_URN'
  | 'NO_LOCATION'
  | 'VERSION_NOT_FOUND'
  | 'NOT_IN_FORCE'
  | 'LANGUAGE_NOT_AVAILABLE'
  | 'MANIFESTATION_NOT_FOUND'
>;

/** A request the matcher refuses (400 at the HTTP edge). */
export type InvalidRequestCode = Extract<MatchCode, 'INVALID_AT_DATE'>;

/** How a candidate was found, or why it scored less than 100. */
export type ReasonCode = Exclude<MatchCode, NotFoundCode | InvalidRequestCode>;
