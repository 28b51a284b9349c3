/**
 * The DNS type codes lexroute names in code: the one definition (issue 19:
 * no TYPE_ constant is defined twice; test/model.test.ts checks it). The
 * mnemonic table of the zone parser and writer is `TYPE_CODES` in
 * core/zone/types.ts.
 *
 * @see https://www.iana.org/assignments/dns-parameters (Resource Record (RR) TYPEs)
 */
export const TYPE_A = 1;
export const TYPE_NS = 2;
export const TYPE_CNAME = 5;
export const TYPE_SOA = 6;
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
export const TYPE_TSIG = 250;
export const TYPE_IXFR = 251;
export const TYPE_AXFR = 252;
export const TYPE_ANY = 255;
