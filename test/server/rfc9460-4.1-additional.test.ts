/**
 * RFC 9460 section 4.1: "authoritative servers SHOULD return A, AAAA, and
 * SVCB records in the Additional section for any TargetNames that are in the
 * zone". The expectations are what BIND 9.18 sends for the same zone (the
 * oracle test compares the whole zone with named): ServiceMode brings the
 * target's A/AAAA ("." is the owner); AliasMode brings the target's SVCB or
 * HTTPS RRset, processed in turn, or the target's A/AAAA when it has none.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { names, query, startTestServer, TEST_ZONES, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startTestServer([path.join(TEST_ZONES, 'svcb.test.zone')]);
});
afterAll(async () => h?.close());

const ROWS: readonly [string, string, readonly string[], string][] = [
  ['foo', 'SVCB', ['foo1.svcb.test A', 'foo1.svcb.test SVCB'], 'AliasMode to ServiceMode "."'],
  ['bar', 'SVCB', ['bar.svcb.test A', 'bar.svcb.test AAAA'], 'ServiceMode ".": the owner'],
  ['s', 'SVCB', ['s1.svcb.test A'], 'ServiceMode: target addresses, not its SVCB'],
  [
    'c0',
    'HTTPS',
    ['c1.svcb.test HTTPS', 'c2.svcb.test A', 'c2.svcb.test HTTPS'],
    'HTTPS AliasMode chain',
  ],
  ['d0', 'SVCB', ['d1.svcb.test SVCB', 'd2.svcb.test AAAA'], 'alias target with an SVCB'],
  ['e0', 'SVCB', ['e1.svcb.test A'], 'alias target without an SVCB: its addresses'],
  ['l0', 'HTTPS', ['l1.svcb.test HTTPS'], 'AliasMode loop stops'],
  ['out', 'SVCB', [], 'target outside the zone'],
  ['none', 'HTTPS', [], 'AliasMode to "."'],
  ['k', 'SVCB', [], 'target below a zone cut'],
];

describe.each(['udp', 'tcp'] as const)('SVCB/HTTPS additionals over %s', (transport) => {
  it.each(ROWS)('%s %s -> %j (%s)', async (label, qtype, additional) => {
    const r = await query(h.port, transport, `${label}.svcb.test`, qtype, { edns: true });
    expect(r.rcode).toBe(0);
    expect(r.aa).toBe(true);
    expect(r.answer.length).toBeGreaterThan(0);
    expect(names(r.additional)).toEqual([...additional].sort());
  });
});

describe('no additional processing where there is no SVCB answer', () => {
  it('an A query at an SVCB owner adds nothing', async () => {
    const r = await query(h.port, 'udp', 'foo.svcb.test', 'A', { edns: true });
    expect(names(r.answer)).toEqual(['foo.svcb.test A']);
    expect(r.additional).toEqual([]);
  });
});
