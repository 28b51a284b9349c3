/**
 * The options of `lexroute serve` over a server configuration: each flag
 * checked (a mistake is a UsageError, exit 2) and laid over the
 * configuration file's values (or the defaults).
 */
import { parseCidr } from '../../config/cidr.ts';
import { LOG_LEVELS, type LogLevel } from '../../authority/log.ts';
import { parseListen, type ListenAddress, type ServerConfig } from '../../config/server.ts';
import { ipVersion } from '../../kit/core/host-port.ts';
import type { CommandValues } from '../args.ts';
import { UsageError } from '../io.ts';
import type { SERVE_OPTIONS } from './serve-help.ts';
import { notifyPeers, serialArg, transferFlags, zonesFlags } from './serve-zone-flags.ts';

/** ADDR:PORT values of a repeatable flag (UsageError naming the flag otherwise). */
function addresses(flag: string, texts: readonly string[]): ListenAddress[] {
  return texts.map((t) => {
    const r = parseListen(t);
    if (typeof r === 'string') throw new UsageError(`${flag}: ${r}`);
    return r;
  });
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
  const listen = addresses('--doh', listenTexts ?? []);
  return {
    ...(listenTexts ? { listen } : {}),
    ...(tlsCert !== undefined ? { tlsCert } : {}),
    ...(tlsKey !== undefined ? { tlsKey } : {}),
  };
}

/** The command-line values that need checking, checked (UsageError otherwise). */
function checkedOptions(values: ServeValues) {
  const listen = values.listen && addresses('--listen', values.listen);
  const metrics =
    values.metrics === undefined ? undefined : addresses('--metrics', [values.metrics])[0];
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
  const notify = values.notify && notifyPeers(values.notify);
  const source = values['notify-source'];
  if (source !== undefined && ipVersion(source) === 0)
    throw new UsageError(`--notify-source must be an IP address, not '${source}'`);
  const format = values['log-format'];
  if (format !== undefined && format !== 'json' && format !== 'pretty') {
    throw new UsageError(`--log-format must be json or pretty, not '${format}'`);
  }
  const level = values['log-level'];
  if (level !== undefined && !LOG_LEVELS.includes(level as LogLevel)) {
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  }
  const allowTransfer = values['allow-transfer'];
  return {
    listen,
    metrics,
    rrlRate,
    allowTransfer,
    notify,
    notifySource: source,
    format: format as 'json' | 'pretty' | undefined,
    level,
  };
}

/** `--workers N`: 0 to 256. */
function workersArg(text: string): number {
  if (!/^\d{1,3}$/.test(text) || Number(text) > 256) {
    throw new UsageError(`--workers must be a number from 0 (one per core) to 256, not '${text}'`);
  }
  return Number(text);
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

/** The parsed values of `lexroute serve`'s options. */
export type ServeValues = CommandValues<typeof SERVE_OPTIONS>;

/**
 * The flags, checked now (before the configuration file is read), and the
 * configuration with them laid over it; `metrics` is the `--metrics` address.
 */
export function serveFlags(values: ServeValues): {
  metrics: ListenAddress | undefined;
  over(config: ServerConfig): ServerConfig;
} {
  const doh = dohOverride(values.doh, values['tls-cert'], values['tls-key']);
  const { listen, metrics, rrlRate, format: checkedFormat, level, ...xfr } = checkedOptions(values);
  if (values.json && values['log-format'] !== undefined && values['log-format'] !== 'json') {
    throw new UsageError('--json and --log-format pretty contradict each other');
  }
  const format = values.json ? 'json' : checkedFormat;
  const over = (config: ServerConfig): ServerConfig => ({
    ...config,
    ...identityFlags(values, config),
    dnssec: dnssecFlags(values, config),
    ...(listen ? { listen } : {}),
    ...zonesFlags(values.zones, values.secondary, config, values['secondary-catalog']),
    ...(values.watch ? { watch: true } : {}),
    ...(values.workers !== undefined ? { workers: workersArg(values.workers) } : {}),
    ...(values['allow-empty'] ? { allowEmpty: true } : {}),
    ...(values.catalog !== undefined ? { catalog: catalogArg(values.catalog) } : {}),
    ...(values.strict ? { zoneFiles: { ...config.zoneFiles, strict: true } } : {}),
    ...(doh ? { doh: { ...config.doh, ...doh } } : {}),
    ...(rrlRate !== undefined ? { rrl: { ...config.rrl, responsesPerSecond: rrlRate } } : {}),
    ...transferFlags(xfr, values['state-dir'], config, values['tsig-keys']),
    ...(values.serial !== undefined ? { serial: serialArg(values.serial) } : {}),
    log: {
      ...config.log,
      level: (level as LogLevel | undefined) ?? config.log.level,
      format: format ?? config.log.format,
    },
  });
  return { metrics, over };
}

/** `--catalog NAME`: the catalog zone's name, absolute and lowercased. */
function catalogArg(v: string): string {
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?$/.test(v))
    throw new UsageError(`--catalog takes a domain name (as catalog.invalid.), not '${v}'`);
  return v.endsWith('.') ? v.toLowerCase() : `${v.toLowerCase()}.`;
}
