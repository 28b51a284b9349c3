/**
 * The control channel (`lexroute serve --control PATH`, `lexroute ctl`): a
 * Unix socket, mode 0600 (only the server's user may connect), one JSON
 * request per line (`{"command":"status","args":[]}`) and one JSON answer
 * per line (`{"ok":true,"result":{...}}` or `{"ok":false,"code":"...",
 * "message":"..."}`), then the server closes the connection.
 *
 * Commands: `status`, `reload [ZONE]`, `zone-status ZONE`, `stats`, `stop`.
 */
import { absoluteLowerName } from '../core/kit/names.ts';
import { chmod, unlink } from 'node:fs/promises';
import net from 'node:net';
import type { Logger } from './log.ts';
import type { ReloadReport, RunningServer } from './server.ts';
import { plainStats } from './answer-threads.ts';
import { soaSerialOf, type ZoneStatus, type ZoneStatusBook } from './zone-status.ts';

export const CONTROL_COMMANDS = ['status', 'reload', 'zone-status', 'stats', 'stop'] as const;

/** Requests larger than this are refused (a command is a few words). */
const MAX_REQUEST = 4096;

export interface ControlRequest {
  readonly command: string;
  readonly args?: readonly string[];
}

export type ControlAnswer =
  | { readonly ok: true; readonly result: Record<string, unknown> }
  | {
      readonly ok: false;
      readonly code: string;
      readonly message: string;
      readonly result?: Record<string, unknown>;
    };

export interface ControlContext {
  readonly server: RunningServer;
  readonly book: ZoneStatusBook;
  readonly startedAt: number;
  readonly version: string;
  readonly workers: number;
  /** Ask the process to stop (as SIGTERM). */
  readonly stop: () => void;
}

