/**
 * RDATA of RRSIG, NSEC (RFC 4034), NSEC3, NSEC3PARAM (RFC 5155), CSYNC
 * (RFC 7477) and ZONEMD (RFC 8976): the DNSSEC types and those sharing the
 * type bitmap (RFC 4034 sections 4.1.2, 4.2; TYPEnnn for types without a
 * mnemonic). Choices, as BIND unless said:
 * - RRSIG times (RFC 4034 section 3.2): seconds or YYYYMMDDHHmmSS; a date
 *   past 2106 wraps modulo 2^32 (Knot stops at 2225); printed as a date.
 * - NSEC3 salt in hex or `-`; the next hashed owner in base32hex, padding
 *   read (Knot writes it) and not printed; an SHA-1 hash is 20 octets.
 * - ZONEMD digests: SHA384 48 octets, SHA512 64, none under 12 (Knot takes 1).
 */
import type { Lexer } from '../../zone/lexer.ts';
import { TOKEN_QUOTED } from '../../zone/lexer.ts';
import { nameToText, wireNameLength } from '../../zone/names.ts';
import {
  algorithmNumber,
  base64Tokens,
  extra,
  fail,
  isError,
  numberToken,
  parseTtl,
  parseUint,
  typeNumber,
  readU16,
  readU32,
  toBase64,
  toHex,
  writeHexToken,
  writeNameToken,
  type ByteWriter,
  type RdataCodec,
  type RdataError,
} from './layout.ts';
import { typeName } from '../types.ts';
import { base32hexLower } from '../../../../dnssec/core/sha1.ts';

/** Type bitmap from tokens `t..count-1` (RFC 4034 section 4.1.2). */
function writeBitmap(lex: Lexer, t: number, w: ByteWriter): RdataError | undefined {
  const windows: (Uint8Array | undefined)[] = [];
  for (; t < lex.count; t++) {
    const v =
      lex.flags[t]! & TOKEN_QUOTED ? -1 : typeNumber(lex.text, lex.starts[t]!, lex.ends[t]!);
    if (v < 0)
      return fail(
        'ZONE_BAD_TYPE',
        'expected a type mnemonic or TYPEnnn (0-65535) in the type bitmap',
        t,
      );
    const win = (windows[v >> 8] ??= new Uint8Array(32));
    win[(v & 255) >> 3]! |= 0x80 >> (v & 7);
  }
  for (let n = 0; n < 256; n++) {
    const win = windows[n];
    if (!win) continue;
    let len = 32;
    while (win[len - 1] === 0) len--;
    w.u8(n);
    w.u8(len);
    w.bytes(win, 0, len);
  }
  return undefined;
}

function bitmapProblem(b: Uint8Array, p: number): string | undefined {
  let last = -1;
  while (p < b.length) {
    if (p + 2 > b.length) return 'truncated type bitmap';
    const win = b[p]!;
    const len = b[p + 1]!;
    if (win <= last) return 'type bitmap windows out of order (RFC 4034 section 4.1.2)';
    if (len < 1 || len > 32) return 'type bitmap window length is 1-32';
    if (p + 2 + len > b.length) return 'truncated type bitmap';
    if (b[p + 1 + len] === 0)
      return 'trailing zero octet in a type bitmap window (RFC 4034 section 4.1.2)';
    last = win;
    p += 2 + len;
  }
  return undefined;
}

function bitmapText(b: Uint8Array, p: number): string[] {
  const out: string[] = [];
  while (p < b.length) {
    const win = b[p]!;
    const len = b[p + 1]!;
    for (let i = 0; i < len; i++)
      for (let bit = 0; bit < 8; bit++)
        if (b[p + 2 + i]! & (0x80 >> bit)) out.push(typeName(win * 256 + i * 8 + bit));
    p += 2 + len;
  }
  return out;
}

function algorithmToken(lex: Lexer, t: number): number | RdataError {
  if (t >= lex.count) return fail('ZONE_MISSING_RDATA', 'RDATA is missing its algorithm', -1);
  let v =
    lex.flags[t]! & TOKEN_QUOTED ? -1 : parseUint(lex.text, lex.starts[t]!, lex.ends[t]!, 255);
  if (v === -1) v = algorithmNumber(lex.token(t));
  if (v < 0)
    return fail('ZONE_BAD_NUMBER', 'expected a DNSSEC algorithm number 0-255 or mnemonic', t);
  return v;
}

