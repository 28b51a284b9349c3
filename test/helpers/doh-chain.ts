/**
 * A four-step LEX chain in four zones (urn.arpa, nic.it, lex.senado.gov.br,
 * lex.sao-paulo.gov.br), for a DNS server to hold them all and a stub client
 * to walk: bench/doh.ts and the DoH interoperability test
 * (test/client/doh-interop.test.ts) serve it from lexroute, BIND and Unbound.
 * `CHAIN_URN` ends at `CHAIN_RESOLVER`.
 */
const SOA = (o: string) =>
  `@ IN SOA ns.${o}. hostmaster.${o}. 1 7200 3600 1209600 300\n@ IN NS ns.${o}.\nns IN A 127.0.0.1\n`;
export const CHAIN_ZONES: Readonly<Record<string, string>> = {
  'urn.arpa': `$ORIGIN urn.arpa.\n$TTL 3600\n${SOA('urn.arpa')}lex IN NAPTR 100 10 "" "" "" lex-nameserver.nic.it.\n`,
  'nic.it':
    `$ORIGIN nic.it.\n$TTL 3600\n${SOA('nic.it')}` +
    `lex-nameserver IN NAPTR 100 10 "" "" "!^urn:lex:br[;:].*$!lex.senado.gov.br!i" .\n`,
  'lex.senado.gov.br':
    `$ORIGIN lex.senado.gov.br.\n$TTL 3600\n${SOA('lex.senado.gov.br')}` +
    `@ IN NAPTR 100 10 "" "" "!^urn:lex:br;sao\\\\.paulo[;:].*$!lex.sao-paulo.gov.br!i" .\n` +
    `@ IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!https://resolver.senado.example/uri-res/N2L?\\\\1!" .\n`,
  'lex.sao-paulo.gov.br':
    `$ORIGIN lex.sao-paulo.gov.br.\n$TTL 3600\n${SOA('lex.sao-paulo.gov.br')}` +
    `@ IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!https://resolver.sao-paulo.example/uri-res/N2L?\\\\1!" .\n`,
};

export const CHAIN_URN = 'urn:lex:br;sao.paulo:governo:decreto:2008-03-05;1';
export const CHAIN_RESOLVER = `https://resolver.sao-paulo.example/uri-res/N2L?${CHAIN_URN}`;
