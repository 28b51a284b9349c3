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
 * Parse `host[:port]` or `[v6][:port]`: IP literals and `localhost` only (a
 * name would need a resolver), port not 0. Throws ClientError
 * `BAD_SERVER_ADDRESS`, the parser's `HOST_PORT_*` failure as its `cause`.
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

/** The `nameserver` IP literals of a resolv.conf(5) text, in order (others skipped, as libc). */
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
