/** The shapes the response builder (answer.ts) and its DNSSEC part (answer-dnssec.ts) share. */
import type { RRset } from '../../dns/core/zone/model.ts';
import { TYPE_RRSIG } from '../../dns/core/rr/types.ts';

/** One RRset as it goes into a section. */
export interface SectionRRset {
  readonly ownerKey: string;
  readonly type: number;
  readonly ttl: number;
  readonly rdatas: readonly Uint8Array[];
  /** Glue that must fit (RFC 9471): when it does not, the response is truncated (TC). */
  readonly required?: boolean;
  /** An RRSIG that belongs to the RRset before it: an additional RRset is sent with it or not at all. */
  readonly attached?: boolean;
}

export interface ResponsePlan {
  readonly rcode: number;
  readonly aa: boolean;
  readonly answer: readonly SectionRRset[];
  readonly authority: readonly SectionRRset[];
  readonly additional: readonly SectionRRset[];
}

export function place(
  ownerKey: string,
  rrset: RRset,
  ttl = rrset.ttl,
  required = false,
): SectionRRset {
  return { ownerKey, type: rrset.type, ttl, rdatas: rrset.records.map((r) => r.rdata), required };
}

/** An RRset placed in a section; RRSIGs split by covered type, each its own TTL (RFC 4034 section 3), as BIND. */
export function placeSplit(ownerKey: string, rrset: RRset): SectionRRset[] {
  if (rrset.type !== TYPE_RRSIG) return [place(ownerKey, rrset)];
  const groups = new Map<number, { ttl: number; rdatas: Uint8Array[] }>();
  for (const rec of rrset.records) {
    const rd = rec.rdata;
    const covered = rd.length >= 2 ? (rd[0]! << 8) | rd[1]! : 0;
    const g = groups.get(covered);
    if (g === undefined) groups.set(covered, { ttl: rec.ttl, rdatas: [rd] });
    else {
      g.rdatas.push(rd);
      if (rec.ttl < g.ttl) g.ttl = rec.ttl;
    }
  }
  return [...groups.values()].map((g) => ({
    ownerKey,
    type: TYPE_RRSIG,
    ttl: g.ttl,
    rdatas: g.rdatas,
  }));
}
