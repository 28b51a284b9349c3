/**
 * What every path of the DoH endpoint shares (node:http and node:http2 in
 * doh.ts, the plain HTTP/1.1 fast path in doh-fast.ts): the engine's answer
 * to a decoded query with its Cache-Control, and the problem+json body of
 * an error.
 */
import http from 'node:http';
import { dohFreshness } from '../dns/core/wire/doh.ts';
import type { DohHttpCode } from '../dns/core/wire/codes.ts';
import { TRANSPORT_DOH, type Engine } from './engine.ts';
import type { LogSummary } from './log-summary.ts';

export const DOH_PATH = '/dns-query';
export const DNS_MESSAGE = 'application/dns-message';

/** The problem+json body of a DoH error (RFC 9457). */
export function problemBody(status: number, code: DohHttpCode, detail: string): string {
  return JSON.stringify({
    type: `https://lexroute.dev/problems/${code.toLowerCase().replace(/_/g, '-')}`,
    title: http.STATUS_CODES[status] ?? 'Error',
    status,
    code,
    detail,
  });
}

/** What the engine makes of a decoded query: the answer, or a 400 problem. */
export type DohAnswer =
  | { readonly ok: true; readonly out: Buffer; readonly cacheControl: string }
  | {
      readonly ok: false;
      readonly code: Extract<DohHttpCode, 'DOH_BAD_MESSAGE' | 'DOH_NOT_A_QUERY'>;
      readonly detail: string;
    };

/** Answer a query from the engine (the one DNS code path of UDP, TCP and DoH). Never throws. */
export function answerQuery(
  engine: () => Engine,
  query: Buffer,
  summary: LogSummary,
  source: string,
): DohAnswer {
  let out: Buffer | undefined;
  try {
    out = query.length >= 12 ? engine().respond(query, TRANSPORT_DOH) : undefined;
  } catch (e) {
    summary.note('query_failed', source, 'doh', 'error', (e as Error).message);
    return { ok: false, code: 'DOH_BAD_MESSAGE', detail: 'the DNS message could not be answered' };
  }
  if (out === undefined) {
    return {
      ok: false,
      code: 'DOH_NOT_A_QUERY',
      detail: 'the body is not a DNS query (shorter than a header, or a response)',
    };
  }
  const ttl = dohFreshness(out);
  return { ok: true, out, cacheControl: ttl === undefined ? 'no-store' : `max-age=${ttl}` };
}
