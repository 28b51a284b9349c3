/**
 * Authoritative lookup: RFC 1034 section 4.3.2 over an immutable Zone, with
 * wildcards (RFC 4592), DNAME (RFC 6672) and empty non-terminals (RFC 8020),
 * by lookup key (`dns/core/wire/name.ts`). It classifies; `answer.ts` builds sections.
 */
import type { RRset, Zone, ZoneNode } from '../../dns/core/zone/model.ts';
import { indexDnssec, type DnssecIndex } from '../../dns/core/zone/dnssec.ts';
import { KeyedNodes, type KeyIndexColumns } from './key-index.ts';
import type { PackedAnswers } from './answer-pack.ts';
import { StoreZone } from '../../dns/core/zone/views.ts';
import {
  keyIsSubdomain,
  keyLabelOffsets,
  keyReplaceSuffix,
  keyToName,
  nameKey,
  wireToKey,
} from '../../dns/core/wire/name.ts';

import {
  TYPE_ANY,
  TYPE_CNAME,
  TYPE_DNAME,
  TYPE_DS,
  TYPE_NS,
  TYPE_NSEC,
  TYPE_RRSIG,
} from '../../dns/core/rr/types.ts';

/** A zone prepared for lookups: nodes keyed by lookup key. */
export interface IndexedZone {
  readonly zone: Zone;
  readonly originKey: string;
  readonly nodes: ReadonlyMap<string, ZoneNode>;
  /** The NSEC or NSEC3 chain of a signed zone (apex DNSKEY and RRSIG); undefined when unsigned. */
  readonly dnssec?: DnssecIndex;
  /** Bodies encoded ahead by the thread that loaded the zone, for its hot names (`answer-pack.ts`). */
  readonly answers?: PackedAnswers;
}

/**
 * A zone prepared for lookups: a stored zone through its store's name table
 * or key columns (`key-index.ts`; `columns` and `dnssec` may come from the
 * loading thread), any other zone through a Map.
 */
export function indexZone(
  zone: Zone,
  prepared?: { readonly columns?: KeyIndexColumns; readonly dnssec: DnssecIndex | undefined },
): IndexedZone {
  const originKey = nameKey(zone.origin);
  let nodes: ReadonlyMap<string, ZoneNode>;
  if (zone instanceof StoreZone) {
    nodes = new KeyedNodes(zone.store, prepared?.columns, originKey);
  } else {
    const map = new Map<string, ZoneNode>();
    for (const node of zone.nodes.values()) map.set(nameKey(node.name), node);
    nodes = map;
  }
  const dnssec = prepared ? prepared.dnssec : indexDnssec(originKey, nodes);
  return dnssec ? { zone, originKey, nodes, dnssec } : { zone, originKey, nodes };
}

/** An RRset placed in a response under `ownerKey` (differs from the RRset's owner when synthesized). */
export interface PlacedRRset {
  readonly ownerKey: string;
  readonly rrset: RRset;
  /** The node the RRset came from (its RRSIGs live there); none for a synthesized CNAME. */
  readonly node?: ZoneNode;
  /** The zone of that node (for the proofs of a wildcard step). */
  readonly zone?: IndexedZone;
  /** True when synthesized from a wildcard (RFC 4592): a signed answer proves the name's absence. */
  readonly wildcard?: boolean;
}

export type ZoneLookupKind =
  /** The final name has the type: answer section ends with it. */
  | 'answer'
  /** The final name exists (or is an ENT, or matched a wildcard) without the type. */
  | 'nodata'
  /** The final name does not exist (RFC 8020: nor anything below it). */
  | 'nxdomain'
  /** The final name is at or below a zone cut: NS in authority, AA off. */
  | 'referral'
  /** A CNAME chain left the zone: the answer holds the chain. */
  | 'cname'
  /** A CNAME/DNAME chain looped or hit the limit (SERVFAIL, as BIND): the answer holds the chain. */
  | 'loop'
  /** A DNAME substitution left the zone: answer holds DNAME + synthesized CNAME. */
  | 'dname'
  /** A DNAME substitution made a name over 255 octets (RFC 6672 section 2.2: YXDOMAIN). */
  | 'yxdomain';

