/**
 * Serving signed zones (RFC 4033-4035, RFC 5155): the NSEC or NSEC3 chain
 * indexed for proofs, and the choice of the records that prove a negative or
 * wildcard answer. Nothing here signs. Names are lookup keys (`../wire/name.ts`).
 */
import type { ZoneNode } from './model.ts';
import { keyLabelCount, keyToWire } from '../wire/name.ts';
import { base32hexLower, nsec3Hash } from '../../../dnssec/core/sha1.ts';

import { TYPE_DNSKEY, TYPE_NSEC, TYPE_NSEC3, TYPE_NSEC3PARAM, TYPE_RRSIG } from '../rr/types.ts';

export interface NsecChain {
  /** Owner keys of the NSEC records, in canonical order (RFC 4034 section 6.1). */
  readonly keys: readonly string[];
  readonly sortKeys: readonly string[];
}

export interface Nsec3Chain {
  /** Hashed owner labels (lowercase base32hex), sorted; base32hex keeps the octets' order. */
  readonly hashes: readonly string[];
  /** The owner key of each hash, same order. */
  readonly keys: readonly string[];
  readonly salt: Uint8Array;
  readonly iterations: number;
}

export interface DnssecIndex {
  readonly nsec?: NsecChain;
  readonly nsec3?: Nsec3Chain;
}

/** The canonical sort key (RFC 4034 section 6.1) of a lookup key: labels from the right, 0x00 escaped. */
export function keySortKey(key: string): string {
  const labels: string[] = [];
  for (let i = 0, len = key.charCodeAt(0); len > 0; i += 1 + len, len = key.charCodeAt(i))
    labels.push(key.slice(i + 1, i + 1 + len).replace(/\u0000/g, '\u0000\u0001'));
  return labels.reverse().join('\u0000\u0000');
}

/** The DNSSEC index of a zone, or undefined when its apex has no DNSKEY with an RRSIG. */
export function indexDnssec(
  originKey: string,
  nodes: ReadonlyMap<string, ZoneNode>,
): DnssecIndex | undefined {
  const apex = nodes.get(originKey);
  if (!apex || !apex.rrsets.has(TYPE_DNSKEY) || !apex.rrsets.has(TYPE_RRSIG)) return undefined;
  const nsecKeys: string[] = [];
  const nsec3: { hash: string; key: string }[] = [];
  let params: Uint8Array | undefined = apex.rrsets.get(TYPE_NSEC3PARAM)?.records[0]?.rdata;
  const originLabels = keyLabelCount(originKey);
  for (const [key, node] of nodes) {
    if (node.rrsets.has(TYPE_NSEC)) nsecKeys.push(key);
    const n3 = node.rrsets.get(TYPE_NSEC3);
    if (n3 && keyLabelCount(key) === originLabels + 1) {
      nsec3.push({ hash: key.slice(1, 1 + key.charCodeAt(0)), key });
      params ??= n3.records[0]?.rdata;
    }
  }
  const out: { nsec?: NsecChain; nsec3?: Nsec3Chain } = {};
  if (nsecKeys.length > 0) {
    const pairs = nsecKeys.map((k) => ({ k, s: keySortKey(k) }));
    pairs.sort((a, b) => (a.s < b.s ? -1 : a.s > b.s ? 1 : 0));
    out.nsec = { keys: pairs.map((p) => p.k), sortKeys: pairs.map((p) => p.s) };
  }
  if (nsec3.length > 0 && params && params.length >= 5) {
    nsec3.sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
    out.nsec3 = {
      hashes: nsec3.map((p) => p.hash),
      keys: nsec3.map((p) => p.key),
      salt: params.slice(5, 5 + params[4]!),
      iterations: (params[2]! << 8) | params[3]!,
    };
  }
  return out;
}

/** The last index whose value is <= x (strictly < when `strict`), or -1. */
function floor(sorted: readonly string[], x: string, strict: boolean): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = sorted[mid]!;
    if (v < x || (!strict && v === x)) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** The owner key of the NSEC that matches or covers `key` (the chain wraps to its last NSEC). */
export function nsecFor(chain: NsecChain, key: string): string {
  const i = floor(chain.sortKeys, keySortKey(key), false);
  return chain.keys[i < 0 ? chain.keys.length - 1 : i]!;
}

/** The NSEC3 hash label of a name. */
export function nsec3HashOf(chain: Nsec3Chain, key: string): string {
  return base32hexLower(nsec3Hash(keyToWire(key), chain.salt, chain.iterations));
}

/** The owner key of the NSEC3 whose hash is that of `key`, or undefined. */
export function nsec3Match(chain: Nsec3Chain, key: string): string | undefined {
  // A search of the sorted hashes, not a map beside them (half a million names: tens of MB, cloned to the answering thread).
  const hash = nsec3HashOf(chain, key);
  const i = floor(chain.hashes, hash, false);
  return i >= 0 && chain.hashes[i] === hash ? chain.keys[i] : undefined;
}

/** The owner key of the NSEC3 that covers `key` (RFC 5155 section 1.3: hash strictly between). */
export function nsec3Cover(chain: Nsec3Chain, key: string): string {
  const i = floor(chain.hashes, nsec3HashOf(chain, key), true);
  return chain.keys[i < 0 ? chain.keys.length - 1 : i]!;
}

