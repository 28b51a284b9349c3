/**
 * Zone signing (RFC 4035 section 2, RFC 5155 section 7.1): DNSKEYs at the
 * apex, the NSEC or NSEC3 chain, an RRSIG per authoritative RRset and key
 * (at a cut only DS and NSEC, section 2.2). KSKs sign the DNSKEY RRset, ZSKs
 * the rest; a lone SEP key (CSK) signs all. Pure: time, randomness and the
 * key's `sign` are parameters.
 */
import type { ResourceRecord } from '../../dns/core/zone/model.ts';
import { keySortKey } from '../../dns/core/zone/dnssec.ts';
import { canonicalSortKey, nameToText } from '../../dns/core/zone/names.ts';
import { keyParent, keyToName, keyToWire, nameKey } from '../../dns/core/wire/name.ts';
import { base32hexLower, nsec3Hash } from './sha1.ts';
import type { KeptSignatures } from './keep-signatures.ts';
import { readU32 } from '../../dns/core/wire/bytes.ts';
import {
  dnskeyRdata,
  FLAGS_KSK,
  keyTag,
  rrsigHeaderBytes,
  rrsigLabels,
  signingInput,
  typeBitmap,
} from './records.ts';

const T_NS = 2;
const T_SOA = 6;
const T_DS = 43;
const T_RRSIG = 46;
const T_NSEC = 47;
const T_DNSKEY = 48;
const T_NSEC3 = 50;
const T_NSEC3PARAM = 51;
export const DNSSEC_TYPES: ReadonlySet<number> = new Set([T_RRSIG, T_NSEC, T_NSEC3, T_NSEC3PARAM]);

export interface ZoneSigningKey {
  /** 256 (ZSK) or 257 (KSK, or CSK when it is the only kind given). */
  readonly flags: number;
  readonly algorithm: number;
  /** The DNSKEY public key field. */
  readonly publicKey: Uint8Array;
  readonly sign: (data: Uint8Array) => Uint8Array;
}

export interface SignZoneOptions {
  readonly origin: string;
  readonly keys: readonly ZoneSigningKey[];
  readonly denial: 'nsec' | 'nsec3';
  /** NSEC3 opt-out (RFC 5155 section 6): insecure delegations get no NSEC3. */
  readonly optOut?: boolean;
  /** NSEC3 salt and extra iterations; RFC 9276 section 3.1: none and 0. */
  readonly salt?: Uint8Array;
  readonly iterations?: number;
  /** Seconds since the epoch. */
  readonly now: number;
  /** Signature validity in seconds (default 30 days); inceptions are backdated an hour (clock skew). */
  readonly validity?: number;
  /** Largest random reduction of an expiration, in seconds (default validity / 8). */
  readonly jitter?: number;
  /** [0, 1) */
  readonly random: () => number;
  /** The new SOA serial; the input's is kept when undefined. */
  readonly serial?: number;
  /** Signatures of a previous signed version to keep for unchanged RRsets (`keep-signatures.ts`). */
  readonly kept?: KeptSignatures;
  /** Owners in canonical order (default); false: as met, for a caller that sorts them itself. */
  readonly canonicalOrder?: boolean;
}

/** One owner name of the zone being signed, its RRsets by type (in the order met). */
export interface Owner {
  readonly key: string;
  readonly name: string;
  readonly sets: Map<number, ResourceRecord[]>;
}

export interface SignZoneResult {
  readonly records: ResourceRecord[];
  /** RRsets signed (RRSIG records made = signed x keys used). */
  readonly signed: number;
}

/** One signature to make, for one RRSIG of a chunk. */
export interface SignatureJob {
  /** Index of the signing key in the options' `keys`. */
  readonly key: number;
  /** Index of the RRSIG in the chunk's `records`. */
  readonly at: number;
  /** RRSIG RDATA before the signature (RFC 4034 section 3.1). */
  readonly header: Uint8Array;
  /** What the key signs (RFC 4034 section 3.1.8.1). */
  readonly data: Uint8Array;
}

/** One owner, records in output order; a job's RRSIG holds its header until `completeSignature`. */
export interface SigningChunk {
  readonly records: ResourceRecord[];
  readonly jobs: readonly SignatureJob[];
  /** RRsets of this owner that get signatures. */
  readonly signed: number;
  /** Of those, RRsets whose previous signatures were kept (no job). */
  readonly kept?: number;
}

