/**
 * The response builder: a ZoneLookupResult into the answer, authority and additional sections (RFC
 * 1034 section 4.3.2, RFC 2308, RFC 3403 section 4.2), encoded with compression into the octets
 * after the question. The header and question are copied from the query at send time, so one body
 * serves every query for a name and type.
 */
import type { IndexedZone, ZoneLookupResult } from './zone-lookup.ts';
import {
  TYPE_A,
  TYPE_AAAA,
  TYPE_ANY,
  TYPE_CNAME,
  TYPE_MX,
  TYPE_NAPTR,
  TYPE_NS,
  TYPE_SOA,
  TYPE_SRV,
  TYPE_SVCB,
  TYPE_HTTPS,
} from '../../dns/core/rr/types.ts';
import { ByteWriter } from '../../dns/core/wire/bytes.ts';
import { wireNameLength } from '../../dns/core/zone/names.ts';
import { NAPTR_FLAGS, NAPTR_REPLACEMENT, naptrLayout } from '../../dns/core/rr/naptr.ts';
import { addDnssec } from './answer-dnssec.ts';
import { place, placeSplit, type ResponsePlan, type SectionRRset } from './answer-sections.ts';
import { keyIsSubdomain, keyLabelOffsets, ROOT_KEY, wireToKey } from '../../dns/core/wire/name.ts';

/** AliasMode records followed in one additional section (BIND follows a bounded chain too). */
const SVCB_CHAIN_LIMIT = 8;

export const RCODE_NOERROR = 0;
export const RCODE_FORMERR = 1;
export const RCODE_SERVFAIL = 2;
export const RCODE_NXDOMAIN = 3;
export const RCODE_NOTIMP = 4;
export const RCODE_REFUSED = 5;
export const RCODE_YXDOMAIN = 6;
/** Extended RCODE (RFC 6891 section 9): OPT version not implemented. */
export const RCODE_BADVERS = 16;

export { place, placeSplit, type ResponsePlan, type SectionRRset } from './answer-sections.ts';

/** RFC 2308 section 3: the SOA of a negative answer, its TTL the smaller of its own and MINIMUM. */
export function negativeSoa(z: IndexedZone, qtype = 0): SectionRRset {
  const soa = z.zone.soa;
  const rd = soa.records[0]!.rdata;
  const minimum = rd.length >= 4 ? readU32(rd, rd.length - 4) : 0;
  // As BIND (`zero-no-soa-ttl yes`, its default): an NXDOMAIN answer to an SOA
  // query carries the SOA with TTL 0, so no cache can take it for the answer.
  return place(z.originKey, soa, qtype === TYPE_SOA ? 0 : Math.min(soa.ttl, minimum));
}

function readU32(b: Uint8Array, o: number): number {
  return ((b[o]! << 24) >>> 0) + (b[o + 1]! << 16) + (b[o + 2]! << 8) + b[o + 3]!;
}

function nameKeyAt(rd: Uint8Array, o: number): string | undefined {
  const n = wireNameLength(rd, o);
  return n < 0 ? undefined : wireToKey(rd, o, o + n);
}

/** Target names that get A/AAAA in the additional section (RFC 1035 section 3.3, RFC 2782). */
function targetKey(type: number, rd: Uint8Array): string | undefined {
  switch (type) {
    case TYPE_NS:
      return nameKeyAt(rd, 0);
    case TYPE_MX:
      return nameKeyAt(rd, 2);
    case TYPE_SRV:
      return nameKeyAt(rd, 6);
    default:
      return undefined;
  }
}

/** NAPTR fields needed for additional processing: lowercased FLAGS and REPLACEMENT key. */
export function naptrFlagsAndReplacement(
  rd: Uint8Array,
): { flags: string; replacement: string } | undefined {
  const at = new Int32Array(4);
  if (naptrLayout(rd, 0, rd.length, at) >= 0) return undefined;
  let flags = '';
  const f = at[NAPTR_FLAGS]!;
  for (let i = f + 1; i <= f + rd[f]!; i++) flags += String.fromCharCode(rd[i]!).toLowerCase();
  const replacement = nameKeyAt(rd, at[NAPTR_REPLACEMENT]!);
  return replacement === undefined ? undefined : { flags, replacement };
}

