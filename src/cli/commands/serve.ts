/**
 * `lexroute serve`: the authoritative DNS routing server.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { parseCommandArgs } from '../args.ts';
import { EXIT_OK, Reported, UsageError, stopSignal, type CliIo, type Command } from '../io.ts';
import { niceGcHelpers } from '../../authority/gc-helpers.ts';
import { exitCodeOf, exitCodeOfFailure } from '../exit.ts';
import {
  DEFAULT_SERVER_CONFIG,
  dnssecRefresh,
  isSecondaryZone,
  LOG_LEVELS,
  parsePrimary,
  parseListen,
  validateServerConfig,
  type ListenAddress,
  type PrimaryAddress,
  type ServerConfig,
  type ServerLogLevel,
  type ZoneSourceConfig,
} from '../../config/server.ts';
import { ConfigFileError, readJsonConfig } from '../../config/load.ts';
import { listenErrorCode } from '../../authority/listen-error.ts';
import { createLogger, type Logger } from '../../authority/log.ts';
import {
  startServer,
  ServerStartError,
  workerCount,
  type RunningServer,
  type ZoneFileLoader,
} from '../../authority/server.ts';
import { startOps, type Ops } from '../../authority/ops.ts';
import { sdNotify } from '../../authority/sd-notify.ts';
import { VERSION } from '../main.ts';
import type { HotNames } from '../../authority/core/answer-pack.ts';
import { tapLogger, ZoneStatusBook } from '../../authority/zone-status.ts';
import { loadZoneFile } from '../../authority/zones/load.ts';
import {
  BackgroundZoneLoader,
  countBuffersInHeapLimit,
  LOAD_TIMEOUT_MS,
  packBefore,
  SIGNED_LOAD_TIMEOUT_MS,
} from '../../authority/zones/background.ts';
import { compareVersion, hashFile as fileHash } from '../../authority/zones/version.ts';
import { serialPoliciesUsed, transfersConfigured } from '../../xfr/config.ts';
import { SERIAL_POLICIES, type SerialSetting } from '../../config/zone-transfer.ts';
import { loadAndSign, type InlineSigning } from '../../dnssec/inline.ts';
import { parseZoneSourceArg } from '../../authority/zones/sources.ts';
import { parseCidr } from '../../config/cidr.ts';
import { controlArg } from '../control-arg.ts';
import type { ControlEndpoint } from '../../authority/control-endpoint.ts';

export const SERVE_HELP = `Usage: lexroute serve [options]

Run the authoritative DNS server for LEX routing zones (UDP and TCP).

Options:
  --zones PATH         zone file, or directory of zone files: <origin>.zone,
                       <origin>.db, db.<origin> (repeatable; default: zones/);
                       ORIGIN=FILE names a file's origin (example.=routes.txt).
                       Otherwise the origin is the file name's, else the
                       file's first $ORIGIN, else its SOA owner (as zone check)
  --allow-empty        start even when no zone loads (else: exit 1)
  --listen ADDR:PORT   address to serve on, UDP and TCP (repeatable;
                       default: 127.0.0.1:5353; IPv6 as [::1]:5353)
  --config FILE        JSON configuration (see config/server.json); options
                       given here override it
  --watch              reload zone files when they change
  --workers N          answering threads on the same ports (SO_REUSEPORT,
                       Linux), sharing one copy of the zones; a reload loads
                       once and swaps in every one; 0: one per core
                       (default: 1; config/production.json: 0)
  --doh ADDR:PORT      also serve DNS over HTTPS (RFC 8484) at /dns-query,
                       HTTP/1.1 and HTTP/2 (repeatable); needs --tls-cert and
                       --tls-key except on loopback addresses (plain HTTP)
  --tls-cert FILE      PEM certificate (chain) for --doh
  --tls-key FILE       PEM private key for --doh
  --metrics ADDR:PORT  serve Prometheus metrics at http://ADDR:PORT/metrics
                       (queries by transport, type, rcode and zone, response
                       sizes, TCP connections, RRL actions, zone serials and
                       reloads)
  --control PATH       control channel for lexroute ctl (Unix socket, mode 0600):
                       status, reload [ZONE], zone-status ZONE, stats, stop;
                       or ADDR:PORT on a loopback address (TCP), with
                       --control-key
  --control-key FILE   the key a TCP control port checks every request
                       against (make it with lexroute ctl keygen FILE)
  --rrl RATE           response-rate limiting on UDP: at most RATE identical
                       responses per second per client /24 (IPv6 /56), slip 2,
                       window 15 s (the config's rrl block sets the rest;
                       off by default, as in BIND and Knot)
  --allow-transfer PREFIX
                       let these addresses transfer every zone by AXFR and
                       IXFR (RFC 5936, RFC 1995), e.g. 127.0.0.1/32 or
                       192.0.2.0/24, or 'key NAME' to require a TSIG key
                       (repeatable; default: no transfers, every AXFR/IXFR
                       is REFUSED)
  --notify ADDR:PORT   send NOTIFY (RFC 1996) to this secondary when a reload
                       raises a zone's serial, and at start; retried with a
                       doubling timeout, each answer logged (repeatable)
  --state-dir DIR      keep each zone's IXFR history in DIR (one journal file
                       per zone), with --serial the serial served for each
                       file content (a restart forces no full transfer and
                       does not step the serial back), and the secondary
                       zones' transferred copies
  --secondary ZONE=ADDR:PORT[,key NAME]
                       serve ZONE as a secondary of the primary at ADDR:PORT
                       (repeatable; several primaries of one zone are tried
                       in order): AXFR at start, then an SOA check at the
                       SOA refresh interval (retry after a failure) and on
                       NOTIFY from that address, IXFR when the serial is
                       newer (AXFR when IXFR fails); past the SOA expire the
                       zone gets SERVFAIL. With key NAME (from --tsig-keys)
                       requests are signed and every answer message checked,
                       and a NOTIFY must carry that key. Needs --state-dir:
                       the zone is kept in DIR/secondary/ZONE.zone, served
                       at once on restart. Without --zones, only secondary
                       zones are served
  --serial POLICY      keep | auto | date | increment: when a reload's content
                       changed but its SOA serial did not go up, keep reports
                       it (zone_serial_unchanged, the default); auto or date
                       raises it to YYYYMMDDnn (or +1 when that is not ahead),
                       increment by one (zone_serial_raised). The raised
                       serial is what SOA, AXFR, IXFR and NOTIFY carry; the
                       file is not rewritten (zones entries may set their own)
  --tsig-keys FILE     TSIG keys (RFC 8945) in BIND's format (key "name" {
                       algorithm hmac-sha256; secret "..."; };); with
                       --allow-transfer 'key NAME' a transfer must be signed
                       with that key (and come from a listed prefix, if any);
                       answers and NOTIFYs are signed with it
  --nsid TEXT          answer NSID requests (RFC 5001) with TEXT (default: none)
  --cookie-secret HEX  DNS cookie secret, 32 hex digits, the same on every
                       server of an anycast set (RFC 9018; default: random
                       at each start)
  --no-cookies         ignore DNS cookies (RFC 7873; default: answered)
  --chaos-version TEXT answer CH TXT version.bind and version.server
  --chaos-id TEXT      answer CH TXT id.server and hostname.bind
                       (without these two, CH queries are REFUSED)
  --keys DIR           sign inline (DNSSEC): every zone with keys in DIR
                       (K<zone>+<alg>+<tag>.private, from lexroute zone keygen
                       or dnssec-keygen) is signed at load and at each reload,
                       and signed again before its signatures expire; a zone
                       without keys there is served as its file has it
  --nsec3              with --keys: NSEC3 (RFC 9276: no salt, 0 iterations)
                       instead of NSEC
  --opt-out            with --nsec3: NSEC3 opt-out
  --validity DAYS      with --keys: signature validity (default 30); signed
                       again a quarter of it before the earliest expiration
  --log-format FORMAT  json | pretty (default: pretty on a terminal, else json)
  --json               the same as --log-format json: the start-up report
                       (zone_loaded, listening, ready) and every later event
                       as JSON lines on standard error
  --log-level LEVEL    debug | info | warn | error | silent (default: info)
  -h, --help           show this help

SIGHUP reloads the zones (a zone that fails to load keeps its previous
version). A reload that changes a zone whose serial went up (RFC 1982)
records the difference for IXFR (the config's transfer block bounds the
history by count and octets) and notifies the secondaries; a changed zone
whose serial did not go up is reported (zone_serial_unchanged), or raised
with --serial. Zone files are read, parsed, validated and compared with the
version served (the IXFR difference) in a worker thread while
the current zones keep answering; a file whose size and mtime, or whose
content hash, did not change is not parsed again. With --keys, signing
happens in that worker too, and a zone whose signing fails keeps its
previous version (zone_diagnostic with the code, then zone_load_failed).
SIGTERM or SIGINT shuts down cleanly.

Exit codes: 0 stopped cleanly, 1 could not start (the start_failed line names
a code: PORT_IN_USE, PORT_DENIED, ADDRESS_UNAVAILABLE, SERVER_NO_ZONES,
DNSSEC_KEYS_DIR, CONFIG_..., or CONTROL_KEY_INVALID), 2 usage error
(CONTROL_NOT_LOOPBACK, CONTROL_KEY_REQUIRED among them).
`;

/** The inline signing of a server configuration (undefined when `dnssec.keys` is null). */
export function inlineSigningFor(config: ServerConfig, cwd: string): InlineSigning | undefined {
  const d = config.dnssec;
  if (d.keys === null) return undefined;
  return {
    keysDir: path.resolve(cwd, d.keys),
    nsec3: d.nsec3,
    optOut: d.optOut,
    validity: d.validity,
    refresh: dnssecRefresh(d),
  };
}

