/**
 * RFC 8482: ANY over UDP gets a minimal answer (one RRset, section 4.1: the
 * lowest type code present); over TCP the conventional answer (section 4.4
 * allows it). ANY at a missing name is NXDOMAIN, at an ENT NODATA.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { names, query, SAMPLE_ZONES, startTestServer, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startTestServer([SAMPLE_ZONES]);
});
afterAll(async () => h?.close());

describe('RFC 8482', () => {
  it('UDP: one RRset at the apex (NS, the lowest type)', async () => {
    const r = await query(h.port, 'udp', 'urn.arpa', 'ANY');
    expect(r.rcode).toBe(0);
    expect(r.aa).toBe(true);
    expect(new Set(names(r.answer).map((n) => n.split(' ')[1]))).toEqual(new Set(['NS']));
  });
  it('TCP: every RRset at the apex', async () => {
    const r = await query(h.port, 'tcp', 'urn.arpa', 'ANY');
    expect(new Set(names(r.answer).map((n) => n.split(' ')[1]))).toEqual(new Set(['NS', 'SOA']));
  });
  it('ANY at a missing name: NXDOMAIN with SOA', async () => {
    for (const t of ['udp', 'tcp'] as const) {
      const r = await query(h.port, t, 'nope.urn.arpa', 'ANY');
      expect(r.rcode).toBe(3);
      expect(names(r.authority)).toEqual(['urn.arpa SOA']);
    }
  });
  it('ANY at an empty non-terminal: NODATA', async () => {
    const r = await query(h.port, 'udp', 'org.lex-routing.nic.it', 'ANY');
    expect(r.rcode).toBe(0);
    expect(r.answer).toEqual([]);
    expect(names(r.authority)).toEqual(['nic.it SOA']);
  });
  it('ANY at a CNAME owner returns the CNAME, not chased (ANY matches CNAME)', async () => {
    for (const t of ['udp', 'tcp'] as const) {
      const r = await query(h.port, t, 'lex-ns.nic.it', 'ANY');
      expect(names(r.answer)).toEqual(['lex-ns.nic.it CNAME']);
    }
  });
});
