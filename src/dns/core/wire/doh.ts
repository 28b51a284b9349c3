/**
 * DNS over HTTPS (RFC 8484) without I/O: the unpadded base64url `dns` GET
 * parameter (section 4.1) and a response's freshness lifetime (section 5.1).
 */
import { TYPE_OPT, TYPE_SOA } from '../rr/types.ts';
import { BASE64URL_ALPHABET, readU16, readU32, toBase64 } from './bytes.ts';
import { skipName } from './query.ts';

const VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) VALUES[BASE64URL_ALPHABET.charCodeAt(i)] = i;

/** Unpadded base64url of `bytes` (RFC 4648 section 5). */
export function base64UrlEncode(bytes: Uint8Array): string {
  return toBase64(bytes, true);
}

export interface Base64UrlError {
  readonly code: 'DOH_BAD_BASE64URL';
  readonly message: string;
  /** Zero-based offset of the offending character in the text. */
  readonly offset: number;
}

/** Decode base64url (padding at the very end tolerated); an error with its offset otherwise. */
export function base64UrlDecode(text: string): Uint8Array | Base64UrlError {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61 /* = */ && text.length - end < 2) end--;
  if (end % 4 === 1) {
    return {
      code: 'DOH_BAD_BASE64URL',
      message: `base64url text of ${end} characters cannot encode whole octets`,
      offset: end - 1,
    };
  }
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? (VALUES[c] as number) : -1;
    if (v < 0) {
      return {
        code: 'DOH_BAD_BASE64URL',
        message: `character ${JSON.stringify(text[i])} is not base64url`,
        offset: i,
      };
    }
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}

/**
 * The freshness lifetime (s) of a response: the smallest TTL of its answer
 * and authority records, with no answer at most the SOA MINIMUM; undefined
 * when it holds no record (not to be cached).
 */
export function dohFreshness(msg: Uint8Array): number | undefined {
  if (msg.length < 12) return undefined;
  const qd = readU16(msg, 4);
  const an = readU16(msg, 6);
  const ns = readU16(msg, 8);
  let p = 12;
  for (let i = 0; i < qd; i++) {
    p = skipName(msg, p, msg.length);
    if (p < 0 || p + 4 > msg.length) return undefined;
    p += 4;
  }
  let min: number | undefined;
  for (let i = 0; i < an + ns; i++) {
    p = skipName(msg, p, msg.length);
    if (p < 0 || p + 10 > msg.length) return min;
    const type = readU16(msg, p);
    const ttl = readU32(msg, p + 4);
    const rdlength = readU16(msg, p + 8);
    const rdata = p + 10;
    if (rdata + rdlength > msg.length) return min;
    if (type !== TYPE_OPT) {
      min = min === undefined ? ttl : Math.min(min, ttl);
      if (type === TYPE_SOA && i >= an && an === 0) {
        // SOA RDATA: MNAME, RNAME, then SERIAL REFRESH RETRY EXPIRE MINIMUM.
        let q = skipName(msg, rdata, msg.length);
        q = q < 0 ? -1 : skipName(msg, q, msg.length);
        if (q >= 0 && q + 20 <= rdata + rdlength) min = Math.min(min, readU32(msg, q + 16));
      }
    }
    p = rdata + rdlength;
  }
  return min;
}
