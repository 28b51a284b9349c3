/** Configuration of `lexroute serve`: schema, defaults, validation. Every key: `config/README.md`. */
import {
  boolIn,
  enumIn,
  fail,
  intIn,
  isObject,
  isPrefix,
  notifySourceIn,
  sectionInts,
  type ConfigError,
} from './checks.ts';
import { absoluteLowerName } from '../kit/core/names.ts';
import { parseHostPort, parseListen, type HostPort } from '../kit/core/host-port.ts';
import { LOG_LEVELS, type LogLevel } from '../authority/log.ts';
import {
  allowTransferList,
  serialSetting,
  ZONE_TRANSFER_KEYS,
  zoneTransferOptions,
  type SerialSetting,
  type ZoneTransferOptions,
} from './zone-transfer.ts';

export { parseListen, type ConfigError };
export const LOG_FORMATS = ['json', 'pretty', 'auto'] as const;

export type ListenAddress = HostPort;

/** A serve-wide NOTIFY target: every zone, or only `zones` (origins, absolute, lowercase). */
export interface SecondaryPeer extends ListenAddress {
  readonly zones?: readonly string[];
}

/** A zone file, a directory of zone files, a file with an explicit origin, or a secondary zone. */
export type ZoneSourceConfig =
  | string
  | ({ readonly file: string; readonly origin: string } & ZoneTransferOptions)
  | SecondaryZoneConfig;

/** A primary of a secondary zone: its address, and the TSIG key (name) transfers and NOTIFY use. */
export interface PrimaryAddress extends ListenAddress {
  readonly key?: string;
}

/** A secondary zone (RFC 1996): transferred from its primaries (tried in order). */
export interface SecondaryZoneConfig {
  readonly origin: string;
  readonly primaries: readonly PrimaryAddress[];
  /** This zone's limits on a transfer in (default: `transfer.inMax*`). */
  readonly maxRecords?: number;
  readonly maxBytes?: number;
  readonly maxSeconds?: number;
}

export const SECONDARY_LIMIT_KEYS = {
  maxRecords: [0, 2 ** 32],
  maxBytes: [0, 2 ** 40],
  maxSeconds: [1, 86_400],
} as const;

export function isSecondaryZone(z: ZoneSourceConfig): z is SecondaryZoneConfig {
  return typeof z === 'object' && 'primaries' in z;
}

/** `ADDR:PORT [key NAME]` (a space or a comma before `key`), or an error message. */
export function parsePrimary(text: string): PrimaryAddress | string {
  const m = /^(\S+?)(?:[ ,]\s*key\s+([A-Za-z0-9._-]+\.?))?$/.exec(text.trim());
  if (!m) return `"${text}" is not ADDR:PORT [key NAME]`;
  const a = parseListen(m[1]!);
  if (typeof a === 'string') return a;
  return m[2] !== undefined ? { ...a, key: m[2] } : a;
}

/** A `--notify` value, `ADDR:PORT` or `ZONE=ADDR:PORT`, or an error message. */
export function parseSecondaryPeer(text: string): SecondaryPeer | string {
  const eq = text.indexOf('=');
  const zone = eq < 0 ? undefined : text.slice(0, eq);
  if (zone !== undefined && !/^[A-Za-z0-9._-]+\.?$/.test(zone))
    return `"${text}" is not ADDR:PORT or ZONE=ADDR:PORT`;
  const a = parseListen(text.slice(eq + 1));
  if (typeof a === 'string') return a;
  return zone === undefined ? a : { ...a, zones: [absoluteLowerName(zone)] };
}

/** `--notify` values gathered: one entry per address, its zones merged (none: every zone). */
export function mergeSecondaryPeers(peers: readonly SecondaryPeer[]): SecondaryPeer[] {
  const out = new Map<string, SecondaryPeer>();
  for (const p of peers) {
    const id = `${p.host}|${p.port}`;
    const had = out.get(id);
    if (had === undefined) out.set(id, p);
    else if (had.zones === undefined || p.zones === undefined)
      out.set(id, { host: p.host, port: p.port });
    else out.set(id, { ...had, zones: [...new Set([...had.zones, ...p.zones])] });
  }
  return [...out.values()];
}

export interface ZoneFilesConfig {
  readonly maxBytes: number;
  readonly maxEntryChars: number;
  readonly includeDirs: readonly string[];
  /** Seconds a background load may take (0: 300 s, 1,800 s when signing inline). */
  readonly loadTimeout: number;
  /** The nice value of the zone-loading thread (Linux). */
  readonly loadNice: number;
  /** Warnings refuse a zone as errors do (`--strict`). */
  readonly strict: boolean;
}

/** Response-rate limiting (`authority/rrl.ts`; keys as BIND's `rate-limit`). */
export interface RrlConfig {
  readonly responsesPerSecond: number;
  /** NXDOMAIN responses per second per client prefix and zone (default: responsesPerSecond). */
  readonly nxdomainsPerSecond?: number;
  /** Error responses (REFUSED, FORMERR, ...) per second per client prefix and zone (default: responsesPerSecond). */
  readonly errorsPerSecond?: number;
  readonly window: number;
  readonly slip: number;
  readonly ipv4PrefixLength: number;
  readonly ipv6PrefixLength: number;
  readonly exempt: readonly string[];
  readonly logOnly: boolean;
  readonly maxTableSize: number;
}