export interface ZoneLookupResult {
  readonly kind: ZoneLookupKind;
  /** The answer section: CNAME/DNAME chain, then the final RRset(s) when kind is 'answer'. */
  readonly answer: readonly PlacedRRset[];
  /** The name the chain ended at. */
  readonly finalKey: string;
  /** For 'referral': the cut's key and its NS RRset. */
  readonly cut?: { readonly key: string; readonly ns: RRset };
  /** True when the final step used a wildcard (RFC 4592 synthesis). */
  readonly wildcard: boolean;
  /** The zone the chain ended in (its SOA goes into negative answers). */
  readonly zone: IndexedZone;
}

export interface ZoneLookupOptions {
  /** Longest CNAME/DNAME chain followed inside the zone. */
  readonly maxChain: number;
  /** ANY (RFC 8482): one RRset ('minimal') or every RRset ('full', e.g. over TCP). */
  readonly any: 'minimal' | 'full';
  /** The served zone for a name, so a chain continues into other zones (RFC 1034 section 4.3.2 steps 1, 3a). */
  readonly zoneFor?: (key: string, qtype: number) => IndexedZone | undefined;
}

export const DEFAULT_ZONE_LOOKUP_OPTIONS: ZoneLookupOptions = { maxChain: 8, any: 'minimal' };

/** RFC 8482 section 4.1: ANY gets one RRset, the lowest type code (RRSIG excluded). */
function anyRRsets(node: ZoneNode, mode: 'minimal' | 'full'): RRset[] {
  const sets = [...node.rrsets.values()].filter((s) => s.type !== TYPE_RRSIG);
  sets.sort((a, b) => a.type - b.type);
  return mode === 'minimal' ? sets.slice(0, 1) : sets;
}

function synthesizedCname(ownerKey: string, ttl: number, targetKey: string): RRset {
  const owner = keyToName(ownerKey);
  const rdata = new Uint8Array(targetKey.length);
  for (let i = 0; i < targetKey.length; i++) rdata[i] = targetKey.charCodeAt(i);
  return {
    owner,
    type: TYPE_CNAME,
    ttl,
    records: [{ owner, type: TYPE_CNAME, class: 1, ttl, rdata }],
  };
}

/** A lookup under way: the chain so far and the name it has reached. */
interface Chain {
  readonly qtype: number;
  readonly options: ZoneLookupOptions;
  /** The answer section so far (CNAME/DNAME steps, then the final RRsets). */
  readonly answer: PlacedRRset[];
  /** The name being looked up (the query name, then each redirection's target). */
  key: string;
  /** The zone being searched for `key`. */
  zone: IndexedZone;
  /** What a chain that leaves the served zones ends as. */
  lastRedirect: 'cname' | 'dname';
  /** The node of `key` itself, when the walk down reached it. */
  exact: ZoneNode | undefined;
  /** The closest encloser of `key` (RFC 4592 section 3.3.1). */
  closest: string;
}

/** A step redirected the chain (CNAME or DNAME): look up `chain.key` again. */
const FOLLOW = 1;
type Step = ZoneLookupResult | typeof FOLLOW;

function done(c: Chain, kind: ZoneLookupKind, wildcard = false): ZoneLookupResult {
  return { kind, answer: c.answer, finalKey: c.key, wildcard, zone: c.zone };
}

/**
 * RFC 1034 section 4.3.2 step 3 for a key inside `z` (the most specific
 * zone): CNAME chains, wildcards (RFC 4592 section 3.3.1), DNAME (RFC 6672 section 3.2).
 */
