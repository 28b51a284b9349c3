/**
 * The RDATA codec registry: which `rdata-*.ts` codec reads, checks and prints
 * each type that is not a plain sequence of fields (`SCHEMAS` in types.ts),
 * and the entry points that choose between the generic form, a field layout
 * and a codec. The codec modules import their helpers from rdata.ts and this
 * module imports them, so no module imports one that imports it back.
 */
import type { Lexer } from './lexer.ts';
import { TOKEN_QUOTED } from './lexer.ts';
import { SCHEMAS, typeName } from './types.ts';
import {
  caaTagOk,
  checkWire,
  encodeFields,
  fail,
  fieldsText,
  genericText,
  parseUint,
  writeHexToken,
  type ByteWriter,
  type RdataCodec,
  type RdataError,
} from './rdata.ts';
import {
  CSYNC_CODEC,
  NSEC3_CODEC,
  NSEC3PARAM_CODEC,
  NSEC_CODEC,
  RRSIG_CODEC,
  ZONEMD_CODEC,
} from './rdata-dnssec.ts';
import { EUI48_CODEC, EUI64_CODEC } from './rdata-eui.ts';
import {
  BASE64_CODEC,
  DNSKEY_LAYOUT_CODEC,
  DS_LAYOUT_CODEC,
  GPOS_CODEC,
  HEX_CODEC,
  ISDN_CODEC,
  NSAP_CODEC,
  TALINK_CODEC,
} from './rdata-fields.ts';
import { A6_CODEC, ATMA_CODEC, NXT_CODEC, WKS_CODEC } from './rdata-legacy.ts';
import { LOC_CODEC } from './rdata-loc.ts';
import {
  AMTRELAY_CODEC,
  APL_CODEC,
  CERT_CODEC,
  DOA_CODEC,
  DSYNC_CODEC,
  HIP_CODEC,
  IPSECKEY_CODEC,
  KEY_CODEC,
  L32_CODEC,
  L64_CODEC,
  LP_CODEC,
  NID_CODEC,
  STRINGS_CODEC,
} from './rdata-misc.ts';
import { SVCB_CODEC } from './rdata-svcb.ts';

/** The table is built on first use (the codec modules are loaded by then). */
let CODECS: Map<number, RdataCodec> | undefined;

function codecFor(type: number): RdataCodec | undefined {
  if (CODECS === undefined)
    CODECS = new Map<number, RdataCodec>([
      [11, WKS_CODEC],
      [20, ISDN_CODEC],
      [22, NSAP_CODEC],
      [25, KEY_CODEC],
      [27, GPOS_CODEC],
      [29, LOC_CODEC],
      [30, NXT_CODEC],
      [31, HEX_CODEC],
      [32, HEX_CODEC],
      [34, ATMA_CODEC],
      [37, CERT_CODEC],
      [38, A6_CODEC],
      [42, APL_CODEC],
      [45, IPSECKEY_CODEC],
      [46, RRSIG_CODEC],
      [47, NSEC_CODEC],
      [50, NSEC3_CODEC],
      [51, NSEC3PARAM_CODEC],
      [55, HIP_CODEC],
      [56, STRINGS_CODEC],
      [57, DNSKEY_LAYOUT_CODEC],
      [58, TALINK_CODEC],
      [62, CSYNC_CODEC],
      [63, ZONEMD_CODEC],
      [66, DSYNC_CODEC],
      [67, BASE64_CODEC],
      [68, BASE64_CODEC],
      [104, NID_CODEC],
      [105, L32_CODEC],
      [106, L64_CODEC],
      [107, LP_CODEC],
      [64, SVCB_CODEC],
      [65, SVCB_CODEC],
      [108, EUI48_CODEC],
      [109, EUI64_CODEC],
      [261, STRINGS_CODEC],
      [262, STRINGS_CODEC],
      [258, STRINGS_CODEC],
      [259, DOA_CODEC],
      [260, AMTRELAY_CODEC],
      [32768, DS_LAYOUT_CODEC],
      [32769, DS_LAYOUT_CODEC],
    ]);
  return CODECS.get(type);
}