export const DEFAULT_RRL_CONFIG: RrlConfig = {
  responsesPerSecond: 0,
  window: 15,
  slip: 2,
  ipv4PrefixLength: 24,
  ipv6PrefixLength: 56,
  exempt: [],
  logOnly: false,
  maxTableSize: 100_000,
};

/** Inline DNSSEC signing (`serve --keys DIR`); names as `lexroute zone sign`'s options. */
export interface DnssecConfig {
  /** Folder of BIND key files; null: no inline signing. */
  readonly keys: string | null;
  readonly nsec3: boolean;
  readonly optOut: boolean;
  readonly validity: number;
  /** Re-sign this long before the earliest expiration, s; null: a quarter of the validity. */
  readonly refresh: number | null;
}

export const DEFAULT_DNSSEC_CONFIG: DnssecConfig = {
  keys: null,
  nsec3: false,
  optOut: false,
  validity: 30 * 86400,
  refresh: null,
};

/** Zone transfers out (AXFR, IXFR) and NOTIFY: limits, IXFR history, retries. */
export interface TransferConfig {
  readonly maxConcurrent: number;
  readonly messageSize: number;
  readonly historyCount: number;
  readonly historyBytes: number;
  /** Directory of the IXFR journals and served state; null: memory only. */
  readonly stateDir: string | null;
  readonly ixfrCondense: boolean;
  readonly nsNotifyPort: number;
  readonly notifyTries: number;
  readonly notifyTimeoutMs: number;
  /** The address NOTIFYs are sent from; null: the listen address of the peer's family. */
  readonly notifySource: string | null;
  /** Limits of a transfer in (0 records or octets: derived from the heap limit, `xfr/limits.ts`). */
  readonly inMaxRecords: number;
  readonly inMaxBytes: number;
  readonly inMaxSeconds: number;
}

export const DEFAULT_TRANSFER_CONFIG: TransferConfig = {
  maxConcurrent: 10,
  messageSize: 65535,
  historyCount: 20,
  historyBytes: 64 << 20,
  stateDir: null,
  ixfrCondense: true,
  nsNotifyPort: 53,
  notifyTries: 5,
  notifyTimeoutMs: 1000,
  notifySource: null,
  inMaxRecords: 0,
  inMaxBytes: 0,
  // BIND's max-transfer-time-in is 120 minutes; a zone this server can hold transfers in seconds.
  inMaxSeconds: 900,
};

export interface TsigKeyConfig {
  readonly name: string;
  readonly algorithm: string;
  readonly secret: string;
}

export interface ServerConfig {
  readonly listen: readonly ListenAddress[];
  readonly zones: readonly ZoneSourceConfig[];
  readonly allowEmpty: boolean;
  /** The catalog zone (RFC 9432) listing the primary zones served; null: none. */
  readonly catalog: string | null;
  /** `group` properties (RFC 9432 section 5.2) of members of `catalog`: zone (absolute, lowercase) to its groups. */
  readonly catalogGroups: Readonly<Record<string, readonly string[]>>;
  /** Catalog zones consumed (RFC 9432): their members become secondary zones of the same primaries. */
  readonly secondaryCatalogs: readonly SecondaryZoneConfig[];
  readonly zoneFiles: ZoneFilesConfig;
  readonly watch: boolean;
  /** Answering threads sharing the ports (SO_REUSEPORT); 0: one per core. */
  readonly workers: number;
  /** The nice value of V8's GC helper threads (Linux; `authority/gc-helpers.ts`). */
  readonly gcHelperNice: number;
  readonly udp: {
    readonly maxPayload: number;
    /** SO_RCVBUF of each UDP socket (0: the system's default; capped by net.core.rmem_max). */
    readonly receiveBuffer: number;
  };
  /** The TCP listener's limits (`authority/tcp.ts`). */
  readonly tcp: {
    /** Close a connection with no complete query for this long (RFC 7766 section 6.2.3). */
    readonly idleTimeoutMs: number;
    /** Refuse (close) connections beyond this many. */
    readonly maxConnections: number;
    /** A message must be received whole within this time of its first octet. */
    readonly messageTimeoutMs: number;
    /** Connections one client address may hold at once. */
    readonly maxPerClient: number;
    /** The idle timeout while 75 % of `maxConnections` are in use. */
    readonly pressureIdleTimeoutMs: number;
  };
  readonly limits: { readonly maxChain: number; readonly cachePerName: number };
  /** DNS over HTTPS (RFC 8484); plain HTTP only on loopback. */
  readonly doh: {
    readonly listen: readonly ListenAddress[];
    /** PEM files; both or neither. Without them only a loopback address may be used. */
    readonly tlsCert?: string;
    readonly tlsKey?: string;
    /** Access-Control-Allow-Origin of the answers (`*` by default; empty: no CORS headers). */
    readonly allowOrigin?: string;
  };
  readonly rrl: RrlConfig;
  readonly log: {
    readonly level: LogLevel;
    readonly format: (typeof LOG_FORMATS)[number];
    readonly summaryIntervalMs: number;
  };
  readonly nsid: string | null;
  /** DNS cookies (RFC 7873, RFC 9018); secret: 32 hex digits, null: random at start. */
  readonly cookies: { readonly enabled: boolean; readonly secret: string | null };
  readonly chaos: { readonly version: string | null; readonly id: string | null };
  readonly dnssec: DnssecConfig;
  /** Who may transfer every zone: address prefixes and `key NAME` entries; empty: nobody. */
  readonly allowTransfer: readonly string[];
  readonly tsigKeys: string | readonly TsigKeyConfig[] | null;
  /** Secondaries to NOTIFY (RFC 1996) after a serial goes up: `ADDR:PORT` or `{"address", "zones"}`. */
  readonly secondaries: readonly SecondaryPeer[];
  readonly transfer: TransferConfig;
  /** How a reload's SOA serial is chosen: `keep`, `date` (or `auto`), `increment`. */
  readonly serial: SerialSetting;
}

