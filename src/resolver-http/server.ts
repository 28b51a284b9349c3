/**
 * node:http adapter of the resolver app: no WHATWG Request/Response objects
 * on the hot path, one structured JSON log line per request, clean close.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ResolverApp } from './app.ts';

export interface LogEntry {
  readonly time: string;
  readonly level: 'info' | 'warn' | 'error';
  readonly msg: string;
  readonly [key: string]: unknown;
}

export interface ResolverServerOptions {
  readonly app: ResolverApp;
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** Receives one entry per request and per lifecycle event; omit for no logs. */
  readonly log?: (entry: LogEntry) => void;
  /** Log every request (default true when `log` is given). */
  readonly logRequests?: boolean;
}

export interface RunningResolver {
  readonly server: Server;
  readonly host: string;
  readonly port: number;
  /** `http://127.0.0.1:8080` */
  readonly url: string;
  /** Stop accepting, end idle keep-alive connections, wait for in-flight requests. */
  close(): Promise<void>;
}

/** A problem answer written by the adapter itself (malformed HTTP never reaches the app). */
function rawProblem(status: number, code: string, detail: string): string {
  const body = `${JSON.stringify({ type: 'about:blank', title: 'Bad Request', status, code, detail })}\n`;
  return (
    `HTTP/1.1 ${status} Bad Request\r\nContent-Type: application/problem+json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** `new Date().toISOString()`, formatted once per millisecond (many requests share one). */
let isoMs = -1;
let isoText = '';
function isoNow(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return isoText;
}

export async function startResolverServer(
  options: ResolverServerOptions,
): Promise<RunningResolver> {
  const { app, log } = options;
  const logRequests = log !== undefined && (options.logRequests ?? true);

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const started = logRequests ? performance.now() : 0;
    const out = app.handle({
      method: req.method ?? 'GET',
      target: req.url ?? '/',
      header: (name) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v.join(', ') : v;
      },
      httpVersion: req.httpVersion,
    });
    const head = req.method === 'HEAD' || out.status === 204;
    res.writeHead(out.status, out.headers);
    res.end(head ? undefined : out.body);
    // A request body is never read: node:http discards what is left of it
    // when the response finishes, so the connection stays usable.
    if (logRequests) {
      const entry: Record<string, unknown> = {
        time: isoNow(),
        level: out.status >= 500 ? 'error' : 'info',
        msg: 'request',
        method: req.method,
        target: (req.url ?? '').slice(0, 2000),
        status: out.status,
      };
      if (out.code) entry.code = out.code;
      if (out.headers.location) entry.location = out.headers.location;
      entry.ms = Math.round((performance.now() - started) * 1000) / 1000;
      entry.remote = req.socket.remoteAddress;
      log(entry as unknown as LogEntry);
    }
  };

  const server = createServer(
    {
      keepAliveTimeout: 5_000,
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      maxHeaderSize: 16_384,
    },
    onRequest,
  );
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    if (socket.writable && err.code !== 'ECONNRESET') {
      socket.end(
        rawProblem(400, 'BAD_HTTP_REQUEST', `malformed HTTP request (${err.code ?? err.message})`),
      );
    } else {
      socket.destroy();
    }
    log?.({
      time: new Date().toISOString(),
      level: 'warn',
      msg: 'client error',
      error: err.code ?? err.message,
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  log?.({
    time: new Date().toISOString(),
    level: 'info',
    msg: 'listening',
    url: `http://${hostForUrl}:${address.port}`,
  });

  let closing: Promise<void> | undefined;
  return {
    server,
    host: address.address,
    port: address.port,
    url: `http://${hostForUrl}:${address.port}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Connections still busy after a grace period are cut.
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      });
      return closing;
    },
  };
}
