/**
 * The control channel (`serve --control`, `lexroute ctl`): one JSON request
 * line in, one JSON answer line out, then closed; over a Unix socket (mode
 * 0600) or a loopback TCP port with a key (`control-endpoint.ts`). Commands:
 * `status`, `reload`, `zone-status`, `retransfer`, `zone add|remove`, `stats`, `stop`.
 */
import { absoluteLowerName } from '../kit/core/names.ts';
import { chmod, unlink } from 'node:fs/promises';
import net from 'node:net';
import {
  endpointText,
  macValid,
  newChallenge,
  requestMac,
  type ControlEndpoint,
} from './control-endpoint.ts';
import type { Logger } from './log.ts';
import type { ReloadReport, RunningServer } from './server.ts';
import { plainStats } from './answer-threads.ts';
import { secondsToExpiry } from './zone-signatures.ts';
import { soaSerial, type ZoneStatus, type ZoneStatusBook } from './zone-status.ts';

export const CONTROL_COMMANDS = [
  'status',
  'reload',
  'zone-status',
  'retransfer',
  'zone',
  'stats',
  'stop',
] as const;

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
  /** Transfers out by type, peer and result, and NOTIFY results by peer (`zone-traffic.ts`). */
  readonly transfersOut: ReturnType<ZoneStatusBook['traffic']['report']>['transfersOut'];
  readonly notify: ReturnType<ZoneStatusBook['traffic']['report']>['notify'];
  /** Seconds to the earliest RRSIG expiration (negative: expired); undefined when unsigned. */
  readonly signatureExpirySeconds: number | undefined;
  /** A secondary zone's refreshes by result (axfr, ixfr, current, failed). */
  readonly transfersIn?: Readonly<Record<string, number>>;
}

/** A refusal: its code, message and, when given, the result so far. */
const fail = (code: string, message: string, result?: Record<string, unknown>): ControlAnswer =>
  result === undefined ? { ok: false, code, message } : { ok: false, code, message, result };

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function zoneReport(
  ctx: Omit<ControlContext, 'stop'>,
  origin: string,
  st: ZoneStatus | undefined,
): ZoneReport {
  const zone = ctx.server.engine.zones.find((z) => z.origin === origin);
  return {
    zone: origin,
    file: st?.file,
    serial: zone ? soaSerial(zone) : undefined,
    records: zone?.size,
    loadedAt: iso(st?.loadedAt),
    lastAttemptAt: iso(st?.lastAttemptAt),
    lastResult: st?.lastResult,
    lastError: st?.lastResult === 'failed' ? st.lastError : undefined,
    signatureExpirySeconds: zone ? secondsToExpiry(zone, Date.now()) : undefined,
    ...ctx.book.traffic.report(origin),
    ...transfersIn(ctx, origin),
  };
}

/** A secondary zone's refresh results, when `origin` is one. */
function transfersIn(ctx: Omit<ControlContext, 'stop'>, origin: string) {
  const z = ctx.server.secondaries?.status().find((s) => s.origin === origin);
  return z ? { transfersIn: { ...z.results } } : {};
}

function allZones(ctx: Omit<ControlContext, 'stop'>): ZoneReport[] {
  const origins = new Set(ctx.server.engine.zones.map((z) => z.origin));
  for (const st of ctx.book.files.values()) if (st.origin) origins.add(st.origin);
  const out = [...origins].sort().map((o) => zoneReport(ctx, o, ctx.book.find(o)));
  // Files that never loaded have no origin: listed by file.
  for (const st of ctx.book.files.values()) {
    if (!st.origin) out.push({ ...zoneReport(ctx, '', st), zone: '' });
  }
  return out;
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
  const origin = zoneArg === undefined ? undefined : absoluteLowerName(zoneArg);
  if (origin !== undefined && !ctx.book.find(origin)) {
    return fail('CTL_UNKNOWN_ZONE', `no zone ${origin} is configured`);
  }
  let report: ReloadReport;
  try {
    // With ZONE, only that zone's file is looked at (the others stay as served).
    report = await ctx.server.reload(origin);
  } catch (e) {
    return fail('CTL_RELOAD_FAILED', (e as Error).message);
  }
  if (origin === undefined) {
    const failed = allZones(ctx).filter((z) => z.lastResult === 'failed');
    const result = { ...report, zones: allZones(ctx) };
    if (failed.length > 0) {
      const message = failed
        .map((z) => `${z.zone || z.file}: ${z.lastError ?? 'failed'} (previous version kept)`)
        .join('; ');
      return fail('ZONE_RELOAD_FAILED', message, result);
    }
    return { ok: true, result };
  }
  const z = zoneReport(ctx, origin, ctx.book.find(origin));
  if (z.lastResult === 'failed') {
    const message = `${origin}: ${z.lastError ?? 'failed'}; serving the previous version (serial ${String(z.serial)})`;
    return fail('ZONE_RELOAD_FAILED', message, { ...z });
  }
  return { ok: true, result: { ...report, ...z } };
}