export const DEFAULT_SERVER_CONFIG: ServerConfig = {
  listen: [{ host: '127.0.0.1', port: 5353 }],
  zones: ['zones'],
  allowEmpty: false,
  catalog: null,
  catalogGroups: {},
  secondaryCatalogs: [],
  zoneFiles: {
    maxBytes: 1 << 30,
    maxEntryChars: 1 << 20,
    includeDirs: [],
    loadTimeout: 0,
    loadNice: 0,
    strict: false,
  },
  watch: false,
  workers: 1,
  // V8's GC helpers give way to the answering threads (CHANGELOG under #20).
  gcHelperNice: 10,
  // 1 MiB, as NSD: room for the queries that arrive through a GC pause or a busy core.
  udp: { maxPayload: 1232, receiveBuffer: 1 << 20 },
  tcp: {
    idleTimeoutMs: 10_000,
    maxConnections: 256,
    messageTimeoutMs: 2_000,
    maxPerClient: 32,
    pressureIdleTimeoutMs: 1_000,
  },
  limits: { maxChain: 8, cachePerName: 16 },
  doh: { listen: [] },
  rrl: DEFAULT_RRL_CONFIG,
  log: { level: 'info', format: 'auto', summaryIntervalMs: 10_000 },
  nsid: null,
  cookies: { enabled: true, secret: null },
  chaos: { version: null, id: null },
  dnssec: DEFAULT_DNSSEC_CONFIG,
  allowTransfer: [],
  tsigKeys: null,
  secondaries: [],
  transfer: DEFAULT_TRANSFER_CONFIG,
  serial: 'keep',
};

/** One `ADDR:PORT` of a listen list, or its `CONFIG_BAD_LISTEN` error (the parser's failure as `cause`). */
function listenAt(errors: ConfigError[], path: string, v: unknown): ListenAddress | undefined {
  if (typeof v !== 'string') {
    errors.push({ code: 'CONFIG_BAD_LISTEN', path, message: `${path}: not a string` });
    return undefined;
  }
  const r = parseHostPort(v);
  if (r.ok) return r.value;
  errors.push({
    code: 'CONFIG_BAD_LISTEN',
    path,
    message: `${path}: ${r.error.message}`,
    cause: r.error,
  });
  return undefined;
}

/** `udp.receiveBuffer`: 0 (the system's default), or 4096 octets to 1 GiB. */
function receiveBufferIn(errors: ConfigError[], v: unknown, fallback: number): number {
  if (v === undefined) return fallback;
  if (v === 0 || (Number.isInteger(v) && (v as number) >= 4096 && (v as number) <= 1 << 30))
    return v as number;
  errors.push({
    code: 'CONFIG_BAD_NUMBER',
    path: 'udp.receiveBuffer',
    message: `udp.receiveBuffer must be 0 (the system's default) or an integer from 4096 to ${1 << 30} octets, got ${JSON.stringify(v)}`,
  });
  return fallback;
}

/** Keys a section may have beyond those of its defaults. */
const OPTIONAL_KEYS: Readonly<Record<string, readonly string[]>> = {
  '': ['$schema', '$comment'],
  rrl: ['nxdomainsPerSecond', 'errorsPerSecond'],
  doh: ['tlsCert', 'tlsKey', 'allowOrigin'],
};

/** The sections whose keys are checked ('': the top level; `catalogGroups`' keys are zone names). */
const SECTIONS = [
  '',
  ...'transfer dnssec zoneFiles doh cookies chaos udp tcp limits rrl log'.split(' '),
];

