/**
 * Authenticated denial over NSEC and NSEC3 records whose signatures are
 * checked: NXDOMAIN, NODATA, wildcard answers, no DS at a delegation.
 *
 * @see RFC 4035 sections 5.3.4 and 5.4; RFC 5155 sections 8.3 to 8.8; RFC
 *   6840 section 4.4 (an NSEC proves no DS only with NS set and SOA clear)
 */
import {
  keyIsSubdomain,
  keyLabelCount,
  keyParent,
  keyToWire,
  wireToKey,
} from '../../../dns/core/wire/name.ts';
import { keyAncestor, keySortKey, wildcardOf } from '../../../dns/core/zone/dnssec.ts';
import { bitmapTypes } from '../chain-check.ts';
import { base32hexLower, nsec3Hash } from '../sha1.ts';
import { T_CNAME, T_DS, T_NS, T_SOA } from './message.ts';
import { sameBytes } from '../../../kit/core/bytes.ts';

export interface NsecRecord {
  readonly owner: string;
  readonly next: string;
  readonly types: ReadonlySet<number>;
}

/** An NSEC3 record taken apart (hashes in lowercase base32hex). */
export interface Nsec3Record {
  readonly zone: string;
  readonly hash: string;
  readonly next: string;
  readonly optOut: boolean;
  readonly iterations: number;
  readonly salt: Uint8Array;
  readonly types: ReadonlySet<number>;
}

/** The denial records of a response whose signatures verified. */
export interface DenialSet {
  readonly nsec: readonly NsecRecord[];
  readonly nsec3: readonly Nsec3Record[];
}

/** An NSEC RDATA read, or undefined when malformed. */
export function readNsec(owner: string, rd: Uint8Array): NsecRecord | undefined {
  let p = 0;
  while (p < rd.length && rd[p] !== 0) p += 1 + rd[p]!;
  if (p >= rd.length) return undefined;
  const types = bitmapTypes(rd, p + 1);
  if (!types) return undefined;
  return { owner, next: wireToKey(rd, 0, p + 1), types: new Set(types) };
}

/** An NSEC3 RDATA read (hash algorithm 1 only), or undefined. */
export function readNsec3(owner: string, rd: Uint8Array): Nsec3Record | undefined {
  if (rd.length < 6 || rd[0] !== 1) return undefined;
  const saltLen = rd[4]!;
  const hp = 5 + saltLen;
  if (hp >= rd.length) return undefined;
  const hashLen = rd[hp]!;
  const bp = hp + 1 + hashLen;
  if (hashLen === 0 || bp > rd.length) return undefined;
  const types = bitmapTypes(rd, bp);
  const first = owner.charCodeAt(0);
  if (!types || !(first > 0)) return undefined;
  return {
    zone: owner.slice(1 + first),
    hash: owner.slice(1, 1 + first),
    next: base32hexLower(rd.subarray(hp + 1, bp)),
    optOut: (rd[1]! & 1) === 1,
    iterations: (rd[2]! << 8) | rd[3]!,
    salt: rd.slice(5, hp),
    types: new Set(types),
  };
}

function between(lo: string, x: string, hi: string): boolean {
  return lo < hi ? lo < x && x < hi : x > lo || x < hi;
}

/** An NSEC covering `name` (it does not exist), or undefined. */
function nsecCovering(d: DenialSet, name: string): NsecRecord | undefined {
  const s = keySortKey(name);
  return d.nsec.find(
    (n) => n.owner !== name && between(keySortKey(n.owner), s, keySortKey(n.next)),
  );
}

function commonAncestor(a: string, b: string): string {
  let x = a;
  let y = b;
  const la = keyLabelCount(x);
  const lb = keyLabelCount(y);
  if (la > lb) x = keyAncestor(x, lb);
  else y = keyAncestor(y, la);
  while (x !== y) {
    x = keyParent(x) ?? '\u0000';
    y = keyParent(y) ?? '\u0000';
  }
  return x;
}

// ------------------------------------------------------------------ NSEC3

function hashOf(n: Nsec3Record, name: string): string {
  return base32hexLower(nsec3Hash(keyToWire(name), n.salt, n.iterations));
}

/** The NSEC3 records of one zone and parameters (those of the first record). */
class Nsec3View {
  readonly records: readonly Nsec3Record[];
  private readonly memo = new Map<string, string>();
  constructor(all: readonly Nsec3Record[]) {
    const f = all[0];
    this.records = f
      ? all.filter(
          (n) => n.zone === f.zone && n.iterations === f.iterations && sameBytes(n.salt, f.salt),
        )
      : [];
  }
  get zone(): string | undefined {
    return this.records[0]?.zone;
  }
  hash(name: string): string {
    let h = this.memo.get(name);
    if (h === undefined) this.memo.set(name, (h = hashOf(this.records[0]!, name)));
    return h;
  }
  match(name: string): Nsec3Record | undefined {
    const h = this.hash(name);
    return this.records.find((n) => n.hash === h);
  }
  cover(name: string): Nsec3Record | undefined {
    const h = this.hash(name);
    return this.records.find((n) => n.hash !== h && between(n.hash, h, n.next));
  }
  /** RFC 5155 section 8.3: the closest encloser of `name` and the NSEC3 covering the next closer name. */
  closestEncloser(name: string): { ce: string; cover: Nsec3Record | undefined } | undefined {
    const zone = this.zone;
    if (zone === undefined || !keyIsSubdomain(name, zone)) return undefined;
    let child = name;
    let anc = keyParent(name);
    while (anc !== undefined && keyIsSubdomain(anc, zone)) {
      if (this.match(anc)) return { ce: anc, cover: this.cover(child) };
      child = anc;
      anc = keyParent(anc);
    }
    return undefined;
  }
}