/** The zone loader of a server configuration (the one load path, with its limits), in this thread. */
export function zoneLoaderFor(config: ServerConfig, cwd: string): ZoneFileLoader {
  const z = config.zoneFiles;
  const includeDirs = z.includeDirs.map((d) => path.resolve(cwd, d));
  const sign = inlineSigningFor(config, cwd);
  return async (file, origin, _previousHash, previousSerial, version) => {
    const options = { maxBytes: z.maxBytes, maxEntryChars: z.maxEntryChars, includeDirs, sign };
    const r = sign
      ? await loadAndSign(file, origin, options, previousSerial)
      : await loadZoneFile(file, { ...options, ...(origin !== undefined ? { origin } : {}) });
    const signed = 'signed' in r && r.signed ? r.signed : undefined;
    const hash = version ? await fileHash(file) : undefined;
    // The same comparison as the reload worker makes, in this thread.
    const v =
      r.zone && version
        ? compareVersion(r.zone, { ...version, before: packBefore(version.before) }, hash, !!signed)
        : undefined;
    return {
      ...(r.zone ? { zone: r.zone } : {}),
      diagnostics: r.diagnostics,
      ...(signed ? { signed } : {}),
      ...(v ? { version: v } : {}),
      ...(hash !== undefined ? { hash } : {}),
    };
  };
}

