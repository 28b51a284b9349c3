/**
 * Re-signing by difference without the previous signed version at hand: the
 * signing thread keeps a digest of the last version's unsigned data
 * (`dataDigest`); a new version with the same names, types and cuts
 * (`digestChanges`) has its changed names and apex signed
 * (`signChangedNames`), put over the version served by the thread serving
 * it (`applyResigned`). Pure.
 */
import type { ResourceRecord, Zone, ZoneNode } from '../../dns/core/zone/model.ts';
import type { StoreZone } from '../../dns/core/zone/views.ts';
import { PatchedZone } from '../../dns/core/zone/patch.ts';
import {
  NODE_BELOW_CUT,
  NODE_DELEGATION,
  NODE_ENT,
  NODE_OUT_OF_ZONE,
  type ZoneStore,
} from '../../dns/core/zone/store.ts';
import { readU16 } from '../../dns/core/wire/bytes.ts';
import { sameBytes } from '../../kit/core/bytes.ts';
import { FNV_OFFSET_BASIS, FNV_PRIME } from '../../kit/core/hash.ts';
import { TYPE_DNSKEY, TYPE_RRSIG, TYPE_SOA } from '../../dns/core/rr/types.ts';
import { earlier, isSignerType, nodeOf, recordCount, signOwner } from './resign-difference.ts';
import { storeBase } from '../../xfr/core/diff.ts';
import type { SignZoneOptions } from './sign-zone.ts';

/** The unsigned data of a zone, per name in canonical order, as hashes (`dataDigest`). */
export interface DataDigest {
  readonly origin: string;
  /** Six words per name: two hashes of the name (case aside), cut and empty-non-terminal flags, types, two content hashes. */
  readonly sums: Uint32Array;
  /** The apex SOA (TTL and RDATA) but its serial: its minimum is every NSEC's TTL. */
  readonly soa: number;
}

const CUT = NODE_DELEGATION | NODE_BELOW_CUT;
const WORDS = 6;

/** Two hashes of name row n's text, ASCII case folded, into `out[0]`, `out[1]`. */
function nameHash(store: ZoneStore, n: number, out: Int32Array): void {
  const block = store.nameBlockOf(n);
  const start = store.nameStart(n);
  const end = start + store.nameLength(n);
  let a = FNV_OFFSET_BASIS;
  let b = 0x9747b28c;
  for (let i = start; i < end; i++) {
    let x = block[i]!;
    if (x >= 0x41 && x <= 0x5a) x |= 0x20;
    a = Math.imul(a ^ x, FNV_PRIME);
    b = Math.imul((b + x) ^ (b >>> 13), 0x5bd1e995);
  }
  out[0] = a;
  out[1] = b;
}

/** Two 32-bit hashes (FNV-1a, multiply-xorshift) of RRset s, an SOA's serial aside, added to `out`. */
function addSetHash(store: ZoneStore, s: number, out: Int32Array): void {
  const type = store.rrsetType(s);
  let a = Math.imul(FNV_OFFSET_BASIS ^ type, FNV_PRIME);
  let b = Math.imul(0x9747b28c ^ type, 0x5bd1e995);
  a = Math.imul(a ^ store.rrsetTtl(s), FNV_PRIME);
  b = Math.imul(b ^ store.rrsetTtl(s) ^ (b >>> 15), 0x5bd1e995);
  for (let r = store.firstRecord(s); r >= 0; r = store.nextRecord(r)) {
    const block = store.rdataBlock(r);
    const start = store.rdataStart(r);
    const end = start + store.rdataLength(r);
    const serial = type === TYPE_SOA ? end - 20 : end;
    a = Math.imul(a ^ (end - start), FNV_PRIME);
    b = Math.imul(b ^ (end - start) ^ (b >>> 15), 0x5bd1e995);
    for (let i = start; i < end; i++) {
      if (i === serial) i += 4;
      const x = block[i]!;
      a = Math.imul(a ^ x, FNV_PRIME);
      b = Math.imul((b + x) ^ (b >>> 13), 0x5bd1e995);
    }
  }
  out[0] = (out[0]! + a) | 0;
  out[1] = (out[1]! + b) | 0;
}

/** The digest of an unsigned zone; undefined when it holds DNSSEC records (signed whole). RRsets sum up. */
export function dataDigest(zone: StoreZone): DataDigest | undefined {
  const store = zone.store;
  const sums = new Uint32Array(zone.order.length * WORDS);
  const sum = new Int32Array(2);
  let soa = 0;
  let at = 0;
  for (const n of zone.order) {
    if (store.hasNameFlag(n, NODE_OUT_OF_ZONE)) continue;
    let types = 0;
    sum[0] = sum[1] = 0;
    for (let s = store.firstRRset(n); s >= 0; s = store.nextRRset(s)) {
      const t = store.rrsetType(s);
      if (isSignerType(t) || t === TYPE_DNSKEY) return undefined;
      types = (types + Math.imul(t + 1, 0x9e3779b1)) | 0;
      if (t === TYPE_SOA) {
        const before = sum[0]!;
        addSetHash(store, s, sum);
        soa = (sum[0]! - before) | 0;
      } else addSetHash(store, s, sum);
    }
    const w = at * WORDS;
    sums[w + 4] = sum[0]!;
    sums[w + 5] = sum[1]!;
    nameHash(store, n, sum);
    sums[w] = sum[0]!;
    sums[w + 1] = sum[1]!;
    sums[w + 2] = store.nameFlags(n) & (CUT | NODE_ENT);
    sums[w + 3] = types;
    at++;
  }
  return { origin: zone.origin, sums: sums.subarray(0, at * WORDS), soa };
}

