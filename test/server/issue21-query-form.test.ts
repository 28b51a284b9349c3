/**
 * Issue 21 item 10: a query with 400 octets of trailing junk is not answered
 * normally (FORMERR, as Knot DNS answers; BIND ignores the junk), and a
 * question name of 256 octets is FORMERR (as BIND answers; RFC 1035 section
 * 3.1 limits names to 255 octets), where a 255-octet name outside our zones
 * is still REFUSED.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolOrSkip } from '../helpers/tools.ts';
import { startKnot, type Daemon } from '../e2e/daemons.ts';
import { freePort } from './named.ts';
import {
  buildQuery,
  SAMPLE_ZONES,
  startTestServer,
  TEST_ZONES,
  udpRaw,
  type Harness,
} from './harness.ts';
import path from 'node:path';

let h: Harness;
beforeAll(async () => {
  h = await startTestServer([SAMPLE_ZONES, path.join(TEST_ZONES, 'example.test.zone')]);
});
afterAll(async () => h?.close());

const rcode = (r: Buffer | undefined) => (r === undefined ? 'no answer' : r.readUInt16BE(2) & 0xf);

/** A query whose question name has labels of the given lengths (plus the root octet). */
function longName(labels: readonly number[]): Buffer {
  const parts: number[] = [];
  for (const l of labels) parts.push(l, ...new Array<number>(l).fill(0x61));
  parts.push(0);
  const header = Buffer.from([0x12, 0x34, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
  return Buffer.concat([header, Buffer.from(parts), Buffer.from([0, 6, 0, 1])]);
}

describe('issue 21 item 10: malformed questions', () => {
  it('400 octets of trailing junk after the question: FORMERR, no answer records', async () => {
    const q = buildQuery('lex.urn.arpa', 'NAPTR');
    const r = await udpRaw(h.port, Buffer.concat([q, Buffer.alloc(400, 0x41)]));
    expect(rcode(r)).toBe(1);
    expect(r!.readUInt16BE(6)).toBe(0);
    // The same query without the junk is answered.
    expect(rcode(await udpRaw(h.port, q))).toBe(0);
  });

  it('trailing junk after the OPT record: FORMERR', async () => {
    const q = buildQuery('lex.urn.arpa', 'NAPTR', { edns: true });
    expect(rcode(await udpRaw(h.port, Buffer.concat([q, Buffer.alloc(400, 0)])))).toBe(1);
  });

  it('a 256-octet question name is FORMERR, a 255-octet one outside our zones REFUSED', async () => {
    const n256 = longName([63, 63, 63, 62]);
    expect(n256.length - 12 - 4).toBe(256);
    expect(rcode(await udpRaw(h.port, n256))).toBe(1);
    const n255 = longName([63, 63, 63, 61]);
    expect(n255.length - 12 - 4).toBe(255);
    expect(rcode(await udpRaw(h.port, n255))).toBe(5);
  });

  it('FORMERR answers are summarised: one log line for 50 malformed queries', async () => {
    h.server.summary.flush();
    const before = h.logs.length;
    const junk = Buffer.concat([buildQuery('lex.urn.arpa', 'NAPTR'), Buffer.alloc(400, 0x41)]);
    for (let i = 0; i < 50; i++) expect(rcode(await udpRaw(h.port, junk))).toBe(1);
    h.server.summary.flush();
    const lines = h.logs.slice(before).map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      event: 'formerr_sent',
      level: 'warn',
      count: 50,
      sources: 1,
      reasons: { udp: 50 },
      top: [{ source: '127.0.0.1', count: 50 }],
    });
  });

  const knotd = toolOrSkip('knotd');
  it.skipIf(!knotd.path)('Knot DNS answers the trailing-junk query FORMERR too', async () => {
    let knot: Daemon | undefined;
    try {
      const zone = { origin: 'example.test.', file: path.join(TEST_ZONES, 'example.test.zone') };
      knot = await startKnot(knotd.path!, '127.0.0.1', await freePort(), [zone]);
      const q = buildQuery('example.test', 'SOA');
      const junk = Buffer.concat([q, Buffer.alloc(400, 0x41)]);
      expect(rcode(await udpRaw(knot.port, junk))).toBe(1);
      expect(rcode(await udpRaw(h.port, junk))).toBe(1);
    } finally {
      await knot?.close();
    }
  });
});
