/** IP prefixes (`192.0.2.0/24`, `2001:db8::/32`) as octets, for prefix lists and RRL. */
import { addressOctets } from '../kit/core/ip.ts';

export interface Cidr {
  readonly v6: boolean;
  readonly bytes: Uint8Array;
  readonly bits: number;
}

/** Parse `ADDR/BITS` or `ADDR`; an error message when invalid. */
export function parseCidr(text: string): Cidr | string {
  const slash = text.indexOf('/');
  const addr = slash < 0 ? text : text.slice(0, slash);
  const bytes = addressOctets(addr);
  if (!bytes) return `"${text}" is not an IP address or prefix`;
  const max = bytes.length * 8;
  const bits = slash < 0 ? max : Number(text.slice(slash + 1));
  if (!Number.isInteger(bits) || bits < 0 || bits > max) {
    return `"${text}": prefix length must be 0 to ${max}`;
  }
  return { v6: bytes.length === 16, bytes, bits };
}

export function inCidr(bytes: Uint8Array, c: Cidr): boolean {
  if ((bytes.length === 16) !== c.v6) return false;
  let bits = c.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i]! & mask) !== (c.bytes[i]! & mask)) return false;
  }
  return true;
}
