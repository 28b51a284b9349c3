/**
 * RFC 6891 (EDNS(0)): OPT in responses, UDP payload negotiation, BADVERS,
 * unknown options ignored, one OPT only; RFC 2181 section 9 truncation.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildQuery,
  decode,
  query,
  SAMPLE_ZONES,
  startTestServer,
  tcpRaw,
  TEST_ZONES,
  udpRaw,
  type Harness,
} from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startTestServer([SAMPLE_ZONES, path.join(TEST_ZONES, 'example.test.zone')]);
});
afterAll(async () => h?.close());

describe.each(['udp', 'tcp'] as const)('RFC 6891 over %s', (transport) => {
  it('6.1.1: a response to a query with OPT carries one OPT', async () => {
    const r = await query(h.port, transport, 'lex.urn.arpa', 'NAPTR', { edns: true });
    expect(r.opt).toEqual({ udpSize: 1232, version: 0, do: false });
    expect(r.raw.readUInt16BE(10)).toBe(1);
  });
  it('6.1.1: no OPT in the response to a query without one', async () => {
    const r = await query(h.port, transport, 'lex.urn.arpa', 'NAPTR');
    expect(r.opt).toBeUndefined();
  });
  it('RFC 3225 section 3: the DO bit is copied', async () => {
    const r = await query(h.port, transport, 'lex.urn.arpa', 'NAPTR', { edns: { do: true } });
    expect(r.opt?.do).toBe(true);
  });
  it('6.1.3: VERSION 1 gets BADVERS (extended RCODE 16) with an OPT of version 0', async () => {
    const r = await query(h.port, transport, 'lex.urn.arpa', 'NAPTR', { edns: { version: 1 } });
    expect(r.fullRcode).toBe(16);
    expect(r.rcode).toBe(0);
    expect(r.opt?.version).toBe(0);
    expect(r.answer).toEqual([]);
    expect(r.question?.name).toBe('lex.urn.arpa');
  });
  it('6.1.2: unknown options are ignored', async () => {
    const r = await query(h.port, transport, 'lex.urn.arpa', 'NAPTR', {
      edns: {
        options: [
          { code: 65001, data: Buffer.from('hello') },
          { code: 10, data: Buffer.alloc(8, 1) },
        ],
      },
    });
    expect(r.rcode).toBe(0);
    expect(r.answer).toHaveLength(1);
    expect(r.opt?.version).toBe(0);
  });
  it('6.1.1: more than one OPT is FORMERR', async () => {
    const one = buildQuery('lex.urn.arpa', 'NAPTR', { edns: true });
    const opt = one.subarray(one.length - 11);
    const two = Buffer.concat([one, opt]);
    two.writeUInt16BE(2, 10);
    const raw = transport === 'udp' ? await udpRaw(h.port, two) : (await tcpRaw(h.port, [two]))[0];
    const r = decode(raw!);
    expect(r.rcode).toBe(1);
    expect(r.answer).toEqual([]);
  });
  it('6.1.2: an OPT whose owner is not the root is FORMERR', async () => {
    const q = buildQuery('lex.urn.arpa', 'NAPTR');
    const bad = Buffer.concat([q, Buffer.from([1, 0x61, 0, 0, 41, 4, 0xd0, 0, 0, 0, 0, 0, 0])]);
    bad.writeUInt16BE(1, 10);
    const r = decode((await udpRaw(h.port, bad))!);
    expect(r.rcode).toBe(1);
  });
  it('OPT is kept on error responses (REFUSED, NOTIMP)', async () => {
    const refused = await query(h.port, transport, 'www.example.org', 'A', { edns: true });
    expect(refused.rcode).toBe(5);
    expect(refused.opt?.version).toBe(0);
    const notimp = await query(h.port, transport, 'lex.urn.arpa', 'A', { edns: true, opcode: 2 });
    expect(notimp.rcode).toBe(4);
    expect(notimp.opt?.version).toBe(0);
  });
});

describe('UDP payload size and truncation (RFC 6891 section 6.2.5, RFC 2181 section 9)', () => {
  it('without EDNS a response over 512 octets is truncated: TC, no partial RRset', async () => {
    const r = await query(h.port, 'udp', 'big.example.test', 'TXT');
    expect(r.tc).toBe(true);
    expect(r.raw.length).toBeLessThanOrEqual(512);
    expect(r.answer.length === 0 || r.answer.length === 7).toBe(true);
  });
  it('a client limit of 4096 is capped by our 1232: still truncated', async () => {
    const r = await query(h.port, 'udp', 'big.example.test', 'TXT', { edns: { udpSize: 4096 } });
    expect(r.tc).toBe(true);
    expect(r.raw.length).toBeLessThanOrEqual(1232);
    expect(r.opt?.udpSize).toBe(1232);
  });
  it('a client limit below 512 is treated as 512', async () => {
    const r = await query(h.port, 'udp', 'lex.urn.arpa', 'NAPTR', { edns: { udpSize: 100 } });
    expect(r.tc).toBe(false);
    expect(r.answer).toHaveLength(1);
  });
  it('over TCP the whole answer comes back', async () => {
    const r = await query(h.port, 'tcp', 'big.example.test', 'TXT');
    expect(r.tc).toBe(false);
    expect(r.answer).toHaveLength(7);
  });
  it('dropping optional additional data does not set TC', async () => {
    const full = await query(h.port, 'udp', 'lex.sao-paulo.gov.br', 'NAPTR', { edns: true });
    expect(full.raw.length).toBeGreaterThan(512);
    expect(full.additional.length).toBeGreaterThan(0);
    const small = await query(h.port, 'udp', 'lex.sao-paulo.gov.br', 'NAPTR');
    expect(small.tc).toBe(false);
    expect(small.answer).toHaveLength(5);
    expect(small.raw.length).toBeLessThanOrEqual(512);
    expect(small.additional.length).toBeLessThan(full.additional.length);
  });
  it('a truncated response keeps its OPT', async () => {
    const r = await query(h.port, 'udp', 'big.example.test', 'TXT', { edns: { udpSize: 600 } });
    expect(r.tc).toBe(true);
    expect(r.opt?.udpSize).toBe(1232);
    expect(r.raw.length).toBeLessThanOrEqual(600);
  });
});
