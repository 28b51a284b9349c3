/**
 * DNSSEC record forms (RFC 4034): key tags, DNSKEY/DS RDATA, canonical form
 * (section 6), the RRSIG signing input (section 3.1.8.1), NSEC type bitmaps
 * (section 4.1.2). Pure: signing is passed in.
 */
import { keyToWire, nameKey } from '../../dns/core/wire/name.ts';
import { compareBytes } from '../../kit/core/bytes.ts';
import { LAYOUTS } from '../../xfr/core/read.ts';

export const ALG_RSASHA256 = 8;
export const ALG_ECDSAP256SHA256 = 13;
export const ALG_ED25519 = 15;

/** DNSKEY flags of a KSK or CSK: Zone Key (256) plus Secure Entry Point (1). */
export const FLAGS_KSK = 257;

/** DNSKEY RDATA: flags, protocol 3, algorithm, public key (RFC 4034 section 2.1). */
export function dnskeyRdata(flags: number, algorithm: number, publicKey: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + publicKey.length);
  out[0] = flags >>> 8;
  out[1] = flags & 0xff;
  out[2] = 3;
  out[3] = algorithm;
  out.set(publicKey, 4);
  return out;
}

/** The key tag of a DNSKEY RDATA (RFC 4034 appendix B; algorithm 1 is not handled). */
export function keyTag(rdata: Uint8Array): number {
  let ac = 0;
  for (let i = 0; i < rdata.length; i++) ac += i & 1 ? rdata[i]! : rdata[i]! << 8;
  ac += (ac >>> 16) & 0xffff;
  return ac & 0xffff;
}

/** Lowercase the uncompressed name at `o` in place; returns the offset after it, or -1. */
function lowerName(rd: Uint8Array, o: number): number {
  let i = o;
  while (i < rd.length) {
    const len = rd[i]!;
    if (len === 0) return i + 1;
    if (len & 0xc0) return -1;
    for (let k = i + 1; k <= i + len && k < rd.length; k++) {
      const c = rd[k]!;
      if (c >= 0x41 && c <= 0x5a) rd[k] = c | 0x20;
    }
    i += 1 + len;
  }
  return -1;
}

/**
 * The canonical RDATA (RFC 4034 section 6.2 item 3, as amended by RFC 6840
 * section 5.1: NSEC's next name is not lowercased, HINFO has no names): the
 * names of the types with names (`LAYOUTS`) and RRSIG's signer in lowercase.
 */
export function canonicalRdata(type: number, rdata: Uint8Array): Uint8Array {
  const rd = rdata.slice();
  if (type === 46) lowerName(rd, 18);
  let p = 0;
  for (const step of LAYOUTS[type] ?? '') {
    if (step === 'N') p = lowerName(rd, p);
    else if (step === 's') p += 1 + rd[p]!;
    else if (step !== '*') p += Number(step);
    if (p < 0 || p >= rd.length) break;
  }
  return rd;
}

/** The RRSIG fields before the signature (RFC 4034 section 3.1). */
export interface RrsigHeader {
  readonly typeCovered: number;
  readonly algorithm: number;
  readonly labels: number;
  readonly originalTtl: number;
  readonly expiration: number;
  readonly inception: number;
  readonly keyTag: number;
  /** The signer's name (the zone apex), absolute presentation form. */
  readonly signer: string;
}

/** RRSIG RDATA up to the signer's name (lowercased wire form). */
export function rrsigHeaderBytes(h: RrsigHeader): Uint8Array {
  const signer = keyToWire(nameKey(h.signer));
  const out = new Uint8Array(18 + signer.length);
  const v = new DataView(out.buffer);
  v.setUint16(0, h.typeCovered);
  out[2] = h.algorithm;
  out[3] = h.labels;
  v.setUint32(4, h.originalTtl >>> 0);
  v.setUint32(8, h.expiration >>> 0);
  v.setUint32(12, h.inception >>> 0);
  v.setUint16(16, h.keyTag);
  out.set(signer, 18);
  return out;
}

/** Labels of an owner for RRSIG: the root and a leading `*` not counted (RFC 4034 section 3.1.3). */
export function rrsigLabels(ownerKey: string): number {
  let n = 0;
  let i = 0;
  while (i < ownerKey.length && ownerKey.charCodeAt(i) !== 0) {
    n++;
    i += 1 + ownerKey.charCodeAt(i);
  }
  return ownerKey.startsWith('\u0001*') ? n - 1 : n;
}

/** The octets an RRSIG signs (RFC 4034 section 3.1.8.1): header, then the RRset in canonical order. */
export function signingInput(
  header: Uint8Array,
  ownerKey: string,
  type: number,
  klass: number,
  ttl: number,
  rdatas: readonly Uint8Array[],
): Uint8Array {
  const owner = keyToWire(ownerKey);
  const canon = rdatas.map((r) => canonicalRdata(type, r)).sort(compareBytes);
  const unique = canon.filter((r, i) => i === 0 || compareBytes(r, canon[i - 1]!) !== 0);
  let size = header.length;
  for (const r of unique) size += owner.length + 10 + r.length;
  const out = new Uint8Array(size);
  out.set(header, 0);
  let o = header.length;
  for (const r of unique) {
    out.set(owner, o);
    o += owner.length;
    out[o++] = type >>> 8;
    out[o++] = type & 0xff;
    out[o++] = klass >>> 8;
    out[o++] = klass & 0xff;
    out[o++] = (ttl >>> 24) & 0xff;
    out[o++] = (ttl >>> 16) & 0xff;
    out[o++] = (ttl >>> 8) & 0xff;
    out[o++] = ttl & 0xff;
    out[o++] = r.length >>> 8;
    out[o++] = r.length & 0xff;
    out.set(r, o);
    o += r.length;
  }
  return out;
}

/** The type bitmap of NSEC/NSEC3 (RFC 4034 section 4.1.2): windows of 256 types. */
export function typeBitmap(types: Iterable<number>): Uint8Array {
  const sorted = [...new Set(types)].sort((a, b) => a - b);
  const parts: number[] = [];
  let i = 0;
  while (i < sorted.length) {
    const win = sorted[i]! >>> 8;
    const bits = new Uint8Array(32);
    let len = 0;
    while (i < sorted.length && sorted[i]! >>> 8 === win) {
      const low = sorted[i]! & 0xff;
      bits[low >>> 3] = bits[low >>> 3]! | (0x80 >>> (low & 7));
      len = (low >>> 3) + 1;
      i++;
    }
    parts.push(win, len, ...bits.subarray(0, len));
  }
  return Uint8Array.from(parts);
}