export function lookupInZone(
  start: IndexedZone,
  qkey: string,
  qtype: number,
  options: ZoneLookupOptions = DEFAULT_ZONE_LOOKUP_OPTIONS,
): ZoneLookupResult {
  const c: Chain = {
    qtype,
    options,
    answer: [],
    key: qkey,
    zone: start,
    lastRedirect: 'cname',
    exact: undefined,
    closest: '',
  };
  // The names looked up so far; made on the first redirection (most lookups have none).
  let seen: Set<string> | undefined;
  for (let step = 0; ; step++) {
    if (!enterZone(c, step)) return done(c, c.lastRedirect);
    // RFC 1034 section 3.6.2: "CNAME chains should be followed and CNAME loops
    // signalled as an error."
    if (step > options.maxChain) return done(c, 'loop');
    if (step > 0) {
      seen ??= new Set([qkey]);
      if (seen.has(c.key)) return done(c, 'loop');
      seen.add(c.key);
    }
    const walked = walkDown(c);
    if (walked === FOLLOW) continue;
    if (walked !== undefined) return walked;
    // RFC 4592 section 4: no exact match; the source of synthesis is `*.<closest encloser>`.
    const node = c.exact ?? c.zone.nodes.get(`\u0001*${c.closest}`);
    if (node === undefined) return done(c, 'nxdomain');
    const r = atName(c, node, c.exact === undefined);
    if (r !== FOLLOW) return r;
  }
}

/** Enter the zone for the chain's name (after a redirection, `options.zoneFor`); false when in none. */
function enterZone(c: Chain, step: number): boolean {
  if (step > 0 && c.options.zoneFor) {
    const next = c.options.zoneFor(c.key, c.qtype);
    if (next === undefined) return false;
    c.zone = next;
    return true;
  }
  return keyIsSubdomain(c.key, c.zone.originKey);
}

/**
 * Walk down from the apex: a cut on the way is a referral, a DNAME above the
 * name redirects; otherwise set `exact` and `closest`.
 */
function walkDown(c: Chain): Step | undefined {
  const z = c.zone;
  const key = c.key;
  const offsets = keyLabelOffsets(key);
  const originIndex = offsets.indexOf(key.length - z.originKey.length);
  const apex = z.nodes.get(z.originKey);
  c.closest = z.originKey;
  c.exact = key === z.originKey ? apex : undefined;
  for (let j = originIndex; j >= 0; j--) {
    const atApex = j === originIndex;
    const candKey = atApex ? z.originKey : key.slice(offsets[j]);
    const node = atApex ? apex : z.nodes.get(candKey);
    if (!node) break;
    if (!atApex) c.closest = candKey;
    const isName = j === 0;
    if (!atApex && isCut(node, isName, c.qtype)) return referral(c, candKey, node);
    if (isName) c.exact = node;
    else {
      const r = followDname(c, node, candKey);
      if (r !== undefined) return r;
    }
  }
  return undefined;
}

/** A cut is a referral, but DS and NSEC there are parent-side data (RFC 4035 sections 2.3, 3.1.4.1). */
function isCut(node: ZoneNode, isName: boolean, qtype: number): boolean {
  return (
    node.isDelegation &&
    !(isName && (qtype === TYPE_DS || (qtype === TYPE_NSEC && node.rrsets.has(TYPE_NSEC))))
  );
}

function referral(c: Chain, cutKey: string, node: ZoneNode): ZoneLookupResult {
  const ns = node.rrsets.get(TYPE_NS)!;
  return {
    kind: 'referral',
    answer: c.answer,
    finalKey: c.key,
    cut: { key: cutKey, ns },
    wildcard: false,
    zone: c.zone,
  };
}