/** The ancestor of `key` with `labels` labels. */
export function keyAncestor(key: string, labels: number): string {
  let drop = keyLabelCount(key) - labels;
  let i = 0;
  while (drop-- > 0) i += 1 + key.charCodeAt(i);
  return key.slice(i);
}

/** `*.` + key */
export function wildcardOf(key: string): string {
  return `\u0001*${key}`;
}

/** The closest encloser of `key` among the zone's nodes (RFC 4592 section 3.3.1). */
export function closestEncloser(
  nodes: ReadonlyMap<string, ZoneNode>,
  originKey: string,
  key: string,
): string {
  let i = 0;
  let k = key;
  while (k.length > originKey.length) {
    if (nodes.has(k)) return k;
    i += 1 + key.charCodeAt(i);
    k = key.slice(i);
  }
  return originKey;
}

/** RFC 5155 section 7.2.1: the closest provable encloser of `key`, its NSEC3, and the one covering the next closer name. */
export function nsec3ClosestEncloserProof(
  chain: Nsec3Chain,
  originKey: string,
  key: string,
): { ce: string; owners: string[] } {
  const total = keyLabelCount(key);
  const originLabels = keyLabelCount(originKey);
  for (let labels = total - 1; labels >= originLabels; labels--) {
    const ce = keyAncestor(key, labels);
    const match = nsec3Match(chain, ce);
    if (match === undefined) continue;
    return { ce, owners: [match, nsec3Cover(chain, keyAncestor(key, labels + 1))] };
  }
  return { ce: originKey, owners: [] };
}

/** What a negative or wildcard response has to prove. */
export type ProofKind = 'nxdomain' | 'nodata' | 'wildcard-answer' | 'wildcard-nodata' | 'referral';

/**
 * The owner keys of the NSEC/NSEC3 RRsets that prove `kind` for `key` (`ce`:
 * the wildcard's parent), in the order BIND adds them. RFC 4035 section
 * 3.1.3, RFC 5155 section 7.2.
 */
export function proofOwners(
  index: DnssecIndex,
  nodes: ReadonlyMap<string, ZoneNode>,
  originKey: string,
  kind: ProofKind,
  key: string,
  qtype: number,
  ce?: string,
): string[] {
  const out: string[] = [];
  const add = (k: string | undefined) => {
    if (k !== undefined && !out.includes(k)) out.push(k);
  };
  const n = index.nsec;
  const n3 = index.nsec3;
  if (n) {
    const node = nodes.get(key);
    switch (kind) {
      case 'nodata':
      case 'referral':
        // RFC 4035 section 3.1.3.1 (NODATA: the NSEC of the name, or the one covering an ENT),
        // section 3.1.4 (insecure referral: the NSEC at the cut, showing NS and no DS).
        add(node?.rrsets.has(TYPE_NSEC) ? key : nsecFor(n, key));
        break;
      case 'nxdomain': {
        // RFC 4035 section 3.1.3.2: an NSEC covering the name and one proving there is no wildcard.
        const enc = closestEncloser(nodes, originKey, key);
        add(nsecFor(n, key));
        add(nsecFor(n, wildcardOf(enc)));
        break;
      }
      case 'wildcard-answer':
        // RFC 4035 section 3.1.3.3: the NSEC proving the name itself does not exist.
        add(nsecFor(n, key));
        break;
      case 'wildcard-nodata':
        // RFC 4035 section 3.1.3.4: no exact match, and the wildcard lacks the type.
        add(nsecFor(n, key));
        add(nsecFor(n, wildcardOf(ce!)));
        break;
    }
    return out;
  }
  if (!n3) return out;
  switch (kind) {
    case 'nodata':
    case 'referral': {
      // RFC 5155 section 7.2.3/7.2.4 and 7.2.7: the NSEC3 matching the name; with opt-out
      // (no such NSEC3), the closest provable encloser proof.
      const match = nsec3Match(n3, key);
      if (match !== undefined) add(match);
      else for (const o of nsec3ClosestEncloserProof(n3, originKey, key).owners) add(o);
      break;
    }
    case 'nxdomain': {
      // RFC 5155 section 7.2.2: closest encloser proof, and an NSEC3 covering the wildcard.
      const proof = nsec3ClosestEncloserProof(n3, originKey, key);
      for (const o of proof.owners) add(o);
      add(nsec3Cover(n3, wildcardOf(proof.ce)));
      break;
    }
    case 'wildcard-answer':
      // RFC 5155 section 7.2.6: the NSEC3 covering the next closer name.
      add(nsec3Cover(n3, keyAncestor(key, keyLabelCount(ce!) + 1)));
      break;
    case 'wildcard-nodata':
      // RFC 5155 section 7.2.5: closest encloser, next closer covered, wildcard matched.
      add(nsec3Match(n3, ce!));
      add(nsec3Cover(n3, keyAncestor(key, keyLabelCount(ce!) + 1)));
      add(nsec3Match(n3, wildcardOf(ce!)));
      break;
  }
  void qtype;
  return out;
}
