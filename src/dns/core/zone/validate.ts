/** Structural checks of a zone (run by buildStoreZone), through the store's named accessors. */
import type { ZoneDiagnostic } from './model.ts';
import { isSubdomain, nameToText, parentName, wireNameLength } from './names.ts';
import {
  NODE_BELOW_CUT,
  NODE_DELEGATION,
  NODE_OUT_OF_ZONE,
  REC_OUT_OF_ZONE,
  type ZoneStore,
} from './store.ts';
import {
  TYPE_A,
  TYPE_AAAA,
  TYPE_CNAME,
  TYPE_DNAME,
  TYPE_MX,
  TYPE_NS,
  TYPE_NSEC,
  TYPE_RRSIG,
  TYPE_SOA,
  TYPE_SRV,
  typeName,
  TYPE_DS,
} from '../rr/types.ts';

const MAX_TTL = 0x7fffffff;

/** What may stand below a zone cut (glue), and at a delegation point. */
export const GLUE_TYPES: ReadonlySet<number> = new Set([TYPE_A, TYPE_AAAA]);
export const AT_CUT_TYPES: ReadonlySet<number> = new Set([
  TYPE_NS,
  TYPE_DS,
  TYPE_A,
  TYPE_AAAA,
  TYPE_RRSIG,
  TYPE_NSEC,
]);

/** ZONE_OCCLUDED: data of `type` at `name`, below a cut or at a delegation point. */
export function occluded(type: number, name: string, belowCut: boolean): ZoneDiagnostic {
  return {
    code: 'ZONE_OCCLUDED',
    message: belowCut
      ? `${typeName(type)} at ${name} is below a zone cut and will not be served`
      : `${typeName(type)} at the delegation point ${name} is not authoritative and will not be served`,
    severity: 'warning',
  };
}

/**
 * What is wrong with the in-zone name server `target` of `owner`: it is an
 * alias (RFC 2181 section 10.3: "The domain name used as the value of a NS
 * resource record ... must not be an alias"), or it has no address (glue).
 * As BIND: an error at the apex (the zone is unusable), a warning at a cut
 * (reported, and the zone loads).
 */
export function glueFinding(
  target: string,
  owner: string,
  atApex: boolean,
  t: { cname: boolean; address: boolean; inChild: () => boolean },
): ZoneDiagnostic | undefined {
  const severity = atApex ? 'error' : 'warning';
  if (t.cname)
    return {
      code: 'ZONE_NS_TARGET_CNAME',
      message: `NS ${target} of ${owner} is an alias (CNAME); a name server name must not be one (RFC 2181 section 10.3)`,
      severity,
    };
  if (t.address) return undefined;
  return {
    code: 'ZONE_MISSING_GLUE',
    message: t.inChild()
      ? `NS ${target} of ${owner} is inside a delegated child zone and has no glue address record`
      : `NS ${target} of ${owner} is inside the zone but has no A or AAAA record`,
    severity,
  };
}

/**
 * @param owners names [0, owners) of the store own records (the rest are
 * empty non-terminals added by the build).
 */
export function validateStore(st: ZoneStore, origin: string, owners: number): ZoneDiagnostic[] {
  const out: ZoneDiagnostic[] = [];
  const apex = st.findName(origin);
  checkApex(st, origin, apex, out);
  const dnames: string[] = [];
  for (let n = 0; n < owners; n++) {
    if (st.nameFlags(n) & NODE_OUT_OF_ZONE) continue;
    checkNode(st, origin, apex, n, dnames, out);
  }
  checkOccluded(st, owners, dnames, out);
  checkGlue(st, origin, apex, owners, dnames, out);
  checkTargets(st, origin, owners, out);
  return out;
}

