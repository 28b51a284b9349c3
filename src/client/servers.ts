import { readFile } from 'node:fs/promises';
import { ClientError } from './errors.ts';
import { parseResolvConf, type ServerAddress } from './server-address.ts';

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
