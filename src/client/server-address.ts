/**
 * DNS server addresses: IP literals with a port, and resolv.conf(5) text.
 * No Node built-ins (the browser build of the client uses it).
 */
import { ClientError } from './errors.ts';
import { ipVersion, parseHostPort } from '../kit/core/host-port.ts';

export { ipVersion };

/** A DNS server to ask: an IP literal and a port. */
export interface ServerAddress {
  readonly host: string;
  readonly port: number;
}

/** `127.0.0.1:53`, `[::1]:5353`. */
export function formatServer(s: ServerAddress): string {
  return ipVersion(s.host) === 6 ? `[${s.host}]:${s.port}` : `${s.host}:${s.port}`;
}

/**
 * Parse `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 literal, by
 * the one `host:port` parser (`core/kit/host-port.ts`): IP literals and
 * `localhost` only (a server name would need a resolver to find the
 * resolver). A server to ask cannot be at port 0. Throws ClientError
 * `BAD_SERVER_ADDRESS` with the offending text, and the address parser's
 * failure (`HOST_PORT_*`) as its `cause`.
 */
export function parseServerAddress(text: string, defaultPort = 53): ServerAddress {
  const r = parseHostPort(text.trim(), defaultPort);
  if (!r.ok) {
    throw new ClientError(
      'BAD_SERVER_ADDRESS',
      `'${text}' is not a server address: ${r.error.message}; expected an IP literal, optionally with :port (IPv6 as [addr]:port)`,
      { cause: r.error },
    );
  }
  if (r.value.port === 0) {
    throw new ClientError('BAD_SERVER_ADDRESS', `'${text}': port must be a number from 1 to 65535`);
  }
  return r.value;
}

/**
 * The `nameserver` lines of a resolv.conf(5) text, in order. Comments start
 * with `#` or `;`; IPv6 addresses (with an optional %zone) are kept; lines
 * that are not IP literals are skipped, as the C library does.
 */
export function parseResolvConf(text: string): ServerAddress[] {
  const servers: ServerAddress[] = [];
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = raw.replace(/[#;].*$/, '').trim();
    const m = /^nameserver\s+(\S+)/.exec(line);
    if (!m || m[1] === undefined) continue;
    const addr = m[1];
    const bare = addr.split('%')[0] ?? addr;
    if (ipVersion(bare) === 0) continue;
    servers.push({ host: addr, port: 53 });
  }
  return servers;
}