/** The signed zone's owners with the signatures to make (jitter drawn here, so workers agree). */
export function signingPlan(
  input: Iterable<ResourceRecord>,
  o: SignZoneOptions,
): Iterable<SigningChunk> {
  const originKey = nameKey(o.origin);
  const owners = groupOwners(input);
  const apex = owners.get(originKey);
  const soa = apex?.sets.get(T_SOA)?.[0];
  if (!apex || !soa) throw new Error(`no SOA at ${o.origin}`);
  const negTtl = prepareApex(apex, soa, o);
  const cuts = new Set<string>();
  for (const w of owners.values()) if (w.key !== originKey && w.sets.has(T_NS)) cuts.add(w.key);
  const belowCut = (key: string) => {
    for (let k = keyParent(key); k !== undefined && k.length >= originKey.length; k = keyParent(k))
      if (cuts.has(k)) return true;
    return false;
  };
  const auth = [...owners.values()].filter((w) => !belowCut(w.key));
  if (o.denial === 'nsec') {
    addNsecChain(owners, auth, cuts, negTtl);
    return chunks(owners, cuts, o, belowCut);
  }
  const chain = nsec3Chain(owners, auth, cuts, originKey, negTtl, o);
  // In canonical order the NSEC3 owners go among the others; else after them, made as they go.
  if (o.canonicalOrder === false) return chunks(owners, cuts, o, belowCut, chain);
  for (let i = 0; i < chain.count; i++) {
    const w = chain.owner(i);
    owners.set(w.key, w);
  }
  return chunks(owners, cuts, o, belowCut);
}

/** The apex with the new serial and DNSKEYs; the NSEC/NSEC3 TTL (RFC 9077: min of SOA TTL and MINIMUM). */
export function prepareApex(apex: Owner, soa: ResourceRecord, o: SignZoneOptions): number {
  if (o.serial !== undefined) apex.sets.set(T_SOA, [withSerial(soa, o.serial)]);
  addDnskeys(apex, o.keys, soa.ttl);
  const soaRd = soa.rdata;
  return Math.min(soa.ttl, readU32(soaRd, soaRd.length - 4));
}

/** The RRSIG RDATA of a job with its signature. */
export function completeSignature(job: SignatureJob, signature: Uint8Array): Uint8Array {
  const rdata = new Uint8Array(job.header.length + signature.length);
  rdata.set(job.header);
  rdata.set(signature, job.header.length);
  return rdata;
}

/** Sign a zone's records in this thread, with each key's `sign`. */
export function signZone(input: Iterable<ResourceRecord>, o: SignZoneOptions): SignZoneResult {
  return signPlanHere(signingPlan(input, o), o.keys);
}

/** Make a plan's signatures in this thread: the signed zone's records, in plan order. */
export function signPlanHere(
  plan: Iterable<SigningChunk>,
  keys: readonly ZoneSigningKey[],
): SignZoneResult {
  const records: ResourceRecord[] = [];
  let signed = 0;
  for (const chunk of plan) {
    for (const job of chunk.jobs) {
      const r = chunk.records[job.at]!;
      const rdata = completeSignature(job, keys[job.key]!.sign(job.data));
      chunk.records[job.at] = { owner: r.owner, type: r.type, class: r.class, ttl: r.ttl, rdata };
    }
    for (const r of chunk.records) records.push(r);
    signed += chunk.signed;
  }
  return { records, signed };
}

function groupOwners(records: Iterable<ResourceRecord>): Map<string, Owner> {
  const owners = new Map<string, Owner>();
  for (const r of records) {
    if (DNSSEC_TYPES.has(r.type)) continue;
    const key = nameKey(r.owner);
    let w = owners.get(key);
    if (!w) {
      // The model's spelling (`\DDD` escapes, as canonicalSortKey reads them).
      const name = nameToText(keyToWire(key));
      owners.set(key, (w = { key, name: name === r.owner ? r.owner : name, sets: new Map() }));
    }
    let set = w.sets.get(r.type);
    if (!set) w.sets.set(r.type, (set = []));
    set.push({ owner: w.name, type: r.type, class: r.class, ttl: r.ttl, rdata: r.rdata });
  }
  return owners;
}

/** A copy of SOA RDATA with `serial` as its serial. */
export function soaRdataWithSerial(rdata: Uint8Array, serial: number): Uint8Array {
  const rd = rdata.slice();
  const at = rd.length - 20;
  rd[at] = (serial >>> 24) & 0xff;
  rd[at + 1] = (serial >>> 16) & 0xff;
  rd[at + 2] = (serial >>> 8) & 0xff;
  rd[at + 3] = serial & 0xff;
  return rd;
}

