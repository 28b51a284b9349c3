/**
 * A response as the validator reads it: answer and authority records with
 * uncompressed RDATA (case kept, RFC 4034 section 6.2), grouped into RRsets
 * with their RRSIGs.
 */
import { readRecords, readWireName, type XfrRr } from '../../../xfr/core/read.ts';
import { readU16 as u16, readU32 as u32 } from '../../../dns/core/wire/bytes.ts';
import { wireToKey } from '../../../dns/core/wire/name.ts';
import { canonicalRdata, type RrsigHeader } from '../records.ts';

export const T_CNAME = 5;
export const T_SOA = 6;
export const T_NS = 2;
export const T_DNAME = 39;
export const T_DS = 43;
export const T_RRSIG = 46;
export const T_NSEC = 47;
export const T_DNSKEY = 48;
export const T_NSEC3 = 50;

export interface ReadResponse {
  readonly rcode: number;
  readonly answer: readonly XfrRr[];
  readonly authority: readonly XfrRr[];
}

/** An RRset and the RRSIGs over it found beside it. */
export interface SignedSet {
  readonly key: string;
  readonly type: number;
  readonly records: readonly XfrRr[];
  readonly sigs: readonly XfrRr[];
}

/** The answer and authority sections of a response; undefined when it does not decode. */
export function readResponse(msg: Uint8Array): ReadResponse | undefined {
  try {
    if (msg.length < 12) return undefined;
    let p = 12;
    for (let i = 0; i < u16(msg, 4); i++) {
      p = readWireName(msg, p)[1] + 4;
      if (p > msg.length) return undefined;
    }
    const answer: XfrRr[] = [];
    const authority: XfrRr[] = [];
    p = readRecords(msg, p, u16(msg, 6), answer);
    readRecords(msg, p, u16(msg, 8), authority);
    return { rcode: msg[3]! & 0x0f, answer, authority };
  } catch {
    return undefined;
  }
}

export function coveredType(rrsig: Uint8Array): number {
  return rrsig.length >= 2 ? u16(rrsig, 0) : -1;
}

/** The RRsets of a section, each with its RRSIGs (RRSIGs themselves are not sets). */
export function signedSets(records: readonly XfrRr[]): SignedSet[] {
  const sets = new Map<string, { key: string; type: number; records: XfrRr[]; sigs: XfrRr[] }>();
  const sigs: XfrRr[] = [];
  for (const r of records) {
    if (r.type === T_RRSIG) {
      sigs.push(r);
      continue;
    }
    const id = `${r.type} ${r.key}`;
    let s = sets.get(id);
    if (!s) sets.set(id, (s = { key: r.key, type: r.type, records: [], sigs: [] }));
    s.records.push(r);
  }
  for (const g of sigs) sets.get(`${coveredType(g.rdata)} ${g.key}`)?.sigs.push(g);
  return [...sets.values()];
}

/** The RRSIG fields the validator reads (RFC 4034 section 3.1). */
export interface RrsigFields extends Omit<RrsigHeader, 'signer'> {
  /** The signer's name, as a lookup key. */
  readonly signer: string;
  /** The RDATA before the signature (what the signing input starts with, signer lowercased). */
  readonly header: Uint8Array;
  readonly signature: Uint8Array;
}

/** The fields of an RRSIG RDATA, or undefined when it is malformed. */
export function rrsigFields(rd: Uint8Array): RrsigFields | undefined {
  if (rd.length < 19) return undefined;
  let i = 18;
  while (i < rd.length && rd[i] !== 0) {
    if (rd[i]! > 63) return undefined;
    i += 1 + rd[i]!;
  }
  if (i >= rd.length) return undefined;
  const header = canonicalRdata(T_RRSIG, rd.subarray(0, i + 1));
  return {
    typeCovered: u16(rd, 0),
    algorithm: rd[2]!,
    labels: rd[3]!,
    originalTtl: u32(rd, 4),
    expiration: u32(rd, 8),
    inception: u32(rd, 12),
    keyTag: u16(rd, 16),
    signer: wireToKey(rd, 18, i + 1),
    header,
    signature: rd.subarray(i + 1),
  };
}
