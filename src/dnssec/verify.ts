/**
 * Signature checks of a signed zone for `zone check` (as `dnssec-verify`):
 * every authoritative RRset has a valid RRSIG by an apex DNSKEY (RFC 4035
 * section 5.3). Findings carry the record's position.
 */
import crypto, { type KeyObject } from 'node:crypto';
import type { ResourceRecord, RRset, Zone, ZoneDiagnostic } from '../dns/core/zone/model.ts';
import {
  ALG_ECDSAP256SHA256,
  ALG_ED25519,
  ALG_RSASHA256,
  keyTag,
  rrsigLabels,
  signingInput,
} from './core/records.ts';
import { nameKey } from '../dns/core/wire/name.ts';
import { nodePublicKey } from './node-crypto.ts';
import {
  typeName,
  TYPE_DNSKEY,
  TYPE_DS,
  TYPE_NS,
  TYPE_NSEC,
  TYPE_RRSIG,
} from '../dns/core/rr/types.ts';
import { finding } from './core/chain-check.ts';
import { serialCompare } from '../xfr/core/serial.ts';
import { readU32 as u32 } from '../dns/core/wire/bytes.ts';

interface PublicKey {
  readonly tag: number;
  readonly algorithm: number;
  readonly key: KeyObject | undefined;
}

/** A node:crypto public key from a DNSKEY RDATA, or undefined for other algorithms. */
export function publicKeyOf(rdata: Uint8Array): KeyObject | undefined {
  const alg = rdata[3]!;
  if (alg !== ALG_ECDSAP256SHA256 && alg !== ALG_ED25519 && alg !== ALG_RSASHA256) return undefined;
  return nodePublicKey(alg, rdata.subarray(4));
}

function verifySig(alg: number, key: KeyObject, data: Uint8Array, sig: Uint8Array): boolean {
  try {
    if (alg === ALG_ECDSAP256SHA256)
      return crypto.verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig);
    if (alg === ALG_ED25519) return crypto.verify(null, data, key, sig);
    return crypto.verify('sha256', data, key, sig);
  } catch {
    return false;
  }
}

/** RFC 1982: a is before b. */
const before = (a: number, b: number) => serialCompare(a, b) < 0;

/** The length of the RRSIG RDATA before the signature (fixed part and signer's name). */
function headerLength(rd: Uint8Array): number {
  let i = 18;
  while (i < rd.length && rd[i] !== 0) i += 1 + rd[i]!;
  return i + 1;
}

/** What is wrong with one RRSIG `s` over an RRset, or undefined when it verifies. */
function signatureProblem(
  s: ResourceRecord,
  set: RRset,
  ownerKey: string,
  what: string,
  keys: readonly PublicKey[],
  now: number,
): ZoneDiagnostic | undefined {
  const rd = s.rdata;
  const expiration = u32(rd, 8);
  const inception = u32(rd, 12);
  const tag = (rd[16]! << 8) | rd[17]!;
  const alg = rd[2]!;
  if (before(expiration, now))
    return finding(
      'ZONE_RRSIG_EXPIRED',
      `the RRSIG (key ${tag}) over ${what} expired at ${new Date(expiration * 1000).toISOString()}`,
      s,
    );
  if (before(now, inception))
    return finding(
      'ZONE_RRSIG_NOT_YET_VALID',
      `the RRSIG (key ${tag}) over ${what} is valid only from ${new Date(inception * 1000).toISOString()}`,
      s,
    );
  const key = keys.find((k) => k.tag === tag && k.algorithm === alg && k.key);
  if (!key)
    return finding(
      'ZONE_RRSIG_NO_KEY',
      `the RRSIG over ${what} names key ${tag} (algorithm ${alg}), which is not a usable DNSKEY at the apex`,
      s,
    );
  const hl = headerLength(rd);
  if (rd[3]! > rrsigLabels(ownerKey))
    return finding(
      'ZONE_RRSIG_BAD',
      `the RRSIG over ${what} has a Labels field above the owner's`,
      s,
    );
  const rdatas = set.records.map((r) => r.rdata);
  const data = signingInput(rd.subarray(0, hl), ownerKey, set.type, 1, u32(rd, 4), rdatas);
  if (verifySig(alg, key.key!, data, rd.subarray(hl))) return undefined;
  return finding('ZONE_RRSIG_BAD', `the RRSIG (key ${tag}) over ${what} does not verify`, s);
}

/** The signature findings of a zone (none when unsigned); `now` in seconds. */
export function verifyZoneSignatures(zone: Zone, now: number): ZoneDiagnostic[] {
  const apex = zone.nodes.get(zone.origin);
  const dnskeys = apex?.rrsets.get(TYPE_DNSKEY);
  if (!apex || !dnskeys) return [];
  const keys: PublicKey[] = dnskeys.records.map((r) => ({
    tag: keyTag(r.rdata),
    algorithm: r.rdata[3]!,
    key: publicKeyOf(r.rdata),
  }));
  const out: ZoneDiagnostic[] = [];
  for (const node of zone.nodes.values()) {
    if (node.belowCut) continue;
    const cut = node.name !== zone.origin && node.rrsets.has(TYPE_NS);
    const sigs = node.rrsets.get(TYPE_RRSIG)?.records ?? [];
    for (const set of node.rrsets.values()) {
      if (set.type === TYPE_RRSIG) continue;
      if (cut && set.type !== TYPE_DS && set.type !== TYPE_NSEC) continue;
      const ownerKey = nameKey(node.name);
      const covering = sigs.filter((s) => ((s.rdata[0]! << 8) | s.rdata[1]!) === set.type);
      const what = `${typeName(set.type)} at ${node.name}`;
      if (covering.length === 0) {
        out.push(
          finding(
            'ZONE_RRSIG_MISSING',
            `${what} has no RRSIG (RFC 4035 section 2.2)`,
            set.records[0]!,
          ),
        );
        continue;
      }
      const found = covering.map((s) => signatureProblem(s, set, ownerKey, what, keys, now));
      const good = found.includes(undefined);
      const problems = found.filter((p) => p !== undefined);
      // One good signature is enough for a validator; the others are reported as warnings.
      for (const p of problems) out.push(good ? { ...p, severity: 'warning' } : p);
    }
  }
  return out;
}
