/**
 * RFC 3403 section 4.2: NAPTR additional-section processing. For an `S`
 * record the SRV RRset at REPLACEMENT and the SRV targets' A/AAAA; for an `A`
 * record its A/AAAA; only data from the same zone (as BIND); nothing for `U`
 * records or a REPLACEMENT outside the zone. Flags compare case-insensitively.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  names,
  query,
  SAMPLE_ZONES,
  startTestServer,
  TEST_ZONES,
  type Harness,
} from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startTestServer([SAMPLE_ZONES, path.join(TEST_ZONES, 'example.test.zone')]);
});
afterAll(async () => h?.close());

const ROWS: readonly [string, readonly string[], string][] = [
  [
    'lex.sao-paulo.gov.br',
    [
      '_http._tcp.resolver.lex.sao-paulo.gov.br SRV',
      '_http._tcp.resolver.lex.sao-paulo.gov.br SRV',
      'res1.lex.sao-paulo.gov.br A',
      'res1.lex.sao-paulo.gov.br AAAA',
      'res2.lex.sao-paulo.gov.br A',
      'www.lex.sao-paulo.gov.br A',
    ],
    'S: SRV and its targets; A: the host address',
  ],
  [
    'naptr-s.example.test',
    ['_sip._udp.example.test SRV', 'mail.example.test A', 'mail.example.test AAAA'],
    'upper-case "S" flag',
  ],
  ['naptr-a.example.test', ['www.example.test A'], '"a" flag'],
  ['naptr-u.example.test', [], 'U flag: nothing'],
  ['lex.urn.arpa', [], 'empty flags, REPLACEMENT in another zone: nothing'],
  ['lex-nameserver.nic.it', [], 'regexp rules: nothing'],
];

describe.each(['udp', 'tcp'] as const)('NAPTR additionals over %s', (transport) => {
  it.each(ROWS)('%s -> %j (%s)', async (qname, additional) => {
    const r = await query(h.port, transport, qname, 'NAPTR', { edns: true });
    expect(r.rcode).toBe(0);
    expect(r.aa).toBe(true);
    expect(r.answer.length).toBeGreaterThan(0);
    expect(names(r.additional)).toEqual([...additional].sort());
  });
});

describe('SRV answers', () => {
  it('SRV targets in the zone get their addresses; outside targets nothing', async () => {
    const r = await query(h.port, 'udp', '_sip._udp.example.test', 'SRV');
    expect(names(r.additional)).toEqual(['mail.example.test A', 'mail.example.test AAAA']);
    const o = await query(h.port, 'udp', 'srvout.example.test', 'SRV');
    expect(o.additional).toEqual([]);
  });
});
