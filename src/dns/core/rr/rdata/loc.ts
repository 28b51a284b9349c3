/**
 * LOC RDATA (RFC 1876): `d1 [m1 [s1]] N|S d2 [m2 [s2]] E|W alt[m] [siz[m]
 * [hp[m] [vp[m]]]]`, sizes on the wire as a mantissa and a power of ten in
 * centimetres. As BIND 9.18: whole degrees and minutes, at most three
 * decimals of seconds and two of metres, upper-case hemispheres, a size that
 * is not a mantissa times a power of ten truncated to one (1.5m is 1m), no
 * minutes past 90 degrees latitude or 180 longitude; sizes over 90000000.00m
 * refused (as Knot). Printed as BIND prints it.
 */
import type { Lexer } from '../../zone/lexer.ts';
import {
  fail,
  parseUint,
  readU32,
  type ByteWriter,
  type RdataCodec,
  type RdataError,
} from './layout.ts';

const EQUATOR = 0x80000000;
const ALT_BASE = 10000000; // 100,000 m in cm

/** A decimal with at most `decimals` decimals, scaled by 10^decimals (an `m` suffix when `unit`); NaN when malformed. */
function decimal(text: string, s: number, e: number, decimals: number, unit: boolean): number {
  if (unit && e > s && text.charCodeAt(e - 1) === 0x6d) e--;
  let neg = false;
  if (e > s && (text.charCodeAt(s) === 0x2d || text.charCodeAt(s) === 0x2b)) {
    neg = text.charCodeAt(s) === 0x2d;
    s++;
  }
  let whole = 0;
  let digits = 0;
  let i = s;
  for (; i < e; i++) {
    const d = text.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) break;
    if (digits > 12) return NaN;
    whole = whole * 10 + d;
    digits++;
  }
  let frac = 0;
  let fd = 0;
  if (i < e && text.charCodeAt(i) === 0x2e) {
    for (i++; i < e; i++) {
      const d = text.charCodeAt(i) - 0x30;
      if (d < 0 || d > 9 || fd === decimals) return NaN;
      frac = frac * 10 + d;
      fd++;
    }
  }
  if (i !== e || digits + fd === 0) return NaN;
  for (; fd < decimals; fd++) frac *= 10;
  const v = whole * 10 ** decimals + frac;
  return neg ? -v : v;
}

function isLetter(text: string, s: number, e: number, a: number, b: number): number {
  if (e - s !== 1) return 0;
  const c = text.charCodeAt(s);
  return c === a ? 1 : c === b ? -1 : 0;
}

/** Centimetres as RFC 1876 mantissa/exponent (truncating, as BIND). */
function precision(cm: number): number {
  if (cm === 0) return 0;
  let exp = 0;
  while (cm >= 10 ** (exp + 1)) exp++;
  return (Math.floor(cm / 10 ** exp) << 4) | exp;
}

