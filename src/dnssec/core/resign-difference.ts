/**
 * Re-signing by difference: when a new unsigned version only changes the
 * content of some RRsets (no name, type or cut added or removed), it is the
 * previous signed version with those names and the apex re-signed
 * (`PatchedZone`); anything else gives undefined (signed whole). Pure.
 */
import type { ResourceRecord, RRset, Zone, ZoneNode } from '../../dns/core/zone/model.ts';
import { StoreZone } from '../../dns/core/zone/views.ts';
import { PatchedZone } from '../../dns/core/zone/patch.ts';
import {
  NODE_BELOW_CUT,
  NODE_DELEGATION,
  NODE_OUT_OF_ZONE,
  type ZoneStore,
} from '../../dns/core/zone/store.ts';
import {
  completeSignature,
  DNSSEC_TYPES as SIGNER_TYPES,
  nsec3ParamRdata,
  signOwnerSets,
  soaRdataWithSerial,
  type SignZoneOptions,
} from './sign-zone.ts';
import { readU32 } from '../../dns/core/wire/bytes.ts';
import { sameBytes } from '../../kit/core/bytes.ts';
import { dnskeyRdata } from './records.ts';
import { pairRows, storeBase } from '../../xfr/core/diff.ts';
import { isSubdomain, nameToText } from '../../dns/core/zone/names.ts';
import {
  TYPE_DNSKEY,
  TYPE_NSEC,
  TYPE_NSEC3,
  TYPE_NS,
  TYPE_NSEC3PARAM,
  TYPE_RRSIG,
  TYPE_SOA,
} from '../../dns/core/rr/types.ts';

export interface ResignedZone {
  readonly zone: PatchedZone;
  /** RRsets of the re-signed names (the apex included), and of those, the ones whose signatures were kept. */
  readonly rrsets: number;
  readonly kept: number;
  readonly names: number;
  /** The earliest RRSIG expiration of the new version (RFC 4034 section 3.1.5). */
  readonly earliest: number;
}

/** The earlier of two expirations in serial arithmetic (RFC 4034 section 3.1.5). */
export function earlier(a: number | undefined, b: number): number {
  return a === undefined || ((b - a) | 0) < 0 ? b : a;
}

/** The earliest RRSIG expiration among a node's RRSIGs. */
function nodeEarliest(node: ZoneNode | null | undefined, e: number | undefined) {
  for (const r of node?.rrsets.get(TYPE_RRSIG)?.records ?? [])
    if (r.rdata.length >= 12) e = earlier(e, readU32(r.rdata, 8));
  return e;
}

/** The earliest RRSIG expiration of a zone, read from its store's RDATA where it has one. */
export function earliestSignatureExpiration(zone: Zone): number | undefined {
  const base = storeBase(zone);
  if (base === undefined) {
    let e: number | undefined;
    for (const node of zone.nodes.values()) e = nodeEarliest(node, e);
    return e;
  }
  const store = base.store;
  const replaced = new Set<number>();
  let e: number | undefined;
  if (zone instanceof PatchedZone)
    for (const [name, node] of zone.overlay) {
      const row = store.findName(name);
      if (row >= 0) replaced.add(row);
      e = nodeEarliest(node, e);
    }
  for (let r = 0; r < store.recordCount; r++) {
    if (store.recordType(r) !== TYPE_RRSIG || store.rdataLength(r) < 12) continue;
    if (replaced.size > 0 && replaced.has(store.recordNode(r))) continue;
    e = earlier(e, readU32(store.rdataBlock(r), store.rdataStart(r) + 8));
  }
  return e;
}

type RowCompare = 'same' | 'content' | 'other';

