/**
 * Issue 21 item 4: DNS over TCP against slow and hostile clients. Before the
 * fix, 300 connections sending one octet every few seconds kept all 256
 * slots and 0 of 70 TCP probes were answered; every refused connection wrote
 * its own log line. Also: reassembly of a message sent one octet per segment
 * is linear (counted in octets copied, not timed), and framing survives any
 * segmentation (property test).
 */
import net from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG } from '../../src/config/server.ts';
import { FrameReader } from '../../src/authority/tcp-frames.ts';
import { buildQuery, decode, SAMPLE_ZONES, startTestServer, type Harness } from './harness.ts';

let h: Harness | undefined;
const attackers: net.Socket[] = [];
const timers: ReturnType<typeof setInterval>[] = [];
afterEach(async () => {
  for (const t of timers.splice(0)) clearInterval(t);
  for (const s of attackers.splice(0)) s.destroy();
  await h?.close();
  h = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A slowloris connection: announces a 40-octet message, then sends one octet every 200 ms. */
function slowClient(port: number, from: string): Promise<void> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1', localAddress: from });
    attackers.push(s);
    s.on('error', () => undefined);
    s.on('close', () => resolve());
    s.on('connect', () => {
      s.write(Buffer.from([0, 40]));
      const t = setInterval(() => {
        if (s.destroyed) clearInterval(t);
        else s.write(Buffer.from([0x41]));
      }, 200);
      timers.push(t);
      resolve();
    });
  });
}

/** One query over a new TCP connection from `from`; the response, or undefined if refused or unanswered. */
function probe(port: number, from: string, id: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1', localAddress: from });
    let buf = Buffer.alloc(0);
    const done = (r: Buffer | undefined) => {
      clearTimeout(timer);
      s.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done(undefined), 1000);
    s.on('error', () => done(undefined));
    s.on('close', () => done(undefined));
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) done(buf.subarray(2));
    });
    s.on('connect', () => {
      const q = buildQuery('lex.urn.arpa', 'NAPTR', { id });
      s.write(Buffer.concat([Buffer.from([q.length >> 8, q.length & 0xff]), q]));
    });
  });
}

function summaries(logs: readonly string[], event: string) {
  return logs.map((l) => JSON.parse(l)).filter((o) => o.event === event);
}

const TCP = {
  ...DEFAULT_SERVER_CONFIG.tcp,
  messageTimeoutMs: 800,
  maxPerClient: 32,
  pressureIdleTimeoutMs: 500,
};

