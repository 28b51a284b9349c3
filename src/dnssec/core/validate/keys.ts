/**
 * Zone keys: the DNSKEY RRset authenticated by an anchor or DS RRset (RFC
 * 4035 section 5.2; DS digest per RFC 4034 section 5.1.4), and the check of
 * an RRset's RRSIGs against them (section 5.3). Pure.
 */
import { keyLabelCount, keyToWire } from '../../../dns/core/wire/name.ts';
import { keyAncestor, wildcardOf } from '../../../dns/core/zone/dnssec.ts';
import { keyTag, signingInput } from '../records.ts';
import type { BogusCode } from './codes.ts';
import { digestHash, type DnssecCrypto } from './crypto.ts';
import { rrsigFields, type SignedSet } from './message.ts';
import { sameBytes } from '../../../kit/core/bytes.ts';
import { serialCompare } from '../../../xfr/core/serial.ts';

export interface ZoneKey {
  readonly tag: number;
  readonly algorithm: number;
  readonly rdata: Uint8Array;
}

/** A DS record (or a DS trust anchor). */
export interface DsData {
  readonly tag: number;
  readonly algorithm: number;
  readonly digestType: number;
  readonly digest: Uint8Array;
}

export function readDs(rd: Uint8Array): DsData | undefined {
  if (rd.length < 5) return undefined;
  return {
    tag: (rd[0]! << 8) | rd[1]!,
    algorithm: rd[2]!,
    digestType: rd[3]!,
    digest: rd.subarray(4),
  };
}

/** A DNSKEY with the Zone Key flag and protocol 3 (RFC 4034 section 2.1.1, 2.1.2). */
export function zoneKeyOf(rd: Uint8Array): ZoneKey | undefined {
  if (rd.length < 5 || (rd[0]! & 1) === 0 || rd[2] !== 3) return undefined;
  return { tag: keyTag(rd), algorithm: rd[3]!, rdata: rd };
}

/** RFC 1982: a is before b. */
const before = (a: number, b: number) => serialCompare(a, b) < 0;

/** The outcome of checking one RRset's signatures. */
export type SigCheck =
  | {
      readonly ok: true;
      /** The RRSIG's Labels (below the owner's: a wildcard expansion). */ readonly labels: number;
    }
  | {
      readonly ok: false;
      readonly code: BogusCode;
      readonly detail: string;
      /** The RRSIG at fault (absent when none names a key of the zone). */
      readonly keyTag?: number;
      readonly algorithm?: number;
    };

/** Whether an RRSIG by `signer` verifies with one of `keys`, else the most telling failure. */
export async function checkSignatures(
  set: SignedSet,
  signer: string,
  keys: readonly ZoneKey[],
  crypto: DnssecCrypto,
  now: number,
): Promise<SigCheck> {
  const ownerLabels = keyLabelCount(set.key);
  let failure: SigCheck = { ok: false, code: 'BOGUS_SIGNATURE', detail: 'no RRSIG verifies' };
  const worse = (f: Extract<SigCheck, { ok: false }>) => {
    if (failure.ok || failure.code === 'BOGUS_SIGNATURE') failure = f;
  };
  for (const sig of set.sigs) {
    const f = rrsigFields(sig.rdata);
    if (!f || f.signer !== signer || f.typeCovered !== set.type || f.labels > ownerLabels) continue;
    const at = { keyTag: f.keyTag, algorithm: f.algorithm };
    const fault = (code: BogusCode, why: string) =>
      worse({ ok: false, code, detail: `the RRSIG (key ${f.keyTag}) ${why}`, ...at });
    const expired = before(f.expiration, now);
    if (expired || before(now, f.inception)) {
      if (expired) fault('BOGUS_EXPIRED', 'expired');
      else fault('BOGUS_NOT_YET_VALID', 'is not valid yet');
      continue;
    }
    const candidates = keys.filter((k) => k.tag === f.keyTag && k.algorithm === f.algorithm);
    if (candidates.length === 0 || !crypto.supportsAlgorithm(f.algorithm)) continue;
    const owner = f.labels < ownerLabels ? wildcardOf(keyAncestor(set.key, f.labels)) : set.key;
    const data = signingInput(
      f.header,
      owner,
      set.type,
      set.records[0]!.cls,
      f.originalTtl,
      set.records.map((r) => r.rdata),
    );
    for (const k of candidates) {
      if (await crypto.verify(f.algorithm, k.rdata.subarray(4), data, f.signature))
        return { ok: true, labels: f.labels };
    }
    fault('BOGUS_SIGNATURE', 'does not verify');
  }
  return failure;
}

/** A reference to a key: a DS record, or a DNSKEY (a DNSKEY trust anchor). */
export type KeyRef = { readonly ds: DsData } | { readonly dnskey: Uint8Array };

/** Whether a reference can be checked here (its algorithm, and a DS's digest type). */
export function usableRef(ref: KeyRef, crypto: DnssecCrypto): boolean {
  if ('ds' in ref)
    return (
      crypto.supportsAlgorithm(ref.ds.algorithm) &&
      digestHash(ref.ds.digestType) !== undefined &&
      crypto.supportsDigest(ref.ds.digestType)
    );
  return ref.dnskey.length > 4 && crypto.supportsAlgorithm(ref.dnskey[3]!);
}

/** The DNSKEYs of `zone` that one of `refs` points to. */
export async function matchingKeys(
  zone: string,
  dnskeys: readonly ZoneKey[],
  refs: readonly KeyRef[],
  crypto: DnssecCrypto,
): Promise<ZoneKey[]> {
  const owner = keyToWire(zone);
  const out: ZoneKey[] = [];
  for (const k of dnskeys) {
    for (const ref of refs) {
      if ('dnskey' in ref) {
        if (sameBytes(ref.dnskey, k.rdata)) out.push(k);
        continue;
      }
      const ds = ref.ds;
      if (ds.tag !== k.tag || ds.algorithm !== k.algorithm) continue;
      const input = new Uint8Array(owner.length + k.rdata.length);
      input.set(owner);
      input.set(k.rdata, owner.length);
      if (sameBytes(await crypto.digest(ds.digestType, input), ds.digest)) {
        out.push(k);
        break;
      }
    }
  }
  return out;
}