/** Name row n of the unsigned `after` against row m of the signed `before`, signer data aside. */
function compareRow(before: ZoneStore, m: number, after: ZoneStore, n: number): RowCompare {
  let count = 0;
  let content = false;
  for (let s = after.firstRRset(n); s >= 0; s = after.nextRRset(s)) {
    const t = after.rrsetType(s);
    if (SIGNER_TYPES.has(t) || t === TYPE_DNSKEY) return 'other';
    count++;
    const o = before.findSet(m, t);
    if (o < 0) return 'other';
    if (content) continue;
    if (before.rrsetTtl(o) !== after.rrsetTtl(s) || before.rrsetSize(o) !== after.rrsetSize(s)) {
      content = true;
      continue;
    }
    for (
      let r = after.firstRecord(s), q = before.firstRecord(o);
      r >= 0 && !content;
      r = after.nextRecord(r), q = before.nextRecord(q)
    )
      if (q < 0 || !after.sameRdata(r, before, q)) content = true;
  }
  for (let s = before.firstRRset(m); s >= 0; s = before.nextRRset(s)) {
    const t = before.rrsetType(s);
    if (!SIGNER_TYPES.has(t) && t !== TYPE_DNSKEY) count--;
  }
  if (count !== 0) return 'other';
  if (!content) return 'same';
  const cut = NODE_DELEGATION | NODE_BELOW_CUT;
  return after.hasNameFlag(n, cut) || before.hasNameFlag(m, cut) ? 'other' : 'content';
}

/** The same comparison through the views (the names a previous patch replaced). */
function compareNodes(
  before: ZoneNode | null | undefined,
  after: ZoneNode | undefined,
): RowCompare {
  const data = (n: ZoneNode | null | undefined) =>
    [...(n?.rrsets.values() ?? [])].filter(
      (s) => !SIGNER_TYPES.has(s.type) && s.type !== TYPE_DNSKEY,
    );
  const a = data(after);
  const b = data(before);
  if (after?.rrsets.size !== a.length || a.length !== b.length) return 'other';
  if (!before || before.isDelegation || before.belowCut || after.isDelegation || after.belowCut)
    return a.length === 0 ? 'same' : 'other';
  let content = false;
  for (const s of a) {
    const o = before.rrsets.get(s.type);
    if (!o) return 'other';
    const same =
      o.ttl === s.ttl &&
      o.records.length === s.records.length &&
      o.records.every((r, i) => sameBytes(r.rdata, s.records[i]!.rdata));
    if (!same) content = true;
  }
  return content ? 'content' : 'same';
}

/** The names whose data changed from the signed `previous`; undefined when more than content did. */
function changedNames(zone: StoreZone, previous: Zone, base: StoreZone): string[] | undefined {
  const before = base.store;
  const after = zone.store;
  const patched = previous instanceof PatchedZone ? previous.overlay : new Map<string, null>();
  const skipBefore = new Set<number>();
  const skipAfter = new Set<number>();
  const changed: string[] = [];
  for (const name of patched.keys()) {
    const c = compareNodes(previous.nodes.get(name), zone.nodes.get(name));
    if (c === 'other') return undefined;
    if (c === 'content') changed.push(name);
    const m = before.findName(name);
    if (m >= 0) skipBefore.add(m);
    const n = after.findName(name);
    if (n >= 0) skipAfter.add(n);
  }
  const seen = pairRows(before, after, (n, m) => {
    if (skipAfter.has(n) || after.hasNameFlag(n, NODE_OUT_OF_ZONE)) return true;
    // A name new to the zone (not an empty non-terminal) moves the chain.
    if (m < 0) return after.firstRRset(n) < 0;
    const c = compareRow(before, m, after, n);
    if (c === 'content') changed.push(after.name(n));
    return c !== 'other';
  });
  if (seen === undefined) return undefined;
  // A name gone from the zone (the NSEC3 chain's own names aside) moves the chain.
  for (let m = 0; m < before.nameCount; m++) {
    if (seen[m] || skipBefore.has(m) || before.hasNameFlag(m, NODE_OUT_OF_ZONE)) continue;
    for (let s = before.firstRRset(m); s >= 0; s = before.nextRRset(s)) {
      const t = before.rrsetType(s);
      if (t !== TYPE_NSEC3 && t !== TYPE_RRSIG) return undefined;
    }
  }
  return changed;
}