/**
 * The zone loader of `serve`: reading, parsing, building and validating in a
 * worker thread, the zone handed back as transferred columns; a file whose
 * content hash did not change is not parsed again.
 */
export function backgroundZoneLoaderFor(
  config: ServerConfig,
  cwd: string,
): {
  loader: ZoneFileLoader;
  close(): Promise<void>;
  /** Where the loads read the hot set from (the engine, once the server runs). */
  setHot(hot: () => HotNames | undefined | Promise<HotNames | undefined>): void;
} {
  const z = config.zoneFiles;
  const sign = inlineSigningFor(config, cwd);
  // Zones of hundreds of MB arrive on the answering thread at each reload (see there).
  countBuffersInHeapLimit();
  const bg = new BackgroundZoneLoader(
    {
      maxBytes: z.maxBytes,
      maxEntryChars: z.maxEntryChars,
      includeDirs: z.includeDirs.map((d) => path.resolve(cwd, d)),
      nice: z.loadNice,
      ...(sign ? { sign } : {}),
      // Several answering threads share each zone's columns (SharedArrayBuffers);
      // so does the reload worker, which compares each load with the version served.
      ...(sharedColumns(config) ? { shared: true } : {}),
    },
    { timeoutMs: loadTimeoutMs(z.loadTimeout, sign !== undefined) },
  );
  return {
    loader: (file, origin, previousHash, previousSerial, version) =>
      bg.load(file, origin, previousHash, previousSerial, version),
    close: () => bg.close(),
    setHot: (hot) => void (bg.hot = hot),
  };
}

/**
 * Zones go to the answering threads on SharedArrayBuffers: with several
 * threads, and when the load worker compares each load with the version
 * served (transfers, a serial policy), which it reads without a copy.
 */
function sharedColumns(config: ServerConfig): boolean {
  return workerCount(config) > 1 || transfersConfigured(config) || serialPoliciesUsed(config);
}