/** The server's status: version, uptime, workers, listen addresses and each zone's state. */
export function statusReport(ctx: Omit<ControlContext, 'stop'>) {
  return {
    version: ctx.version,
    pid: process.pid,
    startedAt: iso(ctx.startedAt)!,
    uptimeSeconds: Math.round((Date.now() - ctx.startedAt) / 1000),
    workers: ctx.workers,
    listen: ctx.server.udp.map((u) => `${u.address}:${u.port}`),
    rrl: ctx.server.rrl !== undefined,
    zones: allZones(ctx),
    ...catalogsConsumed(ctx),
  };
}

/** The catalogs consumed, without their member lists (`status CATALOG` has them). */
function catalogsConsumed(ctx: Omit<ControlContext, 'stop'>) {
  const c = ctx.server.catalogs;
  if (c === undefined) return {};
  return { catalogs: c.status().map(({ memberZones: _members, ...summary }) => summary) };
}

/** A catalog consumed (its members listed), or a member's catalog, ID, groups and state. */
function catalogOf(ctx: Omit<ControlContext, 'stop'>, origin: string) {
  const all = ctx.server.catalogs?.status() ?? [];
  const catalog = all.find((c) => c.catalog === origin);
  if (catalog) return { catalogConsumed: catalog };
  for (const c of all) {
    const m = c.memberZones.find((z) => z.zone === origin);
    if (m)
      return { catalogMember: { catalog: c.catalog, id: m.id, groups: m.groups, state: m.state } };
  }
  return {};
}

/**
 * `retransfer ZONE [--force]`: transfer a secondary zone whole now (BIND's
 * `rndc retransfer`); `--force` also installs an older serial.
 */
async function retransfer(ctx: ControlContext, args: readonly string[]): Promise<ControlAnswer> {
  const zone = args.find((a) => a !== '--force');
  if (zone === undefined) return fail('CTL_USAGE', 'retransfer needs a zone name');
  const origin = absoluteLowerName(zone);
  const r = await ctx.server.secondaries?.retransfer(origin, args.includes('--force'));
  if (r === undefined) return fail('CTL_UNKNOWN_ZONE', `${origin} is not a secondary zone here`);
  const result = { zone: origin, serial: r.serial ?? null };
  if (r.error) return { ok: false, ...r.error, result };
  return { ok: true, result };
}

/** What `ctl status` answers (and `startAuthority().status()` returns). */
export type StatusReport = ReturnType<typeof statusReport>;

/** `status ZONE`, `zone-status ZONE`: one zone's report. */
function zoneStatus(ctx: ControlContext, zone: string): ControlAnswer {
  const origin = absoluteLowerName(zone);
  const st = ctx.book.find(origin);
  if (!st && !ctx.server.engine.zones.some((z) => z.origin === origin)) {
    return fail('CTL_UNKNOWN_ZONE', `no zone ${origin} is served`);
  }
  return { ok: true, result: { ...zoneReport(ctx, origin, st), ...catalogOf(ctx, origin) } };
}

/** The catalog's serial and member count, for the answers of `zone add` and `zone remove`. */
function catalogState(ctx: ControlContext): Record<string, unknown> {
  const c = ctx.server.zoneSet.catalog;
  if (c === undefined) return {};
  const z = ctx.server.engine.zones.find((x) => x.origin === c.name);
  return {
    catalog: { zone: c.name, serial: z ? soaSerial(z) : null, members: c.listed()?.length ?? 0 },
  };
}

/**
 * `zone add FILE|ORIGIN`, `zone remove ORIGIN`: change the served set until
 * a restart (the catalog follows); FILE is absolute (`lexroute ctl` resolves it).
 */