/** The apex as signed before is the apex the options sign: same keys, same denial, same SOA but its serial. */
function sameApex(zone: Zone, previous: Zone, o: SignZoneOptions): boolean {
  const apex = previous.nodes.get(previous.origin);
  if (!apex || o.optOut || zone.origin !== previous.origin) return false;
  const keys = apex.rrsets.get(TYPE_DNSKEY)?.records.map((r) => r.rdata) ?? [];
  const wanted = o.keys.map((k) => dnskeyRdata(k.flags, k.algorithm, k.publicKey));
  if (keys.length !== wanted.length || !wanted.every((w) => keys.some((k) => sameBytes(k, w))))
    return false;
  const param = apex.rrsets.get(TYPE_NSEC3PARAM)?.records[0]?.rdata;
  if (o.denial === 'nsec') {
    if (param !== undefined || !apex.rrsets.has(TYPE_NSEC)) return false;
  } else if (param === undefined || !sameBytes(param, nsec3ParamRdata(o))) return false;
  const a = zone.soa.records[0];
  const b = previous.soa.records[0];
  if (!a || !b || a.ttl !== b.ttl || a.rdata.length !== b.rdata.length) return false;
  // Everything but the serial (the 4 octets 20 from the end).
  const at = a.rdata.length - 20;
  return a.rdata.every((x, i) => (i >= at && i < at + 4) || x === b.rdata[i]);
}

/** Whether the signer makes records of this type (a file holding them is signed whole). */
export function isSignerType(type: number): boolean {
  return SIGNER_TYPES.has(type);
}

/** One name's data signed (the apex's SOA with `o.serial`), with the signer's records of `before`. */
export function signOwner(
  owner: string,
  now: ZoneNode,
  before: ZoneNode | undefined,
  apex: boolean,
  o: SignZoneOptions,
): { records: ResourceRecord[]; rrsets: number; kept: number; earliest: number | undefined } {
  const sets = new Map<number, ResourceRecord[]>();
  for (const [type, set] of now.rrsets) {
    const rs = set.records.map((r) => {
      const rdata =
        type === TYPE_SOA && apex && o.serial !== undefined
          ? soaRdataWithSerial(r.rdata, o.serial)
          : r.rdata;
      return { owner, type, class: r.class, ttl: r.ttl, rdata };
    });
    sets.set(type, rs);
  }
  for (const type of [TYPE_NSEC, TYPE_DNSKEY, TYPE_NSEC3PARAM]) {
    const set = before?.rrsets.get(type);
    if (set)
      sets.set(
        type,
        set.records.map((r) => ({ owner, type, class: r.class, ttl: r.ttl, rdata: r.rdata })),
      );
  }
  const chunk = signOwnerSets(owner, sets, o);
  const records = chunk.records;
  let earliest: number | undefined;
  for (const job of chunk.jobs) {
    const r = records[job.at]!;
    const rdata = completeSignature(job, o.keys[job.key]!.sign(job.data));
    records[job.at] = { owner, type: r.type, class: r.class, ttl: r.ttl, rdata };
  }
  for (const r of records)
    if (r.type === TYPE_RRSIG) earliest = earlier(earliest, readU32(r.rdata, 8));
  return { records, rrsets: chunk.signed, kept: chunk.kept ?? 0, earliest };
}

/** A node of records (the RRSIG RRset's TTL the lowest of its records'). */
export function nodeOf(owner: string, records: readonly ResourceRecord[]): ZoneNode {
  const rrsets = new Map<number, RRset>();
  for (const r of records) {
    const set = rrsets.get(r.type);
    if (set) (set.records as ResourceRecord[]).push(r);
    else rrsets.set(r.type, { owner, type: r.type, ttl: r.ttl, records: [r] });
    if (r.type === TYPE_RRSIG) {
      const sigs = rrsets.get(TYPE_RRSIG)!;
      if (r.ttl < sigs.ttl) rrsets.set(TYPE_RRSIG, { ...sigs, ttl: r.ttl });
    }
  }
  return { name: owner, rrsets, emptyNonTerminal: false, isDelegation: false, belowCut: false };
}

