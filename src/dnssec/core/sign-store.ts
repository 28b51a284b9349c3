/**
 * Signing a loaded zone straight from its store's columns (`serve --keys`,
 * `zone sign`): the chunks of `signingPlan`, each owner's records read when
 * its turn comes, so what lives through the signing is typed arrays (NSEC3
 * hashes or NSEC successors), never a map of owner objects.
 */
import type { ResourceRecord, Zone } from '../../dns/core/zone/model.ts';
import {
  NODE_BELOW_CUT,
  NODE_DELEGATION,
  NODE_OUT_OF_ZONE,
  type ZoneStore,
} from '../../dns/core/zone/store.ts';
import { StoreZone } from '../../dns/core/zone/views.ts';
import { keyLabelCount, keyToWire, nameKey } from '../../dns/core/wire/name.ts';
import {
  bitmaps,
  DNSSEC_TYPES,
  nsec3Collector,
  nsec3ParamRdata,
  nsec3Types,
  nsecRdata,
  nsecTypes,
  ownerChunk,
  prepareApex,
  signers,
  signingPlan,
  type Nsec3Chain,
  type Owner,
  type SignZoneOptions,
  type SigningChunk,
} from './sign-zone.ts';
import { TYPE_DS, TYPE_NSEC, TYPE_NSEC3PARAM, TYPE_SOA } from '../../dns/core/rr/types.ts';

/** Name row n's RRsets as the plan holds an owner's (DNSSEC records left out), or undefined when it has none. */
function ownerOf(st: ZoneStore, n: number): Owner | undefined {
  let sets: Map<number, ResourceRecord[]> | undefined;
  let key = '';
  let name = '';
  for (let s = st.firstRRset(n); s >= 0; s = st.nextRRset(s)) {
    const type = st.rrsetType(s);
    if (DNSSEC_TYPES.has(type)) continue;
    if (sets === undefined) {
      sets = new Map();
      name = st.name(n);
      key = nameKey(name);
    }
    const list: ResourceRecord[] = [];
    for (let r = st.firstRecord(s); r >= 0; r = st.nextRecord(r))
      list.push({
        owner: name,
        type,
        class: st.classOf(r),
        ttl: st.recordTtl(r),
        rdata: st.rdata(r),
      });
    sets.set(type, list);
  }
  return sets && { key, name, sets };
}

/** The types of name row n's RRsets, DNSSEC types left out (in the store's order). */
function dataTypes(st: ZoneStore, n: number): number[] {
  const out: number[] = [];
  for (let s = st.firstRRset(n); s >= 0; s = st.nextRRset(s)) {
    const type = st.rrsetType(s);
    if (!DNSSEC_TYPES.has(type)) out.push(type);
  }
  return out;
}

export function* zoneRecords(zone: Zone): Generator<ResourceRecord> {
  for (const node of zone.nodes.values())
    for (const set of node.rrsets.values()) yield* set.records;
}

/** The signing plan of a zone: from its store when it is a loaded one, else from its records. */
export function zoneSigningPlan(zone: Zone, o: SignZoneOptions): Iterable<SigningChunk> {
  return zone instanceof StoreZone ? storeSigningPlan(zone, o) : signingPlan(zoneRecords(zone), o);
}

/** What the owners of the plan are made from. */
interface StorePlan {
  readonly zone: StoreZone;
  readonly apexRow: number;
  /** The apex as signed: SOA with the new serial, DNSKEYs, NSEC3PARAM. */
  readonly apex: Owner;
  /** NSEC and NSEC3 TTL. */
  readonly ttl: number;
  /** NSEC: each authoritative name's successor. */
  readonly next?: Int32Array;
  readonly chain?: Nsec3Chain;
}

/** The signing plan of a built zone, read from its store (see the header). */
export function storeSigningPlan(zone: StoreZone, o: SignZoneOptions): Iterable<SigningChunk> {
  const st = zone.store;
  const apexRow = st.findName(zone.origin);
  const apex = apexRow < 0 ? undefined : ownerOf(st, apexRow);
  const soa = apex?.sets.get(TYPE_SOA)?.[0];
  if (!apex || !soa) throw new Error(`no SOA at ${o.origin}`);
  const ttl = prepareApex(apex, soa, o);
  const types = (n: number) => (n === apexRow ? [...apex.sets.keys()] : dataTypes(st, n));
  const auth = (n: number) =>
    !st.hasNameFlag(n, NODE_OUT_OF_ZONE | NODE_BELOW_CUT) && types(n).length > 0;
  const plan: StorePlan =
    o.denial === 'nsec'
      ? { zone, apexRow, apex, ttl, next: nsecNext(zone, auth) }
      : { zone, apexRow, apex, ttl, chain: nsec3Chain(zone, apexRow, apex, o, ttl, types, auth) };
  const order = o.canonicalOrder === false ? rowOrder(plan) : canonicalOrder(plan);
  return owners(plan, order, o);
}