/** SOA and NS at the apex. */
function checkApex(st: ZoneStore, origin: string, apex: number, out: ZoneDiagnostic[]): void {
  const soa = apex < 0 ? -1 : st.findSet(apex, TYPE_SOA);
  let firstRec = -1;
  for (let r = 0; r < st.recordCount; r++)
    if (!(st.recordFlags(r) & REC_OUT_OF_ZONE)) {
      firstRec = r;
      break;
    }
  if (firstRec < 0 && st.recordCount > 0) firstRec = 0;

  // RFC 1035 section 5.2: "Exactly one SOA RR should be present at the top of the zone."
  if (soa < 0) {
    out.push({
      code: 'ZONE_NO_SOA',
      message: `no SOA record at the zone apex ${origin} (RFC 1035 section 5.2)`,
      severity: 'error',
      ...st.at(firstRec),
      token: origin,
    });
  } else if (st.rrsetSize(soa) > 1) {
    out.push({
      code: 'ZONE_MULTIPLE_SOA',
      message: `${st.rrsetSize(soa)} SOA records at the apex; exactly one is allowed (RFC 1035 section 5.2)`,
      severity: 'error',
      ...st.at(st.nextRecord(st.firstRecord(soa))),
      token: origin,
    });
  }
  // RFC 1035 section 5.2: "... should be a NS RR set at the top of the zone"; BIND requires it.
  if (apex < 0 || st.findSet(apex, TYPE_NS) < 0) {
    out.push({
      code: 'ZONE_NO_APEX_NS',
      message: `no NS records at the zone apex ${origin}`,
      severity: 'error',
      ...st.at(soa >= 0 ? st.firstRecord(soa) : firstRec),
      token: origin,
    });
  }
}

/** One owner's own checks; a DNAME owner is added to `dnames`. */
function checkNode(
  st: ZoneStore,
  origin: string,
  apex: number,
  n: number,
  dnames: string[],
  out: ZoneDiagnostic[],
): void {
  const first = st.firstRRset(n);
  // Most names need no message: their string is made only when one does.
  const owner = (): string => st.name(n);
  // RFC 4592 section 2.1.1: only a leftmost `*` label makes a wildcard; a `*`
  // further right is an ordinary label, which is almost always a mistake
  // (BIND warns: "contains a non-terminal wildcard").
  if (innerStar(st, n)) {
    out.push({
      code: 'ZONE_NONTERMINAL_WILDCARD',
      message: `${owner()} has a '*' label that is not the leftmost one: it is not a wildcard (RFC 4592 section 2.1.1)`,
      severity: 'warning',
      ...st.at(first >= 0 ? st.firstRecord(first) : -1),
      token: owner(),
    });
  }
  const { cname, dname, other } = checkRRsets(st, origin, apex, n, first, owner, out);
  // RFC 1034 section 3.6.2 / RFC 2181 section 10.1: "If a CNAME RR is present at a
  // node, no other data should be present"; only DNSSEC records may coexist.
  if (cname >= 0) {
    if (other >= 0) {
      out.push({
        code: 'ZONE_CNAME_AND_OTHER',
        message: `${owner()} has a CNAME and other data (${typeName(st.rrsetType(other))}); a CNAME must be alone (RFC 2181 section 10.1)`,
        severity: 'error',
        ...st.at(st.firstRecord(cname)),
        token: owner(),
      });
    }
    onlyOne(st, cname, owner, 'ZONE_MULTIPLE_CNAME', 'CNAME', 'RFC 2181 section 10.1', out);
  }
  if (dname >= 0) {
    dnames.push(owner());
    onlyOne(st, dname, owner, 'ZONE_MULTIPLE_DNAME', 'DNAME', 'RFC 6672 section 2.4', out);
  }
}