/** Hex salt in one token, or `-` for none; writes the length octet. */
function saltToken(lex: Lexer, t: number, w: ByteWriter): RdataError | undefined {
  if (t >= lex.count) return fail('ZONE_MISSING_RDATA', 'RDATA is missing its salt (hex or -)', -1);
  const s = lex.starts[t]!;
  const e = lex.ends[t]!;
  if (e - s === 1 && lex.text.charCodeAt(s) === 0x2d) {
    w.u8(0);
    return undefined;
  }
  if ((e - s) % 2 !== 0 || e === s || e - s > 510)
    return fail(
      'ZONE_BAD_HEX',
      'the salt is hexadecimal octets (at most 255) or - (RFC 5155 section 3.3)',
      t,
    );
  w.u8((e - s) / 2);
  if (!writeHexToken(lex.text, s, e, w))
    return fail('ZONE_BAD_HEX', 'the salt is hexadecimal octets or - (RFC 5155 section 3.3)', t);
  return undefined;
}

const B32HEX = '0123456789ABCDEFGHIJKLMNOPQRSTUV';

/** Base32hex (RFC 4648 section 7) of one token, padded or not; undefined when malformed. */
function base32hex(text: string, s: number, e: number): number[] | undefined {
  let end = e;
  while (end > s && text.charCodeAt(end - 1) === 0x3d) end--;
  const padded = end < e;
  if (padded && (e - s) % 8 !== 0) return undefined;
  const n = end - s;
  if ([1, 3, 6].includes(n % 8) || n === 0) return undefined;
  if (padded && e - end !== [0, -1, 6, -1, 4, 3, -1, 1][n % 8]) return undefined;
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (let i = s; i < end; i++) {
    const v = B32HEX.indexOf(text[i]!.toUpperCase());
    if (v < 0) return undefined;
    acc = ((acc << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 255);
    }
  }
  return out;
}

/** A time: 14 digits YYYYMMDDHHmmSS (UTC, modulo 2^32) or seconds; -1 when malformed, -2 out of range. */
function timeValue(text: string, s: number, e: number): number {
  if (e - s !== 14) return parseUint(text, s, e, 0xffffffff);
  // YYYY, then MM, DD, HH, mm, SS of two digits.
  const fields = [0, 4, 6, 8, 10, 12].map((a) => parseUint(text, s + a, s + (a || 2) + 2, 9999));
  if (fields.some((v) => v < 0)) return -1;
  const [y, mo, d, h, mi, se] = fields as [number, number, number, number, number, number];
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (mo < 1 || mo > 12 || d < 1 || d > days[mo - 1]! || h > 23 || mi > 59 || se > 59) return -2;
  const secs = Date.UTC(y, mo - 1, d, h, mi, se) / 1000;
  // Date.UTC maps years 0-99 to 1900-1999; such dates are out of any signature's range.
  if (y < 1900) return -2;
  return ((secs % 2 ** 32) + 2 ** 32) % 2 ** 32;
}