function parseLoc(lex: Lexer, first: number, w: ByteWriter): RdataError | undefined {
  const text = lex.text;
  const count = lex.count;
  let t = first;
  const coords: number[] = [];
  for (const [max, pos, neg, what] of [
    [90, 0x4e, 0x53, 'latitude'],
    [180, 0x45, 0x57, 'longitude'],
  ] as const) {
    const letters = what === 'latitude' ? 'N or S' : 'E or W';
    if (t >= count)
      return fail(
        'ZONE_MISSING_RDATA',
        `LOC RDATA is missing its ${what} (RFC 1876 section 3)`,
        -1,
      );
    const degTok = t;
    const deg = parseUint(text, lex.starts[t]!, lex.ends[t]!, max);
    if (deg < 0)
      return fail(
        'ZONE_BAD_LOC',
        `${what} degrees must be a whole number 0-${max} (RFC 1876 section 3)`,
        t,
      );
    t++;
    let min = 0;
    let ms = 0;
    let sign = 0;
    for (let part = 0; part < 3; part++) {
      if (t >= count)
        return fail('ZONE_MISSING_RDATA', `LOC ${what} is missing its hemisphere (${letters})`, -1);
      const s = lex.starts[t]!;
      const e = lex.ends[t]!;
      sign = isLetter(text, s, e, pos, neg);
      if (sign !== 0) break;
      if (part === 2) return fail('ZONE_BAD_LOC', `expected the ${what} hemisphere, ${letters}`, t);
      if (part === 0) {
        min = parseUint(text, s, e, 59);
        if (min < 0)
          return fail(
            'ZONE_BAD_LOC',
            `${what} minutes must be a whole number 0-59 (or the hemisphere ${letters})`,
            t,
          );
      } else {
        const v =
          text.charCodeAt(s) === 0x2d || text.charCodeAt(s) === 0x2b
            ? NaN
            : decimal(text, s, e, 3, false);
        if (!(v >= 0 && v < 60000))
          return fail(
            'ZONE_BAD_LOC',
            `${what} seconds must be 0-59.999, at most three decimals (or the hemisphere ${letters})`,
            t,
          );
        ms = v;
      }
      t++;
    }
    if (deg === max && (min !== 0 || ms !== 0))
      return fail('ZONE_BAD_LOC', `${what} beyond ${max} degrees`, degTok);
    coords.push(EQUATOR + sign * ((deg * 60 + min) * 60000 + ms));
    t++;
  }
  if (t >= count)
    return fail('ZONE_MISSING_RDATA', 'LOC RDATA is missing its altitude (RFC 1876 section 3)', -1);
  const alt = decimal(text, lex.starts[t]!, lex.ends[t]!, 2, true);
  if (!(alt >= -ALT_BASE && alt <= 0xffffffff - ALT_BASE))
    return fail(
      'ZONE_BAD_LOC',
      'altitude must be -100000.00 to 42849672.95 metres, at most two decimals (RFC 1876 section 3)',
      t,
    );
  t++;
  // siz, hp, vp: defaults 1m, 10000m, 10m
  const prec = [0x12, 0x16, 0x13];
  const names = ['size', 'horizontal precision', 'vertical precision'];
  for (let k = 0; k < 3 && t < count; k++, t++) {
    const s = lex.starts[t]!;
    const c = text.charCodeAt(s);
    const v = c === 0x2d || c === 0x2b ? NaN : decimal(text, s, lex.ends[t]!, 2, true);
    if (!(v >= 0 && v <= 9000000000))
      return fail(
        'ZONE_BAD_LOC',
        `${names[k]} must be 0 to 90000000.00 metres, at most two decimals (RFC 1876 section 3)`,
        t,
      );
    prec[k] = precision(v);
  }
  if (t < count) return fail('ZONE_EXTRA_RDATA', 'unexpected data after the LOC RDATA', t);
  w.u8(0);
  w.u8(prec[0]!);
  w.u8(prec[1]!);
  w.u8(prec[2]!);
  w.u32(coords[0]!);
  w.u32(coords[1]!);
  w.u32(alt + ALT_BASE);
  return undefined;
}

function precisionOk(c: number): boolean {
  return c === 0 || (c >> 4 >= 1 && c >> 4 <= 9 && (c & 15) <= 9);
}

function checkLoc(rdata: Uint8Array): string | undefined {
  if (rdata.length === 0) return 'LOC RDATA is empty';
  // RFC 1876 section 2: "Implementations are required to check this field
  // and make no assumptions about the format of unrecognized versions."
  if (rdata[0] !== 0) return undefined;
  if (rdata.length !== 16) return 'LOC version 0 RDATA is 16 octets';
  if (!precisionOk(rdata[1]!) || !precisionOk(rdata[2]!) || !precisionOk(rdata[3]!))
    return 'a size or precision is not a digit times a power of ten up to 10^9';
  const lat = readU32(rdata, 4);
  const lon = readU32(rdata, 8);
  if (Math.abs(lat - EQUATOR) > 90 * 3600000) return 'latitude beyond 90 degrees';
  if (Math.abs(lon - EQUATOR) > 180 * 3600000) return 'longitude beyond 180 degrees';
  return undefined;
}

function metres(c: number): string {
  const cm = (c >> 4) * 10 ** (c & 15);
  return cm >= 100 && cm % 100 === 0
    ? `${cm / 100}m`
    : `${Math.floor(cm / 100)}.${String(cm % 100).padStart(2, '0')}m`;
}

function angle(v: number, pos: string, neg: string): string {
  const north = v >= EQUATOR;
  let a = north ? v - EQUATOR : EQUATOR - v;
  const ms = a % 1000;
  a = Math.floor(a / 1000);
  const s = a % 60;
  a = Math.floor(a / 60);
  return `${Math.floor(a / 60)} ${a % 60} ${s}.${String(ms).padStart(3, '0')} ${north ? pos : neg}`;
}

function printLoc(rdata: Uint8Array): string | undefined {
  if (rdata[0] !== 0) return undefined;
  const altCm = readU32(rdata, 12) - ALT_BASE;
  const abs = Math.abs(altCm);
  const alt = `${altCm < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}m`;
  return [
    angle(readU32(rdata, 4), 'N', 'S'),
    angle(readU32(rdata, 8), 'E', 'W'),
    alt,
    metres(rdata[1]!),
    metres(rdata[2]!),
    metres(rdata[3]!),
  ].join(' ');
}

export const LOC_CODEC: RdataCodec = {
  parse: (lex, first, _origin, w) => parseLoc(lex, first, w),
  check: checkLoc,
  print: printLoc,
};
