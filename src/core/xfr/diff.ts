/**
 * The difference between two versions of a zone, as IXFR sends it (RFC 1995
 * section 4): the records deleted from the old version and those added in
 * the new one, the SOA aside. An RRset whose TTL changed is deleted and added
 * whole (a TTL belongs to the RRset, RFC 2181 section 5.2).
 */
import type { RRset, Zone } from '../zone/model.ts';
import { canonicalNameKey, soaRecord, soaSerialOf, TYPE_SOA, type PlainRecord } from './records.ts';
import { StoreZone } from '../zone/views.ts';
import { NODE_OUT_OF_ZONE, type ZoneStore } from '../zone/store.ts';

export interface ZoneDiff {
  readonly fromSoa: PlainRecord;
  readonly toSoa: PlainRecord;
  readonly removed: readonly PlainRecord[];
  readonly added: readonly PlainRecord[];
}

export function diffFromSerial(d: ZoneDiff): number {
  return soaSerialOf(d.fromSoa.rdata);
}

export function diffToSerial(d: ZoneDiff): number {
  return soaSerialOf(d.toSoa.rdata);
}

/** Octets a difference takes on the wire, uncompressed (what the history limit counts). */
export function diffBytes(d: ZoneDiff): number {
  let n = 0;
  const count = (r: PlainRecord) => (n += r.key.length + 10 + r.rdata.length);
  count(d.fromSoa);
  count(d.toSoa);
  d.removed.forEach(count);
  d.added.forEach(count);
  return n;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function latin1(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i += 4096) {
    s += String.fromCharCode.apply(null, b.subarray(i, i + 4096) as unknown as number[]);
  }
  return s;
}

/** Records of `a` not in `b` (by RDATA octets). */
function minus(a: readonly Uint8Array[], b: readonly Uint8Array[]): Uint8Array[] {
  if (a.length * b.length <= 1024) return a.filter((x) => !b.some((y) => equalBytes(x, y)));
  const seen = new Set(b.map(latin1));
  return a.filter((x) => !seen.has(latin1(x)));
}

function rdatas(set: RRset | undefined): Uint8Array[] {
  return set === undefined ? [] : set.records.map((r) => r.rdata);
}

/** Compare one RRset's two versions; push what changed. */
function diffSet(
  key: string,
  type: number,
  before: RRset | undefined,
  after: RRset | undefined,
  removed: PlainRecord[],
  added: PlainRecord[],
): void {
  const a = rdatas(before);
  const b = rdatas(after);
  if (before && after && before.ttl !== after.ttl) {
    for (const rdata of a) removed.push({ key, type, ttl: before.ttl, rdata });
    for (const rdata of b) added.push({ key, type, ttl: after.ttl, rdata });
    return;
  }
  if (a.length === b.length && a.every((x, i) => equalBytes(x, b[i]!))) return;
  for (const rdata of minus(a, b)) removed.push({ key, type, ttl: before!.ttl, rdata });
  for (const rdata of minus(b, a)) added.push({ key, type, ttl: after!.ttl, rdata });
}

/** RDATA of records a and b (in their stores) equal. */
function sameRdata(sa: ZoneStore, a: number, sb: ZoneStore, b: number): boolean {
  const len = sa.recLen[a]!;
  if (len !== sb.recLen[b]) return false;
  const ba = sa.rdataBlock(a);
  const oa = sa.rdataStart(a);
  const bb = sb.rdataBlock(b);
  const ob = sb.rdataStart(b);
  for (let i = 0; i < len; i++) if (ba[oa + i] !== bb[ob + i]) return false;
  return true;
}

/**
 * A test of whether a name has the same RRsets (types, TTLs, records in
 * order) in both stores, read from the columns.
 */
function sameNode(before: ZoneStore, after: ZoneStore): (name: string) => boolean {
  return (name) => {
    const n = after.findName(name);
    const m = before.findName(name);
    if (n < 0 || m < 0) return false;
    if ((after.nodeFlags[n]! | before.nodeFlags[m]!) & NODE_OUT_OF_ZONE) return false;
    let count = 0;
    for (let s = after.nodeFirstSet[n]!; s >= 0; s = after.setNext[s]!) {
      count++;
      const o = before.findSet(m, after.setType[s]!);
      if (o < 0 || before.setTtl[o] !== after.setTtl[s] || before.setSize[o] !== after.setSize[s])
        return false;
      for (
        let r = after.setFirst[s]!, q = before.setFirst[o]!;
        r >= 0;
        r = after.recNext[r]!, q = before.recNext[q]!
      ) {
        if (q < 0 || !sameRdata(after, r, before, q)) return false;
      }
    }
    for (let s = before.nodeFirstSet[m]!; s >= 0; s = before.setNext[s]!) count--;
    return count === 0;
  };
}

/**
 * The difference as steps: the generator yields every 512 names, so a
 * server can compute it in slices between which it keeps answering (a zone
 * of a million records must not stop the answering thread).
 */
export function* diffZonesStepwise(
  before: Zone,
  after: Zone,
): Generator<undefined, ZoneDiff, undefined> {
  const removed: PlainRecord[] = [];
  const added: PlainRecord[] = [];
  const apex = after.origin;
  let k = 0;
  const same =
    before instanceof StoreZone && after instanceof StoreZone
      ? sameNode(before.store, after.store)
      : undefined;
  for (const [name, node] of after.nodes) {
    if ((++k & 511) === 0) yield;
    // Most names did not change: compared in the columns, without views.
    if (same?.(name)) continue;
    const old = before.nodes.get(name);
    const key = canonicalNameKey(name);
    for (const [type, set] of node.rrsets) {
      if (type === TYPE_SOA && name === apex) continue;
      diffSet(key, type, old?.rrsets.get(type), set, removed, added);
    }
    if (old === undefined) continue;
    for (const [type, set] of old.rrsets) {
      if (type === TYPE_SOA && name === apex) continue;
      if (!node.rrsets.has(type)) diffSet(key, type, set, undefined, removed, added);
    }
  }
  for (const [name, node] of before.nodes) {
    if ((++k & 511) === 0) yield;
    if (after.nodes.has(name)) continue;
    const key = canonicalNameKey(name);
    for (const [type, set] of node.rrsets) diffSet(key, type, set, undefined, removed, added);
  }
  return { fromSoa: soaRecord(before), toSoa: soaRecord(after), removed, added };
}

/** The difference from `before` to `after` (two versions of one zone). */
export function diffZones(before: Zone, after: Zone): ZoneDiff {
  const steps = diffZonesStepwise(before, after);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
