/**
 * A growable big-endian byte buffer for encoding wire data. The octets
 * written are `buf.subarray(0, len)`; callers may patch `buf` below `len` (an
 * RDLENGTH after its RDATA) and rewind by setting `len`.
 */
export class ByteWriter {
  buf: Uint8Array;
  len = 0;

  constructor(initialSize = 512) {
    this.buf = new Uint8Array(initialSize);
  }

  reset(): void {
    this.len = 0;
  }

  /** Room for `extra` more octets (the buffer at least doubles when it grows). */
  ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + extra));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.len++] = v;
  }

  u16(v: number): void {
    this.ensure(2);
    this.buf[this.len++] = v >>> 8;
    this.buf[this.len++] = v & 0xff;
  }

  u32(v: number): void {
    this.ensure(4);
    this.buf[this.len++] = v >>> 24;
    this.buf[this.len++] = (v >>> 16) & 0xff;
    this.buf[this.len++] = (v >>> 8) & 0xff;
    this.buf[this.len++] = v & 0xff;
  }

  /** Octets `start` to `end` of `b`. */
  bytes(b: Uint8Array, start = 0, end = b.length): void {
    this.ensure(end - start);
    this.buf.set(b.subarray(start, end), this.len);
    this.len += end - start;
  }
}

export const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
export const BASE64URL_ALPHABET = BASE64_ALPHABET.slice(0, 62) + '-_';

/** Base64 of `bytes` (RFC 4648 section 4, padded); `url`: base64url without padding (section 5). */
export function toBase64(bytes: Uint8Array, url = false): string {
  const abc = url ? BASE64URL_ALPHABET : BASE64_ALPHABET;
  let s = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    s += abc[n >> 18]! + abc[(n >> 12) & 63]! + abc[(n >> 6) & 63]! + abc[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest > 0) {
    const n = (bytes[i]! << 16) | ((rest > 1 ? bytes[i + 1]! : 0) << 8);
    s += abc[n >> 18]! + abc[(n >> 12) & 63]! + (rest > 1 ? abc[(n >> 6) & 63]! : '');
    if (!url) s += rest > 1 ? '=' : '==';
  }
  return s;
}

/** The unsigned 16-bit integer at `o` (network order). */
export function readU16(b: Uint8Array, o: number): number {
  return (b[o]! << 8) | b[o + 1]!;
}

/** The unsigned 32-bit integer at `o` (network order). */
export function readU32(b: Uint8Array, o: number): number {
  return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
}
