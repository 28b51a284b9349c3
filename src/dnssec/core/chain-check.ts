/**
 * Completeness of the NSEC and NSEC3 chains of a signed zone, for `zone
 * check` (as `dnssec-verify` does): every name that needs a chain record
 * has one, in order and closed, with exact type bitmaps and NSEC3
 * parameters agreeing with the NSEC3PARAM. Pure.
 *
 * @see RFC 4035 section 2.3; RFC 4034 sections 4.1.1-4.1.2; RFC 5155 section 7.1
 */
import type { ResourceRecord, Zone, ZoneDiagnostic, ZoneNode } from '../../dns/core/zone/model.ts';
import { keyParent, keyToName, keyToWire, nameKey } from '../../dns/core/wire/name.ts';
import { keySortKey } from '../../dns/core/zone/dnssec.ts';
import { nameToText } from '../../dns/core/zone/names.ts';
import {
  typeName,
  TYPE_DNSKEY,
  TYPE_DS,
  TYPE_NSEC,
  TYPE_NSEC3,
  TYPE_NSEC3PARAM,
  TYPE_RRSIG,
} from '../../dns/core/rr/types.ts';
import type { ZoneCode } from '../../dns/core/zone/codes.ts';
import { base32hexLower, nsec3Hash } from './sha1.ts';

/** A zone diagnostic at `rr` (its position and owner). */
export function finding(
  code: ZoneCode,
  message: string,
  rr: ResourceRecord | undefined,
  severity: 'error' | 'warning' = 'error',
): ZoneDiagnostic {
  return {
    code,
    message,
    severity,
    ...(rr?.source ? { position: rr.source } : {}),
    ...(rr ? { token: rr.owner } : {}),
  };
}

/** A finding reported (`finding`). */
type Add = (code: ZoneCode, message: string, rr: ResourceRecord | undefined) => void;

/** The types of an RFC 4034 section 4.1.2 bitmap starting at `p` (undefined when malformed). */
export function bitmapTypes(b: Uint8Array, p: number): number[] | undefined {
  const out: number[] = [];
  while (p < b.length) {
    if (p + 2 > b.length) return undefined;
    const win = b[p]!;
    const len = b[p + 1]!;
    if (len < 1 || len > 32 || p + 2 + len > b.length) return undefined;
    for (let i = 0; i < len; i++)
      for (let bit = 0; bit < 8; bit++)
        if (b[p + 2 + i]! & (0x80 >> bit)) out.push(win * 256 + i * 8 + bit);
    p += 2 + len;
  }
  return out;
}

/** The end offset of the uncompressed name at `p`. */
function nameEnd(b: Uint8Array, p: number): number {
  while (p < b.length && b[p] !== 0) p += 1 + b[p]!;
  return p + 1;
}

function firstRecord(node: ZoneNode): ResourceRecord | undefined {
  for (const set of node.rrsets.values()) return set.records[0];
  return undefined;
}

/** "missing A, MX; extra TXT", or undefined when the bitmap lists exactly the node's types. */
function bitmapDifference(
  listed: readonly number[],
  node: ZoneNode | undefined,
): string | undefined {
  const present = new Set(node ? [...node.rrsets.keys()].filter((t) => t !== TYPE_NSEC3) : []);
  const have = new Set(listed);
  const missing = [...present].filter((t) => !have.has(t)).map(typeName);
  const extra = [...have].filter((t) => !present.has(t)).map(typeName);
  if (missing.length === 0 && extra.length === 0) return undefined;
  const parts = [];
  if (missing.length) parts.push(`missing ${missing.join(', ')}`);
  if (extra.length) parts.push(`listing ${extra.join(', ')}, not at the name`);
  return parts.join('; ');
}

/** The names of the zone: authoritative (not below a cut), with data, and the cuts. */
function authoritative(zone: Zone): { name: string; node: ZoneNode }[] {
  const out: { name: string; node: ZoneNode }[] = [];
  for (const [name, node] of zone.nodes) {
    if (node.belowCut || node.emptyNonTerminal) continue;
    // NSEC3 records live under hashed names that are not part of the chain's input
    // (or left with their RRSIG only when the NSEC3 is gone).
    if ([...node.rrsets.keys()].every((t) => t === TYPE_NSEC3 || t === TYPE_RRSIG)) continue;
    out.push({ name, node });
  }
  return out;
}