/** RFC 6672 section 2.3: a DNAME at `ownerKey` redirects names strictly below it. */
function followDname(c: Chain, node: ZoneNode, ownerKey: string): Step | undefined {
  const dname = node.rrsets.get(TYPE_DNAME);
  if (!dname || dname.records.length === 0) return undefined;
  const key = c.key;
  const target = wireToKey(dname.records[0]!.rdata);
  const next = keyReplaceSuffix(key, ownerKey, target);
  c.answer.push({ ownerKey, rrset: dname, node, zone: c.zone });
  if (next === undefined) return done(c, 'yxdomain');
  c.answer.push({ ownerKey: key, rrset: synthesizedCname(key, dname.ttl, next) });
  // RFC 1034 4.3.2 step 3a: the synthesized CNAME is the answer when
  // QTYPE is CNAME (or ANY, which matches it): no following, as BIND,
  // Knot and NSD (a self-referencing DNAME then answers, not loops).
  if (c.qtype === TYPE_CNAME || c.qtype === TYPE_ANY) return done(c, 'answer');
  c.key = next;
  c.lastRedirect = 'dname';
  return FOLLOW;
}

/** At the name's node (or its wildcard): follow a CNAME, answer the type, or NODATA. */
function atName(c: Chain, node: ZoneNode, wildcard: boolean): Step {
  const { qtype, key, answer, zone } = c;
  const cname = node.rrsets.get(TYPE_CNAME);
  // RFC 1035 section 3.2.3: QTYPE * matches all types, CNAME included, so ANY is not chased.
  // RFC 4035 section 2.5 / RFC 4034: RRSIG and NSEC live beside a CNAME and are
  // answered from its owner, as BIND does.
  if (
    cname &&
    qtype !== TYPE_CNAME &&
    qtype !== TYPE_ANY &&
    qtype !== TYPE_RRSIG &&
    qtype !== TYPE_NSEC
  ) {
    answer.push({ ownerKey: key, rrset: cname, node, zone, wildcard });
    const rd = cname.records[0]?.rdata;
    if (!rd) return done(c, 'cname', wildcard);
    c.key = wireToKey(rd);
    c.lastRedirect = 'cname';
    return FOLLOW;
  }
  if (qtype === TYPE_ANY) {
    const sets = anyRRsets(node, c.options.any);
    if (sets.length === 0) return done(c, 'nodata', wildcard);
    for (const s of sets) answer.push({ ownerKey: key, rrset: s, node, zone, wildcard });
    return done(c, 'answer', wildcard);
  }
  const set = node.rrsets.get(qtype);
  if (set === undefined) return done(c, 'nodata', wildcard);
  answer.push({ ownerKey: key, rrset: set, node, zone, wildcard });
  return done(c, 'answer', wildcard);
}

/** A set of served zones; the most specific zone answers. */
export interface ZoneSet {
  readonly byOrigin: ReadonlyMap<string, IndexedZone>;
}

export function makeZoneSet(zones: readonly IndexedZone[]): ZoneSet {
  const byOrigin = new Map<string, IndexedZone>();
  for (const z of zones) byOrigin.set(z.originKey, z);
  return { byOrigin };
}

/** The zone that answers `key`/`qtype`: the most specific, but its parent for DS at an apex (RFC 4035 section 3.1.4.1). */
export function findZoneFor(set: ZoneSet, key: string, qtype: number): IndexedZone | undefined {
  const z = findZone(set, key);
  if (qtype === TYPE_DS && z !== undefined && z.originKey === key && key.length > 1) {
    const parent = findZone(set, key.slice(1 + key.charCodeAt(0)));
    if (parent !== undefined) return parent;
  }
  return z;
}

/** The most specific zone whose origin is `key` or an ancestor of it. */
export function findZone(set: ZoneSet, key: string): IndexedZone | undefined {
  let i = 0;
  for (;;) {
    const z = set.byOrigin.get(i === 0 ? key : key.slice(i));
    if (z) return z;
    const len = key.charCodeAt(i);
    if (!(len > 0)) return undefined;
    i += 1 + len;
  }
}
