/**
 * The DNSSEC part of a response (RFC 4035 section 3.1): with DO and a signed
 * zone, RRSIGs with every authoritative RRset, the NSEC/NSEC3 proofs of
 * negative and wildcard answers, and a referral's DS or its absence proof.
 */
import type { RRset, ZoneNode } from '../../dns/core/zone/model.ts';
import type { IndexedZone, ZoneLookupResult } from './zone-lookup.ts';
import { place, placeSplit, type ResponsePlan, type SectionRRset } from './answer-sections.ts';
import { closestEncloser, proofOwners, type ProofKind } from '../../dns/core/zone/dnssec.ts';
import { nameKey } from '../../dns/core/wire/name.ts';

import { TYPE_DS, TYPE_NSEC, TYPE_NSEC3, TYPE_RRSIG } from '../../dns/core/rr/types.ts';

/** The RRSIGs at `node` covering `type`, placed under `ownerKey` (a wildcard answer's is the query name). */
export function sigsFor(
  node: ZoneNode,
  type: number,
  ownerKey: string,
  ttl?: number,
): SectionRRset | undefined {
  const sigs = node.rrsets.get(TYPE_RRSIG);
  if (sigs === undefined) return undefined;
  const rdatas: Uint8Array[] = [];
  let min = Infinity;
  for (const rec of sigs.records) {
    const rd = rec.rdata;
    if (rd.length < 2 || ((rd[0]! << 8) | rd[1]!) !== type) continue;
    rdatas.push(rd);
    if (rec.ttl < min) min = rec.ttl;
  }
  if (rdatas.length === 0) return undefined;
  return { ownerKey, type: TYPE_RRSIG, ttl: ttl ?? min, rdatas };
}

/** `s` then its RRSIGs from `node` (when the node has them). */
function withSigs(
  out: SectionRRset[],
  s: SectionRRset,
  node: ZoneNode | undefined,
  signedTtl = false,
): void {
  out.push(s);
  if (node === undefined || s.type === TYPE_RRSIG) return;
  const sig = sigsFor(node, s.type, s.ownerKey, signedTtl ? s.ttl : undefined);
  if (sig) out.push({ ...sig, attached: true });
}

/** The NSEC/NSEC3 RRsets (each with its RRSIGs) proving `kind` for `key` in `z`. */
function proof(
  z: IndexedZone,
  kind: ProofKind,
  key: string,
  qtype: number,
  ce?: string,
): SectionRRset[] {
  const out: SectionRRset[] = [];
  if (z.dnssec === undefined) return out;
  const type = z.dnssec.nsec ? TYPE_NSEC : TYPE_NSEC3;
  for (const owner of proofOwners(z.dnssec, z.nodes, z.originKey, kind, key, qtype, ce)) {
    const node = z.nodes.get(owner);
    const set: RRset | undefined = node?.rrsets.get(type);
    if (node && set) withSigs(out, place(owner, set), node);
  }
  return out;
}

/** The key of a wildcard node's parent (the closest encloser of a name it answered). */
function wildcardParent(node: ZoneNode): string {
  return nameKey(node.name).slice(2);
}

/** Add RRSIGs and proofs to a plan built for `r` (see the module comment). */
export function addDnssec(plan: ResponsePlan, r: ZoneLookupResult, qtype: number): ResponsePlan {
  const z = r.zone;
  const answer: SectionRRset[] = [];
  const authority: SectionRRset[] = [];
  const proofs: SectionRRset[] = [];
  // The answer section: each placed RRset and its RRSIGs; a wildcard step
  // also proves the query name's absence in the authority section.
  for (const p of r.answer) {
    for (const s of placeSplit(p.ownerKey, p.rrset)) withSigs(answer, s, p.node);
    if (p.wildcard && p.node && p.zone) {
      proofs.push(...proof(p.zone, 'wildcard-answer', p.ownerKey, qtype, wildcardParent(p.node)));
    }
  }
  const apex = z.nodes.get(z.originKey);
  switch (r.kind) {
    case 'nodata':
    case 'nxdomain': {
      for (const s of plan.authority) withSigs(authority, s, apex, true);
      let kind: ProofKind = r.kind;
      let ce: string | undefined;
      if (r.kind === 'nodata' && r.wildcard) {
        kind = 'wildcard-nodata';
        ce = closestEncloser(z.nodes, z.originKey, r.finalKey);
      }
      authority.push(...proof(z, kind, r.finalKey, qtype, ce));
      break;
    }
    case 'referral': {
      const cut = r.cut!;
      authority.push(...plan.authority);
      const node = z.nodes.get(cut.key);
      const ds = node?.rrsets.get(TYPE_DS);
      // RFC 4035 section 3.1.4: the DS RRset with its RRSIGs, or the NSEC proving there is none.
      if (ds && node) withSigs(authority, place(cut.key, ds), node);
      else authority.push(...proof(z, 'referral', cut.key, qtype));
      break;
    }
    default:
      authority.push(...plan.authority);
  }
  for (const s of proofs) if (!authority.some((a) => same(a, s))) authority.push(s);
  const additional: SectionRRset[] = [];
  for (const s of plan.additional)
    withSigs(additional, s, s.required ? undefined : z.nodes.get(s.ownerKey));
  return { rcode: plan.rcode, aa: plan.aa, answer, authority, additional };
}

function same(a: SectionRRset, b: SectionRRset): boolean {
  if (a.ownerKey !== b.ownerKey || a.type !== b.type) return false;
  if (a.type !== TYPE_RRSIG) return true;
  const ca = a.rdatas[0]!;
  const cb = b.rdatas[0]!;
  return ca[0] === cb[0] && ca[1] === cb[1];
}