async function zoneSetCommand(
  ctx: ControlContext,
  args: readonly string[],
): Promise<ControlAnswer> {
  const [verb, target] = args;
  if ((verb !== 'add' && verb !== 'remove') || target === undefined || args.length > 2)
    return fail('CTL_USAGE', 'zone add FILE|ORIGIN, or zone remove ORIGIN');
  const set = ctx.server.zoneSet;
  if (verb === 'remove') {
    const origin = absoluteLowerName(target);
    if (set.secondaryOrigins.has(origin) || origin === set.catalog?.name)
      return fail(
        'CTL_ZONE_FIXED',
        `${origin} is not a primary zone file: its configuration decides`,
      );
    if (!(await set.remove(origin))) return fail('CTL_UNKNOWN_ZONE', `no zone ${origin} is served`);
    ctx.book.forget(origin);
    return { ok: true, result: { zone: origin, removed: true, ...catalogState(ctx) } };
  }
  const isPath = target.includes('/');
  const r = await set.add(isPath ? { path: target } : { origin: absoluteLowerName(target) });
  if (r.origin === undefined || (r.outcome !== 'loaded' && r.outcome !== 'unchanged')) {
    const st = ctx.book.find(isPath ? target : absoluteLowerName(target));
    const why =
      st?.lastError ??
      (isPath ? 'it did not load' : 'no zone file of that origin in the configured folders');
    return fail('CTL_ZONE_ADD_FAILED', `${target}: ${why}`);
  }
  const report = zoneReport(ctx, r.origin, ctx.book.find(r.origin));
  return { ok: true, result: { ...report, added: true, ...catalogState(ctx) } };
}