export function recordCount(node: ZoneNode): number {
  let n = 0;
  for (const s of node.rrsets.values()) n += s.records.length;
  return n;
}

/** The signed `previous` with the changes and apex re-signed; undefined as the header says or if due. */
export function resignByDifference(
  zone: Zone,
  previous: Zone,
  o: SignZoneOptions,
  due: number,
): ResignedZone | undefined {
  const base = storeBase(previous);
  if (!(zone instanceof StoreZone) || base === undefined || !sameApex(zone, previous, o))
    return undefined;
  const before = earliestSignatureExpiration(previous);
  if (before === undefined || ((before - o.now - due) | 0) <= 0) return undefined;
  const names = changedNames(zone, previous, base);
  if (names === undefined) return undefined;
  const origin = zone.origin;
  if (!names.some((n) => n.toLowerCase() === origin)) names.push(origin);
  const overlay = new Map<string, ZoneNode | null>(
    previous instanceof PatchedZone ? previous.overlay : [],
  );
  let size = previous.size;
  let rrsets = 0;
  let kept = 0;
  let earliest = before;
  for (const name of names) {
    const key = name.toLowerCase();
    const now = zone.nodes.get(key);
    const old = previous.nodes.get(key);
    if (!now || !old) return undefined;
    // Its new data, the signer's records kept from `old`, the signatures.
    const r = signOwner(old.name, now, old, key === origin, o);
    overlay.set(key, nodeOf(old.name, r.records));
    size += r.records.length - recordCount(old);
    rrsets += r.rrsets;
    kept += r.kept;
    if (r.earliest !== undefined) earliest = earlier(earliest, r.earliest);
  }
  const soa = overlay.get(origin)!.rrsets.get(TYPE_SOA)!;
  const positions = previous instanceof PatchedZone ? previous.positions : undefined;
  const patched = new PatchedZone(base, overlay, soa, size, positions, previous.cuts);
  return { zone: patched, rrsets, kept, names: names.length, earliest };
}

/** A patched zone's overlay records with the in-zone NS targets (so they build); undefined on deletions. */
export function overlayRecords(zone: PatchedZone): ResourceRecord[] | undefined {
  const names = new Set(zone.overlay.keys());
  for (const r of zone.nodes.get(zone.origin)?.rrsets.get(TYPE_NS)?.records ?? []) {
    const target = nameToText(r.rdata);
    if (isSubdomain(target, zone.origin)) names.add(target);
  }
  const out: ResourceRecord[] = [];
  for (const name of names) {
    const node = zone.nodes.get(name);
    if (zone.overlay.get(name) === null) return undefined;
    for (const set of node?.rrsets.values() ?? [])
      for (const r of set.records)
        out.push({ owner: r.owner, type: r.type, class: r.class, ttl: r.ttl, rdata: r.rdata });
  }
  return out;
}

/** A signed version again from its base and its overlay's zone (`overlayRecords`). */
export function patchedWith(base: StoreZone, overlayZone: Zone): PatchedZone | undefined {
  if (overlayZone.origin !== base.origin) return undefined;
  const overlay = new Map<string, ZoneNode | null>();
  let size = base.size;
  for (const [name, node] of overlayZone.nodes) {
    if (node.rrsets.size === 0) continue;
    const old = base.nodes.get(name);
    if (!old) return undefined;
    const { rrsets } = node;
    overlay.set(name, {
      name,
      rrsets,
      emptyNonTerminal: false,
      isDelegation: false,
      belowCut: false,
    });
    size += recordCount(node) - recordCount(old);
  }
  if (!overlay.has(base.origin)) return undefined;
  return new PatchedZone(base, overlay, overlayZone.soa, size, undefined, base.cuts);
}