function validateZones(
  errors: ConfigError[],
  v: unknown,
  fallback: readonly ZoneSourceConfig[],
): readonly ZoneSourceConfig[] {
  if (v === undefined) return fallback;
  const bad = (path: string, message: string) => fail(errors, 'CONFIG_BAD_ZONES', path, message);
  if (!Array.isArray(v)) {
    bad('zones', 'zones must be an array of paths (files or directories) or {"file", "origin"}');
    return fallback;
  }
  const out: ZoneSourceConfig[] = [];
  const known = new Set<string>(['file', 'origin', ...ZONE_TRANSFER_KEYS]);
  v.forEach((z: unknown, i: number) => {
    if (isObject(z) && 'primaries' in z) {
      const sz = secondaryZone(errors, `zones[${i}]`, z);
      if (sz) out.push(sz);
    } else if (typeof z === 'string' && z !== '') out.push(z);
    else if (
      isObject(z) &&
      typeof z.file === 'string' &&
      z.file !== '' &&
      typeof z.origin === 'string' &&
      z.origin !== '' &&
      Object.keys(z).every((k) => known.has(k))
    ) {
      const t = zoneTransferOptions(errors, `zones[${i}]`, z);
      out.push({ file: z.file, origin: z.origin, ...t });
    } else
      bad(
        `zones[${i}]`,
        `zones[${i}] must be a path, {"file": PATH, "origin": NAME} with optional ${ZONE_TRANSFER_KEYS.join(', ')}, or {"origin": NAME, "primaries": [...]} (nothing else)`,
      );
  });
  return out;
}

/** A group value: printable ASCII but `"` and `\\`, 1 to 255 characters (one TXT string). */
const GROUP_VALUE = /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,255}$/;

/** `catalogGroups`: `{"ZONE": "GROUP"}`; one group per zone (RFC 9432 allows several, Knot 3.2 refuses them). */
function catalogGroupsIn(errors: ConfigError[], v: unknown): Record<string, string[]> {
  if (v === undefined || v === null) return {};
  const bad = (path: string, message: string) =>
    fail(errors, 'CONFIG_BAD_VALUE', path, message) ?? {};
  if (!isObject(v))
    return bad('catalogGroups', 'catalogGroups must be an object: {"ZONE": "GROUP"}');
  const out: Record<string, string[]> = {};
  for (const [zone, g] of Object.entries(v)) {
    const path = `catalogGroups.${zone}`;
    if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$/.test(zone))
      return bad(path, `${zone} is not a zone name`);
    if (typeof g !== 'string' || !GROUP_VALUE.test(g))
      return bad(path, 'a group is 1 to 255 printable ASCII characters without " or \\');
    out[absoluteLowerName(zone)] = [g];
  }
  return out;
}

/** `catalog`: null or a domain name (absolute, lowercased). */
function catalogIn(errors: ConfigError[], v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (
    typeof v !== 'string' ||
    !/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$/.test(v) ||
    v.length > 254
  ) {
    errors.push({
      code: 'CONFIG_BAD_VALUE',
      path: 'catalog',
      message: 'catalog must be null or a domain name (the catalog zone, as catalog.invalid.)',
    });
    return null;
  }
  return absoluteLowerName(v);
}

/** `secondaryCatalogs`: catalog zones consumed, as secondary zones; not also in `zones`, nor listed twice. */
function secondaryCatalogsIn(
  errors: ConfigError[],
  v: unknown,
  zones: unknown,
): SecondaryZoneConfig[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    errors.push({
      code: 'CONFIG_BAD_ZONES',
      path: 'secondaryCatalogs',
      message: 'secondaryCatalogs must be an array of {"origin": NAME, "primaries": [...]}',
    });
    return [];
  }
  const taken = new Set(
    (Array.isArray(zones) ? zones : []).map((z: unknown) =>
      isObject(z) && typeof z.origin === 'string' ? absoluteLowerName(z.origin) : '',
    ),
  );
  const out: SecondaryZoneConfig[] = [];
  v.forEach((c: unknown, i: number) => {
    const path = `secondaryCatalogs[${i}]`;
    const z = isObject(c) ? secondaryZone(errors, path, c) : undefined;
    if (!isObject(c))
      errors.push({ code: 'CONFIG_BAD_ZONES', path, message: `${path} must be an object` });
    if (z === undefined) return;
    if (taken.has(z.origin))
      errors.push({
        code: 'CONFIG_BAD_ZONES',
        path: `${path}.origin`,
        message: `${path}.origin: ${z.origin} is a zone of zones already (or a catalog listed twice)`,
      });
    else out.push(z);
    taken.add(z.origin);
  });
  return out;
}

/** `{"origin": NAME, "primaries": ["ADDR:PORT", "ADDR:PORT key NAME", ...]}`. */
function secondaryZone(
  errors: ConfigError[],
  path: string,
  z: Record<string, unknown>,
): SecondaryZoneConfig | undefined {
  const bad = (p: string, message: string) => fail(errors, 'CONFIG_BAD_ZONES', p, message);
  const limits = Object.keys(SECONDARY_LIMIT_KEYS);
  if (!Object.keys(z).every((k) => k === 'origin' || k === 'primaries' || limits.includes(k)))
    return bad(
      path,
      `${path}: a secondary zone is {"origin": NAME, "primaries": [...]} with optional ${limits.join(', ')} (nothing else)`,
    );
  if (typeof z.origin !== 'string' || !/^[A-Za-z0-9._-]+\.?$/.test(z.origin))
    return bad(`${path}.origin`, `${path}.origin must be a domain name`);
  const p = z.primaries;
  if (!Array.isArray(p) || p.length === 0)
    return bad(
      `${path}.primaries`,
      `${path}.primaries must be a non-empty array of "ADDR:PORT [key NAME]"`,
    );
  const primaries: PrimaryAddress[] = [];
  for (let i = 0; i < p.length; i++) {
    const r = typeof p[i] === 'string' ? parsePrimary(p[i] as string) : 'not a string';
    if (typeof r === 'string')
      return bad(`${path}.primaries[${i}]`, `${path}.primaries[${i}]: ${r}`);
    primaries.push(r);
  }
  const origin = absoluteLowerName(z.origin);
  const own: Record<string, number> = {};
  for (const [k, [min, max]] of Object.entries(SECONDARY_LIMIT_KEYS))
    if (z[k] !== undefined) own[k] = intIn(errors, `${path}.${k}`, z[k], min, max, 0);
  return { origin, primaries, ...own };
}

