/**
 * The difference between two versions of a zone, as IXFR sends it (RFC 1995
 * section 4), the SOA aside. An RRset whose TTL changed is replaced whole
 * (RFC 2181 section 5.2); RRSIGs compare one by one (RFC 4034 section 3).
 */
import type { ResourceRecord, RRset, Zone } from '../../dns/core/zone/model.ts';
import { TYPE_RRSIG } from '../../dns/core/rr/types.ts';
import { canonicalNameKey, soaRecord, TYPE_SOA, type PlainRecord } from './records.ts';
import { soaSerialOf } from '../../dns/core/rr/soa.ts';
import { StoreZone } from '../../dns/core/zone/views.ts';
import { PatchedZone } from '../../dns/core/zone/patch.ts';
import { NODE_OUT_OF_ZONE, type ZoneStore } from '../../dns/core/zone/store.ts';
import { latin1, sameBytes } from '../../kit/core/bytes.ts';

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

/** Records of `a` not in `b` (by RDATA octets). */
function minus(a: readonly Uint8Array[], b: readonly Uint8Array[]): Uint8Array[] {
  if (a.length * b.length <= 1024) return a.filter((x) => !b.some((y) => sameBytes(x, y)));
  const seen = new Set(b.map(latin1));
  return a.filter((x) => !seen.has(latin1(x)));
}

function rdatas(set: RRset | undefined): Uint8Array[] {
  return set === undefined ? [] : set.records.map((r) => r.rdata);
}

/** The RRSIGs of one owner, record by record: each has the TTL of the RRset it covers. */
function diffSigs(
  key: string,
  before: RRset | undefined,
  after: RRset | undefined,
  removed: PlainRecord[],
  added: PlainRecord[],
): void {
  const a = before?.records ?? [];
  const b = after?.records ?? [];
  const id = (r: ResourceRecord) => `${r.ttl}/${latin1(r.rdata)}`;
  const inA = new Set(a.map(id));
  const inB = new Set(b.map(id));
  for (const r of a) if (!inB.has(id(r))) removed.push(plain(key, r));
  for (const r of b) if (!inA.has(id(r))) added.push(plain(key, r));
}

function plain(key: string, r: ResourceRecord): PlainRecord {
  return { key, type: TYPE_RRSIG, ttl: r.ttl, rdata: r.rdata };
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
  if (type === TYPE_RRSIG) return diffSigs(key, before, after, removed, added);
  const a = rdatas(before);
  const b = rdatas(after);
  if (before && after && before.ttl !== after.ttl) {
    for (const rdata of a) removed.push({ key, type, ttl: before.ttl, rdata });
    for (const rdata of b) added.push({ key, type, ttl: after.ttl, rdata });
    return;
  }
  if (a.length === b.length && a.every((x, i) => sameBytes(x, b[i]!))) return;
  for (const rdata of minus(a, b)) removed.push({ key, type, ttl: before!.ttl, rdata });
  for (const rdata of minus(b, a)) added.push({ key, type, ttl: after!.ttl, rdata });
}

/** Name row n of `after` and row m of `before` have the same RRsets (types, TTLs, records in order). */
function sameSets(before: ZoneStore, m: number, after: ZoneStore, n: number): boolean {
  if (after.hasNameFlag(n, NODE_OUT_OF_ZONE) || before.hasNameFlag(m, NODE_OUT_OF_ZONE))
    return false;
  let count = 0;
  for (let s = after.firstRRset(n); s >= 0; s = after.nextRRset(s)) {
    count++;
    const o = before.findSet(m, after.rrsetType(s));
    if (
      o < 0 ||
      before.rrsetTtl(o) !== after.rrsetTtl(s) ||
      before.rrsetSize(o) !== after.rrsetSize(s)
    )
      return false;
    for (
      let r = after.firstRecord(s), q = before.firstRecord(o);
      r >= 0;
      r = after.nextRecord(r), q = before.nextRecord(q)
    ) {
      if (q < 0 || !after.sameRdata(r, before, q)) return false;
      // An RRSIG's own TTL is zone data too (RFC 4034 section 3).
      if (after.dataTtl(s, r) !== before.dataTtl(o, q)) return false;
    }
  }
  for (let s = before.firstRRset(m); s >= 0; s = before.nextRRset(s)) count--;
  return count === 0;
}

/**
 * Each row n of `after` with its row m in `before` (-1: none) until `visit`
 * returns false; the rows of `before` met. A name is first looked for where
 * the previous match suggests (rows mostly line up), then hashed.
 */