/** Run one command. */
export async function runControlCommand(
  ctx: ControlContext,
  req: ControlRequest,
): Promise<ControlAnswer> {
  const args = req.args ?? [];
  switch (req.command) {
    case 'status':
      if (args[0] !== undefined) return zoneStatus(ctx, args[0]);
      return { ok: true, result: { ...statusReport(ctx) } };
    case 'zone':
      return zoneSetCommand(ctx, args);
    case 'reload':
      return reload(ctx, args[0]);
    case 'zone-status':
      if (args[0] === undefined) {
        return fail('CTL_USAGE', 'zone-status needs a zone name');
      }
      return zoneStatus(ctx, args[0]);
    case 'retransfer':
      return retransfer(ctx, args);
    case 'stats':
      return { ok: true, result: await stats(ctx) };
    case 'stop':
      setImmediate(ctx.stop);
      return { ok: true, result: { stopping: true } };
    default:
      return fail(
        'CTL_UNKNOWN_COMMAND',
        `unknown command '${req.command}' (${CONTROL_COMMANDS.join(', ')})`,
      );
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
  endpoint: string | ControlEndpoint,
  ctx: ControlContext,
  log: Logger,
): Promise<ControlServer> {
  return serveControlSocket(
    endpoint,
    (req) => {
      log.info('control_command', { command: req.command, args: req.args ?? [] });
      return runControlCommand(ctx, req);
    },
    // Counted into one summary line per interval: a local flood of bad requests cannot flood the log.
    (source) => ctx.server.summary.note('control_auth_failed', source, 'CTL_AUTH_FAILED', 'warn'),
  );
}

const answerLine = (a: ControlAnswer) => `${JSON.stringify(a)}\n`;
const refuse = (code: string, message: string) => answerLine({ ok: false, code, message });

/** One connection: one request line, its MAC checked on TCP, run, answer, close. */
function onConnection(
  socket: net.Socket,
  run: (req: ControlRequest) => Promise<ControlAnswer>,
  key: Uint8Array | undefined,
  onAuthFailed: (source: string) => void,
): void {
  let buf = '';
  const challenge = key === undefined ? undefined : newChallenge();
  socket.setEncoding('utf8');
  socket.setTimeout(10_000, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  if (challenge !== undefined) socket.write(`${JSON.stringify({ challenge })}\n`);
  socket.on('data', (chunk: string) => {
    buf += chunk;
    if (buf.length > MAX_REQUEST) {
      socket.end(refuse('CTL_BAD_REQUEST', 'request too long'));
      return;
    }
    const nl = buf.indexOf('\n');
    if (nl < 0) return;
    socket.removeAllListeners('data');
    let req: ControlRequest & { mac?: unknown };
    try {
      req = JSON.parse(buf.slice(0, nl)) as ControlRequest;
      if (typeof req.command !== 'string') throw new Error('no command');
      if (
        req.args !== undefined &&
        !(Array.isArray(req.args) && req.args.every((a) => typeof a === 'string'))
      ) {
        throw new Error('args');
      }
    } catch {
      socket.end(refuse('CTL_BAD_REQUEST', 'not a JSON request line'));
      return;
    }
    if (key !== undefined && !macValid(key, challenge!, req, req.mac)) {
      onAuthFailed(socket.remoteAddress ?? '');
      socket.end(refuse('CTL_AUTH_FAILED', 'the request is not signed with the control key'));
      return;
    }
    // A command that takes long (a reload) must not be cut by the idle timeout.
    socket.setTimeout(0);
    void run({ command: req.command, args: req.args ?? [] })
      .catch((e: unknown) => fail('CTL_FAILED', (e as Error).message))
      .then((a) => socket.end(answerLine(a)));
  });
}

/**
 * The control channel for any command set (the server's here, the resolver's in
 * `resolver/control.ts`). Refuses to take over a socket another process listens on.
 */
export async function serveControlSocket(
  where: string | ControlEndpoint,
  run: (req: ControlRequest) => Promise<ControlAnswer>,
  onAuthFailed: (source: string) => void = () => undefined,
): Promise<ControlServer> {
  const ep: ControlEndpoint = typeof where === 'string' ? { kind: 'unix', path: where } : where;
  if (ep.kind === 'unix') {
    if (await inUse(ep.path)) {
      throw new ControlSocketError(`another process is listening on ${ep.path}`);
    }
    await unlink(ep.path).catch(() => undefined); // a stale socket from a process that died
  }
  const key = ep.kind === 'tcp' ? ep.key : undefined;
  const server = net.createServer((socket) => onConnection(socket, run, key, onAuthFailed));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const ready = () => {
      server.off('error', reject);
      resolve();
    };
    if (ep.kind === 'unix') server.listen(ep.path, ready);
    else server.listen(ep.port, ep.host, ready);
  });
  if (ep.kind === 'unix') await chmod(ep.path, 0o600);
  const address = server.address();
  const bound: ControlEndpoint =
    ep.kind === 'tcp' && address !== null && typeof address === 'object'
      ? { ...ep, port: address.port }
      : ep;
  return {
    path: endpointText(bound),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

/** Client side: send one command, get the answer (or a CTL_UNREACHABLE error). */
export function sendControlCommand(
  where: string | ControlEndpoint,
  req: ControlRequest,
  timeoutMs = 30_000,
): Promise<ControlAnswer> {
  const ep: ControlEndpoint = typeof where === 'string' ? { kind: 'unix', path: where } : where;
  const name = endpointText(ep);
  return new Promise((resolve) => {
    const s = ep.kind === 'unix' ? net.connect(ep.path) : net.connect(ep.port, ep.host);
    let buf = '';
    let sent = false;
    const timer = setTimeout(() => {
      s.destroy();
      resolve(fail('CTL_TIMEOUT', `no answer from ${name} in ${timeoutMs} ms`));
    }, timeoutMs);
    const send = (mac?: string) => {
      sent = true;
      s.write(`${JSON.stringify(mac === undefined ? req : { ...req, mac })}\n`);
    };
    s.setEncoding('utf8');
    s.on('connect', () => {
      if (ep.kind === 'unix') send();
    });
    s.on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (sent || ep.kind !== 'tcp' || nl < 0) return;
      // The first line of a TCP channel is the server's challenge.
      let challenge: unknown;
      try {
        challenge = (JSON.parse(buf.slice(0, nl)) as { challenge?: unknown }).challenge;
      } catch {
        challenge = undefined; // not a lexroute control port: the answer says so
      }
      buf = buf.slice(nl + 1);
      send(typeof challenge === 'string' ? requestMac(ep.key, challenge, req) : '');
    });
    s.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const hint = `is lexroute serve or lexroute resolver running with --control ${name}?`;
      resolve(
        fail('CTL_UNREACHABLE', `cannot connect to ${name}: ${e.code ?? e.message} (${hint})`),
      );
    });
    s.on('end', () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(buf) as ControlAnswer);
      } catch {
        resolve(fail('CTL_BAD_ANSWER', `not a control answer: ${buf.slice(0, 200)}`));
      }
    });
  });
}
