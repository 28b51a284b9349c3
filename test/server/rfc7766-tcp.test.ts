/**
 * RFC 7766 (DNS over TCP): length-prefixed messages, pipelining, responses
 * matched by ID, idle timeout, a cap on connections.
 */
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG } from '../../src/config/server.ts';
import {
  buildQuery,
  decode,
  SAMPLE_ZONES,
  startTestServer,
  tcpRaw,
  TEST_ZONES,
  type Harness,
} from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startTestServer([SAMPLE_ZONES, path.join(TEST_ZONES, 'example.test.zone')], {
    tcp: { ...DEFAULT_SERVER_CONFIG.tcp, idleTimeoutMs: 300, maxConnections: 16 },
  });
});
afterAll(async () => h?.close());

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
}

function closed(s: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    if (s.destroyed || s.readableEnded) resolve();
    s.on('close', () => resolve());
  });
}

describe('RFC 7766', () => {
  it('section 6.2.1.1: pipelined queries on one connection are all answered, matched by ID', async () => {
    const qs = [
      ['lex.urn.arpa', 'NAPTR'],
      ['nope.urn.arpa', 'A'],
      ['lex.sao-paulo.gov.br', 'NAPTR'],
      ['big.example.test', 'TXT'],
      ['www.example.org', 'A'],
    ] as const;
    const msgs = Array.from({ length: 40 }, (_, i) =>
      buildQuery(qs[i % qs.length]![0], qs[i % qs.length]![1], { id: 1000 + i }),
    );
    const resps = (await tcpRaw(h.port, msgs, msgs.length, 5000)).map(decode);
    expect(resps).toHaveLength(40);
    const ids = resps.map((r) => r.id).sort((a, b) => a - b);
    expect(ids).toEqual(msgs.map((_, i) => 1000 + i));
    for (const r of resps) {
      const i = r.id - 1000;
      expect(r.question?.name).toBe(qs[i % qs.length]![0]);
    }
    // The big TXT RRset (over 1232 octets) is whole over TCP.
    expect(resps.find((r) => r.id === 1003)!.answer).toHaveLength(7);
  });

  it('section 8: a message split across segments (even inside the length prefix) is reassembled', async () => {
    const s = await connect(h.port);
    const q = buildQuery('lex.urn.arpa', 'NAPTR', { id: 77 });
    const frame = Buffer.concat([Buffer.from([q.length >> 8, q.length & 0xff]), q]);
    const got = new Promise<Buffer>((resolve) => {
      let buf = Buffer.alloc(0);
      s.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) resolve(buf.subarray(2));
      });
    });
    s.setNoDelay(true);
    for (const b of frame) {
      s.write(Buffer.from([b]));
      await new Promise((r) => setTimeout(r, 1));
    }
    const r = decode(await got);
    expect(r.id).toBe(77);
    expect(r.answer).toHaveLength(1);
    s.destroy();
  });

  it('section 6.2.3: an idle connection is closed by the server', async () => {
    const s = await connect(h.port);
    await closed(s);
    expect(s.destroyed || s.readableEnded).toBe(true);
  });

  it('connections beyond the cap are closed; the others keep working', async () => {
    const capped = await startTestServer([SAMPLE_ZONES], {
      tcp: { ...DEFAULT_SERVER_CONFIG.tcp, idleTimeoutMs: 10_000, maxConnections: 2 },
    });
    try {
      const open = await Promise.all([connect(capped.port), connect(capped.port)]);
      const extra = await connect(capped.port);
      await closed(extra);
      expect(extra.readableEnded || extra.destroyed).toBe(true);
      // The two admitted connections still answer.
      const answers = await Promise.all(
        open.map(
          (s, i) =>
            new Promise<number>((resolve) => {
              const q = buildQuery('lex.urn.arpa', 'NAPTR', { id: 500 + i });
              s.once('data', (d: Buffer) => resolve(d.readUInt16BE(2)));
              s.write(Buffer.concat([Buffer.from([q.length >> 8, q.length & 0xff]), q]));
            }),
        ),
      );
      expect(answers.sort()).toEqual([500, 501]);
      for (const s of open) s.destroy();
      await Promise.all(open.map(closed));
      await new Promise((res) => setTimeout(res, 50));
      const again = await tcpRaw(capped.port, [buildQuery('lex.urn.arpa', 'NAPTR')]);
      expect(decode(again[0]!).answer).toHaveLength(1);
    } finally {
      await capped.close();
    }
  });

  it('a response (QR=1) sent as a query closes the connection without an answer', async () => {
    const q = buildQuery('lex.urn.arpa', 'NAPTR');
    q[2] = q[2]! | 0x80;
    const r = await tcpRaw(h.port, [q], 1, 1500);
    expect(r).toHaveLength(0);
  });
});
