/**
 * RR type and class mnemonics, and the RDATA field layout of each type whose
 * presentation form this parser reads. Types not listed in SCHEMAS are read
 * and written only in the RFC 3597 generic form (`TYPEnnn \# len hex`).
 */

/** Field kinds of an RDATA layout. */
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

export const TYPE_CODES: ReadonlyMap<string, number> = new Map([
  ['A', 1],
  ['NS', 2],
  ['MD', 3],
  ['MF', 4],
  ['CNAME', 5],
  ['SOA', 6],
  ['MB', 7],
  ['MG', 8],
  ['MR', 9],
  ['NULL', 10],
  ['WKS', 11],
  ['PTR', 12],
  ['HINFO', 13],
  ['MINFO', 14],
  ['MX', 15],
  ['TXT', 16],
  ['RP', 17],
  ['AFSDB', 18],
  ['X25', 19],
  ['ISDN', 20],
  ['RT', 21],
  ['NSAP', 22],
  ['NSAP-PTR', 23],
  ['SIG', 24],
  ['KEY', 25],
  ['PX', 26],
  ['GPOS', 27],
  ['AAAA', 28],
  ['LOC', 29],
  ['NXT', 30],
  ['EID', 31],
  ['NIMLOC', 32],
  ['SRV', 33],
  ['ATMA', 34],
  ['NAPTR', 35],
  ['KX', 36],
  ['CERT', 37],
  ['A6', 38],
  ['DNAME', 39],
  ['SINK', 40],
  ['OPT', 41],
  ['APL', 42],
  ['DS', 43],
  ['SSHFP', 44],
  ['IPSECKEY', 45],
  ['RRSIG', 46],
  ['NSEC', 47],
  ['DNSKEY', 48],
  ['DHCID', 49],
  ['NSEC3', 50],
  ['NSEC3PARAM', 51],
  ['TLSA', 52],
  ['SMIMEA', 53],
  ['HIP', 55],
  ['NINFO', 56],
  ['RKEY', 57],
  ['TALINK', 58],
  ['CDS', 59],
  ['CDNSKEY', 60],
  ['OPENPGPKEY', 61],
  ['CSYNC', 62],
  ['ZONEMD', 63],
  ['SVCB', 64],
  ['HTTPS', 65],
  ['DSYNC', 66],
  ['HHIT', 67],
  ['BRID', 68],
  ['SPF', 99],
  ['NID', 104],
  ['L32', 105],
  ['L64', 106],
  ['LP', 107],
  ['EUI48', 108],
  ['EUI64', 109],
  ['TKEY', 249],
  ['TSIG', 250],
  ['IXFR', 251],
  ['AXFR', 252],
  ['MAILB', 253],
  ['MAILA', 254],
  ['ANY', 255],
  ['URI', 256],
  ['CAA', 257],
  ['AVC', 258],
  ['DOA', 259],
  ['AMTRELAY', 260],
  ['RESINFO', 261],
  ['WALLET', 262],
  ['TA', 32768],
  ['DLV', 32769],
]);

const TYPE_NAMES = new Map<number, string>();
for (const [name, code] of TYPE_CODES) TYPE_NAMES.set(code, name);

/** Types that may not appear in a zone file (meta types and pseudo-records). */
export const META_TYPES: ReadonlySet<number> = new Set([0, 41, 249, 250, 251, 252, 253, 254, 255]);

/** Mnemonic of a type, or `TYPEnnn` (RFC 3597 section 5). */
export function typeName(code: number): string {
  return TYPE_NAMES.get(code) ?? `TYPE${code}`;
}

export const CLASS_CODES: ReadonlyMap<string, number> = new Map([
  ['IN', 1],
  ['CS', 2],
  ['CH', 3],
  ['HS', 4],
]);

export function className(code: number): string {
  switch (code) {
    case 1:
      return 'IN';
    case 2:
      return 'CS';
    case 3:
      return 'CH';
    case 4:
      return 'HS';
    default:
      return `CLASS${code}`;
  }
}

/**
 * RDATA layouts of the types read in presentation form. Each field kind is
 * one field of the wire format, in order (RFC 1035 section 3.3, RFC 3596,
 * RFC 2782, RFC 3403 section 4.1, RFC 8659 section 4.1, RFC 4034, ...).
 */
export const SCHEMAS: ReadonlyMap<number, readonly FieldKind[]> = new Map<number, FieldKind[]>([
  [1, ['ipv4']],
  [2, ['name']],
  [3, ['name']],
  [4, ['name']],
  [5, ['name']],
  [6, ['name', 'name', 'u32', 'period', 'period', 'period', 'period']],
  [7, ['name']],
  [8, ['name']],
  [9, ['name']],
  [12, ['name']],
  [13, ['cstr', 'cstr']],
  [14, ['name', 'name']],
  [15, ['u16', 'name']],
  [16, ['cstrs']],
  [17, ['name', 'name']],
  [18, ['u16', 'name']],
  [19, ['cstr']],
  [21, ['u16', 'name']],
  [23, ['name']],
  [26, ['u16', 'name', 'name']],
  [28, ['ipv6']],
  [33, ['u16', 'u16', 'u16', 'name']],
  [35, ['u16', 'u16', 'cstr', 'cstr', 'cstr', 'name']],
  [36, ['u16', 'name']],
  [39, ['name']],
  [43, ['u16', 'alg', 'u8', 'hex']],
  [44, ['u8', 'u8', 'hex']],
  [48, ['u16', 'u8', 'alg', 'b64']],
  [49, ['b64']],
  [52, ['u8', 'u8', 'u8', 'hex']],
  [53, ['u8', 'u8', 'u8', 'hex']],
  [59, ['u16', 'alg', 'u8', 'hex']],
  [60, ['u16', 'u8', 'alg', 'b64']],
  [61, ['b64']],
  [99, ['cstrs']],
  [256, ['u16', 'u16', 'text']],
  [257, ['u8', 'tag', 'text']],
]);

/** The type codes named in code are defined once, in core/rr/types.ts. */
export {
  TYPE_A,
  TYPE_AAAA,
  TYPE_CNAME,
  TYPE_DNAME,
  TYPE_MX,
  TYPE_NAPTR,
  TYPE_NS,
  TYPE_NSEC,
  TYPE_RRSIG,
  TYPE_SOA,
  TYPE_SRV,
} from '../rr/types.ts';

/** DNSSEC algorithm mnemonics (RFC 4034 appendix A.1 and the IANA registry). */
export const DNSSEC_ALGORITHMS: ReadonlyMap<string, number> = new Map([
  ['RSAMD5', 1],
  ['DH', 2],
  ['DSA', 3],
  ['RSASHA1', 5],
  ['DSA-NSEC3-SHA1', 6],
  ['RSASHA1-NSEC3-SHA1', 7],
  ['RSASHA256', 8],
  ['RSASHA512', 10],
  ['ECC-GOST', 12],
  ['ECDSAP256SHA256', 13],
  ['ECDSAP384SHA384', 14],
  ['ED25519', 15],
  ['ED448', 16],
  ['INDIRECT', 252],
  ['PRIVATEDNS', 253],
  ['PRIVATEOID', 254],
]);
