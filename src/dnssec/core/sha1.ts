/**
 * SHA-1 (FIPS 180-4) for NSEC3 hashing in the pure core (RFC 5155 section
 * 5), where node:crypto is not reachable.
 */

const W = new Int32Array(80);

/** The 20-octet SHA-1 digest of `data`. */
export function sha1(data: Uint8Array): Uint8Array {
  const bitLen = data.length * 8;
  const padded = new Uint8Array(((data.length + 9 + 63) >> 6) << 6);
  padded.set(data);
  padded[data.length] = 0x80;
  const n = padded.length;
  // Lengths here stay far below 2^32 bits.
  padded[n - 4] = (bitLen >>> 24) & 0xff;
  padded[n - 3] = (bitLen >>> 16) & 0xff;
  padded[n - 2] = (bitLen >>> 8) & 0xff;
  padded[n - 1] = bitLen & 0xff;
  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  for (let off = 0; off < n; off += 64) {
    for (let i = 0; i < 16; i++) {
      const o = off + i * 4;
      W[i] = (padded[o]! << 24) | (padded[o + 1]! << 16) | (padded[o + 2]! << 8) | padded[o + 3]!;
    }
    for (let i = 16; i < 80; i++) {
      const x = W[i - 3]! ^ W[i - 8]! ^ W[i - 14]! ^ W[i - 16]!;
      W[i] = (x << 1) | (x >>> 31);
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let i = 0; i < 80; i++) {
      let f: number;
      let k: number;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdc | 0;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6 | 0;
      }
      const t = (((a << 5) | (a >>> 27)) + f + e + k + W[i]!) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  const out = new Uint8Array(20);
  const hs = [h0, h1, h2, h3, h4];
  for (let i = 0; i < 5; i++) {
    const h = hs[i]!;
    out[i * 4] = (h >>> 24) & 0xff;
    out[i * 4 + 1] = (h >>> 16) & 0xff;
    out[i * 4 + 2] = (h >>> 8) & 0xff;
    out[i * 4 + 3] = h & 0xff;
  }
  return out;
}

const B32HEX = '0123456789abcdefghijklmnopqrstuv';

/** Lowercase base32hex without padding (RFC 4648 section 7), as NSEC3 owner labels are written. */
export function base32hexLower(b: Uint8Array): string {
  let out = '';
  let buf = 0;
  let bits = 0;
  for (const x of b) {
    buf = (buf << 8) | x;
    bits += 8;
    while (bits >= 5) {
      out += B32HEX[(buf >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buf &= (1 << bits) - 1;
  }
  if (bits > 0) out += B32HEX[(buf << (5 - bits)) & 31];
  return out;
}

/**
 * RFC 5155 section 5: IH(salt, x, 0) = H(x || salt);
 * IH(salt, x, k) = H(IH(salt, x, k-1) || salt). `owner` is the name in
 * canonical (lowercased, uncompressed) wire form.
 */
export function nsec3Hash(owner: Uint8Array, salt: Uint8Array, iterations: number): Uint8Array {
  const cat = (x: Uint8Array) => {
    const b = new Uint8Array(x.length + salt.length);
    b.set(x);
    b.set(salt, x.length);
    return b;
  };
  let h = sha1(cat(owner));
  for (let i = 0; i < iterations; i++) h = sha1(cat(h));
  return h;
}
