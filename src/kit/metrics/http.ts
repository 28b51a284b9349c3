/** The `/metrics` endpoint (`--metrics ADDR:PORT`): `GET /metrics` computed at each scrape, else 404. */
import { createServer, type Server } from 'node:http';
import { isLoopback } from '../core/ip.ts';
import { listenOn } from '../http1.ts';
import { CONTENT_TYPE, renderFamilies, type MetricFamily } from './prom.ts';

/** The warning a `/metrics` endpoint on `host` deserves: none on loopback (it shows zones, serials, peers, rates). */
export function metricsExposure(
  host: string,
): { readonly code: 'METRICS_NOT_LOOPBACK'; readonly message: string } | undefined {
  if (isLoopback(host)) return undefined;
  return {
    code: 'METRICS_NOT_LOOPBACK',
    message: `/metrics on ${host} is reachable from other hosts: put it on 127.0.0.1 or ::1, or restrict access to it`,
  };
}

export interface MetricsEndpoint {
  readonly host: string;
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

export async function startMetricsEndpoint(
  host: string,
  port: number,
  collect: () => readonly MetricFamily[] | Promise<readonly MetricFamily[]>,
): Promise<MetricsEndpoint> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if ((req.method !== 'GET' && req.method !== 'HEAD') || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try GET /metrics\n');
      return;
    }
    Promise.resolve()
      .then(collect)
      .then(
        (families) => {
          const body = renderFamilies(families);
          res.writeHead(200, {
            'content-type': CONTENT_TYPE,
            'content-length': Buffer.byteLength(body),
          });
          res.end(req.method === 'HEAD' ? undefined : body);
        },
        (e: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(e)}\n`);
        },
      );
  });
  const { address: a, urlHost } = await listenOn(server, port, host);
  return {
    host: a.address,
    port: a.port,
    url: `http://${urlHost}:${a.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