function validateZoneFiles(errors: ConfigError[], v: unknown, d: ZoneFilesConfig): ZoneFilesConfig {
  const o = isObject(v) ? v : {};
  let includeDirs = d.includeDirs;
  if (o.includeDirs !== undefined) {
    if (
      !Array.isArray(o.includeDirs) ||
      o.includeDirs.some((x) => typeof x !== 'string' || x === '')
    ) {
      errors.push({
        code: 'CONFIG_BAD_ZONES',
        path: 'zoneFiles.includeDirs',
        message: 'zoneFiles.includeDirs must be an array of directory paths',
      });
    } else includeDirs = o.includeDirs as string[];
  }
  const int = sectionInts(errors, 'zoneFiles', o, d);
  return {
    maxBytes: int('maxBytes', 1, 2 ** 40),
    maxEntryChars: int('maxEntryChars', 1024, 1 << 28),
    includeDirs,
    loadTimeout: int('loadTimeout', 0, 86_400),
    loadNice: int('loadNice', 0, 19),
    strict: boolIn(errors, 'zoneFiles.strict', o.strict, d.strict),
  };
}

/** A text of 1 to `max` UTF-8 octets without control characters, or null. */
function textOrNull(
  errors: ConfigError[],
  path: string,
  v: unknown,
  max: number,
  fallback: string | null,
): string | null {
  if (v === undefined) return fallback;
  if (v === null) return null;
  const bad = typeof v !== 'string' || v === '' || /[\u0000-\u001f\u007f]/.test(v);
  if (bad || new TextEncoder().encode(v).length > max) {
    errors.push({
      code: 'CONFIG_BAD_TEXT',
      path,
      message: `${path} must be null or a text of 1 to ${max} octets without control characters`,
    });
    return fallback;
  }
  return v;
}

/** The `nsid`, `cookies` and `chaos` keys (RFC 5001, RFC 7873/9018, CH TXT). */
function identityKeys(
  errors: ConfigError[],
  input: Record<string, unknown>,
): Pick<ServerConfig, 'nsid' | 'cookies' | 'chaos'> {
  const d = DEFAULT_SERVER_CONFIG;
  const cookies = isObject(input.cookies) ? input.cookies : {};
  const chaos = isObject(input.chaos) ? input.chaos : {};
  const enabled = boolIn(errors, 'cookies.enabled', cookies.enabled, d.cookies.enabled);
  let secret = d.cookies.secret;
  if (cookies.secret !== undefined) {
    if (cookies.secret !== null && !/^[0-9a-fA-F]{32}$/.test(String(cookies.secret))) {
      errors.push({
        code: 'CONFIG_BAD_COOKIE_SECRET',
        path: 'cookies.secret',
        message: 'cookies.secret must be null or 32 hexadecimal digits (128 bits, RFC 9018)',
      });
    } else secret = cookies.secret as string | null;
  }
  return {
    nsid: textOrNull(errors, 'nsid', input.nsid, 512, d.nsid),
    cookies: { enabled, secret },
    chaos: {
      version: textOrNull(errors, 'chaos.version', chaos.version, 255, d.chaos.version),
      id: textOrNull(errors, 'chaos.id', chaos.id, 255, d.chaos.id),
    },
  };
}

/** CONFIG_UNKNOWN_KEY for each key no section knows (typos must not pass silently). */
function unknownKeys(errors: ConfigError[], input: Record<string, unknown>): void {
  for (const section of SECTIONS) {
    // A section's defaults, read only for their keys (the cast names one section for the type).
    const d = section === '' ? DEFAULT_SERVER_CONFIG : DEFAULT_SERVER_CONFIG[section as 'log'];
    const keys = [...Object.keys(d), ...(OPTIONAL_KEYS[section] ?? [])];
    const obj = section === '' ? input : input[section];
    if (obj === undefined) continue;
    if (!isObject(obj)) {
      fail(errors, 'CONFIG_NOT_OBJECT', section, `${section} must be an object`);
      continue;
    }
    for (const k of Object.keys(obj)) {
      if (!keys.includes(k)) {
        const path = section ? `${section}.${k}` : k;
        errors.push({ code: 'CONFIG_UNKNOWN_KEY', path, message: `unknown key ${path}` });
      }
    }
  }
}

