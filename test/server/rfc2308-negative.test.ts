/**
 * RFC 2308: negative answers carry the zone's SOA in the authority section,
 * with TTL = min(SOA TTL, SOA MINIMUM) (section 3), over UDP and TCP.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, SAMPLE_ZONES, startTestServer, TEST_ZONES, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startTestServer([SAMPLE_ZONES, path.join(TEST_ZONES, 'example.test.zone')]);
});
afterAll(async () => h?.close());

// [qname, qtype, rcode, SOA owner, expected negative TTL, why]
const ROWS: readonly [string, string, number, string, number, string][] = [
  ['nope.example.test', 'A', 3, 'example.test', 300, 'NXDOMAIN: MINIMUM 300 < TTL 3600'],
  ['www.example.test', 'AAAA', 0, 'example.test', 300, 'NODATA (section 2.2)'],
  ['ent.example.test', 'A', 0, 'example.test', 300, 'NODATA at an empty non-terminal'],
  ['x.urn.arpa', 'NAPTR', 3, 'urn.arpa', 3600, 'NXDOMAIN: MINIMUM 3600 = TTL'],
  ['lex.urn.arpa', 'SRV', 0, 'urn.arpa', 3600, 'NODATA at a NAPTR owner'],
  ['fr.lex-routing.nic.it', 'NAPTR', 3, 'nic.it', 300, 'unregistered jurisdiction key (variant B)'],
  ['org.lex-routing.nic.it', 'NAPTR', 0, 'nic.it', 300, 'ENT between jurisdiction keys'],
  ['lex.senado.gov.br', 'A', 0, 'lex.senado.gov.br', 600, 'NODATA at a jurisdiction apex'],
];

describe.each(['udp', 'tcp'] as const)('RFC 2308 over %s', (transport) => {
  it.each(ROWS)(
    '%s %s -> rcode %i, SOA of %s with TTL %i (%s)',
    async (qname, qtype, rcode, owner, ttl) => {
      const r = await query(h.port, transport, qname, qtype);
      expect(r.rcode).toBe(rcode);
      expect(r.aa).toBe(true);
      expect(r.answer).toEqual([]);
      expect(r.authority).toHaveLength(1);
      const [name, t, type] = r.authority[0]!.split(' ');
      expect(name).toBe(owner);
      expect(type).toBe('SOA');
      expect(Number(t)).toBe(ttl);
    },
  );
});

describe('RFC 2308 section 3: the SOA in a negative answer is the full record', () => {
  it('carries MNAME, RNAME and the timers unchanged', async () => {
    const r = await query(h.port, 'udp', 'nope.example.test', 'A');
    const soa = JSON.parse(r.authority[0]!.split(' ').slice(3).join(' ')) as Record<
      string,
      unknown
    >;
    expect(soa).toMatchObject({
      mname: 'ns1.example.test',
      rname: 'hostmaster.example.test',
      serial: 1,
      refresh: 7200,
      retry: 3600,
      expire: 1209600,
      minimum: 300,
    });
  });
  it('the same negative body serves names of different lengths and cases', async () => {
    for (const qname of [
      'a.example.test',
      'LONGER-NAME.x.y.example.test',
      'Q.EXAMPLE.TEST.'.slice(0, -1),
    ]) {
      const r = await query(h.port, 'udp', qname, 'TXT');
      expect(r.rcode).toBe(3);
      expect(r.question?.name).toBe(qname);
      expect(r.authority[0]).toMatch(/^example\.test 300 SOA /);
    }
  });
});
