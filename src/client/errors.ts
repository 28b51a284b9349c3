/** Errors at the client edge: a stable `code` (ddds/core/client-codes.ts), a message, a `cause`. */
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
