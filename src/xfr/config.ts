/**
 * The transfer side of a server configuration, per zone: its ACL, its
 * NOTIFY targets (serve-wide, its own, or its NS hosts with `notify: "ns"`)
 * and its serial policy.
 */
import type { ServerConfig } from '../config/server.ts';
import { parseCidr, type Cidr } from '../config/cidr.ts';
import { absoluteLowerName, absoluteLowerName as originKey } from '../kit/core/names.ts';
import { serialPolicy } from '../config/zone-transfer.ts';
import type { SerialPolicy } from './core/serial.ts';
import { nameWireKey, type TsigKey } from './core/tsig.ts';
import type { Zone } from '../dns/core/zone/model.ts';
import { keyToName, wireToKey } from '../dns/core/wire/name.ts';
import type { NotifyTarget } from './notify.ts';
import { ipVersion } from '../kit/core/host-port.ts';
import type { TransferAcl } from './out.ts';

/** A configuration problem found while building the transfer side (the server does not start). */
export interface XfrConfigProblem {
  readonly code: `TSIG_${string}`;
  readonly message: string;
}

type FileZoneEntry = Extract<ServerConfig['zones'][number], { readonly file: string }>;

/** The `{file, origin, ...}` entries, which carry their own options, by origin. */
function zoneEntries(config: ServerConfig): Map<string, FileZoneEntry> {
  const out = new Map<string, FileZoneEntry>();
  for (const z of config.zones)
    if (typeof z !== 'string' && 'file' in z) out.set(originKey(z.origin), z);
  return out;
}

/** The origins of the secondary zones (`{origin, primaries}`): their serial is the primary's. */
function secondaryOrigins(config: ServerConfig): Set<string> {
  const out = new Set<string>();
  for (const z of config.zones)
    if (typeof z !== 'string' && !('file' in z)) out.add(originKey(z.origin));
  return out;
}

/** An ACL from `allowTransfer` entries; `key NAME` entries must name known keys. */
export function aclFrom(
  list: readonly string[],
  keys: ReadonlyMap<string, TsigKey>,
  where: string,
): TransferAcl | XfrConfigProblem {
  const prefixes = list.filter((e) => !e.startsWith('key '));
  const required = list
    .filter((e) => e.startsWith('key '))
    .map((e) => absoluteLowerName(e.slice(4).trim()));
  for (const name of required) {
    if (!keys.has(nameWireKey(name)))
      return {
        code: 'TSIG_KEY_UNKNOWN',
        message: `${where} names key ${name}, which tsigKeys does not define`,
      };
  }
  // Keys alone: any address with a valid key; prefixes alone: those addresses; both: both.
  const text = prefixes.length > 0 || required.length === 0 ? prefixes : ['0.0.0.0/0', '::/0'];
  const allow = text.map((p) => parseCidr(p)).filter((c): c is Cidr => typeof c !== 'string');
  return { allow, requireKeys: new Set(required.map(nameWireKey)) };
}

/** Each zone's own ACL, by origin. */
export function zoneAcls(
  config: ServerConfig,
  keys: ReadonlyMap<string, TsigKey>,
): Map<string, TransferAcl> | XfrConfigProblem {
  const out = new Map<string, TransferAcl>();
  for (const [origin, z] of zoneEntries(config)) {
    if (z.allowTransfer === undefined || z.allowTransfer.length === 0) continue;
    const acl = aclFrom(z.allowTransfer, keys, `zones entry ${origin} allowTransfer`);
    if ('code' in acl) return acl;
    out.set(origin, acl);
  }
  return out;
}

/** Whether any zone may be transferred at all (serve-wide or per zone). */
export function transfersConfigured(config: ServerConfig): boolean {
  if (config.allowTransfer.length > 0) return true;
  return [...zoneEntries(config).values()].some((z) => (z.allowTransfer?.length ?? 0) > 0);
}

/** The serial policy of each zone: its own `serial`, else the serve-wide one; a secondary zone's: keep. */
export function serialPolicies(config: ServerConfig): (origin: string | undefined) => SerialPolicy {
  const entries = zoneEntries(config);
  const secondary = secondaryOrigins(config);
  const fallback = serialPolicy(config.serial);
  return (origin) => {
    if (origin !== undefined && secondary.has(originKey(origin))) return 'keep';
    const own = origin === undefined ? undefined : entries.get(originKey(origin))?.serial;
    return own === undefined ? fallback : serialPolicy(own);
  };
}

