/**
 * RDATA in presentation form <-> uncompressed wire bytes, driven by the field
 * layouts of `SCHEMAS` (registry.ts). Not dns-packet: it cannot carry `\.`
 * inside a label or arbitrary octets (`\255`) in strings, both legal master-
 * file content; it stays the reference the tests compare bytes with.
 */
import { TOKEN_ESCAPED, TOKEN_QUOTED, type Lexer } from '../../zone/lexer.ts';
import {
  encodeName,
  NAME_ERROR_MESSAGES,
  nameToText,
  wireNameLength,
  type NameError,
} from '../../zone/names.ts';
import { DNSSEC_ALGORITHMS, TYPE_CODES, typeName } from '../types.ts';
import type { ZoneCode } from '../../zone/codes.ts';
import { BASE64_ALPHABET, ByteWriter, readU16, readU32, toBase64 } from '../../wire/bytes.ts';
import { hexValue, parseIpv4, parseIpv6 } from '../../../../kit/core/ip.ts';

export { ByteWriter, hexValue, parseIpv4, parseIpv6, readU16, readU32, toBase64 };

/** Field kinds of an RDATA layout (`SCHEMAS` in registry.ts). */
export type FieldKind =
  | 'u8'
  | 'u16'
  | 'u32'
  /** 32-bit value that accepts TTL units (SOA timers). */
  | 'period'
  | 'name'
  /** One <character-string>. */
  | 'cstr'
  /** One or more <character-string>s up to the end (TXT, SPF). */
  | 'cstrs'
  | 'ipv4'
  | 'ipv6'
  /** Hex octets up to the end, split over any number of tokens. */
  | 'hex'
  /** Base64 up to the end, split over any number of tokens. */
  | 'b64'
  /** DNSSEC algorithm: a number 0-255 or its mnemonic (RFC 4034 appendix A.1). */
  | 'alg'
  /** CAA tag: letters and digits, written as a <character-string>. */
  | 'tag'
  /** One string written without a length octet, to the end of RDATA (CAA value, URI target). */
  | 'text';

/** A type whose presentation form is not a plain sequence of fields: its own reader, check and printer. */
export interface RdataCodec {
  /** Encode the RDATA tokens `first..lex.count-1` (at least one) of the current entry into `w`. */
  parse(
    lex: Lexer,
    first: number,
    origin: Uint8Array | undefined,
    w: ByteWriter,
    type: number,
  ): RdataError | undefined;
  /** Why wire RDATA is not valid for the type (RFC 3597 `\#` input), or undefined. */
  check(rdata: Uint8Array, type: number): string | undefined;
  /** Presentation of RDATA that passed `check`; undefined: only the generic form can show it. */
  print(rdata: Uint8Array, type: number): string | undefined;
  /** The presentation form may have no token at all (APL: an empty list). */
  readonly emptyOk?: boolean;
}

/**
 * DNSSEC algorithm mnemonics: the IANA names (rr/types.ts) and the spellings
 * BIND prints (NSEC3DSA, NSEC3RSASHA1, ECCGOST), so that its output reads back.
 */
const ALGORITHMS: ReadonlyMap<string, number> = new Map([
  ...DNSSEC_ALGORITHMS,
  ['NSEC3DSA', 6],
  ['NSEC3RSASHA1', 7],
  ['ECCGOST', 12],
]);

/** The algorithm number of a mnemonic (case-insensitive), -1 when unknown. */
export function algorithmNumber(word: string): number {
  return ALGORITHMS.get(word.toUpperCase()) ?? -1;
}

/** The mnemonic BIND prints for an algorithm (CERT), or the number. */
export function algorithmText(v: number): string {
  for (const [k, n] of ALGORITHMS) if (n === v && !k.includes('-')) return k;
  return String(v);
}

export interface RdataError {
  readonly code: ZoneCode;
  readonly message: string;
  /** Token index in the entry the error is about (-1: the end of the entry). */
  readonly tokenIndex: number;
}

export function fail(code: ZoneCode, message: string, tokenIndex: number): RdataError {
  return { code, message, tokenIndex };
}

export function isError(v: number | RdataError): v is RdataError {
  return typeof v !== 'number';
}