describe('issue 21 item 4: slowloris over TCP', () => {
  it('300 slow connections from one source: 32 admitted, the rest refused in one log line; probes from elsewhere answered', async () => {
    h = await startTestServer([SAMPLE_ZONES], {
      tcp: { ...TCP, maxConnections: 256 },
      log: { ...DEFAULT_SERVER_CONFIG.log, summaryIntervalMs: 3_600_000 },
    });
    const port = h.port;
    await Promise.all(Array.from({ length: 300 }, () => slowClient(port, '127.0.0.1')));
    const stats = h.server.tcp[0]!.stats;
    for (let i = 0; i < 50 && stats.accepted + stats.refusedPerClient < 300; i++) await sleep(20);
    expect(stats.accepted).toBe(32);
    let answered = 0;
    for (let i = 0; i < 20; i++) {
      const r = await probe(port, '127.0.0.2', 100 + i);
      if (r && decode(r).id === 100 + i) answered++;
    }
    expect(answered).toBe(20);
    // The 32 admitted slow connections are closed by the per-message deadline.
    for (let i = 0; i < 50 && stats.closedMessageTimeout < 32; i++) await sleep(100);
    expect(stats.refusedPerClient).toBe(268);
    expect(stats.closedMessageTimeout).toBe(32);
    h.server.summary.flush();
    const refused = summaries(h.logs, 'tcp_connections_refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({
      level: 'warn',
      count: 268,
      sources: 1,
      reasons: { perClient: 268 },
      top: [{ source: '127.0.0.1', count: 268 }],
    });
    expect(refused[0].summary).toMatch(/268 from 1 source in the last \d+ s/);
    expect(h.logs.filter((l) => l.includes('refused')).length).toBe(1);
  });

  it('300 slow connections from 30 sources fill every slot; a new client is still answered within the deadline', async () => {
    h = await startTestServer([SAMPLE_ZONES], {
      tcp: { ...TCP, maxConnections: 64 },
      log: { ...DEFAULT_SERVER_CONFIG.log, summaryIntervalMs: 3_600_000 },
    });
    const port = h.port;
    await Promise.all(
      Array.from({ length: 300 }, (_, i) => slowClient(port, `127.0.0.${10 + (i % 30)}`)),
    );
    const stats = h.server.tcp[0]!.stats;
    // The server has seen every connection attempt.
    for (let i = 0; i < 50 && stats.accepted + stats.refusedMax < 300; i++) await sleep(20);
    expect(stats.accepted).toBe(64);
    expect(stats.refusedMax).toBe(236);
    // Each probe retries until answered; the slow connections cannot hold the slots
    // past the message deadline, so every probe gets through (bounded: 40 tries).
    let answered = 0;
    let tries = 0;
    for (let i = 0; i < 10; i++) {
      for (let t = 0; t < 40; t++) {
        tries++;
        const r = await probe(port, '127.0.0.2', 200 + i);
        if (r && decode(r).id === 200 + i) {
          answered++;
          break;
        }
        await sleep(50);
      }
    }
    expect(answered).toBe(10);
    const closedByServer = () => stats.closedMessageTimeout + stats.closedIdle;
    for (let i = 0; i < 50 && closedByServer() < 64; i++) await sleep(100);
    expect(closedByServer()).toBe(64);
    expect(tries).toBeLessThan(400);
  });
});

describe('TCP framing', () => {
  it('a 65,535-octet message sent one octet per segment is reassembled with linear copying', () => {
    const r = new FrameReader();
    const msg = Buffer.alloc(65535, 7);
    const stream = Buffer.concat([Buffer.from([0xff, 0xff]), msg, Buffer.from([0, 3, 1, 2, 3])]);
    const got: Buffer[] = [];
    for (let i = 0; i < stream.length; i++) {
      r.push(stream.subarray(i, i + 1), (m) => (got.push(Buffer.from(m)), true));
    }
    expect(got.map((m) => m.length)).toEqual([65535, 3]);
    expect(got[0]!.equals(msg)).toBe(true);
    expect([...got[1]!]).toEqual([1, 2, 3]);
    expect(r.pending).toBe(0);
    // Amortised doubling: each octet is copied a bounded number of times (quadratic would be ~2^31).
    expect(r.copied).toBeLessThan(4 * stream.length);
  });

  it('property: any segmentation of any sequence of messages yields the same messages', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 600 }), { maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 40 }),
        (msgs, cuts) => {
          const stream = Buffer.concat(
            msgs.map((m) => Buffer.concat([Buffer.from([m.length >> 8, m.length & 0xff]), m])),
          );
          const r = new FrameReader();
          const got: number[][] = [];
          let off = 0;
          let k = 0;
          while (off < stream.length) {
            const n = cuts[k++ % cuts.length]!;
            r.push(stream.subarray(off, off + n), (m) => (got.push([...m]), true));
            off += n;
          }
          expect(got).toEqual(msgs.map((m) => [...m]));
          expect(r.pending).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('stops at once when the handler closes the connection', () => {
    const r = new FrameReader();
    const two = Buffer.from([0, 1, 9, 0, 1, 8]);
    let calls = 0;
    expect(r.push(two, () => (calls++, false))).toBe(-1);
    expect(calls).toBe(1);
  });
});
