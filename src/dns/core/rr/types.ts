/**
 * The DNS type table (IANA dns-parameters): type and class codes, their
 * mnemonics, the DNSSEC algorithm mnemonics. The one definition of each
 * (test/model.test.ts checks that no TYPE_ constant is defined twice).
 */
export const TYPE_A = 1;
export const TYPE_NS = 2;
export const TYPE_MD = 3;
export const TYPE_MF = 4;
export const TYPE_CNAME = 5;
export const TYPE_SOA = 6;
export const TYPE_MB = 7;
export const TYPE_MG = 8;
export const TYPE_MR = 9;
export const TYPE_NULL = 10;
export const TYPE_WKS = 11;
export const TYPE_PTR = 12;
export const TYPE_HINFO = 13;
export const TYPE_MINFO = 14;
export const TYPE_MX = 15;
export const TYPE_TXT = 16;
export const TYPE_RP = 17;
export const TYPE_AFSDB = 18;
export const TYPE_X25 = 19;
export const TYPE_ISDN = 20;
export const TYPE_RT = 21;
export const TYPE_NSAP = 22;
export const TYPE_NSAP_PTR = 23;
export const TYPE_SIG = 24;
export const TYPE_KEY = 25;
export const TYPE_PX = 26;
export const TYPE_GPOS = 27;
export const TYPE_AAAA = 28;
export const TYPE_LOC = 29;
export const TYPE_NXT = 30;
export const TYPE_EID = 31;
export const TYPE_NIMLOC = 32;
export const TYPE_SRV = 33;
export const TYPE_ATMA = 34;
export const TYPE_NAPTR = 35;
export const TYPE_KX = 36;
export const TYPE_CERT = 37;
export const TYPE_A6 = 38;
export const TYPE_DNAME = 39;
export const TYPE_SINK = 40;
export const TYPE_OPT = 41;
export const TYPE_APL = 42;
export const TYPE_DS = 43;
export const TYPE_SSHFP = 44;
export const TYPE_IPSECKEY = 45;
export const TYPE_RRSIG = 46;
export const TYPE_NSEC = 47;
export const TYPE_DNSKEY = 48;
export const TYPE_DHCID = 49;
export const TYPE_NSEC3 = 50;
export const TYPE_NSEC3PARAM = 51;
export const TYPE_TLSA = 52;
export const TYPE_SMIMEA = 53;
export const TYPE_HIP = 55;
export const TYPE_NINFO = 56;
export const TYPE_RKEY = 57;
export const TYPE_TALINK = 58;
export const TYPE_CDS = 59;
export const TYPE_CDNSKEY = 60;
export const TYPE_OPENPGPKEY = 61;
export const TYPE_CSYNC = 62;
export const TYPE_ZONEMD = 63;
export const TYPE_SVCB = 64;
export const TYPE_HTTPS = 65;
export const TYPE_DSYNC = 66;
export const TYPE_HHIT = 67;
export const TYPE_BRID = 68;
export const TYPE_SPF = 99;
export const TYPE_NID = 104;
export const TYPE_L32 = 105;
export const TYPE_L64 = 106;
export const TYPE_LP = 107;
export const TYPE_EUI48 = 108;
export const TYPE_EUI64 = 109;
export const TYPE_TKEY = 249;
export const TYPE_TSIG = 250;
export const TYPE_IXFR = 251;
export const TYPE_AXFR = 252;
export const TYPE_MAILB = 253;
export const TYPE_MAILA = 254;
export const TYPE_ANY = 255;
export const TYPE_URI = 256;
export const TYPE_CAA = 257;
export const TYPE_AVC = 258;
export const TYPE_DOA = 259;
export const TYPE_AMTRELAY = 260;
export const TYPE_RESINFO = 261;
export const TYPE_WALLET = 262;
export const TYPE_TA = 32768;
export const TYPE_DLV = 32769;

