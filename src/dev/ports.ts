/** Loopback port checks for `lexroute dev`: one address:port free (UDP and TCP), or a port on several. */
import dgram from 'node:dgram';
import net from 'node:net';

export type PortProblem = 'in-use' | 'no-address' | 'denied';

/** Why `host:port` cannot be bound, or undefined when it can (UDP and, unless `tcpOnly`/`udp`, TCP). */
export async function probePort(
  host: string,
  port: number,
  protocols: readonly ('udp' | 'tcp')[] = ['udp', 'tcp'],
): Promise<{ problem: PortProblem; message: string } | undefined> {
  for (const proto of protocols) {
    const error = await (proto === 'tcp' ? bindTcp(host, port) : bindUdp(host, port));
    if (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const problem: PortProblem =
        code === 'EADDRINUSE' ? 'in-use' : code === 'EACCES' ? 'denied' : 'no-address';
      return { problem, message: `${proto.toUpperCase()} ${error.message}` };
    }
  }
  return undefined;
}

function bindTcp(host: string, port: number): Promise<Error | undefined> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', (e) => resolve(e));
    s.listen({ host, port, exclusive: true }, () => s.close(() => resolve(undefined)));
  });
}

function bindUdp(host: string, port: number): Promise<Error | undefined> {
  return new Promise((resolve) => {
    const s = dgram.createSocket({ type: host.includes(':') ? 'udp6' : 'udp4' });
    s.once('error', (e) => {
      s.close();
      resolve(e);
    });
    s.bind({ address: host, port, exclusive: true }, () => s.close(() => resolve(undefined)));
  });
}

/** A port free for UDP and TCP on every address in `hosts` (tries up to 50 candidates). */
export async function freePortOnAll(hosts: readonly string[]): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    // Let the kernel pick on the first address, then check the others.
    const port = await new Promise<number>((resolve, reject) => {
      const s = net.createServer();
      s.once('error', reject);
      s.listen({ host: hosts[0] ?? '127.0.0.1', port: 0 }, () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    let free = true;
    for (const h of hosts) {
      if (await probePort(h, port)) {
        free = false;
        break;
      }
    }
    if (free) return port;
  }
  throw new Error(`no port free on all of ${hosts.join(', ')} after 50 tries`);
}
