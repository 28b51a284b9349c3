/**
 * Stable codes of the resolver's HTTP problem answers (RFC 9457) with their
 * statuses; the match outcomes are in core/codes.ts.
 * Codes are never renamed or reused (test/codes.test.ts; docs/codes.md is generated).
 */
import type { CatalogueCode } from '../catalogue/codes.ts';
import type { InvalidRequestCode, NotFoundCode } from '../core/codes.ts';

export const RESOLVER_HTTP_CODES = {
  NO_SUCH_ROUTE: 'a path other than /uri-res/<service> (404)',
  UNKNOWN_SERVICE: 'an unknown resolution service (404)',
  SERVICE_NOT_IMPLEMENTED: 'an RFC 2483 service this resolver does not offer (501)',
  METHOD_NOT_ALLOWED: 'a method other than GET or HEAD (405)',
  MISSING_URN: 'nothing after "?" (400)',
  INVALID_URN: 'the URN does not parse, or its percent-encoding is not UTF-8 (400)',
  TARGET_TOO_LONG: 'the request-target is longer than the resolver accepts (400)',
  AMBIGUOUS_URN: 'several works match the URN equally well (300, with the candidates)',
  REQUEST_TIMEOUT: 'the request was not received in time (408)',
  BAD_HTTP_REQUEST: 'a malformed HTTP request (400)',
  INTERNAL_ERROR: 'an unexpected failure while answering (500)',
  PAGE_UNAVAILABLE: "the resolution page's script cannot be served (503)",
} as const;

export type ResolverHttpCode = keyof typeof RESOLVER_HTTP_CODES;

/** Every code a problem answer of the resolver carries (its own, the matcher's, CATALOGUE_UNAVAILABLE). */
export type ResolverProblemCode =
  | ResolverHttpCode
  | NotFoundCode
  | InvalidRequestCode
  | Extract<CatalogueCode, 'CATALOGUE_UNAVAILABLE'>;

/** The one mapping from a failure to its HTTP status (a new code does not compile without its status). */
export const HTTP_STATUS: Readonly<Record<ResolverProblemCode, number>> = {
  NO_SUCH_ROUTE: 404,
  UNKNOWN_SERVICE: 404,
  SERVICE_NOT_IMPLEMENTED: 501,
  METHOD_NOT_ALLOWED: 405,
  MISSING_URN: 400,
  INVALID_URN: 400,
  TARGET_TOO_LONG: 400,
  AMBIGUOUS_URN: 300,
  REQUEST_TIMEOUT: 408,
  BAD_HTTP_REQUEST: 400,
  INTERNAL_ERROR: 500,
  PAGE_UNAVAILABLE: 503,
  UNKNOWN_URN: 404,
  NO_LOCATION: 404,
  VERSION_NOT_FOUND: 404,
  NOT_IN_FORCE: 404,
  LANGUAGE_NOT_AVAILABLE: 404,
  MANIFESTATION_NOT_FOUND: 404,
  INVALID_AT_DATE: 400,
  CATALOGUE_UNAVAILABLE: 503,
};
