/**
 * The zone and transfer options of `lexroute serve` (--zones, --secondary,
 * --secondary-catalog, --serial, --allow-transfer, --notify,
 * --notify-source, --state-dir, --tsig-keys) over a server configuration.
 */
import {
  DEFAULT_SERVER_CONFIG,
  isSecondaryZone,
  mergeSecondaryPeers,
  parsePrimary,
  parseSecondaryPeer,
  type SecondaryPeer,
  type PrimaryAddress,
  type ServerConfig,
  type SecondaryZoneConfig,
  type ZoneSourceConfig,
} from '../../config/server.ts';
import { SERIAL_POLICIES, type SerialSetting } from '../../config/zone-transfer.ts';
import { parseZoneSourceArg } from '../../authority/zones/sources.ts';
import { UsageError } from '../io.ts';

/** `--zones PATH` or `--zones ORIGIN=FILE`. */
function zoneArg(text: string): ZoneSourceConfig {
  const z = parseZoneSourceArg(text);
  return z.origin !== undefined ? { file: z.path, origin: z.origin } : z.path;
}

/** `ZONE=ADDR:PORT[,key NAME]` values (of `flag`): each zone's primaries, in order. */
function primariesByOrigin(texts: readonly string[], flag: string): SecondaryZoneConfig[] {
  const byOrigin = new Map<string, PrimaryAddress[]>();
  for (const text of texts) {
    const eq = text.indexOf('=');
    const origin = eq > 0 ? text.slice(0, eq).trim().toLowerCase() : '';
    if (!/^[a-z0-9._-]+\.?$/.test(origin))
      throw new UsageError(`${flag} takes ZONE=ADDR:PORT[,key NAME], not '${text}'`);
    const p = parsePrimary(text.slice(eq + 1));
    if (typeof p === 'string') throw new UsageError(`${flag}: ${p}`);
    const o = origin.endsWith('.') ? origin : `${origin}.`;
    byOrigin.set(o, [...(byOrigin.get(o) ?? []), p]);
  }
  return [...byOrigin].map(([origin, primaries]) => ({ origin, primaries }));
}

/**
 * --zones, --secondary and --secondary-catalog. A secondary alone replaces
 * the default zone folder; an origin given twice gathers its primaries in order.
 */
export function zonesFlags(
  files: readonly string[] | undefined,
  secondaries: readonly string[] | undefined,
  config: ServerConfig,
  catalogs?: readonly string[],
): Partial<Pick<ServerConfig, 'zones' | 'secondaryCatalogs'>> {
  const consumed =
    catalogs === undefined
      ? {}
      : { secondaryCatalogs: primariesByOrigin(catalogs, '--secondary-catalog') };
  if (files === undefined && secondaries === undefined && catalogs === undefined) return {};
  const base =
    files !== undefined
      ? files.map(zoneArg)
      : config === DEFAULT_SERVER_CONFIG
        ? []
        : config.zones.filter((z) => !isSecondaryZone(z));
  const kept = secondaries === undefined ? config.zones.filter(isSecondaryZone) : [];
  const added = primariesByOrigin(secondaries ?? [], '--secondary');
  return { zones: [...base, ...kept, ...added], ...consumed };
}

/** `--serial POLICY`. */
export function serialArg(text: string): SerialSetting {
  if (!(SERIAL_POLICIES as readonly string[]).includes(text))
    throw new UsageError(`--serial must be one of ${SERIAL_POLICIES.join(', ')}, not '${text}'`);
  return text as SerialSetting;
}

/** `--notify ADDR:PORT` (every zone) and `--notify ZONE=ADDR:PORT` (that zone), merged by address. */
export function notifyPeers(texts: readonly string[]): SecondaryPeer[] {
  return mergeSecondaryPeers(
    texts.map((t) => {
      const r = parseSecondaryPeer(t);
      if (typeof r === 'string') throw new UsageError(`--notify: ${r}`);
      return r;
    }),
  );
}

/** --allow-transfer, --notify, --notify-source, --state-dir over the configuration. */
export function transferFlags(
  checked: {
    allowTransfer?: string[] | undefined;
    notify?: SecondaryPeer[] | undefined;
    notifySource?: string | undefined;
  },
  stateDir: string | undefined,
  config: ServerConfig,
  tsigKeys?: string,
): Partial<Pick<ServerConfig, 'allowTransfer' | 'secondaries' | 'transfer' | 'tsigKeys'>> {
  const source = checked.notifySource;
  const transfer = {
    ...config.transfer,
    ...(stateDir !== undefined ? { stateDir } : {}),
    ...(source !== undefined ? { notifySource: source } : {}),
  };
  return {
    ...(tsigKeys !== undefined ? { tsigKeys } : {}),
    ...(checked.allowTransfer ? { allowTransfer: checked.allowTransfer } : {}),
    ...(checked.notify ? { secondaries: checked.notify } : {}),
    ...(stateDir !== undefined || source !== undefined ? { transfer } : {}),
  };
}
