/**
 * Signatures kept across a re-signing: an RRset unchanged (owner, type, TTL,
 * RDATA) keeps its RRSIGs byte for byte while each signing key has one
 * valid and not due. Everything else is signed anew.
 */
import type { Zone, ZoneNode } from '../../dns/core/zone/model.ts';
import { compareBytes } from '../../kit/core/bytes.ts';
import { TYPE_RRSIG } from '../../dns/core/rr/types.ts';
import { readU16 as u16, readU32 as u32 } from '../../dns/core/wire/bytes.ts';

/** The RRSIG RDATA to keep for an RRset, or undefined to sign it again. */
export type KeptSignatures = (
  owner: string,
  type: number,
  ttl: number,
  rdatas: readonly Uint8Array[],
  signers: readonly { readonly algorithm: number; readonly tag: number }[],
) => readonly Uint8Array[] | undefined;

/** The same RDATA set (order aside, RFC 4034 section 6.3 signs it sorted). */
function sameSet(a: readonly Uint8Array[], b: readonly Uint8Array[]): boolean {
  if (a.length !== b.length) return false;
  // Most often in the same order (the same file, or the version it was signed from).
  if (a.every((r, i) => compareBytes(r, b[i]!) === 0)) return true;
  const x = [...a].sort(compareBytes);
  const y = [...b].sort(compareBytes);
  return x.every((r, i) => compareBytes(r, y[i]!) === 0);
}

/** The signatures of `previous` valid now (RFC 4034 section 3.1.5) and not expiring within `refresh`. */
export function keptSignatures(previous: Zone, now: number, refresh: number): KeptSignatures {
  const usable = (rd: Uint8Array) => {
    const expiration = u32(rd, 8);
    const inception = u32(rd, 12);
    return ((inception - now) | 0) <= 0 && ((expiration - now - refresh) | 0) > 0;
  };
  // The plan asks owner by owner, type by type: the owner's node and signatures are looked up once.
  let last: { owner: string; node: ZoneNode | undefined; sigs: readonly Uint8Array[] } | undefined;
  const ownerOf = (owner: string) => {
    if (last?.owner === owner) return last;
    const node = previous.nodes.get(owner.toLowerCase());
    const sigs = node?.rrsets.get(TYPE_RRSIG)?.records.map((r) => r.rdata) ?? [];
    return (last = { owner, node, sigs });
  };
  return (owner, type, ttl, rdatas, signers) => {
    const { node, sigs } = ownerOf(owner);
    const set = node?.rrsets.get(type);
    if (!node || !set || set.ttl !== ttl) return undefined;
    const old = set.records.map((r) => r.rdata);
    if (!sameSet(old, rdatas)) return undefined;
    const kept: Uint8Array[] = [];
    for (const { algorithm, tag } of signers) {
      const hit = sigs.find(
        (rd) =>
          rd.length > 18 &&
          u16(rd, 0) === type &&
          rd[2] === algorithm &&
          u16(rd, 16) === tag &&
          u32(rd, 4) === ttl &&
          usable(rd),
      );
      if (!hit) return undefined;
      kept.push(hit);
    }
    return kept;
  };
}
