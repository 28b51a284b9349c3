/**
 * The DNS type table (IANA dns-parameters): type and class codes, their
 * mnemonics, the DNSSEC algorithm mnemonics. The one definition of each
 * (test/model.test.ts checks that no TYPE_ constant is defined twice).
 */
export const TYPE_A = 1;
export const TYPE_NS = 2;
export const TYPE_CNAME = 5;
export const TYPE_SOA = 6;
export const TYPE_PTR = 12;
export const TYPE_MX = 15;
export const TYPE_TXT = 16;
export const TYPE_AAAA = 28;
export const TYPE_SRV = 33;
export const TYPE_NAPTR = 35;
export const TYPE_DNAME = 39;
export const TYPE_OPT = 41;
export const TYPE_DS = 43;
export const TYPE_RRSIG = 46;
export const TYPE_NSEC = 47;
export const TYPE_DNSKEY = 48;
export const TYPE_NSEC3 = 50;
export const TYPE_NSEC3PARAM = 51;
export const TYPE_SVCB = 64;
export const TYPE_HTTPS = 65;
export const TYPE_TKEY = 249;
export const TYPE_TSIG = 250;
export const TYPE_IXFR = 251;
export const TYPE_AXFR = 252;
export const TYPE_MAILB = 253;
export const TYPE_MAILA = 254;
export const TYPE_ANY = 255;
export const TYPE_CAA = 257;

/** Mnemonic -> type code, for every type with a mnemonic (IANA registry); a type without a TYPE_ constant (no code names it) by number. */
const TYPE_MNEMONICS = [
  ['A', TYPE_A],
  ['NS', TYPE_NS],
  ['MD', 3],
  ['MF', 4],
  ['CNAME', TYPE_CNAME],
  ['SOA', TYPE_SOA],
  ['MB', 7],
  ['MG', 8],
  ['MR', 9],
  ['NULL', 10],
  ['WKS', 11],
  ['PTR', TYPE_PTR],
  ['HINFO', 13],
  ['MINFO', 14],
  ['MX', TYPE_MX],
  ['TXT', TYPE_TXT],
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
  ['AAAA', TYPE_AAAA],
  ['LOC', 29],
  ['NXT', 30],
  ['EID', 31],
  ['NIMLOC', 32],
  ['SRV', TYPE_SRV],
  ['ATMA', 34],
  ['NAPTR', TYPE_NAPTR],
  ['KX', 36],
  ['CERT', 37],
  ['A6', 38],
  ['DNAME', TYPE_DNAME],
  ['SINK', 40],
  ['OPT', TYPE_OPT],
  ['APL', 42],
  ['DS', TYPE_DS],
  ['SSHFP', 44],
  ['IPSECKEY', 45],
  ['RRSIG', TYPE_RRSIG],
  ['NSEC', TYPE_NSEC],
  ['DNSKEY', TYPE_DNSKEY],
  ['DHCID', 49],
  ['NSEC3', TYPE_NSEC3],
  ['NSEC3PARAM', TYPE_NSEC3PARAM],
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
  ['SVCB', TYPE_SVCB],
  ['HTTPS', TYPE_HTTPS],
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
  ['TKEY', TYPE_TKEY],
  ['TSIG', TYPE_TSIG],
  ['IXFR', TYPE_IXFR],
  ['AXFR', TYPE_AXFR],
  ['MAILB', TYPE_MAILB],
  ['MAILA', TYPE_MAILA],
  ['ANY', TYPE_ANY],
  ['URI', 256],
  ['CAA', TYPE_CAA],
  ['AVC', 258],
  ['DOA', 259],
  ['AMTRELAY', 260],
  ['RESINFO', 261],
  ['WALLET', 262],
  ['TA', 32768],
  ['DLV', 32769],
] as const;

/** A type mnemonic of the table (a superset of dns-packet's `RecordType`). */
export type TypeMnemonic = (typeof TYPE_MNEMONICS)[number][0];

/** Mnemonics of the table (a name not in it does not compile). */
type Mnemonics<T extends TypeMnemonic> = T;

/** The types a client asks by name: the same set as dns-packet's `RecordType` (test/client/query-type.test.ts). */
export type QueryType = Mnemonics<
  | 'A'
  | 'AAAA'
  | 'AFSDB'
  | 'APL'
  | 'AXFR'
  | 'CAA'
  | 'CDNSKEY'
  | 'CDS'
  | 'CERT'
  | 'CNAME'
  | 'DNAME'
  | 'DHCID'
  | 'DLV'
  | 'DNSKEY'
  | 'DS'
  | 'HINFO'
  | 'HIP'
  | 'IXFR'
  | 'IPSECKEY'
  | 'KEY'
  | 'KX'
  | 'LOC'
  | 'MX'
  | 'NAPTR'
  | 'NS'
  | 'NSEC'
  | 'NSEC3'
  | 'NSEC3PARAM'
  | 'NULL'
  | 'OPT'
  | 'PTR'
  | 'RRSIG'
  | 'RP'
  | 'SIG'
  | 'SOA'
  | 'SRV'
  | 'SSHFP'
  | 'TA'
  | 'TKEY'
  | 'TLSA'
  | 'TSIG'
  | 'TXT'
  | 'URI'
>;

/** Mnemonic -> type code. */
export const TYPE_CODES: ReadonlyMap<string, number> = new Map<string, number>(TYPE_MNEMONICS);

const TYPE_NAMES: ReadonlyMap<number, string> = new Map(
  [...TYPE_CODES].map(([name, code]) => [code, name]),
);

/** Types that may not appear in a zone file (meta types and pseudo-records). */
export const META_TYPES: ReadonlySet<number> = new Set([
  0,
  TYPE_OPT,
  TYPE_TKEY,
  TYPE_TSIG,
  TYPE_IXFR,
  TYPE_AXFR,
  TYPE_MAILB,
  TYPE_MAILA,
  TYPE_ANY,
]);

/** Mnemonic of a type, or `TYPEnnn` (RFC 3597 section 5). */
export function typeName(code: number): string {
  return TYPE_NAMES.get(code) ?? `TYPE${code}`;
}

/** DNS CLASS IN. Other classes are parsed but only IN zones are served. */
export const CLASS_IN = 1;
export const CLASS_CS = 2;
export const CLASS_CH = 3;
export const CLASS_HS = 4;
/** The query class ANY (RFC 1035 section 3.2.5); TSIG records carry it (RFC 8945 section 4.2). */
export const CLASS_ANY = 255;

/** Class mnemonic -> code (RFC 1035 section 3.2.4). */
export const CLASS_CODES: ReadonlyMap<string, number> = new Map([
  ['IN', CLASS_IN],
  ['CS', CLASS_CS],
  ['CH', CLASS_CH],
  ['HS', CLASS_HS],
]);

const CLASS_NAMES = ['', 'IN', 'CS', 'CH', 'HS'];

/** Mnemonic of a class, or `CLASSnnn` (RFC 3597 section 5). */
export function className(code: number): string {
  return CLASS_NAMES[code] || `CLASS${code}`;
}

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
