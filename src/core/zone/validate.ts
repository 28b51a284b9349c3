/**
 * Structural checks of a zone (run by buildZone): SOA and NS at the apex,
 * CNAME exclusivity, glue, occluded data, TTL range.
 */
import type { ResourceRecord, RRset, ZoneDiagnostic, ZoneNode } from './model.ts';
import { isSubdomain, nameToText, parentName, wireNameLength } from './names.ts';
import {
  TYPE_A,
  TYPE_AAAA,
  TYPE_CNAME,
  TYPE_DNAME,
  TYPE_NS,
  TYPE_NSEC,
  TYPE_RRSIG,
  TYPE_SOA,
  typeName,
} from './types.ts';

interface ZoneShape {
  readonly origin: string;
  readonly nodes: ReadonlyMap<string, ZoneNode>;
  readonly cuts: readonly string[];
}

const MAX_TTL = 0x7fffffff;
/** DS (43) lives at the parent side of a cut. */
const TYPE_DS = 43;

function at(rr: ResourceRecord | undefined): { position?: ResourceRecord['source'] } {
  return rr?.source ? { position: rr.source } : {};
}

export function validateZone(
  zone: ZoneShape,
  records: readonly ResourceRecord[],
  owners: readonly string[],
  setsOf: (owner: string) => readonly RRset[],
): ZoneDiagnostic[] {
  const out: ZoneDiagnostic[] = [];
  const { origin, nodes } = zone;
  const apex = nodes.get(origin);
  const soa = apex?.rrsets.get(TYPE_SOA);

  // RFC 1035 section 5.2: "Exactly one SOA RR should be present at the top of the zone."
  if (!soa) {
    out.push({
      code: 'ZONE_NO_SOA',
      message: `no SOA record at the zone apex ${origin} (RFC 1035 section 5.2)`,
      severity: 'error',
      ...at(records[0]),
      token: origin,
    });
  } else if (soa.records.length > 1) {
    out.push({
      code: 'ZONE_MULTIPLE_SOA',
      message: `${soa.records.length} SOA records at the apex; exactly one is allowed (RFC 1035 section 5.2)`,
      severity: 'error',
      ...at(soa.records[1]),
      token: origin,
    });
  }
  // RFC 1035 section 5.2: "... should be a NS RR set at the top of the zone"; BIND requires it.
  if (!apex?.rrsets.get(TYPE_NS)) {
    out.push({
      code: 'ZONE_NO_APEX_NS',
      message: `no NS records at the zone apex ${origin}`,
      severity: 'error',
      ...at(soa?.records[0] ?? records[0]),
      token: origin,
    });
  }

  for (const owner of owners) {
    const sets = setsOf(owner);
    // RFC 4592 section 2.1.1: only a leftmost `*` label makes a wildcard; a `*`
    // further right is an ordinary label, which is almost always a mistake
    // (BIND warns: "contains a non-terminal wildcard").
    const star = owner.indexOf('*.', 1);
    if (star > 0 && owner.charCodeAt(star - 1) === 0x2e && owner.charCodeAt(star - 2) !== 0x5c) {
      out.push({
        code: 'ZONE_NONTERMINAL_WILDCARD',
        message: `${owner} has a '*' label that is not the leftmost one: it is not a wildcard (RFC 4592 section 2.1.1)`,
        severity: 'warning',
        ...at(sets[0]?.records[0]),
        token: owner,
      });
    }
    let cname: RRset | undefined;
    let dname: RRset | undefined;
    let other: RRset | undefined;
    for (const s of sets) {
      if (s.type === TYPE_SOA && owner !== origin) {
        out.push({
          code: 'ZONE_SOA_NOT_AT_APEX',
          message: `SOA record at ${owner}, which is not the zone apex ${origin}`,
          severity: 'error',
          ...at(s.records[0]),
          token: owner,
        });
      }
      // RFC 4035 section 2.4: DS "appear only on the upper (parental) side of
      // a delegation"; BIND refuses a zone with DS at its apex ("DS record at
      // top of zone"), and so do we.
      if (s.type === TYPE_DS && owner === origin) {
        out.push({
          code: 'ZONE_DS_AT_APEX',
          message: `DS record at the zone apex ${origin}: DS belongs in the parent zone (RFC 4035 section 2.4)`,
          severity: 'error',
          ...at(s.records[0]),
          token: owner,
        });
      }
      if (s.type === TYPE_CNAME) cname = s;
      else {
        if (s.type === TYPE_DNAME) dname = s;
        // RFC 6672 section 2.4: a DNAME and a CNAME cannot share an owner either.
        if (s.type !== TYPE_RRSIG && s.type !== TYPE_NSEC && other === undefined) other = s;
      }
      for (const rr of s.records)
        if (rr.ttl > MAX_TTL) {
          out.push({
            code: 'ZONE_TTL_RANGE',
            message: `TTL ${rr.ttl} is above 2147483647; resolvers treat it as 0 (RFC 2181 section 8)`,
            severity: 'warning',
            ...at(rr),
            token: String(rr.ttl),
          });
        }
    }
    // RFC 1034 section 3.6.2 / RFC 2181 section 10.1: "If a CNAME RR is present at a
    // node, no other data should be present"; only DNSSEC records may coexist.
    if (cname) {
      if (other) {
        out.push({
          code: 'ZONE_CNAME_AND_OTHER',
          message: `${owner} has a CNAME and other data (${typeName(other.type)}); a CNAME must be alone (RFC 2181 section 10.1)`,
          severity: 'error',
          ...at(cname.records[0]),
          token: owner,
        });
      }
      if (cname.records.length > 1) {
        out.push({
          code: 'ZONE_MULTIPLE_CNAME',
          message: `${owner} has ${cname.records.length} CNAME records; only one is allowed (RFC 2181 section 10.1)`,
          severity: 'error',
          ...at(cname.records[1]),
          token: owner,
        });
      }
    }
    if (dname && dname.records.length > 1) {
      out.push({
        code: 'ZONE_MULTIPLE_DNAME',
        message: `${owner} has ${dname.records.length} DNAME records; only one is allowed (RFC 6672 section 2.4)`,
        severity: 'error',
        ...at(dname.records[1]),
        token: owner,
      });
    }
  }

  // Data below a zone cut or a DNAME is not authoritative (occluded), except glue.
  const dnames: string[] = [];
  for (const owner of owners)
    if (setsOf(owner).some((s) => s.type === TYPE_DNAME)) dnames.push(owner);
  for (const owner of owners) {
    const sets = setsOf(owner);
    const node = nodes.get(owner)!;
    if (node.belowCut) {
      for (const s of sets) {
        if (s.type === TYPE_A || s.type === TYPE_AAAA) continue;
        out.push({
          code: 'ZONE_OCCLUDED',
          message: `${typeName(s.type)} at ${owner} is below a zone cut and will not be served`,
          severity: 'warning',
          ...at(s.records[0]),
          token: owner,
        });
      }
    } else if (node.isDelegation) {
      for (const s of sets) {
        if (s.type === TYPE_NS || s.type === TYPE_DS || s.type === TYPE_A || s.type === TYPE_AAAA)
          continue;
        if (s.type === TYPE_RRSIG || s.type === TYPE_NSEC) continue;
        out.push({
          code: 'ZONE_OCCLUDED',
          message: `${typeName(s.type)} at the delegation point ${owner} is not authoritative and will not be served`,
          severity: 'warning',
          ...at(s.records[0]),
          token: owner,
        });
      }
    }
    for (const d of dnames) {
      if (owner !== d && isSubdomain(owner, d)) {
        out.push({
          code: 'ZONE_OCCLUDED',
          message: `${owner} is below the DNAME at ${d} and will not be served (RFC 6672 section 2.3)`,
          severity: 'warning',
          ...at(sets[0]?.records[0]),
          token: owner,
        });
      }
    }
  }

  // Glue: a name server inside the zone needs an address record in it.
  for (const owner of owners) {
    const sets = setsOf(owner);
    const ns = sets.find((s) => s.type === TYPE_NS);
    if (!ns) continue;
    // NS below a cut or a DNAME is occluded: never served, so it needs no glue.
    if (nodes.get(owner)!.belowCut || dnames.some((d) => owner !== d && isSubdomain(owner, d)))
      continue;
    for (const rr of ns.records) {
      if (wireNameLength(rr.rdata, 0) !== rr.rdata.length) continue;
      const target = nameToText(rr.rdata, 0, true);
      if (!isSubdomain(target, origin)) continue;
      const tnode = nodes.get(target);
      const hasAddress =
        tnode !== undefined && (tnode.rrsets.has(TYPE_A) || tnode.rrsets.has(TYPE_AAAA));
      if (hasAddress) continue;
      const inChild = tnode?.belowCut || isBelowAnyCut(target, zone);
      // As BIND: an apex name server without an address makes the zone unusable
      // (error); a delegation without its glue is reported but loads (warning).
      out.push({
        code: 'ZONE_MISSING_GLUE',
        message: inChild
          ? `NS ${target} of ${owner} is inside a delegated child zone and has no glue address record`
          : `NS ${target} of ${owner} is inside the zone but has no A or AAAA record`,
        severity: owner === origin ? 'error' : 'warning',
        ...at(rr),
        token: target,
      });
    }
  }
  return out;
}

function isBelowAnyCut(name: string, zone: ZoneShape): boolean {
  let n = name;
  while (n !== zone.origin && n !== '.') {
    const node = zone.nodes.get(n);
    if (node?.isDelegation) return true;
    n = parentName(n);
  }
  return false;
}