/** `zoneFiles.loadTimeout` in ms; 0 picks the default for plain or signed loads. */
export function loadTimeoutMs(seconds: number, signing: boolean): number {
  if (seconds > 0) return seconds * 1000;
  return signing ? SIGNED_LOAD_TIMEOUT_MS : LOAD_TIMEOUT_MS;
}

/** The loader of the default configuration. */
export const loadZoneForServer: ZoneFileLoader = zoneLoaderFor(DEFAULT_SERVER_CONFIG, '.');

/** `--zones PATH` or `--zones ORIGIN=FILE`. */
function zoneArg(text: string): ZoneSourceConfig {
  const z = parseZoneSourceArg(text);
  return z.origin !== undefined ? { file: z.path, origin: z.origin } : z.path;
}

/** `--doh`, `--tls-cert`, `--tls-key` as a partial `doh` config block (undefined when none is given). */
function dohOverride(
  listenTexts: readonly string[] | undefined,
  tlsCert: string | undefined,
  tlsKey: string | undefined,
): Partial<ServerConfig['doh']> | undefined {
  if (listenTexts === undefined && tlsCert === undefined && tlsKey === undefined) return undefined;
  if ((tlsCert === undefined) !== (tlsKey === undefined)) {
    throw new UsageError('--tls-cert and --tls-key go together');
  }
  const listen: ListenAddress[] = [];
  for (const l of listenTexts ?? []) {
    const r = parseListen(l);
    if (typeof r === 'string') throw new UsageError(`--doh: ${r}`);
    listen.push(r);
  }
  return {
    ...(listenTexts ? { listen } : {}),
    ...(tlsCert !== undefined ? { tlsCert } : {}),
    ...(tlsKey !== undefined ? { tlsKey } : {}),
  };
}