// ------------------------------------------------------------------ proofs

/** Proof that `name` does not exist and no wildcard could have matched (RFC 4035 5.4, RFC 5155 8.4). */
export function provesNxdomain(d: DenialSet, name: string): boolean {
  const cover = nsecCovering(d, name);
  if (cover) {
    const ce = [commonAncestor(name, cover.owner), commonAncestor(name, cover.next)].reduce(
      (a, b) => (keyLabelCount(a) >= keyLabelCount(b) ? a : b),
    );
    const wild = wildcardOf(ce);
    return d.nsec.some((n) => n.owner === wild) ? false : nsecCovering(d, wild) !== undefined;
  }
  const v = new Nsec3View(d.nsec3);
  const proof = v.closestEncloser(name);
  if (!proof?.cover) return false;
  return v.cover(wildcardOf(proof.ce)) !== undefined;
}

function lacks(types: ReadonlySet<number>, qtype: number): boolean {
  return !types.has(qtype) && !types.has(T_CNAME);
}

/**
 * Proof that `name` exists without `qtype` (RFC 4035 5.4, RFC 5155 8.5, 8.7);
 * wildcard NODATA too. `'opt-out'` for a DS query answered by an opt-out span
 * (RFC 5155 8.6: the delegation is unsigned).
 */
export function provesNodata(d: DenialSet, name: string, qtype: number): boolean | 'opt-out' {
  const at = d.nsec.find((n) => n.owner === name);
  if (at) return lacks(at.types, qtype) && !(qtype === T_DS && at.types.has(T_SOA));
  const cover = nsecCovering(d, name);
  if (cover) {
    const ce =
      commonAncestor(name, cover.next).length > commonAncestor(name, cover.owner).length
        ? commonAncestor(name, cover.next)
        : commonAncestor(name, cover.owner);
    const wild = d.nsec.find((n) => n.owner === wildcardOf(ce));
    return wild !== undefined && lacks(wild.types, qtype);
  }
  const v = new Nsec3View(d.nsec3);
  const match = v.match(name);
  if (match) return lacks(match.types, qtype) && !(qtype === T_DS && match.types.has(T_SOA));
  const proof = v.closestEncloser(name);
  if (!proof?.cover) return false;
  if (qtype === T_DS && proof.cover.optOut) return 'opt-out';
  const wild = v.match(wildcardOf(proof.ce));
  return wild !== undefined && lacks(wild.types, qtype);
}

/** What a verified denial says about a DS query at `name`. */
export type DsDenial = 'no-ds' | 'opt-out' | 'not-a-cut' | 'no-proof';

/** The bitmap at the name itself: a delegation without DS, no cut, or no proof (DS or SOA there). */
function dsAt(types: ReadonlySet<number>): DsDenial {
  if (types.has(T_DS) || types.has(T_SOA)) return 'no-proof';
  return types.has(T_NS) ? 'no-ds' : 'not-a-cut';
}

/**
 * A DS query at `name` answered without DS: an unsigned delegation (NS, no
 * DS, no SOA at the name: RFC 6840 section 4.4), an opt-out span, a name that
 * is no zone cut (it exists without NS, or does not exist), or no proof.
 */
export function dsDenial(d: DenialSet, name: string, nxdomain: boolean): DsDenial {
  if (nxdomain) return provesNxdomain(d, name) ? 'not-a-cut' : 'no-proof';
  const at = d.nsec.find((n) => n.owner === name);
  if (at) return dsAt(at.types);
  if (nsecCovering(d, name)) return 'not-a-cut';
  const v = new Nsec3View(d.nsec3);
  const match = v.match(name);
  if (match) return dsAt(match.types);
  const proof = v.closestEncloser(name);
  if (!proof?.cover) return 'no-proof';
  return proof.cover.optOut ? 'opt-out' : 'not-a-cut';
}

/** A wildcard answer: proof that the next closer name does not exist (RFC 4035 5.3.4, RFC 5155 8.8). */
export function provesWildcard(d: DenialSet, name: string, labels: number): boolean {
  const nextCloser = keyAncestor(name, labels + 1);
  if (nsecCovering(d, name)) return true;
  const v = new Nsec3View(d.nsec3);
  return v.zone !== undefined && v.cover(nextCloser) !== undefined;
}
