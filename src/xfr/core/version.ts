/**
 * A reloaded zone as a new version of the one served: the IXFR difference
 * and the serial its serial policy chooses (in the loaded SOA, not the
 * file). Runs where the zone was loaded.
 */
import type { Zone } from '../../dns/core/zone/model.ts';
import { StoreZone } from '../../dns/core/zone/views.ts';
import { diffChangesContent, diffZones, type ZoneDiff } from './diff.ts';
import { soaRecord, TYPE_SOA } from './records.ts';
import { soaSerialOf } from '../../dns/core/rr/soa.ts';
import { chooseSerial, serialCompare, type SerialChoice, type SerialPolicy } from './serial.ts';

export interface VersionOptions {
  readonly policy: SerialPolicy;
  /** The version served so far, when there is one in memory. */
  readonly before?: Zone;
  /** Without `before`: the serial served before a restart, and whether the content changed since. */
  readonly restored?: { readonly serial: number; readonly changed: boolean };
  /** Today as YYYYMMDD (for `date`). */
  readonly date: number;
  /** Compute the IXFR difference from `before` (when the serial goes up). */
  readonly diff: boolean;
}

export interface PreparedVersion {
  /** The SOA serial in the file. */
  readonly fileSerial: number;
  readonly choice: SerialChoice;
  /** The difference from `before` to the zone (as served, serial included). */
  readonly diff?: ZoneDiff;
  /** Whether the records differ from `before` (undefined without `before`). */
  readonly changed?: boolean;
}

/** Overwrite the serial in a store zone's SOA RDATA; false for zones not on a store. */
export function setSoaSerial(zone: Zone, serial: number): boolean {
  if (!(zone instanceof StoreZone)) return false;
  const st = zone.store;
  const apex = st.findName(zone.origin);
  const set = apex < 0 ? -1 : st.findSet(apex, TYPE_SOA);
  if (set < 0) return false;
  const r = st.firstRecord(set);
  const len = st.rdataLength(r);
  if (len < 22) return false;
  const block = st.rdataBlock(r);
  new DataView(block.buffer, block.byteOffset).setUint32(st.rdataStart(r) + len - 20, serial);
  return true;
}

/** `zone` against the version served: its serial, and the IXFR difference when that went up. */
export function prepareVersion(zone: Zone, o: VersionOptions): PreparedVersion {
  const fileSerial = soaSerialOf(soaRecord(zone).rdata);
  const before = o.before;
  const d = before !== undefined ? diffZones(before, zone) : undefined;
  const changed = d !== undefined ? diffChangesContent(d) : undefined;
  const served = before !== undefined ? soaSerialOf(soaRecord(before).rdata) : o.restored?.serial;
  let choice = chooseSerial(
    o.policy,
    fileSerial,
    served,
    changed ?? o.restored?.changed ?? true,
    o.date,
  );
  if (choice.serial !== fileSerial && !setSoaSerial(zone, choice.serial))
    choice = { serial: fileSerial, rewritten: false, raised: false };
  if (
    d === undefined ||
    served === undefined ||
    !o.diff ||
    serialCompare(choice.serial, served) <= 0
  )
    return { fileSerial, choice, ...(changed !== undefined ? { changed } : {}) };
  const to = soaRecord(zone);
  const diff: ZoneDiff = { ...d, toSoa: { ...to, rdata: to.rdata.slice() } };
  return { fileSerial, choice, diff, changed: changed! };
}