/** Mnemonic -> type code, for every type with a mnemonic (IANA registry). */
const TYPE_MNEMONICS = [
  ['A', TYPE_A],
  ['NS', TYPE_NS],
  ['MD', TYPE_MD],
  ['MF', TYPE_MF],
  ['CNAME', TYPE_CNAME],
  ['SOA', TYPE_SOA],
  ['MB', TYPE_MB],
  ['MG', TYPE_MG],
  ['MR', TYPE_MR],
  ['NULL', TYPE_NULL],
  ['WKS', TYPE_WKS],
  ['PTR', TYPE_PTR],
  ['HINFO', TYPE_HINFO],
  ['MINFO', TYPE_MINFO],
  ['MX', TYPE_MX],
  ['TXT', TYPE_TXT],
  ['RP', TYPE_RP],
  ['AFSDB', TYPE_AFSDB],
  ['X25', TYPE_X25],
  ['ISDN', TYPE_ISDN],
  ['RT', TYPE_RT],
  ['NSAP', TYPE_NSAP],
  ['NSAP-PTR', TYPE_NSAP_PTR],
  ['SIG', TYPE_SIG],
  ['KEY', TYPE_KEY],
  ['PX', TYPE_PX],
  ['GPOS', TYPE_GPOS],
  ['AAAA', TYPE_AAAA],
  ['LOC', TYPE_LOC],
  ['NXT', TYPE_NXT],
  ['EID', TYPE_EID],
  ['NIMLOC', TYPE_NIMLOC],
  ['SRV', TYPE_SRV],
  ['ATMA', TYPE_ATMA],
  ['NAPTR', TYPE_NAPTR],
  ['KX', TYPE_KX],
  ['CERT', TYPE_CERT],
  ['A6', TYPE_A6],
  ['DNAME', TYPE_DNAME],
  ['SINK', TYPE_SINK],
  ['OPT', TYPE_OPT],
  ['APL', TYPE_APL],
  ['DS', TYPE_DS],
  ['SSHFP', TYPE_SSHFP],
  ['IPSECKEY', TYPE_IPSECKEY],
  ['RRSIG', TYPE_RRSIG],
  ['NSEC', TYPE_NSEC],
  ['DNSKEY', TYPE_DNSKEY],
  ['DHCID', TYPE_DHCID],
  ['NSEC3', TYPE_NSEC3],
  ['NSEC3PARAM', TYPE_NSEC3PARAM],
  ['TLSA', TYPE_TLSA],
  ['SMIMEA', TYPE_SMIMEA],
  ['HIP', TYPE_HIP],
  ['NINFO', TYPE_NINFO],
  ['RKEY', TYPE_RKEY],
  ['TALINK', TYPE_TALINK],
  ['CDS', TYPE_CDS],
  ['CDNSKEY', TYPE_CDNSKEY],
  ['OPENPGPKEY', TYPE_OPENPGPKEY],
  ['CSYNC', TYPE_CSYNC],
  ['ZONEMD', TYPE_ZONEMD],
  ['SVCB', TYPE_SVCB],
  ['HTTPS', TYPE_HTTPS],
  ['DSYNC', TYPE_DSYNC],
  ['HHIT', TYPE_HHIT],
  ['BRID', TYPE_BRID],
  ['SPF', TYPE_SPF],
  ['NID', TYPE_NID],
  ['L32', TYPE_L32],
  ['L64', TYPE_L64],
  ['LP', TYPE_LP],
  ['EUI48', TYPE_EUI48],
  ['EUI64', TYPE_EUI64],
  ['TKEY', TYPE_TKEY],
  ['TSIG', TYPE_TSIG],
  ['IXFR', TYPE_IXFR],
  ['AXFR', TYPE_AXFR],
  ['MAILB', TYPE_MAILB],
  ['MAILA', TYPE_MAILA],
  ['ANY', TYPE_ANY],
  ['URI', TYPE_URI],
  ['CAA', TYPE_CAA],
  ['AVC', TYPE_AVC],
  ['DOA', TYPE_DOA],
  ['AMTRELAY', TYPE_AMTRELAY],
  ['RESINFO', TYPE_RESINFO],
  ['WALLET', TYPE_WALLET],
  ['TA', TYPE_TA],
  ['DLV', TYPE_DLV],
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
