/**
 * EUI48 and EUI64 RDATA (RFC 7043): six or eight two-digit hex groups joined
 * by hyphens (exactly two digits, as BIND and Knot read it), printed in lower case.
 */
import { extra, fail, writeHexToken, type RdataCodec } from './layout.ts';

function printEui(rdata: Uint8Array): string {
  return Array.from(rdata, (b) => b.toString(16).padStart(2, '0')).join('-');
}

function codec(octets: number): RdataCodec {
  const what = `EUI${octets * 8}`;
  const form = new RegExp(`^[0-9a-f]{2}(-[0-9a-f]{2}){${octets - 1}}$`, 'i');
  return {
    parse(lex, first, _origin, w) {
      const token = lex.token(first);
      if (!form.test(token))
        return fail(
          'ZONE_BAD_EUI',
          `expected ${what}: ${octets} two-digit hexadecimal numbers separated by hyphens, like ${'00-00-5e-00-53-2a-01-02'.slice(0, octets * 3 - 1)} (RFC 7043)`,
          first,
        );
      const hex = token.replaceAll('-', '');
      writeHexToken(hex, 0, hex.length, w);
      return extra(lex, first + 1, `${what} address`);
    },
    check: (rdata) => (rdata.length === octets ? undefined : `${what} RDATA is ${octets} octets`),
    print: printEui,
  };
}

export const EUI48_CODEC: RdataCodec = codec(6);
export const EUI64_CODEC: RdataCodec = codec(8);