/** RFC 4035 section 2.3: the NSEC chain. */
function checkNsecChain(zone: Zone, add: Add): void {
  const names = authoritative(zone);
  const all = names
    .map((n) => ({ ...n, s: keySortKey(nameKey(n.name)) }))
    .sort((a, b) => (a.s < b.s ? -1 : a.s > b.s ? 1 : 0));
  for (const [name, node] of zone.nodes) {
    const set = node.rrsets.get(TYPE_NSEC);
    if (set && node.belowCut)
      add(
        'ZONE_NSEC_EXTRA',
        `NSEC at ${name}, which is below a zone cut (glue has no NSEC, RFC 4035 section 2.3)`,
        set.records[0],
      );
  }
  for (const { name, node } of all)
    if (!node.rrsets.has(TYPE_NSEC))
      add(
        'ZONE_NSEC_MISSING',
        `${name} has no NSEC (RFC 4035 section 2.3: one for each authoritative name and delegation point)`,
        firstRecord(node),
      );
  // Each NSEC points to the next authoritative name, the last one to the apex.
  for (let i = 0; i < all.length; i++) {
    const { name, node } = all[i]!;
    const set = node.rrsets.get(TYPE_NSEC);
    if (!set) continue;
    const rr = set.records[0]!;
    if (set.records.length > 1)
      add('ZONE_NSEC_MULTIPLE', `${name} has ${set.records.length} NSEC records`, rr);
    const end = nameEnd(rr.rdata, 0);
    const next = nameToText(rr.rdata, 0);
    const expected = all[(i + 1) % all.length]!.name;
    if (nameKey(next) !== nameKey(expected))
      add(
        'ZONE_NSEC_CHAIN_BROKEN',
        `the NSEC at ${name} points to ${next}, but the next name in canonical order is ${expected}${i === all.length - 1 ? ' (the last NSEC must point to the apex: the chain is not closed)' : ''}`,
        rr,
      );
    const types = bitmapTypes(rr.rdata, end);
    const diff = types ? bitmapDifference(types, node) : 'a malformed type bitmap';
    if (diff)
      add('ZONE_NSEC_BITMAP', `the NSEC type bitmap at ${name} does not match: ${diff}`, rr);
  }
}

interface Nsec3Params {
  readonly hash: number;
  readonly iterations: number;
  readonly salt: string;
}

function paramsOf(rd: Uint8Array): Nsec3Params | undefined {
  if (rd.length < 5 || rd.length < 5 + rd[4]!) return undefined;
  let salt = '';
  for (const x of rd.subarray(5, 5 + rd[4]!)) salt += x.toString(16).padStart(2, '0');
  return { hash: rd[0]!, iterations: (rd[2]! << 8) | rd[3]!, salt };
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The names that need an NSEC3: authoritative names, cuts (opt-out: only signed ones) and their empty non-terminals. */
function nsec3Names(zone: Zone, optOut: boolean): Map<string, ZoneNode | undefined> {
  const originKey = nameKey(zone.origin);
  const need = new Map<string, ZoneNode | undefined>();
  for (const { name, node } of authoritative(zone)) {
    if (optOut && node.isDelegation && !node.rrsets.has(TYPE_DS)) continue;
    need.set(name, node);
    for (let k = keyParent(nameKey(name)); k !== undefined && k.length > originKey.length;) {
      const parent = keyToName(k);
      if (need.has(parent)) break;
      need.set(parent, zone.nodes.get(parent));
      k = keyParent(k);
    }
  }
  return need;
}

interface Nsec3Entry {
  readonly hash: string;
  readonly name: string;
  readonly rr: ResourceRecord;
  readonly optOut: boolean;
}

/** The NSEC3 records of the zone, with parameter and owner problems reported. */
function nsec3Entries(zone: Zone, p: Nsec3Params, add: Add): Nsec3Entry[] {
  const entries: Nsec3Entry[] = [];
  const suffix = `.${zone.origin === '.' ? '' : zone.origin}`;
  for (const [name, node] of zone.nodes) {
    const set = node.rrsets.get(TYPE_NSEC3);
    if (!set) continue;
    const label = name.slice(0, name.indexOf('.'));
    const rr = set.records[0]!;
    if (!name.endsWith(suffix) || name.length !== label.length + suffix.length) {
      add(
        'ZONE_NSEC3_BAD_OWNER',
        `NSEC3 at ${name}: the owner must be one hash label directly under the apex`,
        rr,
      );
      continue;
    }
    if (set.records.length > 1)
      add('ZONE_NSEC3_MULTIPLE', `${name} has ${set.records.length} NSEC3 records`, rr);
    const q = paramsOf(rr.rdata);
    if (!q || q.hash !== p.hash || q.iterations !== p.iterations || q.salt !== p.salt)
      add(
        'ZONE_NSEC3_PARAMS',
        `the NSEC3 at ${name} has hash ${q?.hash}, ${q?.iterations} iterations, salt ${q?.salt || '-'}; NSEC3PARAM says ${p.hash}, ${p.iterations}, ${p.salt || '-'} (RFC 5155 section 7.1: they must be the same)`,
        rr,
      );
    entries.push({ hash: label, name, rr, optOut: (rr.rdata[1]! & 1) === 1 });
  }
  entries.sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  return entries;
}

/** The chain's order: each NSEC3's next hashed owner is the following hash, the last's the first. */
function checkNsec3Order(entries: readonly Nsec3Entry[], add: Add): void {
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    const rd = e.rr.rdata;
    const at = 5 + rd[4]!;
    const len = rd[at] ?? 0;
    const next = base32hexLower(rd.subarray(at + 1, at + 1 + len));
    const expected = entries[(i + 1) % entries.length]!.hash;
    if (next !== expected)
      add(
        'ZONE_NSEC3_CHAIN_BROKEN',
        `the NSEC3 at ${e.name} points to ${next}, but the next hash in the chain is ${expected}${i === entries.length - 1 ? ' (the last NSEC3 must point to the first: the chain is not closed)' : ''}`,
        e.rr,
      );
  }
}

