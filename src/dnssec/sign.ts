/**
 * `lexroute zone sign`: a zone file in, a signed zone file out, with the
 * zone's keys from a folder of BIND key files. The SOA serial is raised on
 * each signing (above the input's and the previous output's).
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { ResourceRecord, Zone } from '../core/zone/model.ts';
import { signZone, soaSerial } from '../core/dnssec/sign-zone.ts';
import { writeZone } from '../core/zone/writer.ts';
import { loadZoneFile } from '../zonefile/load.ts';
import { KeyError, readZoneKeys } from './keys.ts';

export interface SignFileOptions {
  readonly keysDir: string;
  readonly out: string;
  readonly origin?: string;
  readonly nsec3: boolean;
  readonly optOut: boolean;
  /** Seconds since the epoch (default: now). */
  readonly now?: number;
  readonly validityDays?: number;
}

export interface SignFileResult {
  readonly origin: string;
  readonly serial: number;
  readonly keys: readonly string[];
  readonly rrsets: number;
  readonly records: number;
}

/** Every record of a loaded zone, as plain objects. */
export function zoneRecords(zone: Zone): ResourceRecord[] {
  const out: ResourceRecord[] = [];
  for (const node of zone.nodes.values())
    for (const set of node.rrsets.values())
      for (const r of set.records)
        out.push({ owner: r.owner, type: r.type, class: r.class, ttl: r.ttl, rdata: r.rdata });
  return out;
}

/** RFC 1982 serial arithmetic: the later of two serials. */
function laterSerial(a: number, b: number): number {
  const d = (b - a) >>> 0;
  return d !== 0 && d < 0x80000000 ? b : a;
}

export async function signZoneFile(file: string, o: SignFileOptions): Promise<SignFileResult> {
  const loaded = await loadZoneFile(file, o.origin !== undefined ? { origin: o.origin } : {});
  const bad = loaded.diagnostics.find((d) => d.severity === 'error');
  if (!loaded.zone || bad)
    throw new KeyError(
      'ZONE_INVALID',
      `${file}: the zone does not load${bad ? `: ${bad.code} ${bad.message}` : ''}`,
    );
  const zone = loaded.zone;
  const keys = await readZoneKeys(o.keysDir, zone.origin);
  if (keys.length === 0)
    throw new KeyError('KEY_NONE', `no K${zone.origin}+*.private keys in ${o.keysDir}`);
  let serial = soaSerial(zone.soa.records[0]!.rdata);
  if (existsSync(o.out)) {
    const prev = await loadZoneFile(o.out, { origin: zone.origin });
    if (prev.zone) serial = laterSerial(serial, soaSerial(prev.zone.soa.records[0]!.rdata));
  }
  serial = (serial + 1) >>> 0;
  const now = o.now ?? Math.floor(Date.now() / 1000);
  const r = signZone(zoneRecords(zone), {
    origin: zone.origin,
    keys,
    denial: o.nsec3 ? 'nsec3' : 'nsec',
    optOut: o.optOut,
    now,
    validity: (o.validityDays ?? 30) * 86400,
    random: Math.random,
    serial,
  });
  await writeFile(o.out, writeZone(r.records));
  return {
    origin: zone.origin,
    serial,
    keys: keys.map((k) => k.basename),
    rrsets: r.signed,
    records: r.records.length,
  };
}