/**
 * Additional-section processing: only data of the same zone outside cuts, as
 * BIND (RFC 2181 section 5.4.1); SRV or A/AAAA for NAPTR (RFC 3403 section 4.2).
 */
function additionalFor(z: IndexedZone, answer: readonly SectionRRset[]): SectionRRset[] {
  const out: SectionRRset[] = [];
  const have = new Set<string>();
  for (const s of answer) have.add(`${s.type}/${s.ownerKey}`);
  /** Adds the RRset; returns it, 'have' when already present, undefined when absent. */
  const add = (
    key: string,
    type: number,
    allowBelowCut = false,
  ): SectionRRset | 'have' | undefined => {
    const id = `${type}/${key}`;
    if (!keyIsSubdomain(key, z.originKey)) return undefined;
    const node = z.nodes.get(key);
    if (!node || (node.belowCut && !allowBelowCut)) return undefined;
    const set = node.rrsets.get(type);
    if (!set) return undefined;
    if (have.has(id)) return 'have';
    have.add(id);
    const placed = place(key, set);
    out.push(placed);
    return placed;
  };
  const addresses = (key: string, allowBelowCut = false) => {
    add(key, TYPE_A, allowBelowCut);
    add(key, TYPE_AAAA, allowBelowCut);
  };
  /*
   * RFC 9460 section 4.1: "authoritative servers SHOULD return A, AAAA, and
   * SVCB records in the Additional section for any TargetNames that are in
   * the zone". As BIND 9.18 (checked against named): a ServiceMode record
   * brings the A/AAAA of its TargetName ("." is the owner); an AliasMode
   * record brings the target's RRset of the same type (SVCB or HTTPS), itself
   * processed the same way (chains followed up to SVCB_CHAIN_LIMIT), or the
   * target's A/AAAA when it has none.
   */
  const svcb = (s: SectionRRset, depth: number): void => {
    for (const rd of s.rdatas) {
      if (rd.length < 3) continue;
      const priority = (rd[0]! << 8) | rd[1]!;
      const target = nameKeyAt(rd, 2);
      if (target === undefined) continue;
      if (priority !== 0) {
        addresses(target === ROOT_KEY ? s.ownerKey : target);
        continue;
      }
      // AliasMode to "." means the service does not exist (RFC 9460 section 2.5.1).
      if (target === ROOT_KEY) continue;
      const next = add(target, s.type);
      if (next === undefined) addresses(target);
      else if (next !== 'have' && depth < SVCB_CHAIN_LIMIT) svcb(next, depth + 1);
    }
  };
  for (const s of answer) {
    if (s.type === TYPE_NAPTR) {
      for (const rd of s.rdatas) {
        const f = naptrFlagsAndReplacement(rd);
        if (!f || f.replacement === ROOT_KEY) continue;
        if (f.flags.includes('s')) {
          const srv = add(f.replacement, TYPE_SRV);
          if (srv && srv !== 'have') {
            for (const srd of srv.rdatas) {
              const t = targetKey(TYPE_SRV, srd);
              if (t) addresses(t);
            }
          }
        } else if (f.flags.includes('a')) {
          addresses(f.replacement);
        }
      }
    } else if (s.type === TYPE_SVCB || s.type === TYPE_HTTPS) {
      svcb(s, 0);
    } else if (s.type === TYPE_MX || s.type === TYPE_SRV || s.type === TYPE_NS) {
      for (const rd of s.rdatas) {
        const t = targetKey(s.type, rd);
        if (t) addresses(t, s.type === TYPE_NS);
      }
    }
  }
  return out;
}

/** The sections for a lookup result; with `dnssec` (DO) and a signed zone, RRSIGs and proofs too. */
export function planResponse(r: ZoneLookupResult, qtype: number, dnssec = false): ResponsePlan {
  const plan = planPlain(r, qtype);
  return dnssec ? addDnssec(plan, r, qtype) : plan;
}