/** Whether some zone has a serial policy other than `keep`. */
export function serialPoliciesUsed(config: ServerConfig): boolean {
  if (serialPolicy(config.serial) !== 'keep') return true;
  return [...zoneEntries(config).values()].some(
    (z) => z.serial !== undefined && serialPolicy(z.serial) !== 'keep',
  );
}

/** The NS hosts to NOTIFY (RFC 1996 section 3.3, but the MNAME): in-zone names with their glue only. */
export function nsHosts(zone: Zone, port: number): NotifyTarget[] {
  const apex = zone.nodes.get(zone.origin);
  const ns = apex?.rrsets.get(2);
  if (ns === undefined) return [];
  const soa = zone.soa.records[0]!.rdata;
  let end = 0;
  while (end < soa.length && soa[end] !== 0) end += soa[end]! + 1;
  const mname = keyToName(wireToKey(soa, 0, end + 1));
  const out: NotifyTarget[] = [];
  for (const r of ns.records) {
    const host = keyToName(wireToKey(r.rdata));
    if (host === mname) continue;
    const node = zone.nodes.get(host);
    for (const type of [1, 28]) {
      for (const a of node?.rrsets.get(type)?.records ?? []) {
        const b = a.rdata;
        const text =
          type === 1
            ? [...b].join('.')
            : Array.from({ length: 8 }, (_, i) =>
                ((b[2 * i]! << 8) | b[2 * i + 1]!).toString(16),
              ).join(':');
        out.push({ host: text, port });
      }
    }
  }
  return out;
}

/** Without `notifySource`: the first listen address of the peer's family; none on a wildcard or a name. */
export function servedSource(
  listen: readonly { readonly host: string }[],
  peer: string,
): string | undefined {
  const family = ipVersion(peer);
  const served = listen.find((l) => ipVersion(l.host) === family);
  if (served === undefined || served.host === '0.0.0.0' || /^[0:]+$/.test(served.host))
    return undefined;
  return served.host;
}

/**
 * The NOTIFY targets of each zone: the serve-wide `secondaries` (signed with
 * `globalKey`), the zone's own, its NS hosts with `notify: "ns"`; from the
 * zone's `notifySource`, else `transfer.notifySource`, else `servedSource`.
 */
export function notifyTargets(
  config: ServerConfig,
  keys: ReadonlyMap<string, TsigKey>,
  globalKey: TsigKey | undefined,
): ((zone: Zone) => NotifyTarget[]) | XfrConfigProblem {
  const entries = zoneEntries(config);
  const own = new Map<string, NotifyTarget[]>();
  for (const [origin, z] of entries) {
    const list: NotifyTarget[] = [];
    for (const t of z.secondaries ?? []) {
      const key = t.key === undefined ? undefined : keys.get(nameWireKey(absoluteLowerName(t.key)));
      if (t.key !== undefined && key === undefined)
        return {
          code: 'TSIG_KEY_UNKNOWN',
          message: `zones entry ${origin} secondaries names key ${t.key}, which tsigKeys does not define`,
        };
      list.push({ host: t.host, port: t.port, ...(key ? { key } : {}) });
    }
    own.set(origin, list);
  }
  const keyed = globalKey ? { key: globalKey } : {};
  const global = config.secondaries.map((p) => ({
    host: p.host,
    port: p.port,
    zones: p.zones,
    ...keyed,
  }));
  return (zone) => {
    const e = entries.get(zone.origin);
    const configured = e?.notifySource ?? config.transfer.notifySource ?? undefined;
    const from = (t: NotifyTarget): NotifyTarget => {
      const source = configured ?? servedSource(config.listen, t.host);
      return source === undefined ? t : { ...t, source };
    };
    const forZone = global
      .filter((p) => p.zones === undefined || p.zones.includes(zone.origin))
      .map(({ zones: _, ...p }) => p);
    const ns =
      e?.notify === 'ns'
        ? nsHosts(zone, config.transfer.nsNotifyPort).map((p) => ({ ...p, ...keyed }))
        : [];
    // The first entry for each host and port.
    const unique = new Map<string, NotifyTarget>();
    for (const t of [...forZone, ...(own.get(zone.origin) ?? []), ...ns])
      if (!unique.has(`${t.host}|${t.port}`)) unique.set(`${t.host}|${t.port}`, t);
    return [...unique.values()].map(from);
  };
}