/** True when `type` has a presentation form other than RFC 3597 `\#` (the writer prints its mnemonic). */
export function hasPresentationForm(type: number): boolean {
  return SCHEMAS.has(type) || codecFor(type) !== undefined;
}

/**
 * Encode the RDATA tokens `first..lex.count-1` of the current entry for
 * `type` into `w`. Handles the RFC 3597 `\#` form for every type.
 */
export function encodeRdataTokens(
  lex: Lexer,
  first: number,
  type: number,
  origin: Uint8Array | undefined,
  w: ByteWriter,
): RdataError | undefined {
  const text = lex.text;
  const count = lex.count;
  // RFC 3597 section 5: "\# <length> <hex>"
  if (
    first < count &&
    !(lex.flags[first]! & TOKEN_QUOTED) &&
    lex.ends[first]! - lex.starts[first]! === 2 &&
    text.charCodeAt(lex.starts[first]!) === 0x5c &&
    text.charCodeAt(lex.starts[first]! + 1) === 0x23
  ) {
    if (first + 1 >= count)
      return fail(
        'ZONE_BAD_GENERIC_RDATA',
        'generic RDATA \\# needs a length (RFC 3597 section 5)',
        -1,
      );
    const len = parseUint(text, lex.starts[first + 1]!, lex.ends[first + 1]!, 65535);
    if (len < 0)
      return fail(
        'ZONE_BAD_GENERIC_RDATA',
        'generic RDATA length must be a number 0-65535',
        first + 1,
      );
    const start = w.len;
    for (let t = first + 2; t < count; t++) {
      if (!writeHexToken(text, lex.starts[t]!, lex.ends[t]!, w))
        return fail('ZONE_BAD_HEX', 'generic RDATA must be hexadecimal octets', t);
    }
    if (w.len - start !== len)
      return fail(
        'ZONE_BAD_GENERIC_RDATA',
        `generic RDATA length ${len} does not match the ${w.len - start} octets given`,
        first + 1,
      );
    const schema = SCHEMAS.get(type);
    const codec = schema ? undefined : codecFor(type);
    if (schema || codec) {
      const bytes = w.buf.subarray(start, w.len);
      const problem = schema ? checkWire(schema, bytes) : codec!.check(bytes, type);
      if (problem)
        return fail(
          'ZONE_BAD_GENERIC_RDATA',
          `generic RDATA is not valid ${typeName(type)} RDATA: ${problem}`,
          first,
        );
    }
    return undefined;
  }
  const schema = SCHEMAS.get(type);
  if (!schema) {
    const codec = codecFor(type);
    if (codec) {
      if (first >= count && !codec.emptyOk)
        return fail('ZONE_MISSING_RDATA', `${typeName(type)} RDATA is missing`, -1);
      const start = w.len;
      const problem = codec.parse(lex, first, origin, w, type);
      if (problem) return problem;
      if (w.len - start > 65535)
        return fail('ZONE_RDATA_TOO_LONG', 'RDATA longer than 65535 octets', first);
      return undefined;
    }
    return fail(
      'ZONE_UNSUPPORTED_TYPE_SYNTAX',
      `${typeName(type)} RDATA is only read in the generic form (\\# length hex, RFC 3597 section 5)`,
      first < count ? first : -1,
    );
  }
  return encodeFields(lex, first, type, schema, origin, w);
}

/**
 * Presentation of RDATA (the part after the type). Types without a layout,
 * or RDATA that does not fit its layout, use the RFC 3597 generic form.
 */
export function rdataToText(type: number, rdata: Uint8Array): string {
  const schema = SCHEMAS.get(type);
  if (!schema) {
    const codec = codecFor(type);
    if (codec && codec.check(rdata, type) === undefined)
      return codec.print(rdata, type) ?? genericText(rdata);
    return genericText(rdata);
  }
  if (checkWire(schema, rdata) !== undefined || (type === 257 && !caaTagOk(rdata)))
    return genericText(rdata);
  return fieldsText(schema, rdata);
}
