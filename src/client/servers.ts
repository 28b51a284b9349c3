import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { ClientError } from './errors.ts';

/** A DNS server to ask: an IP literal and a port. */
export interface ServerAddress {
  readonly host: string;
  readonly port: number;
}

/** `127.0.0.1:53`, `[::1]:5353`. */
export function formatServer(s: ServerAddress): string {
  return isIP(s.host) === 6 ? `[${s.host}]:${s.port}` : `${s.host}:${s.port}`;
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
  } else if (isIP(t) === 6) {
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
  if (isIP(bare) === 0) {
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
    if (isIP(bare) === 0) continue;
    servers.push({ host: addr, port: 53 });
  }
  return servers;
}

/** Servers from /etc/resolv.conf (or `path`); `DNS_NO_SERVERS` when none. */
export async function systemServers(path = '/etc/resolv.conf'): Promise<ServerAddress[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new ClientError(
      'DNS_NO_SERVERS',
      `cannot read ${path}: ${(e as Error).message}; pass --server host:port`,
      { cause: e },
    );
  }
  const servers = parseResolvConf(text);
  if (servers.length === 0) {
    throw new ClientError('DNS_NO_SERVERS', `${path} lists no nameserver; pass --server host:port`);
  }
  return servers;
}