/** Token `t` as an unsigned number up to `max`, or why it is not one. */
export function numberToken(lex: Lexer, t: number, max: number, what: string): number | RdataError {
  if (t >= lex.count) return fail('ZONE_MISSING_RDATA', `RDATA is missing its ${what}`, -1);
  const v =
    lex.flags[t]! & TOKEN_QUOTED ? -1 : parseUint(lex.text, lex.starts[t]!, lex.ends[t]!, max);
  if (v < 0)
    return fail(
      'ZONE_BAD_NUMBER',
      v === -2 ? `${what} out of range (0-${max})` : `${what} must be a number 0-${max}`,
      t,
    );
  return v;
}

/** A number or a mnemonic from `names` (case-insensitive). */
export function mnemonicToken(
  lex: Lexer,
  t: number,
  max: number,
  names: ReadonlyMap<string, number> | ((word: string) => number),
  what: string,
): number | RdataError {
  if (t >= lex.count) return fail('ZONE_MISSING_RDATA', `RDATA is missing its ${what}`, -1);
  const word = lex.token(t);
  const known = typeof names === 'function' ? names(word) : (names.get(word.toUpperCase()) ?? -1);
  if (known >= 0 && !(lex.flags[t]! & TOKEN_QUOTED)) return known;
  const v = numberToken(lex, t, max, what);
  if (isError(v)) return fail(v.code, `${what} must be a number 0-${max} or a mnemonic`, t);
  return v;
}

/** A type mnemonic or TYPEnnn (case-insensitive); -1 when unknown, -2 when over 65535. */
export function typeNumber(text: string, s: number, e: number): number {
  const word = text.slice(s, e).toUpperCase();
  const known = TYPE_CODES.get(word);
  if (known !== undefined) return known;
  if (!word.startsWith('TYPE') || e - s < 5) return -1;
  return parseUint(text, s + 4, e, 65535);
}

/** ZONE_EXTRA_RDATA at token `t` when the entry goes on after its RDATA (`what`). */
export function extra(lex: Lexer, t: number, what: string): RdataError | undefined {
  return t < lex.count
    ? fail('ZONE_EXTRA_RDATA', `unexpected data after the ${what}`, t)
    : undefined;
}

/** Base64 over tokens `t..count-1` into `w`; a malformed one is reported at token `at`. */
export function base64Tokens(lex: Lexer, t: number, w: ByteWriter, at = t): RdataError | undefined {
  let s = '';
  for (let i = t; i < lex.count; i++) s += lex.token(i);
  return writeBase64(s, w)
    ? undefined
    : fail('ZONE_BAD_BASE64', 'expected base64 (RFC 4648 section 4)', at);
}

/** Scratch size for one RDATA: the largest (65535 octets) plus room, so it never grows. */
export const RDATA_SCRATCH_SIZE = 70000;

/** Decimal digits only, value <= max; -1 when not a number, -2 when too large. */
export function parseUint(text: string, start: number, end: number, max: number): number {
  if (end <= start) return -1;
  let v = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i) - 0x30;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
    if (v > max) return -2;
  }
  return v;
}

const TTL_UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** A TTL, decimal seconds or `1w2d3h4m5s` (BIND syntax); -1 when malformed, -2 over 2^32-1. */
export function parseTtl(text: string, start: number, end: number): number {
  if (end <= start) return -1;
  let total = 0;
  let cur = 0;
  let digits = 0;
  let units = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      cur = cur * 10 + (c - 0x30);
      if (cur > 0xffffffff) return -2;
      digits++;
      continue;
    }
    const mul = TTL_UNITS[String.fromCharCode(c | 0x20)];
    if (digits === 0 || mul === undefined) return -1;
    total += cur * mul;
    if (total > 0xffffffff) return -2;
    cur = 0;
    digits = 0;
    units = true;
  }
  if (digits > 0) {
    // A trailing bare number after units is seconds (BIND accepts "1h30").
    total += cur;
  } else if (!units) return -1;
  if (total > 0xffffffff) return -2;
  return total;
}