function withSerial(soa: ResourceRecord, serial: number): ResourceRecord {
  const rdata = soaRdataWithSerial(soa.rdata, serial);
  return { owner: soa.owner, type: soa.type, class: soa.class, ttl: soa.ttl, rdata };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function addDnskeys(apex: Owner, keys: readonly ZoneSigningKey[], ttl: number): void {
  const set = apex.sets.get(T_DNSKEY) ?? [];
  const keyTtl = set[0]?.ttl ?? ttl;
  for (const k of keys) {
    const rdata = dnskeyRdata(k.flags, k.algorithm, k.publicKey);
    if (!set.some((r) => sameBytes(r.rdata, rdata)))
      set.push({ owner: apex.name, type: T_DNSKEY, class: 1, ttl: keyTtl, rdata });
  }
  apex.sets.set(T_DNSKEY, set);
}

function put(owners: Map<string, Owner>, key: string, type: number, ttl: number, rd: Uint8Array) {
  let w = owners.get(key);
  if (!w) owners.set(key, (w = { key, name: keyToName(key), sets: new Map() }));
  w.sets.set(type, [{ owner: w.name, type, class: 1, ttl, rdata: rd }]);
}

/** `typeBitmap` remembered by type list: most names share one of a few type sets. */
export function bitmaps(): (types: readonly number[]) => Uint8Array {
  const made = new Map<string, Uint8Array>();
  return (types) => {
    const key = types.join(',');
    let b = made.get(key);
    if (b === undefined) made.set(key, (b = typeBitmap(types)));
    return b;
  };
}

/** RFC 4035 section 2.3: one NSEC per authoritative name and cut, in canonical order. */
function addNsecChain(
  owners: Map<string, Owner>,
  auth: readonly Owner[],
  cuts: ReadonlySet<string>,
  ttl: number,
): void {
  const sorted = auth.map((w) => ({ w, s: keySortKey(w.key) }));
  sorted.sort((a, b) => (a.s < b.s ? -1 : a.s > b.s ? 1 : 0));
  const bitmapOf = bitmaps();
  for (let i = 0; i < sorted.length; i++) {
    const w = sorted[i]!.w;
    const next = keyToWire(sorted[(i + 1) % sorted.length]!.w.key);
    const types = nsecTypes([...w.sets.keys()], cuts.has(w.key));
    put(owners, w.key, T_NSEC, ttl, nsecRdata(next, bitmapOf(types)));
  }
}

/** The types an NSEC lists (RFC 4035 section 2.3): at a cut only NS and DS; RRSIG and NSEC. */
export function nsecTypes(types: readonly number[], cut: boolean): number[] {
  return [...(cut ? types.filter((t) => t === T_NS || t === T_DS) : types), T_RRSIG, T_NSEC];
}

/** NSEC RDATA: the next owner's wire form, then the type bitmap. */
export function nsecRdata(next: Uint8Array, bitmap: Uint8Array): Uint8Array {
  const rd = new Uint8Array(next.length + bitmap.length);
  rd.set(next);
  rd.set(bitmap, next.length);
  return rd;
}

/** The types an NSEC3 lists (RFC 5155 section 7.1); an empty non-terminal lists none. */
export function nsec3Types(types: readonly number[], cut: boolean, apex: boolean): number[] {
  let out: number[];
  if (cut) out = types.includes(T_DS) ? [T_NS, T_DS, T_RRSIG] : [T_NS];
  else out = [...types, T_RRSIG];
  if (apex) out.push(T_NSEC3PARAM);
  return out;
}

/** The NSEC3 chain of a zone, its owners made one at a time (`owner(i)`, in hash order). */
export interface Nsec3Chain {
  readonly count: number;
  owner(i: number): Owner;
  /** The first label of owner i (base32hex of its hash). */
  label(i: number): string;
}

/** SHA-1, the only NSEC3 hash algorithm (RFC 5155 section 11). */
const HASH_LENGTH = 20;

/** RFC 5155 section 7.1: NSEC3 per authoritative name and empty non-terminal; the NSEC3PARAM at the apex. */
function nsec3Chain(
  owners: Map<string, Owner>,
  auth: readonly Owner[],
  cuts: ReadonlySet<string>,
  originKey: string,
  ttl: number,
  o: SignZoneOptions,
): Nsec3Chain {
  const chain = nsec3Collector(originKey, ttl, o);
  const ents = new Set<string>();
  for (const w of auth) {
    const cut = cuts.has(w.key);
    // Opt-out: an insecure delegation (no DS) is left out of the chain.
    if (cut && o.optOut && !w.sets.has(T_DS)) continue;
    chain.add(keyToWire(w.key), nsec3Types([...w.sets.keys()], cut, w.key === originKey));
    // Empty non-terminals between the name and the apex get an NSEC3 too.
    for (let k = keyParent(w.key); k !== undefined && k.length > originKey.length; k = keyParent(k))
      if (!owners.has(k) && !ents.has(k)) {
        ents.add(k);
        chain.add(keyToWire(k), []);
      }
  }
  put(owners, originKey, T_NSEC3PARAM, 0, nsec3ParamRdata(o));
  return chain.done();
}

/** NSEC3PARAM RDATA (RFC 5155 section 4.2): SHA-1, no flags, the iterations and the salt. */
export function nsec3ParamRdata(o: SignZoneOptions): Uint8Array {
  const salt = o.salt ?? new Uint8Array(0);
  const iterations = o.iterations ?? 0;
  return Uint8Array.from([1, 0, iterations >>> 8, iterations & 0xff, salt.length, ...salt]);
}

/** An NSEC3 chain being collected: each name hashed as it is added, in any order. */
export interface Nsec3Collector {
  /** A name (canonical wire form) and the types its NSEC3 lists (`nsec3Types`). */
  add(wire: Uint8Array, types: readonly number[]): void;
  done(): Nsec3Chain;
}

/** The chain held as hashes in one buffer and shared bitmaps; each NSEC3 record made when asked for. */
export function nsec3Collector(originKey: string, ttl: number, o: SignZoneOptions): Nsec3Collector {
  const salt = o.salt ?? new Uint8Array(0);
  const iterations = o.iterations ?? 0;
  const bitmapOf = bitmaps();
  let hashes = new Uint8Array(HASH_LENGTH * 1024);
  const maps: Uint8Array[] = [];
  const add = (wire: Uint8Array, types: readonly number[]) => {
    const at = maps.length * HASH_LENGTH;
    if (at + HASH_LENGTH > hashes.length) {
      const grown = new Uint8Array(hashes.length * 2);
      grown.set(hashes);
      hashes = grown;
    }
    hashes.set(nsec3Hash(wire, salt, iterations), at);
    maps.push(bitmapOf(types));
  };
  const done = (): Nsec3Chain => {
    const count = maps.length;
    const order = new Uint32Array(count);
    for (let i = 0; i < count; i++) order[i] = i;
    order.sort((a, b) => {
      const x = a * HASH_LENGTH;
      const y = b * HASH_LENGTH;
      for (let i = 0; i < HASH_LENGTH; i++)
        if (hashes[x + i] !== hashes[y + i]) return hashes[x + i]! - hashes[y + i]!;
      return 0;
    });
    // The NSEC3PARAM RDATA with the opt-out flag (RFC 5155 section 3.1.2).
    const head = nsec3ParamRdata(o);
    head[1] = o.optOut ? 1 : 0;
    const hashAt = (i: number) => hashes.subarray(i * HASH_LENGTH, (i + 1) * HASH_LENGTH);
    return {
      count,
      owner(i) {
        const k = order[i]!;
        const next = hashAt(order[(i + 1) % count]!);
        const bitmap = maps[k]!;
        // RFC 5155 section 3.2: the parameters, the next hashed owner (length first), the type bitmap.
        const rd = new Uint8Array(head.length + 1 + HASH_LENGTH + bitmap.length);
        rd.set(head);
        rd[head.length] = HASH_LENGTH;
        rd.set(next, head.length + 1);
        rd.set(bitmap, head.length + 1 + HASH_LENGTH);
        const key = `${String.fromCharCode(32)}${base32hexLower(hashAt(k))}${originKey}`;
        const name = keyToName(key);
        const rr = { owner: name, type: T_NSEC3, class: 1, ttl, rdata: rd };
        return { key, name, sets: new Map([[T_NSEC3, [rr]]]) };
      },
      label: (i) => base32hexLower(hashAt(order[i]!)),
    };
  };
  return { add, done };
}

/** One owner's RRsets signed as the plan signs them (not a cut, not glue), for `resign-difference.ts`. */
export function signOwnerSets(
  name: string,
  sets: Map<number, ResourceRecord[]>,
  o: SignZoneOptions,
): SigningChunk {
  return ownerChunk({ key: nameKey(name), name, sets }, false, false, signers(o));
}

interface KeyUse {
  readonly index: number;
  readonly tag: number;
  readonly algorithm: number;
}

export interface Signers {
  readonly o: SignZoneOptions;
  readonly forKeys: readonly KeyUse[];
  readonly forData: readonly KeyUse[];
  readonly validity: number;
  readonly jitter: number;
  readonly inception: number;
}

export function signers(o: SignZoneOptions): Signers {
  const tagged = (ksk: boolean) =>
    o.keys
      .map((k, index) => ({ k, index }))
      .filter(({ k }) => (k.flags === FLAGS_KSK) === ksk)
      .map(({ k, index }) => ({
        index,
        tag: keyTag(dnskeyRdata(k.flags, k.algorithm, k.publicKey)),
        algorithm: k.algorithm,
      }));
  const ksks = tagged(true);
  const zsks = tagged(false);
  const validity = o.validity ?? 30 * 86400;
  return {
    o,
    forKeys: ksks.length ? ksks : zsks,
    forData: zsks.length ? zsks : ksks,
    validity,
    jitter: o.jitter ?? Math.floor(validity / 8),
    inception: o.now - 3600,
  };
}

/** The owners as chunks, in canonical order (or as met, the NSEC3 chain last). */
function* chunks(
  owners: Map<string, Owner>,
  cuts: ReadonlySet<string>,
  o: SignZoneOptions,
  belowCut: (key: string) => boolean,
  chain?: Nsec3Chain,
): Generator<SigningChunk> {
  const s = signers(o);
  const order = [...owners.values()].map((w) => ({
    w,
    s: o.canonicalOrder === false ? '' : canonicalSortKey(w.name),
  }));
  if (o.canonicalOrder !== false) order.sort((a, b) => (a.s < b.s ? -1 : a.s > b.s ? 1 : 0));
  for (let i = 0; i < order.length; i++) {
    const w = order[i]!.w;
    order[i] = undefined as never;
    owners.delete(w.key);
    yield ownerChunk(w, belowCut(w.key), cuts.has(w.key), s);
  }
  if (chain)
    for (let i = 0; i < chain.count; i++) yield ownerChunk(chain.owner(i), false, false, s);
}

interface Entry {
  readonly rr: ResourceRecord;
  readonly job?: Omit<SignatureJob, 'at'>;
}

/** One owner as a chunk: its records, and the RRSIGs to make (none for glue; at a cut, DS and NSEC only). */
export function ownerChunk(w: Owner, glue: boolean, cut: boolean, s: Signers): SigningChunk {
  const entries: Entry[] = [];
  let signed = 0;
  let kept = 0;
  for (const [type, set] of w.sets) {
    let ttl = set[0]!.ttl;
    for (const r of set) if (r.ttl < ttl) ttl = r.ttl;
    for (const r of set)
      entries.push({ rr: { owner: r.owner, type: r.type, class: r.class, ttl, rdata: r.rdata } });
    if (glue || (cut && type !== T_DS && type !== T_NSEC)) continue;
    signed++;
    const rdatas = set.map((r) => r.rdata);
    const by = type === T_DNSKEY ? s.forKeys : s.forData;
    const old = s.o.kept?.(w.name, type, ttl, rdatas, by);
    if (old) {
      kept++;
      for (const rdata of old)
        entries.push({ rr: { owner: w.name, type: T_RRSIG, class: 1, ttl, rdata } });
      continue;
    }
    const expiration = s.o.now + s.validity - Math.floor(s.o.random() * s.jitter);
    for (const { index, tag } of by) {
      const header = rrsigHeaderBytes({
        typeCovered: type,
        algorithm: s.o.keys[index]!.algorithm,
        labels: rrsigLabels(w.key),
        originalTtl: ttl,
        expiration,
        inception: s.inception,
        keyTag: tag,
        signer: s.o.origin,
      });
      const data = signingInput(header, w.key, type, 1, ttl, rdatas);
      const rr = { owner: w.name, type: T_RRSIG, class: 1, ttl, rdata: header };
      entries.push({ rr, job: { key: index, header, data } });
    }
  }
  // As writeZone prints: the SOA first, then types ascending, file order within a type.
  const rank = (r: ResourceRecord) => (r.type === T_SOA ? -1 : r.type);
  entries.sort((a, b) => rank(a.rr) - rank(b.rr));
  const jobs: SignatureJob[] = [];
  const records = entries.map((e, at) => {
    if (e.job) jobs.push({ ...e.job, at });
    return e.rr;
  });
  return { records, jobs, signed, kept };
}
