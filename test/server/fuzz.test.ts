/**
 * Nothing a client sends can crash the server: random and mutated packets
 * through the engine (every response well-formed, within the size limit, or
 * the message dropped), then a burst over real UDP and TCP sockets, after
 * which the server still answers.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import dnsPacket from 'dns-packet';
import type { Engine } from '../../src/authority/engine.ts';
import { TRANSPORT_TCP, TRANSPORT_UDP } from '../../src/authority/engine.ts';
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
let engine: Engine;
beforeAll(async () => {
  h = await startTestServer([SAMPLE_ZONES]);
  engine = h.server.engine;
});
afterAll(async () => h?.close());

const SEEDS = [
  buildQuery('lex.urn.arpa', 'NAPTR'),
  buildQuery('lex.sao-paulo.gov.br', 'NAPTR', { edns: true }),
  buildQuery('x.y.lex.example.de', 'NAPTR', {
    edns: { udpSize: 4096, options: [{ code: 8, data: Buffer.alloc(7) }] },
  }),
  buildQuery('q.municipio.lex.sao-paulo.gov.br', 'A'),
  buildQuery('a.bayern.lex.example.de', 'ANY'),
];

function check(msg: Buffer, transport: typeof TRANSPORT_UDP | typeof TRANSPORT_TCP): void {
  const out = engine.respond(msg, transport);
  if (out === undefined) return;
  expect(out.length).toBeGreaterThanOrEqual(12);
  expect(out.length).toBeLessThanOrEqual(transport === TRANSPORT_UDP ? 1232 : 65535);
  expect(out.readUInt16BE(0)).toBe(msg.readUInt16BE(0));
  expect(out[2]! & 0x80).toBe(0x80);
  // The response itself must decode.
  expect(() => dnsPacket.decode(out)).not.toThrow();
}

describe('fuzz', () => {
  it('random octet strings', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 600 }), fc.boolean(), (bytes, tcp) => {
        check(Buffer.from(bytes), tcp ? TRANSPORT_TCP : TRANSPORT_UDP);
      }),
      { numRuns: 3000, seed: 4242 },
    );
  });

  it('mutated valid queries (bit flips, truncation, extension, count changes)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SEEDS),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.integer({ min: -20, max: 20 }),
        fc.boolean(),
        (seed, flips, resize, tcp) => {
          let m = Buffer.from(seed);
          for (const [pos, val] of flips) m[pos % m.length] = val;
          if (resize < 0) m = m.subarray(0, Math.max(0, m.length + resize));
          else if (resize > 0) m = Buffer.concat([m, Buffer.alloc(resize, resize)]);
          if (m.length >= 12) m[2] = m[2]! & 0x7f; // keep QR=0 most of the time: reach the parser
          check(m, tcp ? TRANSPORT_TCP : TRANSPORT_UDP);
        },
      ),
      { numRuns: 5000, seed: 99 },
    );
  });

  it('a compression loop or pointer in the question is FORMERR, not a hang', () => {
    const m = Buffer.from(buildQuery('lex.urn.arpa', 'NAPTR'));
    m[12] = 0xc0;
    m[13] = 12;
    const out = engine.respond(m, TRANSPORT_UDP)!;
    expect(out[3]! & 0xf).toBe(1);
    // An additional record whose owner points at itself.
    const n = Buffer.concat([
      buildQuery('lex.urn.arpa', 'NAPTR'),
      Buffer.from([0xc0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0]),
    ]);
    n.writeUInt16BE(1, 10);
    n.writeUInt16BE(0xc000 | (n.length - 12), n.length - 12);
    const out2 = engine.respond(n, TRANSPORT_UDP)!;
    expect([0, 1]).toContain(out2[3]! & 0xf);
  });

  it('headers only: short messages are dropped, header-only messages get FORMERR', () => {
    expect(engine.respond(Buffer.alloc(5), TRANSPORT_UDP)).toBeUndefined();
    const hdr = Buffer.alloc(12);
    hdr.writeUInt16BE(0xbeef, 0);
    const r = decode(engine.respond(hdr, TRANSPORT_UDP)!);
    expect(r.id).toBe(0xbeef);
    expect(r.rcode).toBe(1);
    expect(r.qdcount).toBe(0);
  });

  it('over real sockets: a burst of garbage, then the server still answers', async () => {
    const rnd = fc.sample(fc.uint8Array({ minLength: 0, maxLength: 300 }), {
      numRuns: 300,
      seed: 7,
    });
    await Promise.all(rnd.map((b) => udpRaw(h.port, b, 200)));
    await tcpRaw(h.port, rnd.slice(0, 50), 50, 500).catch(() => []);
    const r = await query(h.port, 'udp', 'lex.urn.arpa', 'NAPTR');
    expect(r.answer).toHaveLength(1);
    const t = await query(h.port, 'tcp', 'lex.urn.arpa', 'NAPTR');
    expect(t.answer).toHaveLength(1);
    expect(h.logs.filter((l) => l.includes('query_failed'))).toEqual([]);
  });
});