export interface ZoneReport {
  readonly zone: string;
  readonly file: string | undefined;
  readonly serial: number | undefined;
  readonly records: number | undefined;
  readonly loadedAt: string | undefined;
  readonly lastAttemptAt: string | undefined;
  readonly lastResult: 'loaded' | 'failed' | undefined;
  readonly lastError: string | undefined;
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function zoneReport(ctx: ControlContext, origin: string, st: ZoneStatus | undefined): ZoneReport {
  const zone = ctx.server.engine.zones.find((z) => z.origin === origin);
  return {
    zone: origin,
    file: st?.file,
    serial: zone ? soaSerialOf(zone) : undefined,
    records: zone?.size,
    loadedAt: iso(st?.loadedAt),
    lastAttemptAt: iso(st?.lastAttemptAt),
    lastResult: st?.lastResult,
    lastError: st?.lastResult === 'failed' ? st.lastError : undefined,
  };
}

function allZones(ctx: ControlContext): ZoneReport[] {
  const origins = new Set(ctx.server.engine.zones.map((z) => z.origin));
  for (const st of ctx.book.files.values()) if (st.origin) origins.add(st.origin);
  const out = [...origins].sort().map((o) => zoneReport(ctx, o, ctx.book.find(o)));
  // Files that never loaded have no origin: listed by file.
  for (const st of ctx.book.files.values()) {
    if (!st.origin) out.push({ ...zoneReport(ctx, '', st), zone: '' });
  }
  return out;
}

/** The canonical form of a zone argument: lowercased, trailing dot. */
function originArg(text: string): string {
  return absoluteLowerName(text);
}

/** Counters of every answering worker, summed (`workers` lists the queries of each). */
async function stats(ctx: ControlContext): Promise<Record<string, unknown>> {
  const s = ctx.server;
  const all = [plainStats(s), ...((await s.threads?.stats()) ?? [])];
  const tcp = { open: 0, accepted: 0, refused: 0, closedMessageTimeout: 0, closedIdle: 0 };
  const queries: Record<string, number> = {};
  let rrl: Record<string, number> | null = null;
  for (const w of all) {
    for (const [k, v] of Object.entries(w.queries)) queries[k] = (queries[k] ?? 0) + v;
    for (const l of w.tcp) {
      tcp.open += l.open;
      tcp.accepted += l.accepted;
      tcp.refused += l.refusedMax + l.refusedPerClient;
      tcp.closedMessageTimeout += l.closedMessageTimeout;
      tcp.closedIdle += l.closedIdle;
    }
    if (w.rrl) {
      rrl ??= { tableEntries: 0 };
      for (const [k, v] of Object.entries(w.rrl.counters)) rrl[k] = (rrl[k] ?? 0) + v;
      rrl.tableEntries! += w.rrl.size;
    }
  }
  return {
    uptimeSeconds: Math.round((Date.now() - ctx.startedAt) / 1000),
    queries,
    tcp,
    rrl,
    workers: all.map((w, i) => ({ worker: i, queries: w.queries.queries })),
  };
}

async function reload(ctx: ControlContext, zoneArg: string | undefined): Promise<ControlAnswer> {
  const origin = zoneArg === undefined ? undefined : originArg(zoneArg);
  if (origin !== undefined && !ctx.book.find(origin)) {
    return { ok: false, code: 'CTL_UNKNOWN_ZONE', message: `no zone ${origin} is configured` };
  }
  let report: ReloadReport;
  try {
    report = await ctx.server.reload();
  } catch (e) {
    return { ok: false, code: 'CTL_RELOAD_FAILED', message: (e as Error).message };
  }
  if (origin === undefined) {
    const failed = allZones(ctx).filter((z) => z.lastResult === 'failed');
    const result = { ...report, zones: allZones(ctx) };
    if (failed.length > 0) {
      return {
        ok: false,
        code: 'ZONE_RELOAD_FAILED',
        message: failed
          .map((z) => `${z.zone || z.file}: ${z.lastError ?? 'failed'} (previous version kept)`)
          .join('; '),
        result,
      };
    }
    return { ok: true, result };
  }
  const z = zoneReport(ctx, origin, ctx.book.find(origin));
  if (z.lastResult === 'failed') {
    return {
      ok: false,
      code: 'ZONE_RELOAD_FAILED',
      message: `${origin}: ${z.lastError ?? 'failed'}; serving the previous version (serial ${String(z.serial)})`,
      result: { ...z },
    };
  }
  return { ok: true, result: { ...report, ...z } };
}

/** Run one command. */
export async function runControlCommand(
  ctx: ControlContext,
  req: ControlRequest,
): Promise<ControlAnswer> {
  const args = req.args ?? [];
  switch (req.command) {
    case 'status':
      return {
        ok: true,
        result: {
          version: ctx.version,
          pid: process.pid,
          startedAt: iso(ctx.startedAt),
          uptimeSeconds: Math.round((Date.now() - ctx.startedAt) / 1000),
          workers: ctx.workers,
          listen: ctx.server.udp.map((u) => `${u.address}:${u.port}`),
          rrl: ctx.server.rrl !== undefined,
          zones: allZones(ctx),
        },
      };
    case 'reload':
      return reload(ctx, args[0]);
    case 'zone-status': {
      if (args[0] === undefined) {
        return { ok: false, code: 'CTL_USAGE', message: 'zone-status needs a zone name' };
      }
      const origin = originArg(args[0]);
      const st = ctx.book.find(origin);
      if (!st && !ctx.server.engine.zones.some((z) => z.origin === origin)) {
        return { ok: false, code: 'CTL_UNKNOWN_ZONE', message: `no zone ${origin} is served` };
      }
      return { ok: true, result: { ...zoneReport(ctx, origin, st) } };
    }
    case 'stats':
      return { ok: true, result: await stats(ctx) };
    case 'stop':
      setImmediate(ctx.stop);
      return { ok: true, result: { stopping: true } };
    default:
      return {
        ok: false,
        code: 'CTL_UNKNOWN_COMMAND',
        message: `unknown command '${req.command}' (${CONTROL_COMMANDS.join(', ')})`,
      };
  }
}

export interface ControlServer {
  readonly path: string;
  close(): Promise<void>;
}

/** Is something listening on this socket path already? */
function inUse(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(path);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

export class ControlSocketError extends Error {
  readonly code = 'CONTROL_SOCKET_IN_USE';
}

export async function startControlServer(
  path: string,
  ctx: ControlContext,
  log: Logger,
): Promise<ControlServer> {
  return serveControlSocket(path, (req) => {
    log.info('control_command', { command: req.command, args: req.args ?? [] });
    return runControlCommand(ctx, req);
  });
}

/**
 * The control socket itself, for any command set (the server's here, the
 * resolver's in `cli/commands/resolver-control.ts`): a Unix socket, mode
 * 0600, one JSON request line in, one JSON answer line out, then closed.
 * Refuses to take over a socket another process listens on.
 */
export async function serveControlSocket(
  path: string,
  run: (req: ControlRequest) => Promise<ControlAnswer>,
): Promise<ControlServer> {
  if (await inUse(path)) {
    throw new ControlSocketError(`another process is listening on ${path}`);
  }
  await unlink(path).catch(() => undefined); // a stale socket from a process that died
  const server = net.createServer((socket) => {
    let buf = '';
    socket.setEncoding('utf8');
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      buf += chunk;
      if (buf.length > MAX_REQUEST) {
        socket.end(
          `${JSON.stringify({ ok: false, code: 'CTL_BAD_REQUEST', message: 'request too long' })}\n`,
        );
        return;
      }
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      socket.removeAllListeners('data');
      let req: ControlRequest;
      try {
        req = JSON.parse(buf.slice(0, nl)) as ControlRequest;
        if (typeof req.command !== 'string') throw new Error('no command');
      } catch {
        socket.end(
          `${JSON.stringify({ ok: false, code: 'CTL_BAD_REQUEST', message: 'not a JSON request line' })}\n`,
        );
        return;
      }
      // A command that takes long (a reload) must not be cut by the idle timeout.
      socket.setTimeout(0);
      void run(req)
        .catch((e: unknown): ControlAnswer => ({
          ok: false,
          code: 'CTL_FAILED',
          message: (e as Error).message,
        }))
        .then((a) => socket.end(`${JSON.stringify(a)}\n`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  await chmod(path, 0o600);
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

/** Client side: send one command, get the answer (or a CTL_UNREACHABLE error). */
export function sendControlCommand(
  path: string,
  req: ControlRequest,
  timeoutMs = 30_000,
): Promise<ControlAnswer> {
  return new Promise((resolve) => {
    const s = net.connect(path);
    let buf = '';
    const timer = setTimeout(() => {
      s.destroy();
      resolve({
        ok: false,
        code: 'CTL_TIMEOUT',
        message: `no answer from ${path} in ${timeoutMs} ms`,
      });
    }, timeoutMs);
    s.setEncoding('utf8');
    s.on('connect', () => s.write(`${JSON.stringify(req)}\n`));
    s.on('data', (d: string) => (buf += d));
    s.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({
        ok: false,
        code: 'CTL_UNREACHABLE',
        message: `cannot connect to ${path}: ${e.code ?? e.message} (is lexroute serve or lexroute resolver running with --control ${path}?)`,
      });
    });
    s.on('end', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(buf) as ControlAnswer);
      } catch {
        resolve({
          ok: false,
          code: 'CTL_BAD_ANSWER',
          message: `not a control answer: ${buf.slice(0, 200)}`,
        });
      }
    });
  });
}
