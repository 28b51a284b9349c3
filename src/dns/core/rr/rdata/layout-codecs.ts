/**
 * Types whose RDATA is a plain sequence of `layout.ts` field kinds (DLV, TA,
 * RKEY, TALINK, NINFO, EID, NIMLOC, AVC, HHIT, BRID, GPOS), and two small
 * ones: ISDN (RFC 1183 section 3.2: one or two strings) and NSAP (RFC 1706
 * section 5: `0x` then hex, dots allowed). SINK stays generic-only: BIND and
 * NSD read two different drafts of it.
 */
import type { Lexer } from '../../zone/lexer.ts';
import {
  checkWire,
  encodeFields,
  fail,
  fieldsText,
  hexValue,
  toHex,
  type FieldKind,
  type RdataCodec,
} from './layout.ts';

function fieldsCodec(schema: readonly FieldKind[]): RdataCodec {
  return {
    parse: (lex, first, origin, w, type) => encodeFields(lex, first, type, schema, origin, w),
    check: (b) => checkWire(schema, b),
    print: (b) => fieldsText(schema, b),
  };
}

export const DS_LAYOUT_CODEC: RdataCodec = fieldsCodec(['u16', 'alg', 'u8', 'hex']);
export const DNSKEY_LAYOUT_CODEC: RdataCodec = fieldsCodec(['u16', 'u8', 'alg', 'b64']);
export const TALINK_CODEC: RdataCodec = fieldsCodec(['name', 'name']);
export const BASE64_CODEC: RdataCodec = fieldsCodec(['b64']);
export const HEX_CODEC: RdataCodec = fieldsCodec(['hex']);
export const GPOS_CODEC: RdataCodec = fieldsCodec(['cstr', 'cstr', 'cstr']);

const ONE = fieldsCodec(['cstr']);
const TWO = fieldsCodec(['cstr', 'cstr']);

export const ISDN_CODEC: RdataCodec = {
  parse: (lex: Lexer, first, origin, w, type) =>
    (lex.count - first > 1 ? TWO : ONE).parse(lex, first, origin, w, type),
  check: (b) => (ONE.check(b, 20) === undefined ? undefined : TWO.check(b, 20)),
  print: (b) => (ONE.check(b, 20) === undefined ? ONE.print(b, 20) : TWO.print(b, 20)),
};

export const NSAP_CODEC: RdataCodec = {
  parse(lex, first, _origin, w) {
    const text = lex.token(first);
    const bad = fail(
      'ZONE_BAD_RDATA',
      'an NSAP address is 0x followed by hexadecimal octets, dots allowed between digits (RFC 1706 section 5)',
      first,
    );
    if (!/^0[xX]/.test(text)) return bad;
    const digits = text.slice(2).replaceAll('.', '');
    if (digits.length === 0 || digits.length % 2) return bad;
    for (let i = 0; i < digits.length; i += 2) {
      const h = hexValue(digits.charCodeAt(i));
      const l = hexValue(digits.charCodeAt(i + 1));
      if (h < 0 || l < 0) return bad;
      w.u8((h << 4) | l);
    }
    return first + 1 < lex.count
      ? fail('ZONE_EXTRA_RDATA', 'unexpected data after the NSAP address', first + 1)
      : undefined;
  },
  check: (b) => (b.length > 0 ? undefined : 'empty NSAP address'),
  print: (b) => `0x${toHex(b, false)}`,
};
