/**
 * Signature expiry per zone: the earliest RRSIG expiration of a zone
 * (RFC 4034 serial arithmetic), as `ctl status ZONE` and
 * `lexroute_dns_zone_signature_expiry_seconds` report it.
 */
import { describe, expect, it } from 'vitest';
import { parseZoneText } from '../../src/dns/core/zone/parser.ts';
import { buildZone } from '../../src/dns/core/zone/build.ts';
import { earliestExpiration, secondsToExpiry } from '../../src/authority/zone-signatures.ts';

const ORIGIN = 'sig.test.';

function zoneOf(text: string) {
  const p = parseZoneText(text, { origin: ORIGIN });
  expect(p.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return buildZone(p.records, { origin: ORIGIN }).zone!;
}

const HEAD = `$TTL 300
@ SOA ns1 hostmaster 1 3600 600 86400 300
@ NS ns1
ns1 A 192.0.2.1
`;
const sig = (covered: string, exp: string) =>
  `@ RRSIG ${covered} 13 2 300 ${exp} 20260101000000 12345 ${ORIGIN} AAAA\n`;

describe('signature expiry of a zone', () => {
  it('is undefined for an unsigned zone', () => {
    expect(secondsToExpiry(zoneOf(HEAD), Date.now())).toBeUndefined();
  });

  it('is the earliest RRSIG expiration, in seconds from now', () => {
    const z = zoneOf(HEAD + sig('SOA', '20270101000000') + sig('NS', '20261201000000'));
    const dec1 = Date.UTC(2026, 11, 1) / 1000;
    expect(earliestExpiration(z)).toBe(dec1);
    expect(secondsToExpiry(z, (dec1 - 3600) * 1000)).toBe(3600);
    expect(secondsToExpiry(z, (dec1 + 60) * 1000)).toBe(-60);
  });
});
