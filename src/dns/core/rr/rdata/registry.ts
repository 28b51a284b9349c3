/**
 * The RDATA codec registry: the field layout of each type whose presentation
 * is a plain sequence of fields (`SCHEMAS`), the codec of each type that
 * needs its own, and the entry points that choose between those and the
 * RFC 3597 generic form. Codec modules import helpers from layout.ts, never from here.
 */
import type { Lexer } from '../../zone/lexer.ts';
import { TOKEN_QUOTED } from '../../zone/lexer.ts';
import { TYPE_CAA, TYPE_CODES, typeName, type TypeMnemonic } from '../types.ts';
import {
  caaTagOk,
  checkWire,
  encodeFields,
  fail,
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
import { A6_CODEC, ATMA_CODEC, ISDN_CODEC, NSAP_CODEC, NXT_CODEC, WKS_CODEC } from './legacy.ts';
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
  LP_CODEC,
  LOCATOR64_CODEC,
} from './misc.ts';
import { SVCB_CODEC } from './svcb.ts';

/** A table by mnemonic as a table by type code. */
function byCode<V>(table: Partial<Record<TypeMnemonic, V>>): ReadonlyMap<number, V> {
  return new Map(Object.entries(table).map(([name, v]) => [TYPE_CODES.get(name)!, v as V]));
}

const DS: readonly FieldKind[] = ['u16', 'alg', 'u8', 'hex'];
const DNSKEY: readonly FieldKind[] = ['u16', 'u8', 'alg', 'b64'];

/** The field layout of each type read field by field, in wire order. */
const SCHEMAS = byCode<readonly FieldKind[]>({
  A: ['ipv4'],
  NS: ['name'],
  MD: ['name'],
  MF: ['name'],
  CNAME: ['name'],
  SOA: ['name', 'name', 'u32', 'period', 'period', 'period', 'period'],
  MB: ['name'],
  MG: ['name'],
  MR: ['name'],
  PTR: ['name'],
  HINFO: ['cstr', 'cstr'],
  MINFO: ['name', 'name'],
  MX: ['u16', 'name'],
  TXT: ['cstrs'],
  RP: ['name', 'name'],
  AFSDB: ['u16', 'name'],
  X25: ['cstr'],
  RT: ['u16', 'name'],
  'NSAP-PTR': ['name'],
  PX: ['u16', 'name', 'name'],
  GPOS: ['cstr', 'cstr', 'cstr'],
  AAAA: ['ipv6'],
  EID: ['hex'],
  NIMLOC: ['hex'],
  SRV: ['u16', 'u16', 'u16', 'name'],
  NAPTR: ['u16', 'u16', 'cstr', 'cstr', 'cstr', 'name'],
  KX: ['u16', 'name'],
  DNAME: ['name'],
  DS,
  SSHFP: ['u8', 'u8', 'hex'],
  DNSKEY,
  DHCID: ['b64'],
  TLSA: ['u8', 'u8', 'u8', 'hex'],
  SMIMEA: ['u8', 'u8', 'u8', 'hex'],
  // NINFO, RESINFO (RFC 9606), WALLET, AVC: the TXT layout.
  NINFO: ['cstrs'],
  RKEY: DNSKEY,
  TALINK: ['name', 'name'],
  CDS: DS,
  CDNSKEY: DNSKEY,
  OPENPGPKEY: ['b64'],
  HHIT: ['b64'],
  BRID: ['b64'],
  SPF: ['cstrs'],
  URI: ['u16', 'u16', 'text'],
  CAA: ['u8', 'tag', 'text'],
  AVC: ['cstrs'],
  RESINFO: ['cstrs'],
  WALLET: ['cstrs'],
  TA: DS,
  DLV: DS,
});