/** RFC 5155 section 7.1: the NSEC3 chain against the names that need one. */
function checkNsec3Chain(zone: Zone, add: Add): void {
  const apex = zone.nodes.get(zone.origin)!;
  const paramSet = apex.rrsets.get(TYPE_NSEC3PARAM);
  const anyNsec3 = [...zone.nodes.values()].find((n) => n.rrsets.has(TYPE_NSEC3));
  const paramRr = paramSet?.records[0] ?? anyNsec3?.rrsets.get(TYPE_NSEC3)?.records[0];
  if (!paramSet)
    add(
      'ZONE_NSEC3PARAM_MISSING',
      `the zone has NSEC3 records but no NSEC3PARAM at ${zone.origin} (RFC 5155 section 4)`,
      paramRr,
    );
  const p = paramRr && paramsOf(paramRr.rdata);
  if (!p) return;
  if (p.hash !== 1)
    add('ZONE_NSEC3_HASH', `NSEC3 hash algorithm ${p.hash} is not SHA-1 (1)`, paramRr);
  const entries = nsec3Entries(zone, p, add);
  if (entries.length === 0) return;
  checkNsec3Order(entries, add);
  const optOut = entries.some((e) => e.optOut);
  const need = nsec3Names(zone, optOut);
  const salt = hexBytes(p.salt);
  const byHash = new Map(entries.map((e) => [e.hash, e]));
  const used = new Set<string>();
  const hashOf = (name: string) =>
    base32hexLower(nsec3Hash(keyToWire(nameKey(name)), salt, p.iterations));
  for (const [name, node] of need) {
    const hash = hashOf(name);
    const e = byHash.get(hash);
    if (!e) {
      const what = node && !node.emptyNonTerminal ? name : `${name} (an empty non-terminal)`;
      add(
        'ZONE_NSEC3_MISSING',
        `${what} has no NSEC3 (its hash ${hash} is not an owner; RFC 5155 section 7.1)`,
        node ? firstRecord(node) : paramRr,
      );
      continue;
    }
    used.add(hash);
    const types = bitmapTypes(e.rr.rdata, 6 + e.rr.rdata[4]! + e.rr.rdata[5 + e.rr.rdata[4]!]!);
    const diff = types ? bitmapDifference(types, node) : 'a malformed type bitmap';
    if (diff)
      add(
        'ZONE_NSEC3_BITMAP',
        `the NSEC3 type bitmap for ${name} (${e.name}) does not match: ${diff}`,
        e.rr,
      );
  }
  // Opt-out chains may still hold unsigned delegations and the empty non-terminals above them.
  let optional: Set<string> | undefined;
  for (const e of entries) {
    if (used.has(e.hash)) continue;
    if (optOut) {
      optional ??= new Set(
        [...zone.nodes]
          .filter(([, n]) => !n.belowCut && (n.isDelegation || n.emptyNonTerminal))
          .map(([name]) => hashOf(name)),
      );
      if (optional.has(e.hash)) continue;
    }
    add(
      'ZONE_NSEC3_EXTRA',
      `the NSEC3 at ${e.name} is the hash of no name of the zone that needs one`,
      e.rr,
    );
  }
}

/** The chain findings of a zone (none when unsigned); each chain present is checked. */
export function checkDenialChains(zone: Zone): ZoneDiagnostic[] {
  const apex = zone.nodes.get(zone.origin);
  const dnskey = apex?.rrsets.get(TYPE_DNSKEY);
  if (!apex || !dnskey) return [];
  let nsec = false;
  let nsec3 = apex.rrsets.has(TYPE_NSEC3PARAM);
  for (const node of zone.nodes.values()) {
    if (node.rrsets.has(TYPE_NSEC)) nsec = true;
    if (node.rrsets.has(TYPE_NSEC3)) nsec3 = true;
    if (nsec && nsec3) break;
  }
  const out: ZoneDiagnostic[] = [];
  const add: Add = (code, message, rr) => void out.push(finding(code, message, rr));
  if (!nsec && !nsec3)
    add(
      'ZONE_DENIAL_MISSING',
      `the zone is signed (DNSKEY at ${zone.origin}) but has neither an NSEC nor an NSEC3 chain`,
      dnskey.records[0],
    );
  if (nsec) checkNsecChain(zone, add);
  if (nsec3) checkNsec3Chain(zone, add);
  return out;
}
