/**
 * The RDATA codec registry: the field layout of each type whose presentation
 * is a plain sequence of fields (`SCHEMAS`), the codec of each type that
 * needs its own, and the entry points that choose between those and the
 * RFC 3597 generic form. Codec modules import helpers from layout.ts, never from here.
 */
import type { Lexer } from '../../zone/lexer.ts';
import { TOKEN_QUOTED } from '../../zone/lexer.ts';
import {
  TYPE_A,
  TYPE_A6,
  TYPE_AAAA,
  TYPE_AFSDB,
  TYPE_AMTRELAY,
  TYPE_APL,
  TYPE_ATMA,
  TYPE_AVC,
  TYPE_BRID,
  TYPE_CAA,
  TYPE_CDNSKEY,
  TYPE_CDS,
  TYPE_CERT,
  TYPE_CNAME,
  TYPE_CSYNC,
  TYPE_DHCID,
  TYPE_DLV,
  TYPE_DNAME,
  TYPE_DNSKEY,
  TYPE_DOA,
  TYPE_DS,
  TYPE_DSYNC,
  TYPE_EID,
  TYPE_EUI48,
  TYPE_EUI64,
  TYPE_GPOS,
  TYPE_HHIT,
  TYPE_HINFO,
  TYPE_HIP,
  TYPE_HTTPS,
  TYPE_IPSECKEY,
  TYPE_ISDN,
  TYPE_KEY,
  TYPE_KX,
  TYPE_L32,
  TYPE_L64,
  TYPE_LOC,
  TYPE_LP,
  TYPE_MB,
  TYPE_MD,
  TYPE_MF,
  TYPE_MG,
  TYPE_MINFO,
  TYPE_MR,
  TYPE_MX,
  TYPE_NAPTR,
  TYPE_NID,
  TYPE_NIMLOC,
  TYPE_NINFO,
  TYPE_NS,
  TYPE_NSAP,
  TYPE_NSAP_PTR,
  TYPE_NSEC,
  TYPE_NSEC3,
  TYPE_NSEC3PARAM,
  TYPE_NXT,
  TYPE_OPENPGPKEY,
  TYPE_PTR,
  TYPE_PX,
  TYPE_RESINFO,
  TYPE_RKEY,
  TYPE_RP,
  TYPE_RRSIG,
  TYPE_RT,
  TYPE_SMIMEA,
  TYPE_SOA,
  TYPE_SPF,
  TYPE_SRV,
  TYPE_SSHFP,
  TYPE_SVCB,
  TYPE_TA,
  TYPE_TALINK,
  TYPE_TLSA,
  TYPE_TXT,
  TYPE_URI,
  TYPE_WALLET,
  TYPE_WKS,
  TYPE_X25,
  TYPE_ZONEMD,
  typeName,
} from '../types.ts';
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
  type FieldKind,
  type RdataCodec,
  type RdataError,
} from './layout.ts';
import {
  CSYNC_CODEC,
  NSEC3_CODEC,
  NSEC3PARAM_CODEC,
  NSEC_CODEC,
  RRSIG_CODEC,
  ZONEMD_CODEC,
} from './dnssec.ts';
import { EUI48_CODEC, EUI64_CODEC } from './eui.ts';
import {
  BASE64_CODEC,
  DNSKEY_LAYOUT_CODEC,
  DS_LAYOUT_CODEC,
  GPOS_CODEC,
  HEX_CODEC,
  ISDN_CODEC,
  NSAP_CODEC,
  TALINK_CODEC,
} from './layout-codecs.ts';
import { A6_CODEC, ATMA_CODEC, NXT_CODEC, WKS_CODEC } from './legacy.ts';
import { LOC_CODEC } from './loc.ts';
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
} from './misc.ts';
import { SVCB_CODEC } from './svcb.ts';