/** The codec of each type that is not a plain sequence of fields. */
const CODECS = byCode<RdataCodec>({
  WKS: WKS_CODEC,
  ISDN: ISDN_CODEC,
  NSAP: NSAP_CODEC,
  KEY: KEY_CODEC,
  LOC: LOC_CODEC,
  NXT: NXT_CODEC,
  ATMA: ATMA_CODEC,
  CERT: CERT_CODEC,
  A6: A6_CODEC,
  APL: APL_CODEC,
  IPSECKEY: IPSECKEY_CODEC,
  RRSIG: RRSIG_CODEC,
  NSEC: NSEC_CODEC,
  NSEC3: NSEC3_CODEC,
  NSEC3PARAM: NSEC3PARAM_CODEC,
  HIP: HIP_CODEC,
  CSYNC: CSYNC_CODEC,
  ZONEMD: ZONEMD_CODEC,
  DSYNC: DSYNC_CODEC,
  NID: LOCATOR64_CODEC,
  L32: L32_CODEC,
  L64: LOCATOR64_CODEC,
  LP: LP_CODEC,
  SVCB: SVCB_CODEC,
  HTTPS: SVCB_CODEC,
  EUI48: EUI48_CODEC,
  EUI64: EUI64_CODEC,
  DOA: DOA_CODEC,
  AMTRELAY: AMTRELAY_CODEC,
});

/** True when `type` has a presentation form other than RFC 3597 `\#` (the writer prints its mnemonic). */
export function hasPresentationForm(type: number): boolean {
  return SCHEMAS.has(type) || CODECS.get(type) !== undefined;
}

/** Encode the RDATA tokens `first..lex.count-1` for `type` into `w` (the `\#` form for every type). */
export function encodeRdataTokens(
  lex: Lexer,
  first: number,
  type: number,
  origin: Uint8Array | undefined,
  w: ByteWriter,
): RdataError | undefined {
  const schema = SCHEMAS.get(type);
  const codec = schema ? undefined : CODECS.get(type);
  const s = lex.starts[first]!;
  // RFC 3597 section 5: "\# <length> <hex>"
  const generic = lex.ends[first]! - s === 2 && lex.text.startsWith('\\#', s);
  if (first < lex.count && !(lex.flags[first]! & TOKEN_QUOTED) && generic) {
    const start = w.len;
    const problem = encodeGeneric(lex, first, w);
    if (problem || !(schema || codec)) return problem;
    const bytes = w.buf.subarray(start, w.len);
    const why = schema ? checkWire(schema, bytes) : codec!.check(bytes, type);
    if (why === undefined) return undefined;
    const message = `generic RDATA is not valid ${typeName(type)} RDATA: ${why}`;
    return fail('ZONE_BAD_GENERIC_RDATA', message, first);
  }
  if (schema) return encodeFields(lex, first, type, schema, origin, w);
  if (!codec)
    return fail(
      'ZONE_UNSUPPORTED_TYPE_SYNTAX',
      `${typeName(type)} RDATA is only read in the generic form (\\# length hex, RFC 3597 section 5)`,
      first < lex.count ? first : -1,
    );
  if (first >= lex.count && !codec.emptyOk)
    return fail('ZONE_MISSING_RDATA', `${typeName(type)} RDATA is missing`, -1);
  const start = w.len;
  const problem = codec.parse(lex, first, origin, w, type);
  if (problem || w.len - start <= 65535) return problem;
  return fail('ZONE_RDATA_TOO_LONG', 'RDATA longer than 65535 octets', first);
}

/** The generic form from token `first` (`\#`) on: its length, then hex octets. */
function encodeGeneric(lex: Lexer, first: number, w: ByteWriter): RdataError | undefined {
  const { text, count } = lex;
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
  if (w.len - start === len) return undefined;
  const message = `generic RDATA length ${len} does not match the ${w.len - start} octets given`;
  return fail('ZONE_BAD_GENERIC_RDATA', message, first + 1);
}

/** Presentation of RDATA; the RFC 3597 generic form when the type has no layout or the RDATA does not fit it. */
export function rdataToText(type: number, rdata: Uint8Array): string {
  const schema = SCHEMAS.get(type);
  if (!schema) {
    const codec = CODECS.get(type);
    if (codec && codec.check(rdata, type) === undefined)
      return codec.print(rdata, type) ?? genericText(rdata);
    return genericText(rdata);
  }
  const parts: string[] = [];
  if (checkWire(schema, rdata, parts) !== undefined || (type === TYPE_CAA && !caaTagOk(rdata)))
    return genericText(rdata);
  return parts.join(' ');
}