/** `listen`: a non-empty array of ADDR:PORT texts. */
function validateListen(errors: ConfigError[], v: unknown): readonly ListenAddress[] {
  if (v === undefined) return DEFAULT_SERVER_CONFIG.listen;
  if (!Array.isArray(v) || v.length === 0) {
    fail(errors, 'CONFIG_BAD_LISTEN', 'listen', 'listen must be a non-empty array of "ADDR:PORT"');
    return DEFAULT_SERVER_CONFIG.listen;
  }
  return listenList(errors, 'listen', v);
}

function validateTcp(errors: ConfigError[], tcp: Record<string, unknown>): ServerConfig['tcp'] {
  const int = sectionInts(errors, 'tcp', tcp, DEFAULT_SERVER_CONFIG.tcp);
  return {
    idleTimeoutMs: int('idleTimeoutMs', 100, 3_600_000),
    maxConnections: int('maxConnections', 1, 100_000),
    messageTimeoutMs: int('messageTimeoutMs', 50, 600_000),
    maxPerClient: int('maxPerClient', 1, 100_000),
    pressureIdleTimeoutMs: int('pressureIdleTimeoutMs', 50, 3_600_000),
  };
}

function validateLog(errors: ConfigError[], log: Record<string, unknown>): ServerConfig['log'] {
  const d = DEFAULT_SERVER_CONFIG.log;
  return {
    level: enumIn(errors, 'log.level', log.level, LOG_LEVELS, d.level),
    format: enumIn(errors, 'log.format', log.format, LOG_FORMATS, d.format),
    summaryIntervalMs: sectionInts(errors, 'log', log, d)('summaryIntervalMs', 100, 3_600_000),
  };
}

/** Validate a parsed JSON value against the schema; unknown keys are errors (typos must not pass silently). */
export function validateServerConfig(input: unknown): {
  config: ServerConfig;
  errors: ConfigError[];
} {
  const errors: ConfigError[] = [];
  const d = DEFAULT_SERVER_CONFIG;
  if (!isObject(input)) {
    fail(errors, 'CONFIG_NOT_OBJECT', '', 'the configuration must be a JSON object');
    return { config: d, errors };
  }
  unknownKeys(errors, input);
  const section = (v: unknown): Record<string, unknown> => (isObject(v) ? v : {});
  const udp = sectionInts(errors, 'udp', section(input.udp), d.udp);
  const limits = sectionInts(errors, 'limits', section(input.limits), d.limits);
  const config: ServerConfig = {
    listen: validateListen(errors, input.listen),
    zones: validateZones(errors, input.zones, d.zones),
    allowEmpty: boolIn(errors, 'allowEmpty', input.allowEmpty, d.allowEmpty),
    catalog: catalogIn(errors, input.catalog),
    catalogGroups: catalogGroupsIn(errors, input.catalogGroups),
    secondaryCatalogs: secondaryCatalogsIn(errors, input.secondaryCatalogs, input.zones),
    zoneFiles: validateZoneFiles(errors, input.zoneFiles, d.zoneFiles),
    watch: boolIn(errors, 'watch', input.watch, d.watch),
    doh: validateDoh(errors, input.doh),
    // RFC 6891 section 6.2.5: values below 512 are treated as 512; RFC 9715 / DNS flag day 2020 recommend 1232.
    udp: {
      maxPayload: udp('maxPayload', 512, 65535),
      receiveBuffer: receiveBufferIn(errors, section(input.udp).receiveBuffer, d.udp.receiveBuffer),
    },
    tcp: validateTcp(errors, section(input.tcp)),
    limits: { maxChain: limits('maxChain', 0, 64), cachePerName: limits('cachePerName', 0, 1024) },
    rrl: validateRrl(errors, section(input.rrl)),
    log: validateLog(errors, section(input.log)),
    ...identityKeys(errors, input),
    dnssec: validateDnssec(errors, section(input.dnssec)),
    workers: intIn(errors, 'workers', input.workers, 0, 256, d.workers),
    gcHelperNice: intIn(errors, 'gcHelperNice', input.gcHelperNice, 0, 19, d.gcHelperNice),
    ...transferKeys(errors, input),
  };
  return { config, errors };
}

function validateDoh(errors: ConfigError[], input: unknown): ServerConfig['doh'] {
  if (!isObject(input)) return DEFAULT_SERVER_CONFIG.doh;
  const listen = listenList(errors, 'doh.listen', input.listen);
  const files: { tlsCert?: string; tlsKey?: string } = {};
  for (const k of ['tlsCert', 'tlsKey'] as const) {
    const v = input[k];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v === '') {
      fail(errors, 'CONFIG_BAD_PATH', `doh.${k}`, `doh.${k} must be a file path`);
    } else files[k] = v;
  }
  let allowOrigin: { allowOrigin?: string } = {};
  if (input.allowOrigin !== undefined) {
    if (typeof input.allowOrigin !== 'string' || /[\s,]/.test(input.allowOrigin)) {
      errors.push({
        code: 'CONFIG_BAD_TEXT',
        path: 'doh.allowOrigin',
        message: 'doh.allowOrigin must be "*", one origin (https://host[:port]) or ""',
      });
    } else allowOrigin = { allowOrigin: input.allowOrigin };
  }
  if ((files.tlsCert === undefined) !== (files.tlsKey === undefined)) {
    errors.push({
      code: 'CONFIG_DOH_TLS_PAIR',
      path: 'doh',
      message: 'doh.tlsCert and doh.tlsKey go together: give both or neither',
    });
  }
  return { listen, ...files, ...allowOrigin };
}