/** The checks of one owner's RRsets, and where its CNAME, DNAME and first other RRset are (-1: none). */
function checkRRsets(
  st: ZoneStore,
  origin: string,
  apex: number,
  n: number,
  first: number,
  owner: () => string,
  out: ZoneDiagnostic[],
): { cname: number; dname: number; other: number } {
  let cname = -1;
  let dname = -1;
  let other = -1;
  for (let s = first; s >= 0; s = st.nextRRset(s)) {
    const type = st.rrsetType(s);
    if (type === TYPE_SOA && n !== apex) {
      out.push({
        code: 'ZONE_SOA_NOT_AT_APEX',
        message: `SOA record at ${owner()}, which is not the zone apex ${origin}`,
        severity: 'error',
        ...st.at(st.firstRecord(s)),
        token: owner(),
      });
    }
    // RFC 4035 section 2.4: DS "appear only on the upper (parental) side of
    // a delegation"; BIND refuses a zone with DS at its apex ("DS record at
    // top of zone"), and so do we.
    if (type === TYPE_DS && n === apex) {
      out.push({
        code: 'ZONE_DS_AT_APEX',
        message: `DS record at the zone apex ${origin}: DS belongs in the parent zone (RFC 4035 section 2.4)`,
        severity: 'error',
        ...st.at(st.firstRecord(s)),
        token: owner(),
      });
    }
    if (type === TYPE_CNAME) cname = s;
    else {
      if (type === TYPE_DNAME) dname = s;
      // RFC 6672 section 2.4: a DNAME and a CNAME cannot share an owner either.
      if (type !== TYPE_RRSIG && type !== TYPE_NSEC && other < 0) other = s;
    }
    for (let r = st.firstRecord(s); r >= 0; r = st.nextRecord(r)) {
      const ttl = st.recordTtl(r);
      if (ttl > MAX_TTL) {
        out.push({
          code: 'ZONE_TTL_RANGE',
          message: `TTL ${ttl} is above 2147483647; resolvers treat it as 0 (RFC 2181 section 8)`,
          severity: 'warning',
          ...st.at(r),
          token: String(ttl),
        });
      }
    }
  }
  return { cname, dname, other };
}

/** An RRset of a type that allows one record (CNAME, DNAME) holding more: an error at its second. */
function onlyOne(
  st: ZoneStore,
  s: number,
  owner: () => string,
  code: 'ZONE_MULTIPLE_CNAME' | 'ZONE_MULTIPLE_DNAME',
  type: string,
  rfc: string,
  out: ZoneDiagnostic[],
): void {
  const size = st.rrsetSize(s);
  if (size <= 1) return;
  out.push({
    code,
    message: `${owner()} has ${size} ${type} records; only one is allowed (${rfc})`,
    severity: 'error',
    ...st.at(st.nextRecord(st.firstRecord(s))),
    token: owner(),
  });
}

/** Data below a zone cut or a DNAME is not authoritative (occluded), except glue. */
function checkOccluded(
  st: ZoneStore,
  owners: number,
  dnames: readonly string[],
  out: ZoneDiagnostic[],
): void {
  for (let n = 0; n < owners; n++) {
    const flags = st.nameFlags(n);
    if (flags & NODE_OUT_OF_ZONE) continue;
    const owner = (): string => st.name(n);
    const first = st.firstRRset(n);
    const belowCut = (flags & NODE_BELOW_CUT) !== 0;
    if (belowCut || flags & NODE_DELEGATION)
      for (let s = first; s >= 0; s = st.nextRRset(s)) {
        const type = st.rrsetType(s);
        if ((belowCut ? GLUE_TYPES : AT_CUT_TYPES).has(type)) continue;
        out.push({
          ...occluded(type, owner(), belowCut),
          ...st.at(st.firstRecord(s)),
          token: owner(),
        });
      }
    if (dnames.length > 0)
      for (const d of dnames) {
        if (owner() !== d && isSubdomain(owner(), d)) {
          out.push({
            code: 'ZONE_OCCLUDED',
            message: `${owner()} is below the DNAME at ${d} and will not be served (RFC 6672 section 2.3)`,
            severity: 'warning',
            ...st.at(first >= 0 ? st.firstRecord(first) : -1),
            token: owner(),
          });
        }
      }
  }
}

/** `owner` is below (not at) one of the DNAME owners. */
function underDname(owner: string, dnames: readonly string[]): boolean {
  return dnames.some((d) => owner !== d && isSubdomain(owner, d));
}

