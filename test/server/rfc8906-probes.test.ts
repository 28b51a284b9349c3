/**
 * RFC 8906 ("A Common Operational Problem in DNS Servers: Failure to
 * Communicate") section 8 probes, over UDP and TCP: every probe gets a
 * well-formed answer; unknown things are answered, never dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildQuery,
  decode,
  query,
  SAMPLE_ZONES,
  startTestServer,
  tcpRaw,
  udpRaw,
  type Harness,
} from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startTestServer([SAMPLE_ZONES]);
});
afterAll(async () => h?.close());

async function send(transport: 'udp' | 'tcp', msg: Buffer) {
  const raw = transport === 'udp' ? await udpRaw(h.port, msg) : (await tcpRaw(h.port, [msg]))[0];
  expect(raw, 'a response').toBeDefined();
  return decode(raw!);
}

describe.each(['udp', 'tcp'] as const)('RFC 8906 section 8 over %s', (transport) => {
  it('8.1.1 zone verification: SOA at the apex', async () => {
    const r = await query(h.port, transport, 'urn.arpa', 'SOA', { rd: false });
    expect(r.rcode).toBe(0);
    expect(r.aa).toBe(true);
    expect(r.answer.map((a) => a.split(' ')[2])).toEqual(['SOA']);
  });
  it('8.2.1 unknown type at the apex: NOERROR, no answer, SOA in authority', async () => {
    const r = await query(h.port, transport, 'urn.arpa', 1000);
    expect(r.rcode).toBe(0);
    expect(r.aa).toBe(true);
    expect(r.answer).toEqual([]);
    expect(r.authority[0]).toMatch(/^urn\.arpa \d+ SOA /);
  });
  it('8.2.2 header: the Z bit and AD are not echoed; RA is not set; CD is copied', async () => {
    const msg = buildQuery('lex.urn.arpa', 'NAPTR');
    msg[3] = msg[3]! | 0x40 | 0x20 | 0x10; // Z, AD, CD
    const r = await send(transport, msg);
    expect(r.rcode).toBe(0);
    expect(r.raw[3]! & 0x40).toBe(0);
    expect(r.raw[3]! & 0x20).toBe(0);
    expect(r.raw[3]! & 0x10).toBe(0x10);
    expect(r.ra).toBe(false);
    expect(r.answer).toHaveLength(1);
  });
  it('8.2.4 unknown opcode 15: NOTIMP, no answer', async () => {
    const r = await query(h.port, transport, 'urn.arpa', 'SOA', { opcode: 15 });
    expect(r.rcode).toBe(4);
    expect(r.opcode).toBe(15);
    expect(r.answer).toEqual([]);
    expect(r.aa).toBe(false);
  });
  it('8.2.6 EDNS version 1: BADVERS with an OPT of version 0', async () => {
    const r = await query(h.port, transport, 'urn.arpa', 'SOA', { edns: { version: 1 } });
    expect(r.fullRcode).toBe(16);
    expect(r.opt?.version).toBe(0);
    expect(r.answer).toEqual([]);
  });
  it('8.2.7 unknown EDNS option: ignored, normal answer with OPT', async () => {
    const r = await query(h.port, transport, 'urn.arpa', 'SOA', {
      edns: { options: [{ code: 100, data: Buffer.alloc(0) }] },
    });
    expect(r.rcode).toBe(0);
    expect(r.answer).toHaveLength(1);
    expect(r.opt?.version).toBe(0);
  });
  it('8.2.8 unknown EDNS flag: ignored and not echoed', async () => {
    const msg = buildQuery('urn.arpa', 'SOA', { edns: true });
    msg[msg.length - 4] = 0x40; // an unassigned flag bit in the OPT TTL
    const r = await send(transport, msg);
    expect(r.rcode).toBe(0);
    expect(r.answer).toHaveLength(1);
    expect(r.raw[r.raw.length - 4]).toBe(0);
  });
  it('8.2.9 EDNS version 1 with an unknown option: BADVERS', async () => {
    const r = await query(h.port, transport, 'urn.arpa', 'SOA', {
      edns: { version: 1, options: [{ code: 100, data: Buffer.alloc(2) }] },
    });
    expect(r.fullRcode).toBe(16);
  });
  it('out-of-zone name: REFUSED (not an open resolver), AA off, no answer', async () => {
    const r = await query(h.port, transport, 'www.example.com', 'A');
    expect(r.rcode).toBe(5);
    expect(r.aa).toBe(false);
    expect(r.answer).toEqual([]);
    expect(r.question?.name).toBe('www.example.com');
  });
  it('class CHAOS: REFUSED (only class IN is served)', async () => {
    const r = await query(h.port, transport, 'version.bind', 'TXT', { qclass: 3 });
    expect(r.rcode).toBe(5);
  });
});