/** RFC 5155 section 7.1: NSEC3 per authoritative name and empty non-terminal; the NSEC3PARAM at the apex. */
function nsec3Chain(
  zone: StoreZone,
  apexRow: number,
  apex: Owner,
  o: SignZoneOptions,
  ttl: number,
  types: (n: number) => number[],
  auth: (n: number) => boolean,
): Nsec3Chain {
  const st = zone.store;
  const chain = nsec3Collector(apex.key, ttl, o);
  const ent = new Uint8Array(st.nameCount);
  for (let n = 0, count = st.nameCount; n < count; n++) {
    if (!auth(n)) continue;
    const cut = n !== apexRow && st.hasNameFlag(n, NODE_DELEGATION);
    // Opt-out: an insecure delegation (no DS) is left out of the chain.
    if (cut && o.optOut && st.findSet(n, TYPE_DS) < 0) continue;
    chain.add(keyToWire(nameKey(st.name(n))), nsec3Types(types(n), cut, n === apexRow));
    // Empty non-terminals between the name and the apex get an NSEC3 too.
    for (let p = n === apexRow ? -1 : st.parentOf(n); p >= 0 && p !== apexRow; p = st.parentOf(p))
      if (ent[p] === 0 && types(p).length === 0) {
        ent[p] = 1;
        chain.add(keyToWire(nameKey(st.name(p))), []);
      }
  }
  apex.sets.set(TYPE_NSEC3PARAM, [
    { owner: apex.name, type: TYPE_NSEC3PARAM, class: 1, ttl: 0, rdata: nsec3ParamRdata(o) },
  ]);
  return chain.done();
}

/** Each authoritative name's successor in canonical order (the last's is the first): the NSEC chain. */
function nsecNext(zone: StoreZone, auth: (n: number) => boolean): Int32Array {
  const next = new Int32Array(zone.store.nameCount).fill(-1);
  let first = -1;
  let prev = -1;
  for (const n of zone.order) {
    if (!auth(n)) continue;
    if (prev < 0) first = n;
    else next[prev] = n;
    prev = n;
  }
  if (prev >= 0) next[prev] = first;
  return next;
}

/** The plan's owners as rows (`n >= 0`) and NSEC3 chain owners (`-1 - i`): rows in store order, then the chain. */
function* rowOrder(p: StorePlan): Generator<number> {
  for (let n = 0, count = p.zone.store.nameCount; n < count; n++) yield n;
  for (let i = 0; i < (p.chain?.count ?? 0); i++) yield -1 - i;
}

/** The same in canonical order: each NSEC3 owner before the first apex child sorting after it. */
function* canonicalOrder(p: StorePlan): Generator<number> {
  const st = p.zone.store;
  const depth = keyLabelCount(p.apex.key) + 1;
  const chain = p.chain;
  let i = 0;
  for (const n of p.zone.order) {
    if (chain && i < chain.count && n !== p.apexRow) {
      const key = nameKey(st.name(n));
      if (keyLabelCount(key) === depth) {
        const label = key.slice(1, 1 + key.charCodeAt(0));
        while (i < chain.count && chain.label(i) < label) yield -1 - i++;
      }
    }
    yield n;
  }
  while (chain && i < chain.count) yield -1 - i++;
}

/** The chunks of the owners in `order` (each authoritative one with its NSEC, in an NSEC plan). */
function* owners(
  p: StorePlan,
  order: Iterable<number>,
  o: SignZoneOptions,
): Generator<SigningChunk> {
  const st = p.zone.store;
  const s = signers(o);
  const bitmapOf = bitmaps();
  for (const n of order) {
    if (n < 0) {
      yield ownerChunk(p.chain!.owner(-1 - n), false, false, s);
      continue;
    }
    if (st.hasNameFlag(n, NODE_OUT_OF_ZONE)) continue;
    const w = n === p.apexRow ? p.apex : ownerOf(st, n);
    if (w === undefined) continue;
    const glue = st.hasNameFlag(n, NODE_BELOW_CUT);
    const cut = n !== p.apexRow && st.hasNameFlag(n, NODE_DELEGATION);
    if (p.next !== undefined && !glue) {
      const bitmap = bitmapOf(nsecTypes([...w.sets.keys()], cut));
      const rdata = nsecRdata(keyToWire(nameKey(st.name(p.next[n]!))), bitmap);
      w.sets.set(TYPE_NSEC, [{ owner: w.name, type: TYPE_NSEC, class: 1, ttl: p.ttl, rdata }]);
    }
    yield ownerChunk(w, glue, cut, s);
  }
}
