/**
 * node:http adapter of the resolver app: no WHATWG Request/Response objects
 * on the hot path, plain GET and HEAD requests answered from the socket's
 * bytes (`fast.ts`), one structured JSON log line per request, clean close.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AppResponse, ResolverApp } from './app.ts';
import type { ResolverStats } from './stats.ts';
import { HTTP_STATUS } from './codes.ts';
import { REASONS } from './respond.ts';
import { FastSockets, serveFast, type FastHttp } from './fast.ts';
import { clientErrorHandler, listenOn, problemResponse } from '../../kit/http1.ts';

/** node:http's keepAliveTimeout, and the fast path's idle limit on a kept-alive connection. */
const KEEP_ALIVE_MS = 5_000;

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
  /** Counters for `/metrics`, updated per request. */
  readonly stats?: ResolverStats;
  /** Log every request (default true when `log` is given). */
  readonly logRequests?: boolean;
  /** Log one request in this many (default 1); a `requests` summary counts the others every `summaryMs`. */
  readonly logSample?: number;
  /** Interval of the summary lines (default 60,000 ms). */
  readonly summaryMs?: number;
  /** Answer plain HTTP/1.1 GET and HEAD from the socket's bytes (`fast.ts`; default true; same bytes either way). */
  readonly fastPath?: boolean;
  /** HTTP timeouts, ms (defaults: headers 10,000, request 30,000, checked every 1,000). */
  readonly timeouts?: {
    readonly headersMs?: number;
    readonly requestMs?: number;
    readonly checkMs?: number;
  };
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
function rawProblem(code: 'REQUEST_TIMEOUT' | 'BAD_HTTP_REQUEST', detail: string): string {
  const status = HTTP_STATUS[code];
  const title = REASONS[status] ?? 'Error';
  return problemResponse(
    status,
    `${JSON.stringify({ type: 'about:blank', title, status, code, detail })}\n`,
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

/** Writes the responses and the request log (sampled per `logSample`). */
function responder(options: ResolverServerOptions) {
  const { log } = options;
  const logRequests = log !== undefined && (options.logRequests ?? true);
  const sample = Math.max(1, Math.floor(options.logSample ?? 1));
  let seen = 0;
  /** Requests left out of the log since the last summary, by status. */
  let skipped = new Map<number, number>();
  let summary: NodeJS.Timeout | undefined;
  const writeSummary = () => {
    if (skipped.size === 0 || !log) return;
    const byStatus: Record<string, number> = {};
    let total = 0;
    for (const [status, n] of skipped) {
      byStatus[status] = n;
      total += n;
    }
    skipped = new Map();
    log({ time: isoNow(), level: 'info', msg: 'requests', unlogged: total, byStatus });
  };
  if (logRequests && sample > 1) {
    summary = setInterval(writeSummary, options.summaryMs ?? 60_000);
    summary.unref();
  }

  /** Count and log one answered request (both paths). */
  const record = (
    method: string,
    target: string,
    remote: string | undefined,
    out: AppResponse,
    started: number,
  ): void => {
    options.stats?.count(target, out.status, (performance.now() - started) / 1000);
    if (!logRequests) return;
    if (sample > 1 && seen++ % sample !== 0 && out.status < 500) {
      skipped.set(out.status, (skipped.get(out.status) ?? 0) + 1);
      return;
    }
    const entry: Record<string, unknown> = {
      time: isoNow(),
      level: out.status >= 500 ? 'error' : 'info',
      msg: 'request',
      method,
      target: target.slice(0, 2000),
      status: out.status,
    };
    if (out.code) entry.code = out.code;
    if (out.headers.location) entry.location = out.headers.location;
    entry.ms = Math.round((performance.now() - started) * 1000) / 1000;
    entry.remote = remote;
    log?.(entry as unknown as LogEntry);
  };

  const send = (
    req: IncomingMessage,
    res: ServerResponse,
    out: AppResponse,
    started: number,
  ): void => {
    const head = req.method === 'HEAD' || out.status === 204;
    if (res.destroyed) return;
    res.writeHead(out.status, out.headers);
    res.end(head ? undefined : out.body);
    // A request body is never read: node:http discards it when the response finishes.
    record(req.method ?? 'GET', req.url ?? '', req.socket.remoteAddress, out, started);
  };

  return {
    send,
    record,
    logRequests,
    close() {
      if (summary !== undefined) clearInterval(summary);
      writeSummary();
    },
  };
}

/** node:http's `clientError`: a 408 or 400 problem, then the connection is destroyed. */
export function resolverClientError(log: ResolverServerOptions['log']) {
  return clientErrorHandler(
    (kind, detail) =>
      rawProblem(kind === 'timeout' ? 'REQUEST_TIMEOUT' : 'BAD_HTTP_REQUEST', detail),
    (error) => log?.({ time: new Date().toISOString(), level: 'warn', msg: 'client error', error }),
  );
}

/** Take the server's connections first (`fast.ts`); node:http serves what it hands over. */
function fastPath(
  server: Server,
  options: ResolverServerOptions,
  recording: Pick<FastHttp, 'record' | 'timed'>,
  onClientError: ReturnType<typeof resolverClientError>,
  sockets: FastSockets,
): void {
  const toNode = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  const fast: FastHttp = {
    ...recording,
    respond: (req) => options.app.respond(req),
    headersMs: options.timeouts?.headersMs ?? 10_000,
    keepAliveMs: KEEP_ALIVE_MS,
    onHeadersTimeout: (socket) =>
      onClientError(
        Object.assign(new Error('request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
        socket,
      ),
    handOver: (socket, pending) => {
      socket.pause();
      if (pending.length > 0) socket.unshift(pending);
      for (const listener of toNode) listener.call(server, socket);
      socket.resume();
    },
  };
  server.on('connection', (socket: Socket) => serveFast(socket, fast, sockets));
}

export async function startResolverServer(
  options: ResolverServerOptions,
): Promise<RunningResolver> {
  const { app, log } = options;
  const { send, record, logRequests, close: closeLog } = responder(options);
  const timed = logRequests || options.stats !== undefined;
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const started = timed ? performance.now() : 0;
    const out = app.respond({
      method: req.method ?? 'GET',
      target: req.url ?? '/',
      header: (name) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v.join(', ') : v;
      },
      httpVersion: req.httpVersion,
    });
    if (out instanceof Promise) void out.then((o) => send(req, res, o, started));
    else send(req, res, out, started);
  };

  const server = createServer(
    {
      keepAliveTimeout: KEEP_ALIVE_MS,
      headersTimeout: options.timeouts?.headersMs ?? 10_000,
      requestTimeout: options.timeouts?.requestMs ?? 30_000,
      connectionsCheckingInterval: options.timeouts?.checkMs ?? 1_000,
      maxHeaderSize: 16_384,
    },
    onRequest,
  );
  const onClientError = resolverClientError(log);
  server.on('clientError', onClientError);
  const fastSockets = new FastSockets();
  if (options.fastPath ?? true) {
    fastPath(server, options, { record, timed }, onClientError, fastSockets);
  }

  const { address, urlHost } = await listenOn(server, options.port, options.host);
  const origin = `http://${urlHost}:${address.port}`;
  log?.({ time: new Date().toISOString(), level: 'info', msg: 'listening', url: origin });

  let closing: Promise<void> | undefined;
  return {
    server,
    host: address.address,
    port: address.port,
    url: origin,
    close() {
      closeLog();
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        fastSockets.closeIdle();
        // Connections still busy after a grace period are cut.
        setTimeout(() => {
          server.closeAllConnections();
          fastSockets.destroyAll();
        }, 2_000).unref();
      });
      return closing;
    },
  };
}