/** Validate the `rrl` block (keys as BIND's `rate-limit`, camel-cased). */
function validateRrl(errors: ConfigError[], r: Record<string, unknown>): RrlConfig {
  const d = DEFAULT_RRL_CONFIG;
  const int = sectionInts(errors, 'rrl', r, d);
  const responsesPerSecond = int('responsesPerSecond', 0, 1_000_000);
  const rate = (key: string) =>
    r[key] === undefined
      ? {}
      : { [key]: intIn(errors, `rrl.${key}`, r[key], 0, 1e6, responsesPerSecond) };
  let exempt = d.exempt;
  if (r.exempt !== undefined) {
    if (!Array.isArray(r.exempt) || r.exempt.some((e) => typeof e !== 'string')) {
      errors.push({
        code: 'CONFIG_BAD_PREFIX',
        path: 'rrl.exempt',
        message: 'rrl.exempt must be an array of addresses or prefixes ("192.0.2.0/24")',
      });
    } else {
      exempt = r.exempt as string[];
      exempt.forEach((e, i) => {
        if (!isPrefix(e)) {
          errors.push({
            code: 'CONFIG_BAD_PREFIX',
            path: `rrl.exempt[${i}]`,
            message: `rrl.exempt[${i}]: "${e}" is not an address or ADDR/BITS prefix`,
          });
        }
      });
    }
  }
  const logOnly = boolIn(errors, 'rrl.logOnly', r.logOnly, d.logOnly);
  return {
    responsesPerSecond,
    ...rate('nxdomainsPerSecond'),
    ...rate('errorsPerSecond'),
    window: int('window', 1, 3600),
    slip: int('slip', 0, 10),
    ipv4PrefixLength: int('ipv4PrefixLength', 0, 32),
    ipv6PrefixLength: int('ipv6PrefixLength', 0, 128),
    exempt,
    logOnly,
    maxTableSize: int('maxTableSize', 1, 10_000_000),
  };
}

/** A path or null (`what` names the path in the error). */
function pathOrNull(
  errors: ConfigError[],
  path: string,
  v: unknown,
  fallback: string | null,
  what: string,
): string | null {
  if (v === undefined) return fallback;
  if (v === null || (typeof v === 'string' && v !== '')) return v;
  errors.push({ code: 'CONFIG_BAD_PATH', path, message: `${path} must be null or ${what}` });
  return fallback;
}

/** The effective re-sign window of a `dnssec` block, seconds. */
export function dnssecRefresh(d: DnssecConfig): number {
  return d.refresh ?? Math.floor(d.validity / 4);
}

/** Validate the `dnssec` block (inline signing). */
function validateDnssec(errors: ConfigError[], r: Record<string, unknown>): DnssecConfig {
  const d = DEFAULT_DNSSEC_CONFIG;
  const keys = pathOrNull(
    errors,
    'dnssec.keys',
    r.keys,
    d.keys,
    'the path of a folder of key files',
  );
  const flag = (key: 'nsec3' | 'optOut'): boolean =>
    boolIn(errors, `dnssec.${key}`, r[key], d[key]);
  const nsec3 = flag('nsec3');
  const optOut = flag('optOut');
  if (optOut && !nsec3)
    fail(errors, 'CONFIG_DNSSEC_OPT_OUT', 'dnssec.optOut', 'dnssec.optOut needs dnssec.nsec3');
  // From 10 s (tests) to 10 years (3650 days, as zone sign --validity).
  const validity = intIn(errors, 'dnssec.validity', r.validity, 10, 3650 * 86400, d.validity);
  let refresh: number | null = d.refresh;
  if (r.refresh !== undefined && r.refresh !== null)
    refresh = intIn(errors, 'dnssec.refresh', r.refresh, 1, 3650 * 86400, 0) || null;
  const window = refresh ?? Math.floor(validity / 4);
  if (window >= validity - Math.floor(validity / 8))
    errors.push({
      code: 'CONFIG_DNSSEC_REFRESH',
      path: 'dnssec.refresh',
      message: `dnssec.refresh (${window} s) must be shorter than dnssec.validity (${validity} s) minus its jitter (an eighth)`,
    });
  return { keys, nsec3, optOut, validity, refresh };
}

/** An array of ADDR:PORT texts, each checked; errors name the element. */
function listenList(errors: ConfigError[], key: string, v: unknown): ListenAddress[] {
  const out: ListenAddress[] = [];
  if (v === undefined) return out;
  if (!Array.isArray(v)) {
    fail(errors, 'CONFIG_BAD_LISTEN', key, `${key} must be an array of "ADDR:PORT"`);
    return out;
  }
  v.forEach((x: unknown, i: number) => {
    const r = listenAt(errors, `${key}[${i}]`, x);
    if (r !== undefined) out.push(r);
  });
  return out;
}