/** The field layout of each type read field by field, in wire order. */
export const SCHEMAS: ReadonlyMap<number, readonly FieldKind[]> = new Map<number, FieldKind[]>([
  [TYPE_A, ['ipv4']],
  [TYPE_NS, ['name']],
  [TYPE_MD, ['name']],
  [TYPE_MF, ['name']],
  [TYPE_CNAME, ['name']],
  [TYPE_SOA, ['name', 'name', 'u32', 'period', 'period', 'period', 'period']],
  [TYPE_MB, ['name']],
  [TYPE_MG, ['name']],
  [TYPE_MR, ['name']],
  [TYPE_PTR, ['name']],
  [TYPE_HINFO, ['cstr', 'cstr']],
  [TYPE_MINFO, ['name', 'name']],
  [TYPE_MX, ['u16', 'name']],
  [TYPE_TXT, ['cstrs']],
  [TYPE_RP, ['name', 'name']],
  [TYPE_AFSDB, ['u16', 'name']],
  [TYPE_X25, ['cstr']],
  [TYPE_RT, ['u16', 'name']],
  [TYPE_NSAP_PTR, ['name']],
  [TYPE_PX, ['u16', 'name', 'name']],
  [TYPE_AAAA, ['ipv6']],
  [TYPE_SRV, ['u16', 'u16', 'u16', 'name']],
  [TYPE_NAPTR, ['u16', 'u16', 'cstr', 'cstr', 'cstr', 'name']],
  [TYPE_KX, ['u16', 'name']],
  [TYPE_DNAME, ['name']],
  [TYPE_DS, ['u16', 'alg', 'u8', 'hex']],
  [TYPE_SSHFP, ['u8', 'u8', 'hex']],
  [TYPE_DNSKEY, ['u16', 'u8', 'alg', 'b64']],
  [TYPE_DHCID, ['b64']],
  [TYPE_TLSA, ['u8', 'u8', 'u8', 'hex']],
  [TYPE_SMIMEA, ['u8', 'u8', 'u8', 'hex']],
  [TYPE_CDS, ['u16', 'alg', 'u8', 'hex']],
  [TYPE_CDNSKEY, ['u16', 'u8', 'alg', 'b64']],
  [TYPE_OPENPGPKEY, ['b64']],
  [TYPE_SPF, ['cstrs']],
  [TYPE_URI, ['u16', 'u16', 'text']],
  [TYPE_CAA, ['u8', 'tag', 'text']],
]);

/** The codec of each type that is not a plain sequence of fields. */
const CODECS: ReadonlyMap<number, RdataCodec> = new Map<number, RdataCodec>([
  [TYPE_WKS, WKS_CODEC],
  [TYPE_ISDN, ISDN_CODEC],
  [TYPE_NSAP, NSAP_CODEC],
  [TYPE_KEY, KEY_CODEC],
  [TYPE_GPOS, GPOS_CODEC],
  [TYPE_LOC, LOC_CODEC],
  [TYPE_NXT, NXT_CODEC],
  [TYPE_EID, HEX_CODEC],
  [TYPE_NIMLOC, HEX_CODEC],
  [TYPE_ATMA, ATMA_CODEC],
  [TYPE_CERT, CERT_CODEC],
  [TYPE_A6, A6_CODEC],
  [TYPE_APL, APL_CODEC],
  [TYPE_IPSECKEY, IPSECKEY_CODEC],
  [TYPE_RRSIG, RRSIG_CODEC],
  [TYPE_NSEC, NSEC_CODEC],
  [TYPE_NSEC3, NSEC3_CODEC],
  [TYPE_NSEC3PARAM, NSEC3PARAM_CODEC],
  [TYPE_HIP, HIP_CODEC],
  [TYPE_NINFO, STRINGS_CODEC],
  [TYPE_RKEY, DNSKEY_LAYOUT_CODEC],
  [TYPE_TALINK, TALINK_CODEC],
  [TYPE_CSYNC, CSYNC_CODEC],
  [TYPE_ZONEMD, ZONEMD_CODEC],
  [TYPE_DSYNC, DSYNC_CODEC],
  [TYPE_HHIT, BASE64_CODEC],
  [TYPE_BRID, BASE64_CODEC],
  [TYPE_NID, NID_CODEC],
  [TYPE_L32, L32_CODEC],
  [TYPE_L64, L64_CODEC],
  [TYPE_LP, LP_CODEC],
  [TYPE_SVCB, SVCB_CODEC],
  [TYPE_HTTPS, SVCB_CODEC],
  [TYPE_EUI48, EUI48_CODEC],
  [TYPE_EUI64, EUI64_CODEC],
  [TYPE_RESINFO, STRINGS_CODEC],
  [TYPE_WALLET, STRINGS_CODEC],
  [TYPE_AVC, STRINGS_CODEC],
  [TYPE_DOA, DOA_CODEC],
  [TYPE_AMTRELAY, AMTRELAY_CODEC],
  [TYPE_TA, DS_LAYOUT_CODEC],
  [TYPE_DLV, DS_LAYOUT_CODEC],
]);

function codecFor(type: number): RdataCodec | undefined {
  return CODECS.get(type);
}

/** True when `type` has a presentation form other than RFC 3597 `\#` (the writer prints its mnemonic). */
export function hasPresentationForm(type: number): boolean {
  return SCHEMAS.has(type) || codecFor(type) !== undefined;
}

/** Encode the RDATA tokens `first..lex.count-1` for `type` into `w` (the `\#` form for every type). */
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

/** Presentation of RDATA; the RFC 3597 generic form when the type has no layout or the RDATA does not fit it. */
export function rdataToText(type: number, rdata: Uint8Array): string {
  const schema = SCHEMAS.get(type);
  if (!schema) {
    const codec = codecFor(type);
    if (codec && codec.check(rdata, type) === undefined)
      return codec.print(rdata, type) ?? genericText(rdata);
    return genericText(rdata);
  }
  if (checkWire(schema, rdata) !== undefined || (type === TYPE_CAA && !caaTagOk(rdata)))
    return genericText(rdata);
  return fieldsText(schema, rdata);
}
