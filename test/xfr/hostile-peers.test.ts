/**
 * Transfers against hostile or greedy peers: 500 concurrent AXFR requests
 * are bounded by `transfer.maxConcurrent` (each is granted, its first
 * message starting with the SOA, or REFUSED; none hangs) while UDP queries keep being answered; a client that
 * cuts its connection in the middle of a transfer frees its slot; an IXFR
 * for a serial in the future gets the single current SOA.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG } from '../../src/config/server.ts';
import { query, startTestServer, type Harness } from '../server/harness.ts';
import { xfr, xfrQuery } from './client.ts';

const ORIGIN = 'hostile.xfr.test.';
const N = 20_000;

/**
 * A greedy client: connects and asks for AXFR at once, reads only after
 * `go` resolves (so the transfers granted stay open meanwhile), then counts
 * records by the headers' ANCOUNT until `total` or an error rcode.
 */
function greedyAxfr(port: number, go: Promise<void>, total: number, asked: () => void) {
  return new Promise<{ rcode: number; records: number }>((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.write(xfrQuery(ORIGIN, 'AXFR'));
      asked();
    });
    s.pause();
    let buf = Buffer.alloc(0);
    let records = 0;
    s.on('error', reject);
    s.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        const msg = buf.subarray(2, 2 + buf.readUInt16BE(0));
        buf = buf.subarray(2 + msg.length);
        const rcode = msg[3]! & 0xf;
        records += msg.readUInt16BE(6);
        // The first message tells granted from refused; a granted client then hangs up (cut short).
        if (rcode !== 0 || records >= total || msg.readUInt16BE(6) > 0) {
          s.destroy();
          resolve({ rcode, records });
          return;
        }
      }
    });
    s.on('close', () => resolve({ rcode: -1, records }));
    void go.then(() => s.resume());
  });
}

describe('transfers under hostile peers', () => {
  let dir: string;
  let h: Harness;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-xfr-hostile-'));
    const lines = [
      `$ORIGIN ${ORIGIN}`,
      '$TTL 300',
      '@ SOA ns1 hostmaster 10 3600 600 86400 300',
      '@ NS ns1',
      'ns1 A 127.0.0.1',
    ];
    for (let i = 0; i < N; i++)
      lines.push(`n${i} NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://127.0.0.1/${i}?\\\\1!" .`);
    writeFileSync(path.join(dir, `${ORIGIN}zone`), `${lines.join('\n')}\n`);
    h = await startTestServer([path.join(dir, `${ORIGIN}zone`)], {
      allowTransfer: ['127.0.0.1/32'],
      tcp: { ...DEFAULT_SERVER_CONFIG.tcp, maxConnections: 1000, maxPerClient: 1000 },
      transfer: { ...DEFAULT_SERVER_CONFIG.transfer, maxConcurrent: 4, messageSize: 16384 },
    });
  });
  afterAll(async () => {
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('500 concurrent AXFRs: at most maxConcurrent (4) at once, each granted or REFUSED, UDP answered throughout', async () => {
    let udpAsked = 0;
    let udpAnswered = 0;
    let stop = false;
    let peak = 0;
    // Ends when every transfer has ended (granted ones are cut short by their clients).
    const udp = (async () => {
      while (!stop) {
        udpAsked++;
        const r = await query(h.port, 'udp', `n${udpAsked % N}.${ORIGIN}`, 'NAPTR').catch(
          () => undefined,
        );
        if (r?.rcode === 0 && r.answer.length === 1) udpAnswered++;
        peak = Math.max(peak, h.server.transfers.stats.active);
      }
    })();
    let asked = 0;
    let go = () => undefined as void;
    const started = new Promise<void>((r) => (go = r));
    const pending = Array.from({ length: 500 }, () =>
      greedyAxfr(h.port, started, N + 4, () => void asked++),
    );
    // Every query is sent (and the granted transfers stall on full socket buffers) before anyone reads.
    while (asked < 500) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 300));
    peak = Math.max(peak, h.server.transfers.stats.active);
    go();
    const results = await Promise.all(pending);
    stop = true;
    await udp;
    const complete = results.filter((r) => r.rcode === 0 && r.records > 0);
    const refused = results.filter((r) => r.rcode === 5);
    expect(complete.length + refused.length).toBe(500);
    expect(complete.length).toBeGreaterThanOrEqual(4);
    expect(refused.length).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(4);
    expect(h.server.transfers.stats.busy).toBe(refused.length);
    expect(udpAsked).toBeGreaterThan(0);
    expect(udpAnswered).toBe(udpAsked);
    for (let i = 0; i < 200 && h.server.transfers.stats.active > 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(h.server.transfers.stats.active).toBe(0);
  }, 60_000);

  it('a client that cuts the transfer short frees its slot; the server keeps serving', async () => {
    const before = h.server.transfers.stats.axfr;
    await new Promise<void>((resolve) => {
      const s = net.connect(h.port, '127.0.0.1', () => s.write(xfrQuery(ORIGIN, 'AXFR')));
      s.once('data', () => {
        s.destroy();
        resolve();
      });
    });
    for (let i = 0; i < 100 && h.server.transfers.stats.active > 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(h.server.transfers.stats.axfr).toBe(before + 1);
    expect(h.server.transfers.stats.active).toBe(0);
    const r = await xfr(h.port, xfrQuery(ORIGIN, 'AXFR'));
    expect(r.complete).toBe(true);
  });

  it('IXFR for a serial in the future: the single current SOA', async () => {
    const r = await xfr(h.port, xfrQuery(ORIGIN, 'IXFR', 11));
    expect(r.records.map((a) => [a.type, (a as { data: { serial: number } }).data.serial])).toEqual(
      [['SOA', 10]],
    );
  });
});
