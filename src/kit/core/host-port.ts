/**
 * `host:port` text: the one parser of listen addresses and of the DNS
 * servers the client asks. The host is an IP literal or `localhost` (names
 * are not resolved); IPv4 as inet_pton takes it, IPv6 in brackets with an
 * optional `%zone`; the port is 0-65535. Without a port the host takes
 * `defaultPort` when the caller has one (then a bare `::1` is a host).
 * Nothing is trimmed. A refusal is a failure with a code of
 * `HOST_PORT_CODES`, which callers wrap as the `cause` of their own code.
 */
import { parseIpv4, parseIpv6 } from './ip.ts';
import type { HostPortCode } from './codes.ts';
import type { Err, Failure, Ok } from './result.ts';

export { HOST_PORT_CODES, type HostPortCode } from './codes.ts';

/** A refused `host:port` text: its code and a sentence naming the text. */
export type HostPortError = Failure<HostPortCode>;

/** A host (IP literal or `localhost`) and a port. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

export type HostPortErr = Err<HostPortError>;

export type HostPortResult = Ok<HostPort> | HostPortErr;

const SCRATCH = new Uint8Array(16);

/** 4 for an IPv4 dotted quad, 6 for an IPv6 literal (no brackets; `%zone` allowed), else 0. */
export function ipVersion(text: string): 0 | 4 | 6 {
  if (parseIpv4(text, 0, text.length, SCRATCH, 0)) return 4;
  const pct = text.indexOf('%');
  const end = pct < 0 ? text.length : pct;
  if (pct >= 0 && !/^%[0-9A-Za-z.:-]+$/.test(text.slice(pct))) return 0;
  return parseIpv6(text, 0, end, SCRATCH, 0) ? 6 : 0;
}

function hostOk(host: string): boolean {
  return host === 'localhost' || ipVersion(host) !== 0;
}

/** Parse `host:port`, `[v6]:port`, and with a default port also `host`, `[v6]`, `v6`. */
export function parseHostPort(text: string, defaultPort?: number): HostPortResult {
  let host: string;
  let portText: string | undefined;
  const bracket = /^\[([^\]]*)\](?::(.*))?$/.exec(text);
  if (bracket) {
    host = bracket[1]!;
    portText = bracket[2];
    if (ipVersion(host) !== 6) {
      return fail('HOST_PORT_BAD_IPV6', `"${text}": [${host}] is not an IPv6 address`);
    }
  } else if (defaultPort !== undefined && ipVersion(text) === 6) {
    host = text;
  } else {
    const colon = text.lastIndexOf(':');
    if (colon >= 0 && text.indexOf(':') === colon) {
      host = text.slice(0, colon);
      portText = text.slice(colon + 1);
    } else if (colon >= 0) {
      return fail('HOST_PORT_SYNTAX', `"${text}" is not ADDR:PORT (for IPv6: [ADDR]:PORT)`);
    } else {
      host = text;
    }
    if (!hostOk(host)) {
      return fail(
        'HOST_PORT_BAD_HOST',
        `"${host}" is not an IP address (names other than localhost are not resolved)`,
      );
    }
  }
  if (portText === undefined) {
    if (defaultPort === undefined) {
      return fail('HOST_PORT_MISSING_PORT', `"${text}" is not ADDR:PORT (for IPv6: [ADDR]:PORT)`);
    }
    return { ok: true, value: { host, port: defaultPort } };
  }
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
    return fail('HOST_PORT_BAD_PORT', `"${text}": port must be a number from 0 to 65535`);
  }
  return { ok: true, value: { host, port: Number(portText) } };
}

/** `parseHostPort` without a default port, as the listen lists and `--listen` flags take it: the address or the error message. */
export function parseListen(text: string): HostPort | string {
  const r = parseHostPort(text);
  return r.ok ? r.value : r.error.message;
}

function fail(code: HostPortCode, message: string): HostPortResult {
  return { ok: false, error: { code, message } };
}