/** The names of `zone` whose data changed; undefined when names, types, cuts or the apex SOA changed. */
export function digestChanges(
  before: DataDigest,
  after: DataDigest,
  zone: StoreZone,
): string[] | undefined {
  if (before.origin !== after.origin || before.soa !== after.soa) return undefined;
  const x = before.sums;
  const y = after.sums;
  if (x.length !== y.length) return undefined;
  const changed: number[] = [];
  for (let w = 0; w < y.length; w += WORDS) {
    if (x[w] !== y[w] || x[w + 1] !== y[w + 1] || x[w + 2] !== y[w + 2] || x[w + 3] !== y[w + 3])
      return undefined;
    if (x[w + 4] === y[w + 4] && x[w + 5] === y[w + 5]) continue;
    if ((y[w + 2]! & CUT) !== 0) return undefined;
    changed.push(w);
  }
  // Row positions to names: the out-of-zone names were left out of the digest.
  const names: string[] = [];
  let pos = 0;
  let next = 0;
  for (const n of zone.order) {
    if (next >= changed.length) break;
    if (zone.store.hasNameFlag(n, NODE_OUT_OF_ZONE)) continue;
    if (pos * WORDS === changed[next]) {
      names.push(zone.store.name(n).toLowerCase());
      next++;
    }
    pos++;
  }
  return names;
}

/** One name's records signed anew (its data and their RRSIGs), by key. */
export interface ResignedName {
  readonly name: string;
  readonly records: readonly ResourceRecord[];
}

/** The changed names and the apex signed; `o.kept` is not asked (`applyResigned` keeps what is right). */
export function signChangedNames(
  zone: Zone,
  names: readonly string[],
  o: SignZoneOptions,
): { names: ResignedName[]; rrsets: number; earliest: number | undefined } | undefined {
  const keys = new Set(names);
  keys.add(zone.origin);
  const out: ResignedName[] = [];
  let rrsets = 0;
  let earliest: number | undefined;
  for (const key of keys) {
    const node = zone.nodes.get(key);
    if (!node) return undefined;
    const r = signOwner(node.name, node, undefined, key === zone.origin, { ...o, kept: undefined });
    out.push({ name: key, records: r.records });
    rrsets += r.rrsets;
    if (r.earliest !== undefined) earliest = earlier(earliest, r.earliest);
  }
  return { names: out, rrsets, earliest };
}

/** The same TTL and RDATA, in order. */
function sameSet(a: readonly ResourceRecord[], ttl: number, b: readonly ResourceRecord[]): boolean {
  return (
    a.length === b.length && a.every((r, i) => r.ttl === ttl && sameBytes(r.rdata, b[i]!.rdata))
  );
}

/** One name: `old` with the RRsets of `records` that changed (and their RRSIGs) in place of its own. */
function mergeName(
  old: ZoneNode,
  records: readonly ResourceRecord[],
): ResourceRecord[] | undefined {
  const fresh = new Map<number, ResourceRecord[]>();
  for (const r of records) {
    const t = r.type === TYPE_RRSIG ? -readU16(r.rdata, 0) - 1 : r.type;
    const list = fresh.get(t);
    if (list) list.push(r);
    else fresh.set(t, [r]);
  }
  const oldSigs = old.rrsets.get(TYPE_RRSIG)?.records ?? [];
  const out: ResourceRecord[] = [];
  for (const [type, set] of old.rrsets) {
    if (type === TYPE_RRSIG) continue;
    const now = fresh.get(type);
    const keep = !now || (type !== TYPE_SOA && sameSet(set.records, now[0]!.ttl, now));
    out.push(...(keep ? set.records : now));
    out.push(
      ...(keep
        ? oldSigs.filter((r) => readU16(r.rdata, 0) === type)
        : (fresh.get(-type - 1) ?? [])),
    );
    fresh.delete(type);
  }
  // Every type of the new data was there before (`digestChanges`).
  for (const t of fresh.keys()) if (t > 0) return undefined;
  // As the signer writes a name: the SOA first, then by type.
  const rank = (r: ResourceRecord) => (r.type === TYPE_SOA ? -1 : r.type);
  return out.sort((a, b) => rank(a) - rank(b));
}

/** The signed `previous` with `resigned` put over it; undefined when a name or type is new. */
export function applyResigned(
  previous: Zone,
  resigned: readonly ResignedName[],
): PatchedZone | undefined {
  const base = storeBase(previous);
  if (base === undefined) return undefined;
  const overlay = new Map<string, ZoneNode | null>(
    previous instanceof PatchedZone ? previous.overlay : [],
  );
  let size = previous.size;
  for (const { name, records } of resigned) {
    const old = previous.nodes.get(name);
    const merged = old && mergeName(old, records);
    if (!old || !merged) return undefined;
    const node = nodeOf(old.name, merged);
    overlay.set(name, node);
    size += merged.length - recordCount(old);
  }
  const soa = overlay.get(previous.origin)?.rrsets.get(TYPE_SOA);
  if (!soa) return undefined;
  const positions = previous instanceof PatchedZone ? previous.positions : undefined;
  return new PatchedZone(base, overlay, soa, size, positions, previous.cuts);
}