/** The `allowTransfer`, `secondaries` and `transfer` keys (zone transfers out, NOTIFY). */
function transferKeys(
  errors: ConfigError[],
  input: Record<string, unknown>,
): Pick<ServerConfig, 'allowTransfer' | 'secondaries' | 'transfer' | 'tsigKeys' | 'serial'> {
  const d = DEFAULT_TRANSFER_CONFIG;
  const allowTransfer = allowTransferList(errors, 'allowTransfer', input.allowTransfer);
  const t = isObject(input.transfer) ? input.transfer : {};
  const stateDir = pathOrNull(
    errors,
    'transfer.stateDir',
    t.stateDir,
    d.stateDir,
    'a directory path',
  );
  const int = sectionInts(errors, 'transfer', t, d);
  const bool = (k: 'ixfrCondense') => boolIn(errors, `transfer.${k}`, t[k], d[k]);
  return {
    allowTransfer,
    tsigKeys: tsigKeysKey(errors, input.tsigKeys),
    secondaries: secondaryPeers(errors, 'secondaries', input.secondaries),
    transfer: {
      maxConcurrent: int('maxConcurrent', 1, 100_000),
      messageSize: int('messageSize', 512, 65535),
      historyCount: int('historyCount', 0, 100_000),
      historyBytes: int('historyBytes', 0, 2 ** 40),
      stateDir,
      ixfrCondense: bool('ixfrCondense'),
      nsNotifyPort: int('nsNotifyPort', 1, 65535),
      notifyTries: int('notifyTries', 1, 100),
      notifyTimeoutMs: int('notifyTimeoutMs', 10, 600_000),
      notifySource: notifySourceIn(errors, 'transfer.notifySource', t.notifySource) ?? null,
      inMaxRecords: int('inMaxRecords', ...SECONDARY_LIMIT_KEYS.maxRecords),
      inMaxBytes: int('inMaxBytes', ...SECONDARY_LIMIT_KEYS.maxBytes),
      inMaxSeconds: int('inMaxSeconds', ...SECONDARY_LIMIT_KEYS.maxSeconds),
    },
    serial: serialSetting(errors, 'serial', input.serial) ?? DEFAULT_SERVER_CONFIG.serial,
  };
}

/** The serve-wide `secondaries`: "ADDR:PORT" (every zone) or {"address": "ADDR:PORT", "zones": [NAME, ...]}. */
function secondaryPeers(errors: ConfigError[], key: string, v: unknown): SecondaryPeer[] {
  if (!Array.isArray(v)) return listenList(errors, key, v);
  const out: SecondaryPeer[] = [];
  v.forEach((x: unknown, i: number) => {
    const p = `${key}[${i}]`;
    if (!isObject(x)) {
      const r = listenAt(errors, p, x);
      if (r !== undefined) out.push(r);
      return;
    }
    const zones = x.zones;
    const names =
      Array.isArray(zones) &&
      zones.length > 0 &&
      zones.every((z) => typeof z === 'string' && /^[A-Za-z0-9._-]+\.?$/.test(z));
    if (!names || !Object.keys(x).every((k) => k === 'address' || k === 'zones')) {
      errors.push({
        code: 'CONFIG_BAD_LISTEN',
        path: p,
        message: `${p} must be "ADDR:PORT" or {"address": "ADDR:PORT", "zones": [NAME, ...]}`,
      });
      return;
    }
    const r = listenAt(errors, `${p}.address`, x.address);
    if (r !== undefined) out.push({ ...r, zones: (zones as string[]).map(absoluteLowerName) });
  });
  return out;
}

/** `tsigKeys`: null, a key file path, or an array of {name, algorithm, secret}. */
function tsigKeysKey(errors: ConfigError[], v: unknown): ServerConfig['tsigKeys'] {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' && v !== '') return v;
  const bad = (path: string, message: string) => fail(errors, 'CONFIG_BAD_TSIG_KEY', path, message);
  if (!Array.isArray(v)) {
    bad(
      'tsigKeys',
      'tsigKeys must be null, a key file path, or an array of {"name", "algorithm", "secret"}',
    );
    return null;
  }
  const out: TsigKeyConfig[] = [];
  v.forEach((k: unknown, i: number) => {
    if (
      isObject(k) &&
      typeof k.name === 'string' &&
      /^[A-Za-z0-9._-]+$/.test(k.name) &&
      typeof k.algorithm === 'string' &&
      typeof k.secret === 'string' &&
      /^[A-Za-z0-9+/]+={0,2}$/.test(k.secret) &&
      Object.keys(k).every((x) => x === 'name' || x === 'algorithm' || x === 'secret')
    )
      out.push({ name: k.name, algorithm: k.algorithm, secret: k.secret });
    else
      bad(
        `tsigKeys[${i}]`,
        `tsigKeys[${i}] must be {"name": NAME, "algorithm": "hmac-sha256", "secret": BASE64} (nothing else)`,
      );
  });
  return out;
}
