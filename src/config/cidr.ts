/**
 * IP addresses and prefixes (`192.0.2.0/24`, `2001:db8::/32`) as octets, for
 * the configuration's prefix lists and the rate limiter's client prefixes.
 */
export interface Cidr {
  readonly v6: boolean;
  readonly bytes: Uint8Array;
  readonly bits: number;
}

/** IPv4 text to 4 octets, or undefined. */
function v4Bytes(text: string): Uint8Array | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return undefined;
  const b = m.slice(1).map(Number);
  if (b.some((o) => o > 255)) return undefined;
  return Uint8Array.from(b);
}

/** IPv6 text (with `::`, and an IPv4 tail) to 16 octets, or undefined. */
function v6Bytes(text: string): Uint8Array | undefined {
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (g.includes('.')) {
        const v4 = v4Bytes(g);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(g)) out.push(parseInt(g, 16));
      else return undefined;
    }
    return out;
  };
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  if (!head || !tail) return undefined;
  const fill = 8 - head.length - tail.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return undefined;
  const words = [...head, ...new Array<number>(fill).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}

/** An address's octets (IPv4-mapped IPv6 as IPv4). */
export function addressBytes(address: string): Uint8Array | undefined {
  if (!address.includes(':')) return v4Bytes(address);
  const b = v6Bytes(address);
  if (b && b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) {
    return b.slice(12);
  }
  return b;
}

/** Parse `ADDR/BITS` or `ADDR`; an error message when invalid. */
export function parseCidr(text: string): Cidr | string {
  const slash = text.indexOf('/');
  const addr = slash < 0 ? text : text.slice(0, slash);
  const bytes = addressBytes(addr);
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
