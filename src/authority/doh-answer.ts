/** What every path of the DoH endpoint shares: the path, the media type, the problem+json body. */
import http from 'node:http';
import type { DohHttpCode } from '../dns/core/wire/codes.ts';

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