/** The command-line values that need checking, checked (UsageError otherwise). */
function checkedOptions(values: {
  listen?: string[] | undefined;
  metrics?: string | undefined;
  rrl?: string | undefined;
  'allow-transfer'?: string[] | undefined;
  notify?: string[] | undefined;
  'log-format'?: string | undefined;
  'log-level'?: string | undefined;
}) {
  let listen: ListenAddress[] | undefined;
  if (values.listen) {
    listen = [];
    for (const l of values.listen) {
      const r = parseListen(l);
      if (typeof r === 'string') throw new UsageError(`--listen: ${r}`);
      listen.push(r);
    }
  }
  let metrics: ListenAddress | undefined;
  if (values.metrics !== undefined) {
    const r = parseListen(values.metrics);
    if (typeof r === 'string') throw new UsageError(`--metrics: ${r}`);
    metrics = r;
  }
  let rrlRate: number | undefined;
  if (values.rrl !== undefined) {
    rrlRate = Number(values.rrl);
    if (!/^\d{1,7}$/.test(values.rrl) || rrlRate > 1_000_000) {
      throw new UsageError(
        `--rrl must be a number of responses per second (0 to 1000000), not '${values.rrl}'`,
      );
    }
  }
  for (const p of values['allow-transfer'] ?? []) {
    const r = parseCidr(p);
    if (typeof r === 'string' && !/^key [A-Za-z0-9._-]+\.?$/.test(p)) {
      throw new UsageError(`--allow-transfer: ${r} (or "key NAME")`);
    }
  }
  let notify: ListenAddress[] | undefined;
  if (values.notify) {
    notify = [];
    for (const l of values.notify) {
      const r = parseListen(l);
      if (typeof r === 'string') throw new UsageError(`--notify: ${r}`);
      notify.push(r);
    }
  }
  const format = values['log-format'];
  if (format !== undefined && format !== 'json' && format !== 'pretty') {
    throw new UsageError(`--log-format must be json or pretty, not '${format}'`);
  }
  const level = values['log-level'];
  if (level !== undefined && !LOG_LEVELS.includes(level as ServerLogLevel)) {
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const allowTransfer = values['allow-transfer'];
  return {
    listen,
    metrics,
    rrlRate,
    allowTransfer,
    notify,
    format: format as 'json' | 'pretty' | undefined,
    level,
  };
}

/** Start the server with its metrics and control endpoints, run until SIGTERM or `ctl stop`. */
async function serveUntilStopped(
  config: ServerConfig,
  base: string,
  io: CliIo,
  ops0: { metrics: ListenAddress | undefined; control: string | ControlEndpoint | undefined },
): Promise<number> {
  const resolvedFormat =
    config.log.format === 'auto' ? (io.errIsTTY ? 'pretty' : 'json') : config.log.format;
  const log = createLogger((line) => io.err(line), config.log.level, resolvedFormat);
  const book = new ZoneStatusBook();
  const startedAt = Date.now();
  // Stopped by SIGTERM/SIGINT or by `lexroute ctl stop`.
  const { stopped, stopNow } = stopSignal(io.signal);

  const keysDir = config.dnssec.keys === null ? null : path.resolve(base, config.dnssec.keys);
  if (keysDir !== null && !isDirectory(keysDir)) {
    log.error('start_failed', {
      code: 'DNSSEC_KEYS_DIR',
      error: `the key folder ${config.dnssec.keys} (--keys, dnssec.keys) is not a readable directory`,
    });
    return exitCodeOf('DNSSEC_KEYS_DIR');
  }
  const background = backgroundZoneLoaderFor(config, base);
  niceHelpers(config.gcHelperNice, log);
  let server: RunningServer;
  let ops: Ops;
  try {
    server = await startServer({
      config,
      loader: background.loader,
      log: tapLogger(log, book),
      cwd: base,
      logFormat: resolvedFormat,
      sharedColumns: sharedColumns(config),
    });
    const engine = server.engine;
    background.setHot(() => engine.hotNamesInSlices());
    const { metrics, control } = ops0;
    const opsOptions = {
      metrics,
      control,
      log,
      book,
      startedAt,
      version: VERSION,
      stop: stopNow,
    };
    ops = await startOps(server, opsOptions).catch(async (e: unknown) => {
      await server.close();
      throw new ServerStartError(
        listenErrorCode(e),
        `cannot listen for metrics or control: ${(e as Error).message}`,
        e,
      );
    });
  } catch (e) {
    await background.close();
    if (e instanceof ServerStartError) {
      log.error('start_failed', { code: e.code, error: e.message });
      return exitCodeOf(e.code);
    }
    throw e;
  }
  await announceReady(server, log, io);
  const offReload = io.onReload(() => {
    void server.reload().then(
      (r) => log.info('zones_reloaded', { trigger: 'SIGHUP', ...r }),
      (e: unknown) =>
        log.error('zones_reload_failed', { trigger: 'SIGHUP', error: (e as Error).message }),
    );
  });
  await stopped;
  offReload();
  await sdNotify(io.env, log, ['STOPPING=1']);
  log.info('shutting_down', { queries: server.engine.counters.queries, workers: server.workers });
  await ops.close();
  await server.close();
  await background.close();
  log.info('stopped');
  return EXIT_OK;
}

/**
 * V8's GC helper threads at `gcHelperNice` (server/gc-helpers.ts): a
 * process-wide choice of the CLI, as `countBuffersInHeapLimit`; a library
 * user of `startServer` keeps its process as it is.
 */
function niceHelpers(nice: number, log: Logger): void {
  if (nice === 0) return;
  const r = niceGcHelpers(nice);
  if (r.error !== undefined) log.warn('gc_helpers_nice_failed', { nice, ...r });
  else if (r.threads > 0) log.debug('gc_helpers_niced', { nice, threads: r.threads });
}

/** The `ready` log line, and READY=1 to systemd (zones loaded, every worker listening). */
async function announceReady(server: RunningServer, log: Logger, io: CliIo): Promise<void> {
  log.info('ready', {
    zones: server.engine.zones.map((z) => z.origin),
    listen: server.udp.map((u) => `${u.address}:${u.port}`),
    ...(server.doh.length > 0 ? { doh: server.doh.map((d) => d.url) } : {}),
  });
  const status = `--status=serving ${server.engine.zones.length} zone(s)`;
  await sdNotify(io.env, log, ['--ready', status]);
}

/** `--workers N`: 0 to 256. */
function workersArg(text: string): number {
  if (!/^\d{1,3}$/.test(text) || Number(text) > 256) {
    throw new UsageError(`--workers must be a number from 0 (one per core) to 256, not '${text}'`);
  }
  return Number(text);
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** --keys, --nsec3, --opt-out, --validity over the configuration's `dnssec` block. */
function dnssecFlags(
  values: Record<string, string | boolean | (string | boolean)[] | undefined>,
  config: ServerConfig,
): ServerConfig['dnssec'] {
  const keys = values.keys;
  const on = typeof keys === 'string' || config.dnssec.keys !== null;
  for (const f of ['nsec3', 'opt-out', 'validity'])
    if (values[f] !== undefined && !on) throw new UsageError(`--${f} needs --keys DIR`);
  const nsec3 = values.nsec3 === true || config.dnssec.nsec3;
  const optOut = values['opt-out'] === true || config.dnssec.optOut;
  if (optOut && !nsec3) throw new UsageError('--opt-out needs --nsec3');
  let validity = config.dnssec.validity;
  let refresh = config.dnssec.refresh;
  if (typeof values.validity === 'string') {
    const days = Number(values.validity);
    if (!Number.isInteger(days) || days < 1 || days > 3650)
      throw new UsageError('--validity takes a number of days from 1 to 3650');
    validity = days * 86400;
    refresh = null;
  }
  return {
    keys: typeof keys === 'string' ? keys : config.dnssec.keys,
    nsec3,
    optOut,
    validity,
    refresh,
  };
}

/** --nsid, --cookie-secret, --no-cookies, --chaos-version, --chaos-id over the configuration. */
function identityFlags(
  values: Record<string, string | boolean | (string | boolean)[] | undefined>,
  config: ServerConfig,
): Pick<ServerConfig, 'nsid' | 'cookies' | 'chaos'> {
  const text = (name: string): string | undefined => {
    const v = values[name];
    if (typeof v !== 'string') return undefined;
    if (v === '' || /[\u0000-\u001f\u007f]/.test(v)) {
      throw new UsageError(`--${name} must be a non-empty text without control characters`);
    }
    return v;
  };
  const secret = values['cookie-secret'];
  if (typeof secret === 'string' && !/^[0-9a-fA-F]{32}$/.test(secret)) {
    throw new UsageError('--cookie-secret must be 32 hexadecimal digits (128 bits)');
  }
  return {
    nsid: text('nsid') ?? config.nsid,
    cookies: {
      enabled: values['no-cookies'] === true ? false : config.cookies.enabled,
      secret: typeof secret === 'string' ? secret : config.cookies.secret,
    },
    chaos: {
      version: text('chaos-version') ?? config.chaos.version,
      id: text('chaos-id') ?? config.chaos.id,
    },
  };
}

/**
 * --zones and --secondary: the zone entries. --secondary alone replaces the
 * default zone folder (a pure secondary has no zone files); zones of the
 * same origin given twice gather their primaries in order.
 */
function zonesFlags(
  files: readonly string[] | undefined,
  secondaries: readonly string[] | undefined,
  config: ServerConfig,
): Partial<Pick<ServerConfig, 'zones'>> {
  if (files === undefined && secondaries === undefined) return {};
  const base =
    files !== undefined
      ? files.map(zoneArg)
      : config === DEFAULT_SERVER_CONFIG
        ? []
        : config.zones.filter((z) => !isSecondaryZone(z));
  const byOrigin = new Map<string, PrimaryAddress[]>();
  for (const text of secondaries ?? []) {
    const eq = text.indexOf('=');
    const origin = eq > 0 ? text.slice(0, eq).trim().toLowerCase() : '';
    if (!/^[a-z0-9._-]+\.?$/.test(origin))
      throw new UsageError(`--secondary takes ZONE=ADDR:PORT[,key NAME], not '${text}'`);
    const p = parsePrimary(text.slice(eq + 1));
    if (typeof p === 'string') throw new UsageError(`--secondary: ${p}`);
    const o = origin.endsWith('.') ? origin : `${origin}.`;
    byOrigin.set(o, [...(byOrigin.get(o) ?? []), p]);
  }
  const kept = secondaries === undefined ? config.zones.filter(isSecondaryZone) : [];
  return {
    zones: [
      ...base,
      ...kept,
      ...[...byOrigin].map(([origin, primaries]) => ({ origin, primaries })),
    ],
  };
}

/** `--serial POLICY`. */
function serialArg(text: string): SerialSetting {
  if (!(SERIAL_POLICIES as readonly string[]).includes(text))
    throw new UsageError(`--serial must be one of ${SERIAL_POLICIES.join(', ')}, not '${text}'`);
  return text as SerialSetting;
}

/** --allow-transfer, --notify, --state-dir over the configuration. */
function transferFlags(
  checked: { allowTransfer?: string[] | undefined; notify?: ListenAddress[] | undefined },
  stateDir: string | undefined,
  config: ServerConfig,
  tsigKeys?: string,
): Partial<Pick<ServerConfig, 'allowTransfer' | 'secondaries' | 'transfer' | 'tsigKeys'>> {
  return {
    ...(tsigKeys !== undefined ? { tsigKeys } : {}),
    ...(checked.allowTransfer ? { allowTransfer: checked.allowTransfer } : {}),
    ...(checked.notify ? { secondaries: checked.notify } : {}),
    ...(stateDir !== undefined ? { transfer: { ...config.transfer, stateDir } } : {}),
  };
}

/** The options of `lexroute serve`. */
const SERVE_OPTIONS = {
  zones: { type: 'string', multiple: true },
  listen: { type: 'string', multiple: true },
  config: { type: 'string' },
  watch: { type: 'boolean' },
  workers: { type: 'string' },
  'allow-empty': { type: 'boolean' },
  doh: { type: 'string', multiple: true },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  rrl: { type: 'string' },
  metrics: { type: 'string' },
  control: { type: 'string' },
  'control-key': { type: 'string' },
  nsid: { type: 'string' },
  'cookie-secret': { type: 'string' },
  'no-cookies': { type: 'boolean' },
  'chaos-version': { type: 'string' },
  'chaos-id': { type: 'string' },
  'allow-transfer': { type: 'string', multiple: true },
  notify: { type: 'string', multiple: true },
  'state-dir': { type: 'string' },
  secondary: { type: 'string', multiple: true },
  serial: { type: 'string' },
  'tsig-keys': { type: 'string' },
  keys: { type: 'string' },
  nsec3: { type: 'boolean' },
  'opt-out': { type: 'boolean' },
  validity: { type: 'string' },
  'log-format': { type: 'string' },
  json: { type: 'boolean' },
  'log-level': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the authoritative DNS routing server',
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs(argv, SERVE_OPTIONS);
    if (values.help) {
      io.out(SERVE_HELP);
      return EXIT_OK;
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const doh = dohOverride(values.doh, values['tls-cert'], values['tls-key']);
    const {
      listen,
      metrics,
      rrlRate,
      format: checkedFormat,
      level,
      ...xfr
    } = checkedOptions(values);
    if (values.json && values['log-format'] !== undefined && values['log-format'] !== 'json') {
      throw new UsageError('--json and --log-format pretty contradict each other');
    }
    const format = values.json ? 'json' : checkedFormat;

    let config: ServerConfig = DEFAULT_SERVER_CONFIG;
    let base = io.cwd;
    if (values.config) {
      const file = path.resolve(io.cwd, values.config);
      let raw: unknown;
      try {
        raw = await readJsonConfig(file);
      } catch (e) {
        if (e instanceof ConfigFileError) {
          io.err(`lexroute serve: ${e.code}: ${e.message}\n`);
          return exitCodeOf(e.code);
        }
        throw e;
      }
      const v = validateServerConfig(raw);
      if (v.errors.length > 0) {
        for (const e of v.errors) io.err(`lexroute serve: ${file}: ${e.code}: ${e.message}\n`);
        return exitCodeOfFailure(v.errors);
      }
      config = v.config;
      // Zone paths in a config file are relative to the working directory, as on the command line.
      base = io.cwd;
    }
    config = {
      ...config,
      ...identityFlags(values, config),
      dnssec: dnssecFlags(values, config),
      ...(listen ? { listen } : {}),
      ...zonesFlags(values.zones, values.secondary, config),
      ...(values.watch ? { watch: true } : {}),
      ...(values.workers !== undefined ? { workers: workersArg(values.workers) } : {}),
      ...(values['allow-empty'] ? { allowEmpty: true } : {}),
      ...(doh ? { doh: { ...config.doh, ...doh } } : {}),
      ...(rrlRate !== undefined ? { rrl: { ...config.rrl, responsesPerSecond: rrlRate } } : {}),
      ...transferFlags(xfr, values['state-dir'], config, values['tsig-keys']),
      ...(values.serial !== undefined ? { serial: serialArg(values.serial) } : {}),
      log: {
        ...config.log,
        level: (level as ServerLogLevel | undefined) ?? config.log.level,
        format: format ?? config.log.format,
      },
    };
    const control = await controlArg(io, 'serve', values.control, values['control-key']);
    if (control instanceof Reported) return exitCodeOfFailure(control.codes);
    return serveUntilStopped(config, base, io, { metrics, control });
  },
};