export function pairRows(
  before: ZoneStore,
  after: ZoneStore,
  visit: (n: number, m: number) => boolean,
): Uint8Array | undefined {
  const seen = new Uint8Array(before.nameCount);
  let delta = 0;
  for (let n = 0; n < after.nameCount; n++) {
    let m = n + delta;
    if (m < 0 || m >= before.nameCount || !after.sameName(n, before, m)) {
      m = before.findName(after.name(n));
      if (m >= 0) delta = m - n;
    }
    if (m >= 0) seen[m] = 1;
    if (!visit(n, m)) return undefined;
  }
  return seen;
}

/** The names whose RRsets differ between two stores, read from the columns alone. */
function changedNames(before: ZoneStore, after: ZoneStore): { changed: string[]; gone: string[] } {
  const changed: string[] = [];
  const seen = pairRows(before, after, (n, m) => {
    if (after.hasNameFlag(n, NODE_OUT_OF_ZONE)) return true;
    if (m < 0 || !sameSets(before, m, after, n)) changed.push(after.name(n));
    return true;
  })!;
  const gone: string[] = [];
  for (let m = 0; m < before.nameCount; m++)
    if (!seen[m] && !before.hasNameFlag(m, NODE_OUT_OF_ZONE)) gone.push(before.name(m));
  return { changed, gone };
}

/** Every name of a zone that is not a store zone: compared through the views. */
function allNames(before: Zone, after: Zone): { changed: string[]; gone: string[] } {
  return {
    changed: [...after.nodes.keys()],
    gone: [...before.nodes.keys()].filter((n) => !after.nodes.has(n)),
  };
}

/** The store a zone stands on: its own, or a patched zone's base. */
export function storeBase(z: Zone): StoreZone | undefined {
  return z instanceof StoreZone ? z : z instanceof PatchedZone ? z.base : undefined;
}

/** The names to compare: on stores, those whose rows differ or a patch replaced; else every name. */
function namesToCompare(before: Zone, after: Zone): { changed: string[]; gone: string[] } {
  const a = storeBase(before);
  const b = storeBase(after);
  if (a === undefined || b === undefined) return allNames(before, after);
  // On one base (a signed version re-signed by difference over the one before): the patches' names only.
  const rows = a === b ? { changed: [], gone: [] } : changedNames(a.store, b.store);
  if (before === a && after === b) return rows;
  const names = new Set([...rows.changed, ...rows.gone]);
  for (const z of [before, after])
    if (z instanceof PatchedZone) for (const n of z.overlay.keys()) names.add(n);
  const changed: string[] = [];
  const gone: string[] = [];
  for (const n of names) {
    if (after.nodes.has(n)) changed.push(n);
    else if (before.nodes.has(n)) gone.push(n);
  }
  return { changed, gone };
}

const NO_SETS: ReadonlyMap<number, RRset> = new Map();

/** A copy of a record's RDATA (a view would keep the zone's whole arena alive in the history). */
function detached(list: PlainRecord[]): PlainRecord[] {
  return list.map((r) => ({ ...r, rdata: r.rdata.slice() }));
}

/** The difference between two versions of one zone; RDATA copied (the history outlives the versions). */
export function diffZones(before: Zone, after: Zone): ZoneDiff {
  const removed: PlainRecord[] = [];
  const added: PlainRecord[] = [];
  const apex = after.origin;
  const names = namesToCompare(before, after);
  for (const name of names.changed) {
    // A name the new version does not show (no node) loses all its records.
    const sets = after.nodes.get(name)?.rrsets ?? NO_SETS;
    const old = before.nodes.get(name);
    const key = canonicalNameKey(name);
    for (const [type, set] of sets) {
      if (type === TYPE_SOA && name === apex) continue;
      diffSet(key, type, old?.rrsets.get(type), set, removed, added);
    }
    if (old === undefined) continue;
    for (const [type, set] of old.rrsets) {
      if (type === TYPE_SOA && name === apex) continue;
      if (!sets.has(type)) diffSet(key, type, set, undefined, removed, added);
    }
  }
  for (const name of names.gone) {
    const node = before.nodes.get(name);
    if (node === undefined) continue;
    const key = canonicalNameKey(name);
    for (const [type, set] of node.rrsets) diffSet(key, type, set, undefined, removed, added);
  }
  const [fromSoa, toSoa] = detached([soaRecord(before), soaRecord(after)]);
  return { fromSoa: fromSoa!, toSoa: toSoa!, removed: detached(removed), added: detached(added) };
}

/** Whether a difference changes anything besides the SOA serial (records, or the SOA's other fields). */
export function diffChangesContent(d: ZoneDiff): boolean {
  if (d.removed.length > 0 || d.added.length > 0 || d.fromSoa.ttl !== d.toSoa.ttl) return true;
  const a = d.fromSoa.rdata;
  const b = d.toSoa.rdata;
  if (a.length !== b.length) return true;
  for (let i = 0; i < a.length; i++)
    if ((i < a.length - 20 || i >= a.length - 16) && a[i] !== b[i]) return true;
  return false;
}