/** Write the character-string `text[start, end)` (escapes resolved, UTF-8) into `w`; its octets, or -1 for a bad `\DDD`. */
export function writeStringBytes(
  text: string,
  start: number,
  end: number,
  w: ByteWriter,
  escaped: boolean,
): number {
  const before = w.len;
  w.ensure((end - start) * 3 + 4);
  const buf = w.buf;
  let o = w.len;
  if (!escaped) {
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) buf[o++] = c;
      else {
        o = utf8(text, i, c, buf, o);
        if (utf8Pair) i++;
      }
    }
    w.len = o;
    return o - before;
  }
  for (let i = start; i < end; i++) {
    let c = text.charCodeAt(i);
    if (c === 0x5c) {
      if (i + 1 >= end) return -1;
      const d1 = text.charCodeAt(i + 1);
      if (d1 >= 0x30 && d1 <= 0x39) {
        if (i + 3 >= end) return -1;
        const d2 = text.charCodeAt(i + 2) - 0x30;
        const d3 = text.charCodeAt(i + 3) - 0x30;
        if (d2 < 0 || d2 > 9 || d3 < 0 || d3 > 9) return -1;
        c = (d1 - 0x30) * 100 + d2 * 10 + d3;
        if (c > 255) return -1;
        buf[o++] = c;
        i += 3;
        continue;
      }
      i++;
      c = d1;
    }
    if (c < 0x80) buf[o++] = c;
    else {
      o = utf8(text, i, c, buf, o);
      if (utf8Pair) i++;
    }
  }
  w.len = o;
  return o - before;
}

/**
 * Set by utf8() when it consumed a surrogate pair (two UTF-16 code units).
 * A flag rather than a callback: a closure over the caller's loop index
 * would move that index into a heap context on the per-character path.
 */
// eslint-disable-next-line no-restricted-syntax -- module state: an out-parameter of utf8(), read right after the call.
let utf8Pair = false;

function utf8(text: string, i: number, c: number, buf: Uint8Array, o: number): number {
  utf8Pair = false;
  if (c < 0x800) {
    buf[o++] = 0xc0 | (c >> 6);
    buf[o++] = 0x80 | (c & 0x3f);
    return o;
  }
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const lo = text.charCodeAt(i + 1);
    if (lo >= 0xdc00 && lo <= 0xdfff) {
      const cp = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
      buf[o++] = 0xf0 | (cp >> 18);
      buf[o++] = 0x80 | ((cp >> 12) & 0x3f);
      buf[o++] = 0x80 | ((cp >> 6) & 0x3f);
      buf[o++] = 0x80 | (cp & 0x3f);
      utf8Pair = true;
      return o;
    }
  }
  buf[o++] = 0xe0 | (c >> 12);
  buf[o++] = 0x80 | ((c >> 6) & 0x3f);
  buf[o++] = 0x80 | (c & 0x3f);
  return o;
}

const B64 = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64[BASE64_ALPHABET.charCodeAt(i)] = i;

/** Decode base64 (RFC 4648 section 4, padding required) into w; false when malformed. */
export function writeBase64(s: string, w: ByteWriter): boolean {
  if (s.length % 4 !== 0) return false;
  w.ensure((s.length / 4) * 3);
  for (let i = 0; i < s.length; i += 4) {
    const last = i + 4 === s.length;
    const a = B64[s.charCodeAt(i)] ?? -1;
    const b = B64[s.charCodeAt(i + 1)] ?? -1;
    const c3 = s.charCodeAt(i + 2);
    const c4 = s.charCodeAt(i + 3);
    if (a < 0 || b < 0) return false;
    if (last && c3 === 0x3d) {
      if (c4 !== 0x3d) return false;
      w.u8((a << 2) | (b >> 4));
      continue;
    }
    const c = B64[c3] ?? -1;
    if (c < 0) return false;
    if (last && c4 === 0x3d) {
      w.u8((a << 2) | (b >> 4));
      w.u8(((b & 15) << 4) | (c >> 2));
      continue;
    }
    const d = B64[c4] ?? -1;
    if (d < 0) return false;
    w.u8((a << 2) | (b >> 4));
    w.u8(((b & 15) << 4) | (c >> 2));
    w.u8(((c & 3) << 6) | d);
  }
  return true;
}

export function toHex(bytes: Uint8Array, upper = true): string {
  let s = '';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return upper ? s.toUpperCase() : s;
}