function planPlain(r: ZoneLookupResult, qtype: number): ResponsePlan {
  const z = r.zone;
  const answer = r.answer.flatMap((p) => placeSplit(p.ownerKey, p.rrset));
  switch (r.kind) {
    case 'answer':
      return {
        rcode: RCODE_NOERROR,
        aa: true,
        answer,
        authority: [],
        // No additional processing for ANY (as BIND: the answer already is everything there is).
        additional: qtype === TYPE_ANY ? [] : additionalFor(z, answer),
      };
    case 'nodata':
      return {
        rcode: RCODE_NOERROR,
        aa: true,
        answer,
        authority: [negativeSoa(z)],
        additional: [],
      };
    case 'nxdomain':
      // RFC 6604 section 3: the RCODE is that of the last name in the chain.
      return {
        rcode: RCODE_NXDOMAIN,
        aa: true,
        answer,
        authority: [negativeSoa(z, qtype)],
        additional: [],
      };
    case 'loop':
      return { rcode: RCODE_SERVFAIL, aa: true, answer, authority: [], additional: [] };
    case 'yxdomain':
      return { rcode: RCODE_YXDOMAIN, aa: true, answer, authority: [], additional: [] };
    case 'cname':
    case 'dname':
      return { rcode: RCODE_NOERROR, aa: true, answer, authority: [], additional: [] };
    case 'referral': {
      // RFC 1034 section 4.3.2 step 3b: the subzone's NS in authority, glue in additional.
      const cut = r.cut!;
      const ns = place(cut.key, cut.ns);
      const additional: SectionRRset[] = [];
      for (const rd of ns.rdatas) {
        const t = targetKey(TYPE_NS, rd);
        if (!t || !keyIsSubdomain(t, z.originKey)) continue;
        const node = z.nodes.get(t);
        if (!node) continue;
        const inDomain = keyIsSubdomain(t, cut.key);
        for (const type of [TYPE_A, TYPE_AAAA]) {
          const set = node.rrsets.get(type);
          if (set && !additional.some((a) => a.ownerKey === t && a.type === type)) {
            additional.push(place(t, set, set.ttl, inDomain));
          }
        }
      }
      // RFC 1034: AA is set only for data from the zone the server is authoritative for.
      return { rcode: RCODE_NOERROR, aa: answer.length > 0, answer, authority: [ns], additional };
    }
  }
}

/** Types whose RDATA names may be compressed (RFC 3597 section 4: the RFC 1035 types). */
function rdataNames(type: number): 'none' | 'one' | 'mx' | 'soa' | 'minfo' {
  switch (type) {
    case TYPE_NS:
    case 3: // MD
    case 4: // MF
    case TYPE_CNAME:
    case 7: // MB
    case 8: // MG
    case 9: // MR
    case 12: // PTR
      return 'one';
    case TYPE_MX:
      return 'mx';
    case TYPE_SOA:
      return 'soa';
    case 14: // MINFO
      return 'minfo';
    default:
      return 'none';
  }
}

/** An encoded response body: the sections after the question. */
export interface EncodedBody {
  readonly rcode: number;
  readonly aa: boolean;
  readonly bytes: Uint8Array;
  readonly ancount: number;
  readonly nscount: number;
  readonly arcount: number;
  /** Per RRset, in order: end offset in `bytes`, section (0 an, 1 ns, 2 ar), record count, required. */
  readonly ends: readonly number[];
  readonly sections: readonly number[];
  readonly counts: readonly number[];
  readonly required: readonly boolean[];
  readonly attached: readonly boolean[];
}

export interface EncodeOptions {
  /** Question names usable as compression targets: every suffix ('all'), or only the given key. */
  readonly questionSuffixes?: 'all' | string;
}

/**
 * Encode the sections that follow a question whose name has key `qkey`;
 * owner names and RFC 1035 RDATA names compressed (RFC 1035 section 4.1.4).
 */
