/**
 * NOTIFY for a secondary zone with `--workers 2`: SO_REUSEPORT spreads the
 * NOTIFYs of different source ports over both answering threads, and every
 * one is answered as RFC 1996 says (NOERROR, opcode NOTIFY, QR, the question echoed)
 * whichever thread takes it, where the other thread used to answer NOTIMP;
 * each accepted NOTIFY reaches the main thread's Secondaries and starts a
 * check of the zone (logged as a refresh attempt against the primary). A
 * NOTIFY from an address that is not a primary is REFUSED by either thread.
 */
import dgram from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG } from '../../src/config/server.ts';
import { createLogger } from '../../src/authority/log.ts';
import { startServer, type RunningServer } from '../../src/authority/server.ts';

const ORIGIN = 'notify-workers.test.';

const RCODE_NOERROR = 0;
const RCODE_REFUSED = 5;

/** One NOTIFY for ORIGIN from a fresh socket bound to `from`; the answer's header fields. */
function notifyOnce(
  port: number,
  from: string,
  id: number,
): Promise<{ rcode: number; opcode: number; qr: boolean; aa: boolean; question: string }> {
  const raw = dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.AUTHORITATIVE_ANSWER,
    questions: [{ name: ORIGIN.slice(0, -1), type: 'SOA', class: 'IN' }],
  });
  raw[2] = (raw[2]! & 0x87) | (4 << 3); // opcode NOTIFY
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    const timer = setTimeout(() => {
      s.close();
      reject(new Error(`no answer to NOTIFY ${id} from ${from}`));
    }, 3000);
    s.on('message', (m) => {
      clearTimeout(timer);
      s.close();
      const q = dnsPacket.decode(m).questions?.[0];
      resolve({
        rcode: m[3]! & 0x0f,
        opcode: (m[2]! >> 3) & 0x0f,
        qr: (m[2]! & 0x80) !== 0,
        aa: (m[2]! & 0x04) !== 0,
        question: `${q?.name} ${q?.type}`,
      });
    });
    s.bind(0, from, () => s.send(raw, port, '127.0.0.1'));
  });
}

describe('NOTIFY in with --workers 2', () => {
  let dir: string;
  let server: RunningServer;
  let primary: net.Server;
  let port: number;
  const events: Record<string, unknown>[] = [];

  beforeAll(async () => {
    // A primary that takes connections and closes them: every check fails, which is fine here.
    primary = net.createServer((c) => c.destroy());
    await new Promise<void>((r) => primary.listen(0, '127.0.0.1', r));
    const pport = (primary.address() as net.AddressInfo).port;
    dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-notify-workers-'));
    const log = createLogger(
      (l) => void events.push(JSON.parse(l) as Record<string, unknown>),
      'debug',
      'json',
    );
    server = await startServer({
      config: {
        ...DEFAULT_SERVER_CONFIG,
        listen: [{ host: '127.0.0.1', port: 0 }],
        workers: 2,
        zones: [{ origin: ORIGIN, primaries: [{ host: '127.0.0.1', port: pport }] }],
        transfer: { ...DEFAULT_SERVER_CONFIG.transfer, stateDir: dir },
      },
      log,
      cwd: dir,
    });
    port = server.udp[0]!.port;
  }, 30_000);

  afterAll(async () => {
    await server?.close();
    await new Promise((r) => primary?.close(r));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers every NOTIFY from the primary NOERROR on both threads, and checks the zone', async () => {
    const checksBefore = events.filter((e) => e.event === 'xfr_in_failed').length;
    const answers = [];
    for (let i = 0; i < 40; i++) answers.push(await notifyOnce(port, '127.0.0.1', 1000 + i));
    expect(answers.filter((a) => a.rcode !== RCODE_NOERROR)).toEqual([]);
    for (const a of answers) {
      expect(a.question).toBe(`${ORIGIN.slice(0, -1)} SOA`);
      expect([a.opcode, a.qr]).toEqual([4, true]);
    }
    // Each accepted NOTIFY asked the main thread for a check; the checks fail against this primary.
    const t0 = Date.now();
    while (
      events.filter((e) => e.event === 'xfr_in_failed').length === checksBefore &&
      Date.now() - t0 < 10_000
    )
      await new Promise((r) => setTimeout(r, 50));
    expect(events.filter((e) => e.event === 'xfr_in_failed').length).toBeGreaterThan(checksBefore);
  });

  it('refuses a NOTIFY from an address that is not a primary, on both threads', async () => {
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push(await notifyOnce(port, '127.0.0.2', 2000 + i));
    expect(new Set(answers.map((a) => a.rcode))).toEqual(new Set([RCODE_REFUSED]));
  });
});