/** Encode tokens `first..lex.count-1` as the fields of `schema` into `w`. */
export function encodeFields(
  lex: Lexer,
  first: number,
  type: number,
  schema: readonly FieldKind[],
  origin: Uint8Array | undefined,
  w: ByteWriter,
): RdataError | undefined {
  const text = lex.text;
  const count = lex.count;
  let t = first;
  const start = w.len;
  for (const kind of schema) {
    if (t >= count) {
      return fail(
        'ZONE_MISSING_RDATA',
        `${typeName(type)} RDATA is missing its ${FIELD_LABELS[kind] ?? 'number'}`,
        -1,
      );
    }
    const s = lex.starts[t]!;
    const e = lex.ends[t]!;
    const fl = lex.flags[t]!;
    switch (kind) {
      case 'u8':
      case 'u16':
      case 'u32':
      case 'alg':
      case 'period':
      case 'ipv4':
      case 'ipv6': {
        const problem = encodeScalar(kind, text, s, e, fl, t, w);
        if (problem) return problem;
        t++;
        break;
      }
      case 'name': {
        const problem = writeNameToken(lex, t, origin, w);
        if (problem) return problem;
        t++;
        break;
      }
      case 'cstr':
      case 'cstrs': {
        const next = encodeStrings(lex, t, kind === 'cstrs', w);
        if (typeof next !== 'number') return next;
        t = next;
        break;
      }
      case 'tag': {
        const problem = encodeTag(lex.text, s, e, t, w);
        if (problem) return problem;
        t++;
        break;
      }
      case 'text': {
        if (writeStringBytes(text, s, e, w, (fl & TOKEN_ESCAPED) !== 0) < 0) return badEscape(t);
        t++;
        break;
      }
      case 'hex':
      case 'b64': {
        const next = encodeBinary(kind, lex, t, first, w);
        if (typeof next !== 'number') return next;
        t = next;
        break;
      }
    }
  }
  const problem = extra(lex, t, `${typeName(type)} RDATA`);
  if (problem) return problem;
  if (w.len - start > 65535)
    return fail('ZONE_RDATA_TOO_LONG', 'RDATA longer than 65535 octets', first);
  return undefined;
}

/** A one-token field: an integer, a DNSSEC algorithm, a period, an IPv4 or IPv6 address. */
function encodeScalar(
  kind: 'u8' | 'u16' | 'u32' | 'alg' | 'period' | 'ipv4' | 'ipv6',
  text: string,
  s: number,
  e: number,
  fl: number,
  t: number,
  w: ByteWriter,
): RdataError | undefined {
  switch (kind) {
    case 'u8':
    case 'u16':
    case 'u32': {
      const max = kind === 'u8' ? 255 : kind === 'u16' ? 65535 : 0xffffffff;
      const v = fl & TOKEN_QUOTED ? -1 : parseUint(text, s, e, max);
      if (v < 0)
        return fail(
          'ZONE_BAD_NUMBER',
          v === -2 ? `number out of range (0-${max})` : `expected a number 0-${max}`,
          t,
        );
      if (kind === 'u8') w.u8(v);
      else if (kind === 'u16') w.u16(v);
      else w.u32(v);
      return undefined;
    }
    case 'alg': {
      let v = fl & TOKEN_QUOTED ? -1 : parseUint(text, s, e, 255);
      if (v === -1) v = algorithmNumber(text.slice(s, e));
      if (v < 0)
        return fail('ZONE_BAD_NUMBER', 'expected a DNSSEC algorithm number 0-255 or mnemonic', t);
      w.u8(v);
      return undefined;
    }
    case 'period': {
      const v = fl & TOKEN_QUOTED ? -1 : parseTtl(text, s, e);
      if (v < 0) return fail('ZONE_BAD_NUMBER', 'expected a time value (seconds or 1h30m form)', t);
      w.u32(v);
      return undefined;
    }
    case 'ipv4':
      if (fl & TOKEN_QUOTED || !writeAddress(text, s, e, 4, w))
        return fail(
          'ZONE_BAD_IPV4',
          'expected an IPv4 address (four decimal octets, RFC 1035 section 3.4.1)',
          t,
        );
      return undefined;
    case 'ipv6':
      if (fl & TOKEN_QUOTED || !writeAddress(text, s, e, 16, w))
        return fail('ZONE_BAD_IPV6', 'expected an IPv6 address (RFC 4291 section 2.2)', t);
      return undefined;
  }
}

/** Write the IPv4 (`size` 4) or IPv6 (16) address `text[s, e)` into `w`; false when it is not one. */
export function writeAddress(text: string, s: number, e: number, size: 4 | 16, w: ByteWriter) {
  w.ensure(size);
  const ok = size === 4 ? parseIpv4(text, s, e, w.buf, w.len) : parseIpv6(text, s, e, w.buf, w.len);
  if (ok) w.len += size;
  return ok;
}

/** Hexadecimal or base64 octets: every token that remains (the index after them). */
function encodeBinary(
  kind: 'hex' | 'b64',
  lex: Lexer,
  t: number,
  first: number,
  w: ByteWriter,
): RdataError | number {
  const text = lex.text;
  switch (kind) {
    case 'hex': {
      for (; t < lex.count; t++) {
        if (!writeHexToken(text, lex.starts[t]!, lex.ends[t]!, w))
          return fail('ZONE_BAD_HEX', 'expected hexadecimal octets', t);
      }
      return t;
    }
    case 'b64':
      return base64Tokens(lex, t, w, first) ?? lex.count;
  }
}

