/**
 * DNS cookies (RFC 7873) with the server cookie of RFC 9018: Version 1 |
 * Reserved | Timestamp | SipHash-2-4(Client Cookie | Version | Reserved |
 * Timestamp | Client-IP, Server Secret). The time and the secret are parameters.
 */
import { addressOctets } from '../../../kit/core/ip.ts';
import { readU32 } from './bytes.ts';

/** 64-bit words as [lo, hi] pairs in one scratch array (SipHash state v0..v3). */
const V = new Uint32Array(8);

function add(a: number, b: number): void {
  const lo = (V[a]! + V[b]!) >>> 0;
  V[a + 1] = (V[a + 1]! + V[b + 1]! + (lo < V[a]! ? 1 : 0)) >>> 0;
  V[a] = lo;
}

function rotl(a: number, n: number): void {
  let lo = V[a]!;
  let hi = V[a + 1]!;
  if (n >= 32) {
    const t = lo;
    lo = hi;
    hi = t;
    n -= 32;
  }
  if (n > 0) {
    const nlo = ((lo << n) | (hi >>> (32 - n))) >>> 0;
    hi = ((hi << n) | (lo >>> (32 - n))) >>> 0;
    lo = nlo;
  }
  V[a] = lo;
  V[a + 1] = hi;
}

function xor(a: number, b: number): void {
  V[a] = (V[a]! ^ V[b]!) >>> 0;
  V[a + 1] = (V[a + 1]! ^ V[b + 1]!) >>> 0;
}

const V0 = 0;
const V1 = 2;
const V2 = 4;
const V3 = 6;

function sipRound(): void {
  add(V0, V1);
  rotl(V1, 13);
  xor(V1, V0);
  rotl(V0, 32);
  add(V2, V3);
  rotl(V3, 16);
  xor(V3, V2);
  add(V0, V3);
  rotl(V3, 21);
  xor(V3, V0);
  add(V2, V1);
  rotl(V1, 17);
  xor(V1, V2);
  rotl(V2, 32);
}

function le32(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

function compress(mlo: number, mhi: number): void {
  V[V3] = (V[V3]! ^ mlo) >>> 0;
  V[V3 + 1] = (V[V3 + 1]! ^ mhi) >>> 0;
  sipRound();
  sipRound();
  V[V0] = (V[V0]! ^ mlo) >>> 0;
  V[V0 + 1] = (V[V0 + 1]! ^ mhi) >>> 0;
}

/** SipHash-2-4 of `msg` under a 16-octet key; the 8-octet result (little-endian, as the reference). */
export function sipHash24(key: Uint8Array, msg: Uint8Array): Uint8Array {
  const k0lo = le32(key, 0);
  const k0hi = le32(key, 4);
  const k1lo = le32(key, 8);
  const k1hi = le32(key, 12);
  V[0] = (k0lo ^ 0x70736575) >>> 0;
  V[1] = (k0hi ^ 0x736f6d65) >>> 0;
  V[2] = (k1lo ^ 0x6e646f6d) >>> 0;
  V[3] = (k1hi ^ 0x646f7261) >>> 0;
  V[4] = (k0lo ^ 0x6e657261) >>> 0;
  V[5] = (k0hi ^ 0x6c796765) >>> 0;
  V[6] = (k1lo ^ 0x79746573) >>> 0;
  V[7] = (k1hi ^ 0x74656462) >>> 0;
  const n = msg.length;
  const whole = n - (n % 8);
  for (let i = 0; i < whole; i += 8) compress(le32(msg, i), le32(msg, i + 4));
  const last = new Uint8Array(8);
  last.set(msg.subarray(whole));
  last[7] = n & 0xff;
  compress(le32(last, 0), le32(last, 4));
  V[V2] = (V[V2]! ^ 0xff) >>> 0;
  for (let r = 0; r < 4; r++) sipRound();
  const lo = (V[0]! ^ V[2]! ^ V[4]! ^ V[6]!) >>> 0;
  const hi = (V[1]! ^ V[3]! ^ V[5]! ^ V[7]!) >>> 0;
  const out = new Uint8Array(8);
  for (let i = 0; i < 4; i++) {
    out[i] = (lo >>> (8 * i)) & 0xff;
    out[4 + i] = (hi >>> (8 * i)) & 0xff;
  }
  return out;
}

/** Length of an RFC 9018 server cookie. */
export const SERVER_COOKIE_LENGTH = 16;
/** RFC 9018 section 4.3: a cookie is valid from 1 hour in the past to 5 minutes in the future. */
const MAX_AGE = 3600;
const MAX_FUTURE = 300;
/** RFC 9018 section 4.3: make a new cookie when the client's is older than half an hour. */
const RENEW_AGE = 1800;

/** The RFC 9018 server cookie for a client cookie (8 octets), client address (4 or 16 octets) and time. */
export function makeServerCookie(
  secret: Uint8Array,
  clientCookie: Uint8Array,
  clientIp: Uint8Array,
  nowSeconds: number,
): Uint8Array {
  const ts = nowSeconds >>> 0;
  const msg = new Uint8Array(8 + 8 + clientIp.length);
  msg.set(clientCookie.subarray(0, 8), 0);
  msg[8] = 1; // Version 1, Reserved 0
  msg[12] = ts >>> 24;
  msg[13] = (ts >>> 16) & 0xff;
  msg[14] = (ts >>> 8) & 0xff;
  msg[15] = ts & 0xff;
  msg.set(clientIp, 16);
  const out = new Uint8Array(SERVER_COOKIE_LENGTH);
  out.set(msg.subarray(8, 16), 0);
  out.set(sipHash24(secret, msg), 8);
  return out;
}

export type ServerCookieCheck = 'valid' | 'renew' | 'invalid';

/** A server cookie sent back: 'valid', 'renew' (older than half an hour), 'invalid' (RFC 1982 time window). */
export function checkServerCookie(
  secret: Uint8Array,
  clientCookie: Uint8Array,
  serverCookie: Uint8Array,
  clientIp: Uint8Array,
  nowSeconds: number,
): ServerCookieCheck {
  if (serverCookie.length !== SERVER_COOKIE_LENGTH || serverCookie[0] !== 1) return 'invalid';
  const ts = readU32(serverCookie, 4);
  const age = ((nowSeconds >>> 0) - ts) | 0; // RFC 1982 difference
  if (age > MAX_AGE || age < -MAX_FUTURE) return 'invalid';
  const expected = makeServerCookie(secret, clientCookie, clientIp, ts);
  let diff = 0;
  for (let i = 0; i < SERVER_COOKIE_LENGTH; i++) diff |= expected[i]! ^ serverCookie[i]!;
  if (diff !== 0) return 'invalid';
  return age > RENEW_AGE ? 'renew' : 'valid';
}

/** `addressOctets`, empty when the text is not an address. */
export function ipBytes(text: string): Uint8Array {
  return addressOctets(text) ?? new Uint8Array(0);
}
