/**
 * Errors at the client edge: classes with a stable SCREAMING_SNAKE `code`, a
 * message a person understands, and the `cause` when there is one.
 *
 * The codes are part of the public interface (the CLI prints them, `--json`
 * carries them, tests pin them): never rename one.
 *
 * DNS codes:
 * - `DNS_NXDOMAIN`, `DNS_NODATA`: the name does not exist / has no record of
 *   that type. This is "not found", an answer from the DNS, distinct from the
 *   failures below.
 * - `DNS_TIMEOUT`: no usable answer from any server within the tries.
 * - `DNS_SERVFAIL`, `DNS_REFUSED`, `DNS_FORMERR`, `DNS_NOTIMP`, `DNS_RCODE`:
 *   the server answered with that response code (`DNS_RCODE` for the rest).
 * - `DNS_BAD_RESPONSE`: only malformed or mismatching responses came back.
 * - `DNS_MESSAGE_TOO_LARGE`, `DNS_RRSET_TOO_LARGE`: over the client's caps.
 * - `DNS_NETWORK`: a socket error (connection refused, unreachable).
 * - `DNS_NO_SERVERS`: no server configured (empty resolv.conf).
 * - `DNS_REFERRAL`: a stub query reached a server that only refers elsewhere.
 * - `DNS_LAME`, `DNS_REFERRAL_LOOP`, `DNS_CNAME_LOOP`, `DNS_DEPTH_EXCEEDED`:
 *   iterative mode.
 * - `DNS_ABORTED`: the caller's AbortSignal fired.
 *
 * DNSSEC codes (`resolve --dnssec`, `dnssec: true`):
 * - `DNSSEC_INSECURE`: the validating resolver answered without AD (the
 *   zone is unsigned, or no chain of trust reaches it).
 * - `DNSSEC_BOGUS`: the validating resolver answered SERVFAIL and answers
 *   the same question with CD set: the data is there, its validation failed.
 * - `DNSSEC_NEEDS_RESOLVER`: DNSSEC was asked for in iterative mode, where
 *   nothing validates (use a validating resolver with `--server`).
 */
import type { ResolutionCode } from '../ddds/core/codes.ts';

export class ClientError extends Error {
  readonly code: ResolutionCode;
  constructor(code: ResolutionCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'ClientError';
  }
}

/** Which server, for which question: every DNS error can say. */
export interface DnsErrorContext {
  readonly qname?: string;
  readonly qtype?: string;
  readonly server?: string;
}

export class DnsError extends ClientError {
  readonly qname: string | undefined;
  readonly qtype: string | undefined;
  readonly server: string | undefined;
  constructor(
    code: ResolutionCode,
    message: string,
    context: DnsErrorContext = {},
    cause?: unknown,
  ) {
    super(code, message, cause === undefined ? undefined : { cause });
    this.name = 'DnsError';
    this.qname = context.qname;
    this.qtype = context.qtype;
    this.server = context.server;
  }
}

/** True for the two "not found" answers (as opposed to failures). */
export function isNotFound(e: unknown): boolean {
  return e instanceof DnsError && (e.code === 'DNS_NXDOMAIN' || e.code === 'DNS_NODATA');
}

/**
 * HTTP step codes: `HTTP_NOT_FOUND` (404/410), `HTTP_CLIENT_ERROR` (other
 * 4xx), `HTTP_SERVER_ERROR` (5xx), `HTTP_UNEXPECTED_STATUS` (e.g. 200 to N2L
 * without Location), `HTTP_NO_LOCATION`, `HTTP_BAD_LOCATION`,
 * `HTTP_REDIRECT_LIMIT`, `HTTP_TIMEOUT`, `HTTP_NETWORK`, `HTTP_BODY_TOO_LARGE`,
 * `HTTP_BAD_CONTENT_TYPE`, `HTTP_EMPTY_LIST`, `HTTP_BAD_URL`.
 */
export class HttpStepError extends ClientError {
  readonly url: string | undefined;
  readonly status: number | undefined;
  constructor(
    code: ResolutionCode,
    message: string,
    context: { url?: string; status?: number } = {},
    cause?: unknown,
  ) {
    super(code, message, cause === undefined ? undefined : { cause });
    this.name = 'HttpStepError';
    this.url = context.url;
    this.status = context.status;
  }
}