/** A token with a malformed backslash escape. */
export function badEscape(t: number): RdataError {
  return fail(
    'ZONE_BAD_ESCAPE',
    'bad escape: a backslash is followed by one character, or by three decimal digits up to 255 (\\DDD)',
    t,
  );
}

/** One character-string (`cstr`) or all that remain (`cstrs`): the index of the token after them. */
function encodeStrings(lex: Lexer, t: number, multi: boolean, w: ByteWriter): RdataError | number {
  const text = lex.text;
  do {
    const sl = lex.starts[t]!;
    const el = lex.ends[t]!;
    const at = w.len;
    w.u8(0);
    const n = writeStringBytes(text, sl, el, w, (lex.flags[t]! & TOKEN_ESCAPED) !== 0);
    if (n < 0) return badEscape(t);
    if (n > 255)
      return fail(
        'ZONE_STRING_TOO_LONG',
        `character-string of ${n} octets (at most 255, RFC 1035 section 3.3)`,
        t,
      );
    w.buf[at] = n;
    t++;
  } while (multi && t < lex.count);
  return t;
}

/** A CAA tag (RFC 8659 section 4.1): 1 to 255 letters and digits, length-prefixed. */
function encodeTag(
  text: string,
  s: number,
  e: number,
  t: number,
  w: ByteWriter,
): RdataError | undefined {
  for (let i = s; i < e; i++) {
    const c = text.charCodeAt(i) | 0x20;
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39)))
      return fail(
        'ZONE_BAD_RDATA',
        'a CAA tag has only letters and digits (RFC 8659 section 4.1)',
        t,
      );
  }
  if (e - s === 0 || e - s > 255)
    return fail('ZONE_BAD_RDATA', 'a CAA tag has 1 to 255 characters', t);
  w.u8(e - s);
  writeStringBytes(text, s, e, w, false);
  return undefined;
}

/** Encode the name in token `t` (`@` the origin; relative names get it appended) into `w`. */
export function writeNameToken(
  lex: Lexer,
  t: number,
  origin: Uint8Array | undefined,
  w: ByteWriter,
): RdataError | undefined {
  const text = lex.text;
  const s = lex.starts[t]!;
  const e = lex.ends[t]!;
  if (lex.flags[t]! & TOKEN_QUOTED)
    return fail('ZONE_BAD_NAME', 'a domain name cannot be quoted', t);
  w.ensure(256);
  let r: number | string;
  if (e - s === 1 && text.charCodeAt(s) === 0x40) {
    if (!origin) return fail('ZONE_NO_ORIGIN', '@ used but no origin is known', t);
    w.buf.set(origin, w.len);
    r = w.len + origin.length;
  } else r = encodeName(text, s, e, origin, w.buf, w.len);
  if (typeof r !== 'number') {
    if (r === 'RELATIVE')
      return fail(
        'ZONE_NO_ORIGIN',
        'relative name but no origin is known ($ORIGIN or --origin)',
        t,
      );
    return fail(r as NameError, NAME_ERROR_MESSAGES[r as NameError], t);
  }
  w.len = r;
  return undefined;
}

const FIELD_LABELS: Readonly<Partial<Record<FieldKind, string>>> = {
  name: 'domain name',
  cstr: 'character-string',
  cstrs: 'character-string',
  ipv4: 'IPv4 address',
  ipv6: 'IPv6 address',
  hex: 'hexadecimal data',
  b64: 'base64 data',
  tag: 'tag',
  text: 'value',
};

export function writeHexToken(text: string, s: number, e: number, w: ByteWriter): boolean {
  if ((e - s) % 2 !== 0) return false;
  w.ensure((e - s) / 2);
  for (let i = s; i < e; i += 2) {
    const h = hexValue(text.charCodeAt(i));
    const l = hexValue(text.charCodeAt(i + 1));
    if (h < 0 || l < 0) return false;
    w.buf[w.len++] = (h << 4) | l;
  }
  return true;
}

/**
 * Walk wire RDATA along a layout: why it does not fit, or undefined; with
 * `parts`, the presentation of each field is pushed to it on the way.
 */