/** Glue: a name server inside the zone needs an address record in it. */
function checkGlue(
  st: ZoneStore,
  origin: string,
  apex: number,
  owners: number,
  dnames: readonly string[],
  out: ZoneDiagnostic[],
): void {
  for (let n = 0; n < owners; n++) {
    const flags = st.nameFlags(n);
    if (flags & NODE_OUT_OF_ZONE) continue;
    const ns = st.findSet(n, TYPE_NS);
    if (ns < 0) continue;
    const owner = st.name(n);
    // NS below a cut or a DNAME is occluded: never served, so it needs no glue.
    if (flags & NODE_BELOW_CUT || (dnames.length > 0 && underDname(owner, dnames))) continue;
    for (let r = st.firstRecord(ns); r >= 0; r = st.nextRecord(r)) {
      const rd = st.rdata(r);
      if (wireNameLength(rd, 0) !== rd.length) continue;
      const target = nameToText(rd, 0, true);
      if (!isSubdomain(target, origin)) continue;
      const t = st.findName(target);
      const found = glueFinding(target, owner, n === apex, {
        cname: t >= 0 && st.findSet(t, TYPE_CNAME) >= 0,
        address: t >= 0 && (st.findSet(t, TYPE_A) >= 0 || st.findSet(t, TYPE_AAAA) >= 0),
        inChild: () =>
          (t >= 0 && (st.nameFlags(t) & NODE_BELOW_CUT) !== 0) || isBelowAnyCut(st, target, origin),
      });
      if (found) out.push({ ...found, ...st.at(r), token: target });
    }
  }
}

/**
 * MX and SRV targets inside the zone that are aliases or have no address are
 * warnings, as in BIND (RFC 2181 section 10.3). Targets in a child zone and
 * the root (null MX, "no service") are not checked.
 */
function checkTargets(st: ZoneStore, origin: string, owners: number, out: ZoneDiagnostic[]): void {
  for (let n = 0; n < owners; n++) {
    const flags = st.nameFlags(n);
    if (flags & (NODE_OUT_OF_ZONE | NODE_BELOW_CUT)) continue;
    for (let s = st.firstRRset(n); s >= 0; s = st.nextRRset(s)) {
      const type = st.rrsetType(s);
      const at = type === TYPE_MX ? 2 : type === TYPE_SRV ? 6 : -1;
      if (at < 0) continue;
      for (let r = st.firstRecord(s); r >= 0; r = st.nextRecord(r)) {
        const rd = st.rdata(r);
        if (rd.length <= at + 1 || wireNameLength(rd, at) !== rd.length - at) continue;
        const target = nameToText(rd, at, true);
        if (!isSubdomain(target, origin) || isBelowAnyCut(st, target, origin)) continue;
        const t = targetNode(st, target, origin);
        const cname = t >= 0 && st.findSet(t, TYPE_CNAME) >= 0;
        if (!cname && t >= 0 && (st.findSet(t, TYPE_A) >= 0 || st.findSet(t, TYPE_AAAA) >= 0))
          continue;
        const what = `${type === TYPE_MX ? 'MX' : 'SRV'} target ${target} of ${st.name(n)}`;
        out.push({
          code: cname ? 'ZONE_TARGET_CNAME' : 'ZONE_TARGET_NO_ADDRESS',
          message: cname
            ? `${what} is an alias (CNAME); it must not be one (RFC 2181 section 10.3, RFC 2782)`
            : `${what} is inside the zone but has no A or AAAA record (RFC 2181 section 10.3)`,
          severity: 'warning',
          ...st.at(r),
          token: target,
        });
      }
    }
  }
}

/**
 * The node a lookup of `target` would use: the name itself, or else the
 * wildcard at its closest encloser (RFC 4592 section 3.3.1); -1 when none.
 */
function targetNode(st: ZoneStore, target: string, origin: string): number {
  const t = st.findName(target);
  if (t >= 0) return t;
  let name = target;
  while (name !== origin && name !== '.') {
    name = parentName(name);
    if (st.findName(name) >= 0) return st.findName(name === '.' ? '*.' : `*.${name}`);
  }
  return -1;
}

function isBelowAnyCut(st: ZoneStore, name: string, origin: string): boolean {
  let n = name;
  while (n !== origin && n !== '.') {
    const i = st.findName(n);
    if (i >= 0 && st.nameFlags(i) & NODE_DELEGATION) return true;
    n = parentName(n);
  }
  return false;
}

/** True when name row n has a `*` label that is not its first label. */
function innerStar(st: ZoneStore, n: number): boolean {
  const b = st.nameBlockOf(n);
  const o = st.nameStart(n);
  const len = st.nameLength(n);
  // A label `*` is `.*.` in the text (a literal `*` inside a longer label is not a wildcard).
  for (let k = 1; k + 1 < len; k++)
    if (b[o + k] === 0x2a && b[o + k - 1] === 0x2e && b[o + k + 1] === 0x2e) return true;
  return false;
}
