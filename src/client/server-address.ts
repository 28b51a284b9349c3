/**
 * DNS server addresses: IP literals with a port, and resolv.conf(5) text.
 * No Node built-ins (the browser build of the client uses it).
 */
import { ClientError } from './errors.ts';

const V4_PART = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])';
const V4 = new RegExp(`^${V4_PART}(?:\\.${V4_PART}){3}$`);

/**
 * 4 for an IPv4 dotted quad, 6 for an IPv6 literal (no brackets; a `%zone`
 * suffix allowed), 0 otherwise: the answers of `node:net`'s `isIP`, without
 * Node. IPv6 is checked by the WHATWG URL host parser, which browsers and
 * Node share.
 */
export function ipVersion(text: string): 0 | 4 | 6 {
  if (V4.test(text)) return 4;
  const m = /^([0-9A-Fa-f:.]+)(?:%[0-9A-Za-z.:-]+)?$/.exec(text);
  if (!m || !text.includes(':')) return 0;
  return URL.canParse(`http://[${m[1] as string}]/`) ? 6 : 0;
}

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
 * Parse `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 literal.
 * Only IP literals: a server name would need a resolver to find the resolver.
 * Throws ClientError `BAD_SERVER_ADDRESS` with the offending text.
 */
export function parseServerAddress(text: string, defaultPort = 53): ServerAddress {
  const t = text.trim();
  let host: string;
  let portText: string | undefined;
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(t);
  if (bracket) {
    host = bracket[1] ?? '';
    portText = bracket[2];
  } else if (ipVersion(t) === 6) {
    host = t;
  } else {
    const colon = t.lastIndexOf(':');
    if (colon >= 0 && t.indexOf(':') === colon) {
      host = t.slice(0, colon);
      portText = t.slice(colon + 1);
    } else {
      host = t;
    }
  }
  // A zone id (fe80::1%eth0) is kept for the socket layer.
  const bare = host.split('%')[0] ?? host;
  if (ipVersion(bare) === 0) {
    throw new ClientError(
      'BAD_SERVER_ADDRESS',
      `'${text}' is not a server address: expected an IP literal, optionally with :port (IPv6 as [addr]:port)`,
    );
  }
  let port = defaultPort;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
      throw new ClientError(
        'BAD_SERVER_ADDRESS',
        `'${text}': port must be a number from 1 to 65535`,
      );
    }
    port = Number(portText);
  }
  return { host, port };
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
