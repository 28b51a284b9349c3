/**
 * EUI48 and EUI64 RDATA (RFC 7043): six or eight two-digit hex groups joined
 * by hyphens (exactly two digits, as BIND and Knot read it), printed in lower case.
 */
import type { Lexer } from '../../zone/lexer.ts';
import {
  extra,
  fail,
  hexValue,
  type ByteWriter,
  type RdataCodec,
  type RdataError,
} from './layout.ts';

function parseEui(
  lex: Lexer,
  first: number,
  w: ByteWriter,
  octets: number,
): RdataError | undefined {
  const text = lex.text;
  const s = lex.starts[first]!;
  const e = lex.ends[first]!;
  const what = `EUI${octets * 8}`;
  const bad = () =>
    fail(
      'ZONE_BAD_EUI',
      `expected ${what}: ${octets} two-digit hexadecimal numbers separated by hyphens, like ${'00-00-5e-00-53-2a-01-02'.slice(0, octets * 3 - 1)} (RFC 7043)`,
      first,
    );
  if (e - s !== octets * 3 - 1) return bad();
  w.ensure(octets);
  for (let k = 0; k < octets; k++) {
    const p = s + k * 3;
    const h = hexValue(text.charCodeAt(p));
    const l = hexValue(text.charCodeAt(p + 1));
    if (h < 0 || l < 0) return bad();
    if (k < octets - 1 && text.charCodeAt(p + 2) !== 0x2d) return bad();
    w.buf[w.len + k] = (h << 4) | l;
  }
  w.len += octets;
  return extra(lex, first + 1, `${what} address`);
}

function printEui(rdata: Uint8Array): string {
  return Array.from(rdata, (b) => b.toString(16).padStart(2, '0')).join('-');
}

function codec(octets: number): RdataCodec {
  return {
    parse: (lex, first, _origin, w) => parseEui(lex, first, w, octets),
    check: (rdata) =>
      rdata.length === octets ? undefined : `EUI${octets * 8} RDATA is ${octets} octets`,
    print: printEui,
  };
}

export const EUI48_CODEC: RdataCodec = codec(6);
export const EUI64_CODEC: RdataCodec = codec(8);