export function checkWire(
  schema: readonly FieldKind[],
  rdata: Uint8Array,
  parts?: string[],
): string | undefined {
  let p = 0;
  const n = rdata.length;
  for (const kind of schema) {
    const start = p;
    switch (kind) {
      case 'u8':
      case 'alg':
        p += 1;
        break;
      case 'u16':
        p += 2;
        break;
      case 'u32':
      case 'period':
      case 'ipv4':
        p += 4;
        break;
      case 'ipv6':
        p += 16;
        break;
      case 'name': {
        const l = wireNameLength(rdata, p, n);
        if (l < 0) return 'malformed domain name';
        p += l;
        break;
      }
      case 'cstr':
      case 'tag':
        if (p >= n) return 'truncated';
        p += 1 + rdata[p]!;
        break;
      case 'cstrs':
        if (p >= n) return 'truncated';
        while (p < n) p += 1 + rdata[p]!;
        break;
      case 'hex':
      case 'b64':
        if (p >= n) return 'empty data field';
        p = n;
        break;
      case 'text':
        p = n;
        break;
    }
    if (p > n) return 'truncated';
    parts?.push(fieldText(kind, rdata, start, p));
  }
  if (p !== n) return `${n - p} trailing octets`;
  return undefined;
}

/** Presentation of the field of `kind` at `rdata[s, e)`. */
function fieldText(kind: FieldKind, b: Uint8Array, s: number, e: number): string {
  switch (kind) {
    case 'u8':
    case 'alg':
      return String(b[s]);
    case 'u16':
      return String(readU16(b, s));
    case 'u32':
    case 'period':
      return String(readU32(b, s));
    case 'ipv4':
      return ipv4Text(b, s);
    case 'ipv6':
      return ipv6Text(b, s);
    case 'name':
      return nameToText(b, s, false);
    case 'cstr':
      return quoteString(b, s + 1, e);
    case 'cstrs': {
      const out: string[] = [];
      for (let p = s; p < e; p += 1 + b[p]!) out.push(quoteString(b, p + 1, p + 1 + b[p]!));
      return out.join(' ');
    }
    case 'tag':
      return String.fromCharCode(...b.subarray(s + 1, e));
    case 'text':
      return quoteString(b, s, e);
    case 'hex':
      return toHex(b.subarray(s, e));
    case 'b64':
      return toBase64(b.subarray(s, e));
  }
}

/** Quoted presentation of a character-string (`"` and `\` escaped, non-printables as \DDD). */
export function quoteString(bytes: Uint8Array, start: number, end: number): string {
  let s = '"';
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    if (c === 0x22 || c === 0x5c) s += '\\' + String.fromCharCode(c);
    else if (c < 0x20 || c > 0x7e) s += '\\' + String(c).padStart(3, '0');
    else s += String.fromCharCode(c);
  }
  return s + '"';
}

export function ipv4Text(b: Uint8Array, p: number): string {
  return `${b[p]}.${b[p + 1]}.${b[p + 2]}.${b[p + 3]}`;
}

export function ipv6Text(b: Uint8Array, p: number): string {
  const words: number[] = [];
  for (let k = 0; k < 8; k++) words.push(readU16(b, p + 2 * k));
  // RFC 5952 section 4.2: compress the longest run (>= 2) of zero words, first if tied.
  let bestStart = -1;
  let bestLen = 0;
  for (let k = 0; k < 8;) {
    if (words[k] === 0) {
      let j = k;
      while (j < 8 && words[j] === 0) j++;
      if (j - k > bestLen && j - k >= 2) {
        bestStart = k;
        bestLen = j - k;
      }
      k = j;
    } else k++;
  }
  const hex = words.map((w) => w.toString(16));
  if (bestStart < 0) return hex.join(':');
  return hex.slice(0, bestStart).join(':') + '::' + hex.slice(bestStart + bestLen).join(':');
}

/** Presentation of RDATA that fits `schema` (checkWire passed). */
export function fieldsText(schema: readonly FieldKind[], rdata: Uint8Array): string {
  const parts: string[] = [];
  checkWire(schema, rdata, parts);
  return parts.join(' ');
}

export function caaTagOk(rdata: Uint8Array): boolean {
  const len = rdata[1]!;
  if (len === 0) return false;
  for (let i = 2; i < 2 + len; i++) {
    const c = rdata[i]! | 0x20;
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39))) return false;
  }
  return true;
}

export function genericText(rdata: Uint8Array): string {
  return rdata.length === 0 ? '\\# 0' : `\\# ${rdata.length} ${toHex(rdata)}`;
}