export function encodeBody(
  qkey: string,
  plan: ResponsePlan,
  options: EncodeOptions = {},
): EncodedBody {
  const b: BodyWriter = {
    w: WRITER,
    base: 12 + qkey.length + 4,
    qdict: questionNames(qkey, options.questionSuffixes ?? 'all'),
    dict: new Map(),
  };
  b.w.len = 0;
  const ends: number[] = [];
  const sections: number[] = [];
  const counts: number[] = [];
  const required: boolean[] = [];
  const attached: boolean[] = [];
  const tally = [0, 0, 0];
  // The writer is shared: nothing below may call encodeBody again.
  const all = [plan.answer, plan.authority, plan.additional];
  for (let section = 0; section < 3; section++) {
    for (const set of all[section]!) {
      for (const rd of set.rdatas) writeRecord(b, set, rd);
      tally[section]! += set.rdatas.length;
      ends.push(b.w.len);
      sections.push(section);
      counts.push(set.rdatas.length);
      required.push(set.required === true);
      attached.push(set.attached === true);
    }
  }
  return {
    rcode: plan.rcode,
    aa: plan.aa,
    bytes: BODIES.copy(b.w.buf, b.w.len),
    ancount: tally[0]!,
    nscount: tally[1]!,
    arcount: tally[2]!,
    ends: ends.slice(),
    sections: shared(sections),
    counts: shared(counts),
    required: shared(required),
    attached: shared(attached),
  };
}

/** A body being written, with the names it can point to (RFC 1035 section 4.1.4). */
interface BodyWriter {
  readonly w: ByteWriter;
  /** The body's offset in the message (after the header and the question). */
  readonly base: number;
  /** Question names -> offset: their case is the client's, so only owner names point there. */
  readonly qdict: Map<string, number>;
  /** Names written in the body -> offset (usable by owner and RDATA names). */
  readonly dict: Map<string, number>;
}

/** The suffixes of the question name offered for compression (`EncodeOptions`). */
function questionNames(qkey: string, seed: 'all' | string): Map<string, number> {
  const qdict = new Map<string, number>();
  for (const off of keyLabelOffsets(qkey)) {
    const suffix = qkey.slice(off);
    if (suffix === '\u0000') break;
    if (seed === 'all' || suffix === seed) qdict.set(suffix, 12 + off);
  }
  return qdict;
}

/** One resource record: owner, type, class IN, TTL, RDLENGTH and RDATA. */
function writeRecord(b: BodyWriter, set: SectionRRset, rd: Uint8Array): void {
  const w = b.w;
  writeName(b, set.ownerKey, true);
  w.u16(set.type);
  w.u16(1);
  w.u32(set.ttl >>> 0);
  const lenAt = w.len;
  w.u16(0);
  const start = w.len;
  writeRdata(b, set.type, rd);
  const rdlen = w.len - start;
  w.buf[lenAt] = rdlen >>> 8;
  w.buf[lenAt + 1] = rdlen & 0xff;
}

/** RDATA, its RFC 1035 names compressed (`rdataNames`), the rest copied. */
function writeRdata(b: BodyWriter, type: number, rd: Uint8Array): void {
  const w = b.w;
  const kind = rdataNames(type);
  if (kind === 'none') w.bytes(rd);
  else if (kind === 'one') writeRdataName(b, rd, 0);
  else if (kind === 'mx') {
    w.bytes(rd, 0, Math.min(2, rd.length));
    if (rd.length > 2) writeRdataName(b, rd, 2);
  } else {
    // SOA and MINFO: two names, then (SOA) the numbers.
    const after1 = writeRdataName(b, rd, 0);
    if (after1 < rd.length) {
      const after2 = writeRdataName(b, rd, after1);
      if (after2 < rd.length) w.bytes(rd, after2);
    }
  }
}

/** The name at `o` in RDATA, compressed; returns the offset after it (a bad name: copied to the end). */
function writeRdataName(b: BodyWriter, rd: Uint8Array, o: number): number {
  const n = wireNameLength(rd, o);
  if (n < 0) {
    b.w.bytes(rd, o);
    return rd.length;
  }
  writeName(b, wireToKey(rd, o, o + n), false);
  return o + n;
}

/** A name, as a pointer to its longest suffix already written (or in the question, for owners). */
function writeName(b: BodyWriter, key: string, owner: boolean): void {
  const w = b.w;
  const offs = keyLabelOffsets(key);
  for (const off of offs) {
    const suffix = off === 0 ? key : key.slice(off);
    if (suffix === '\u0000') break;
    const target = (owner ? b.qdict.get(suffix) : undefined) ?? b.dict.get(suffix);
    if (target !== undefined) {
      w.u16(0xc000 | target);
      return;
    }
    const here = b.base + w.len;
    if (here < 0x3fff) b.dict.set(suffix, here);
    const len = key.charCodeAt(off);
    w.u8(len);
    for (let i = off + 1; i <= off + len; i++) w.u8(key.charCodeAt(i));
  }
  w.u8(0);
}