function timeText(v: number): string {
  const d = new Date(v * 1000);
  const p = (n: number, l = 2) => String(n).padStart(l, '0');
  return `${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

/** Labels of the wire name at `p`, the root not counted. */
function labelCount(b: Uint8Array, p: number): number {
  let n = 0;
  while (b[p]! !== 0) {
    n++;
    p += b[p]! + 1;
  }
  return n;
}

/** An NSEC bitmap lists at least NSEC itself, so an empty one is refused (as BIND; Knot reads it). */
const NSEC_EMPTY =
  'an NSEC type bitmap lists at least the types at its owner name (NSEC, RRSIG; RFC 4034 section 4.1.2)';

export const NSEC_CODEC: RdataCodec = {
  parse(lex, first, origin, w) {
    const problem = writeNameToken(lex, first, origin, w);
    if (problem) return problem;
    if (first + 1 >= lex.count) return fail('ZONE_MISSING_RDATA', NSEC_EMPTY, -1);
    return writeBitmap(lex, first + 1, w);
  },
  check(b) {
    const n = wireNameLength(b, 0, b.length);
    if (n < 0) return 'malformed next domain name';
    return n === b.length ? NSEC_EMPTY : bitmapProblem(b, n);
  },
  print(b) {
    return [nameToText(b, 0, false), ...bitmapText(b, wireNameLength(b, 0, b.length))].join(' ');
  },
};

export const CSYNC_CODEC: RdataCodec = {
  parse(lex, first, _origin, w) {
    const serial = numberToken(lex, first, 0xffffffff, 'SOA serial');
    if (isError(serial)) return serial;
    const flags = numberToken(lex, first + 1, 65535, 'flags');
    if (isError(flags)) return flags;
    w.u32(serial);
    w.u16(flags);
    return writeBitmap(lex, first + 2, w);
  },
  check: (b) => (b.length < 6 ? 'truncated' : bitmapProblem(b, 6)),
  print: (b) => [String(readU32(b, 0)), String(readU16(b, 4)), ...bitmapText(b, 6)].join(' '),
};

/** Algorithm, flags, iterations and salt of NSEC3/NSEC3PARAM; returns the hash algorithm. */
function nsec3Head(lex: Lexer, first: number, w: ByteWriter): number | RdataError {
  const alg = numberToken(lex, first, 255, 'hash algorithm');
  if (isError(alg)) return alg;
  const flags = numberToken(lex, first + 1, 255, 'flags');
  if (isError(flags)) return flags;
  const iter = numberToken(lex, first + 2, 65535, 'iterations');
  if (isError(iter)) return iter;
  w.u8(alg);
  w.u8(flags);
  w.u16(iter);
  return saltToken(lex, first + 3, w) ?? alg;
}

function headText(b: Uint8Array): string {
  return `${b[0]} ${b[1]} ${readU16(b, 2)} ${b[4] === 0 ? '-' : toHex(b.subarray(5, 5 + b[4]!))}`;
}

export const NSEC3_CODEC: RdataCodec = {
  parse(lex, first, _origin, w) {
    const alg = nsec3Head(lex, first, w);
    if (isError(alg)) return alg;
    const t = first + 4;
    if (t >= lex.count)
      return fail('ZONE_MISSING_RDATA', 'NSEC3 RDATA is missing its next hashed owner name', -1);
    const hash = base32hex(lex.text, lex.starts[t]!, lex.ends[t]!);
    if (!hash || hash.length > 255)
      return fail(
        'ZONE_BAD_BASE32',
        'the next hashed owner name is base32hex in one token (RFC 5155 section 3.3)',
        t,
      );
    if (alg === 1 && hash.length !== 20)
      return fail(
        'ZONE_BAD_BASE32',
        'an SHA-1 hashed owner name (algorithm 1) is 20 octets (RFC 5155 section 3.3)',
        t,
      );
    w.u8(hash.length);
    for (const x of hash) w.u8(x);
    return writeBitmap(lex, t + 1, w);
  },
  check(b) {
    if (b.length < 5 || 5 + b[4]! >= b.length) return 'truncated';
    const hp = 5 + b[4]!;
    const hl = b[hp]!;
    if (hl === 0 || hp + 1 + hl > b.length) return 'the next hashed owner name is 1-255 octets';
    if (b[0] === 1 && hl !== 20) return 'an SHA-1 hashed owner name is 20 octets';
    return bitmapProblem(b, hp + 1 + hl);
  },
  print(b) {
    const hp = 5 + b[4]!;
    const hash = b.subarray(hp + 1, hp + 1 + b[hp]!);
    return [
      headText(b),
      base32hexLower(hash).toUpperCase(),
      ...bitmapText(b, hp + 1 + b[hp]!),
    ].join(' ');
  },
};

export const NSEC3PARAM_CODEC: RdataCodec = {
  parse(lex, first, _origin, w) {
    const alg = nsec3Head(lex, first, w);
    return isError(alg) ? alg : extra(lex, first + 4, 'NSEC3PARAM RDATA');
  },
  check: (b) =>
    b.length < 5 || b.length !== 5 + b[4]!
      ? 'NSEC3PARAM RDATA is 5 octets and the salt'
      : undefined,
  print: headText,
};

export const RRSIG_CODEC: RdataCodec = {
  parse(lex, first, origin, w) {
    const text = lex.text;
    const covered =
      lex.flags[first]! & TOKEN_QUOTED
        ? -1
        : typeNumber(text, lex.starts[first]!, lex.ends[first]!);
    if (covered < 0)
      return fail('ZONE_BAD_TYPE', 'type covered must be a type mnemonic or TYPEnnn', first);
    const alg = algorithmToken(lex, first + 1);
    if (isError(alg)) return alg;
    const labels = numberToken(lex, first + 2, 255, 'labels');
    if (isError(labels)) return labels;
    let t = first + 3;
    if (t >= lex.count)
      return fail('ZONE_MISSING_RDATA', 'RRSIG RDATA is missing its original TTL', -1);
    const ttl = parseTtl(text, lex.starts[t]!, lex.ends[t]!);
    if (ttl < 0)
      return fail('ZONE_BAD_NUMBER', 'original TTL must be 0-4294967295 (or 1h30m form)', t);
    w.u16(covered);
    w.u8(alg);
    w.u8(labels);
    w.u32(ttl);
    for (const what of ['signature expiration', 'signature inception']) {
      t++;
      if (t >= lex.count)
        return fail('ZONE_MISSING_RDATA', `RRSIG RDATA is missing its ${what}`, -1);
      const v = timeValue(text, lex.starts[t]!, lex.ends[t]!);
      if (v < 0)
        return fail(
          'ZONE_BAD_TIME',
          `${what} must be YYYYMMDDHHmmSS (UTC) or seconds 0-4294967295 (RFC 4034 section 3.2)`,
          t,
        );
      w.u32(v);
    }
    const tag = numberToken(lex, ++t, 65535, 'key tag');
    if (isError(tag)) return tag;
    w.u16(tag);
    t++;
    if (t >= lex.count)
      return fail('ZONE_MISSING_RDATA', "RRSIG RDATA is missing its signer's name", -1);
    const signerAt = w.len;
    const name = writeNameToken(lex, t, origin, w);
    if (name) return name;
    if (labelCount(w.buf, signerAt) > labels)
      return fail(
        'ZONE_BAD_RDATA',
        "the signer's name has more labels than the Labels field: it must be the zone of the owner name (RFC 4034 sections 3.1.3, 3.1.7), as BIND checks",
        t,
      );
    t++;
    if (t >= lex.count)
      return fail('ZONE_MISSING_RDATA', 'RRSIG RDATA is missing its signature', -1);
    return base64Tokens(lex, t, w);
  },
  check(b) {
    if (b.length < 19) return 'truncated';
    const n = wireNameLength(b, 18, b.length);
    if (n < 0) return "malformed signer's name";
    if (labelCount(b, 18) > b[3]!) return "the signer's name has more labels than the Labels field";
    return 18 + n < b.length ? undefined : 'empty signature';
  },
  print(b) {
    const n = wireNameLength(b, 18, b.length);
    return [
      typeName(readU16(b, 0)),
      String(b[2]),
      String(b[3]),
      String(readU32(b, 4)),
      timeText(readU32(b, 8)),
      timeText(readU32(b, 12)),
      String(readU16(b, 16)),
      nameToText(b, 18, false),
      toBase64(b.subarray(18 + n)),
    ].join(' ');
  },
};

const ZONEMD_LENGTHS: Record<number, number> = { 1: 48, 2: 64 };

function zonemdProblem(alg: number, len: number): string | undefined {
  const want = ZONEMD_LENGTHS[alg];
  if (want !== undefined && len !== want)
    return `a ZONEMD digest of hash algorithm ${alg} is ${want} octets (RFC 8976 section 2.2.4)`;
  if (len < 12) return 'a ZONEMD digest is at least 12 octets (RFC 8976 section 2.2.4)';
  return undefined;
}

export const ZONEMD_CODEC: RdataCodec = {
  parse(lex, first, _origin, w) {
    const serial = numberToken(lex, first, 0xffffffff, 'serial');
    if (isError(serial)) return serial;
    const scheme = numberToken(lex, first + 1, 255, 'scheme');
    if (isError(scheme)) return scheme;
    const alg = numberToken(lex, first + 2, 255, 'hash algorithm');
    if (isError(alg)) return alg;
    w.u32(serial);
    w.u8(scheme);
    w.u8(alg);
    const start = w.len;
    let t = first + 3;
    if (t >= lex.count) return fail('ZONE_MISSING_RDATA', 'ZONEMD RDATA is missing its digest', -1);
    // Hex digits pair up across white space, as BIND reads them (dnspython writes 17-digit groups).
    let digits = '';
    for (; t < lex.count; t++) digits += lex.token(t);
    if (digits.length % 2)
      return fail(
        'ZONE_BAD_HEX',
        'expected hexadecimal octets (an even number of digits)',
        first + 3,
      );
    if (!writeHexToken(digits, 0, digits.length, w))
      return fail('ZONE_BAD_HEX', 'expected hexadecimal octets', first + 3);
    const problem = zonemdProblem(alg, w.len - start);
    return problem ? fail('ZONE_BAD_DIGEST', problem, first + 3) : undefined;
  },
  check: (b) => (b.length < 6 ? 'truncated' : zonemdProblem(b[5]!, b.length - 6)),
  print: (b) => `${readU32(b, 0)} ${b[4]} ${b[5]} ${toHex(b.subarray(6))}`,
};