/** One writer for every body (encodeBody is synchronous), not an ArrayBuffer per answer. */
const WRITER = new ByteWriter(512);

/** Body octets are copied into shared 64 KiB blocks: an ArrayBuffer per body costs more than its octets. */
class BodySlab {
  private block = new Uint8Array(0);
  private used = 0;
  copy(src: Uint8Array, len: number): Uint8Array {
    if (len > 4096) return src.slice(0, len);
    if (this.used + len > this.block.length) {
      this.block = new Uint8Array(65536);
      this.used = 0;
    }
    const start = this.used;
    this.block.set(src.subarray(0, len), start);
    this.used = start + len;
    return this.block.subarray(start, start + len);
  }
}
const BODIES = new BodySlab();

/** The small per-RRset arrays of bodies take few distinct values: equal ones are shared, frozen. */
// eslint-disable-next-line no-restricted-syntax -- module state: interned frozen arrays, shared by all zones
const SHARED_ARRAYS = new Map<string, readonly (number | boolean)[]>();
function shared<T extends number | boolean>(a: T[]): readonly T[] {
  const key = a.join(',');
  let s = SHARED_ARRAYS.get(key);
  if (s === undefined) {
    s = Object.freeze(a.slice());
    // Bounded: odd shapes beyond this are kept per body.
    if (SHARED_ARRAYS.size < 4096) SHARED_ARRAYS.set(key, s);
  }
  return s as readonly T[];
}

/** What fits of a body within `limit` octets. */
export interface Fitted {
  length: number;
  ancount: number;
  nscount: number;
  arcount: number;
  tc: boolean;
}

/**
 * Keep whole RRsets while they fit (RFC 2181 section 9): a missing answer or
 * authority RRset, or missing required glue, sets TC; missing additional data does not.
 */
export function fitBody(body: EncodedBody, limit: number, out: Fitted): Fitted {
  out.tc = false;
  if (body.bytes.length <= limit) {
    out.length = body.bytes.length;
    out.ancount = body.ancount;
    out.nscount = body.nscount;
    out.arcount = body.arcount;
    return out;
  }
  const tally = [0, 0, 0];
  let length = 0;
  for (let i = 0; i < body.ends.length; i++) {
    if (body.ends[i]! > limit) {
      if (body.sections[i]! < 2 || body.required[i]) out.tc = true;
      // RFC 4035 section 3.1.1 lets the RRSIGs of additional data go; we drop the
      // RRset with them, so that no signed RRset travels without its signature.
      else if (body.attached[i] && i > 0 && body.sections[i - 1] === 2) {
        tally[2]! -= body.counts[i - 1]!;
        length = i > 1 ? body.ends[i - 2]! : 0;
      }
      break;
    }
    length = body.ends[i]!;
    tally[body.sections[i]!]! += body.counts[i]!;
  }
  if (out.tc) {
    // RFC 2181 section 9 leaves what else to keep to the server; like BIND and
    // Knot we keep only complete answer RRsets, so the client retries over TCP.
    let keep = 0;
    let an = 0;
    for (let i = 0; i < body.ends.length && body.sections[i] === 0 && body.ends[i]! <= limit; i++) {
      keep = body.ends[i]!;
      an += body.counts[i]!;
    }
    out.length = keep;
    out.ancount = an;
    out.nscount = 0;
    out.arcount = 0;
    return out;
  }
  out.length = length;
  out.ancount = tally[0]!;
  out.nscount = tally[1]!;
  out.arcount = tally[2]!;
  return out;
}

/** The 16-bit header flags word of a response (RD and CD copied, RA never set). */
export function responseFlags(queryFlags: number, aa: boolean, tc: boolean, rcode: number): number {
  // QR=1, opcode copied, AA, TC, RD copied, RA=0, Z=0, AD=0, CD copied (RFC 6840 section 5.9).
  return (
    0x8000 |
    (queryFlags & 0x7800) |
    (aa ? 0x0400 : 0) |
    (tc ? 0x0200 : 0) |
    (queryFlags & 0x0100) |
    (queryFlags & 0x0010) |
    (rcode & 0xf)
  );
}
