/**
 * Per-zone transfer settings in `zones` entries: a zone's own
 * `allowTransfer` (another zone stays closed), its own `secondaries` with a
 * TSIG key, `notify: "ns"` (the NS hosts from in-zone glue), and
 * `serial: "increment"` (a change without a raised serial is served,
 * transferred and announced with serial + 1; the file is not rewritten).
 * The NOTIFY peers are UDP sockets of this test that answer as a hostile or
 * a correct secondary would: an unsigned answer and a wrongly signed answer
 * to a signed NOTIFY are logged (`notify_reply_tsig`) and the NOTIFY is sent
 * again (RFC 8945).
 */
import dgram from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TRANSFER_CONFIG } from '../../src/config/server.ts';
import { readTsig, TsigSigner, type TsigKey } from '../../src/xfr/core/tsig.ts';
import { soaSerialOf } from '../../src/dns/core/rr/soa.ts';
import { nodeHmac, nowSeconds } from '../../src/xfr/tsig.ts';
import { startTestServer, query, type Harness } from '../server/harness.ts';
import { xfr, xfrQuery } from './client.ts';

const SECRET = Buffer.alloc(32, 9).toString('base64');
const KEY: TsigKey = { name: 'zone-a-key.', algorithm: 'hmac-sha256', secret: Buffer.alloc(32, 9) };

function zoneText(origin: string, serial: number, body = ''): string {
  return `$ORIGIN ${origin}\n$TTL 300\n@ SOA ns1 hostmaster ${serial} 3600 600 86400 300\n@ NS ns1\n@ NS ns2\nns1 A 127.0.0.1\nns2 A 127.0.0.1\n${body}`;
}

/** A NOTIFY peer on 127.0.0.1: records each NOTIFY's serial and answers with `answer(request, n)`. */
function peer(answer: (req: Buffer, n: number) => Uint8Array | undefined) {
  const socket = dgram.createSocket('udp4');
  const serials: number[] = [];
  socket.on('message', (m, r) => {
    // The SOA in the answer section: its RDATA ends the record (unsigned) or precedes the TSIG.
    const t = readTsig(m);
    const end = t && t !== 'FORMERR' ? t.start : m.length;
    serials.push(soaSerialOf(m.subarray(0, end)));
    const out = answer(m, serials.length);
    if (out) socket.send(out, r.port, r.address);
  });
  return {
    serials,
    port: () => (socket.address() as { port: number }).port,
    ready: new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r())),
    close: () => new Promise<void>((r) => socket.close(() => r())),
  };
}

/** The header of an answer to `req` (QR set, same id, opcode and question). */
function reply(req: Buffer): Uint8Array {
  const t = readTsig(req);
  const body = Buffer.from(req.subarray(0, t && t !== 'FORMERR' ? t.start : req.length));
  body[2] = body[2]! | 0x80;
  body.writeUInt16BE(0, 6); // no answer records
  body.writeUInt16BE(0, 10);
  // The question only: cut after it.
  let o = 12;
  while (body[o] !== 0) o += body[o]! + 1;
  return body.subarray(0, o + 5);
}

describe('per-zone allowTransfer, secondaries with a key, notify "ns", serial "increment"', () => {
  let dir: string;
  let h: Harness;
  const files: string[] = [];
  // Peer 1 (zone a's listed secondary, key zone-a-key): unsigned, then wrongly signed, then right.
  const p1 = peer((req, n) => {
    const t = readTsig(req);
    const mac = t && t !== 'FORMERR' ? t.mac : undefined;
    if (n % 3 === 1) return reply(req);
    const key = n % 3 === 2 ? { ...KEY, secret: Buffer.alloc(32, 1) } : KEY;
    return new TsigSigner(key, nodeHmac, nowSeconds(), mac).sign(reply(req));
  });
  // Peer 2 (an NS host of zone a, found through glue): answers unsigned NOTIFYs.
  const p2 = peer((req) => reply(req));

  beforeAll(async () => {
    await Promise.all([p1.ready, p2.ready]);
    dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-perzone-'));
    files.push(path.join(dir, 'a.zone'), path.join(dir, 'b.zone'));
    writeFileSync(files[0]!, zoneText('a.test.', 100));
    writeFileSync(files[1]!, zoneText('b.test.', 200));
    h = await startTestServer([], {
      zones: [
        {
          file: files[0]!,
          origin: 'a.test.',
          serial: 'increment',
          allowTransfer: ['127.0.0.1/32'],
          secondaries: [{ host: '127.0.0.1', port: p1.port(), key: 'zone-a-key' }],
          notify: 'ns',
        },
        { file: files[1]!, origin: 'b.test.' },
      ],
      tsigKeys: [{ name: 'zone-a-key', algorithm: 'hmac-sha256', secret: SECRET }],
      transfer: {
        ...DEFAULT_TRANSFER_CONFIG,
        notifyTimeoutMs: 100,
        notifyTries: 5,
        nsNotifyPort: p2.port(),
      },
    });
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all([p1.close(), p2.close()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const events = () => h.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
  const until = async (what: string, ok: () => boolean) => {
    const t0 = Date.now();
    while (!ok()) {
      if (Date.now() - t0 > 10_000) throw new Error(`timed out: ${what}\n${h.logs.join('\n')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it("a zone's own ACL opens that zone only", async () => {
    const a = await xfr(h.port, xfrQuery('a.test.', 'AXFR'));
    expect(a.rcode).toBe(0);
    expect(a.complete).toBe(true);
    const b = await xfr(h.port, xfrQuery('b.test.', 'AXFR'));
    expect(b.rcode).toBe(5);
  });

  it('a signed NOTIFY answered unsigned, then signed wrongly, is sent again until a right answer', async () => {
    await until('zone a notified', () =>
      events().some((e) => e.event === 'notify_sent' && e.peer === `127.0.0.1:${p1.port()}`),
    );
    const problems = events()
      .filter((e) => e.event === 'notify_reply_tsig')
      .map((e) => e.problem);
    expect(problems).toEqual(['unsigned answer', 'wrong MAC']);
    expect(p1.serials).toEqual([100, 100, 100]);
    const sent = events().find(
      (e) => e.event === 'notify_sent' && e.peer === `127.0.0.1:${p1.port()}`,
    );
    expect(sent).toMatchObject({ zone: 'a.test.', answer: 'NOERROR', key: 'zone-a-key.' });
  });

  it('notify "ns": both NS names have glue 127.0.0.1 (one host: notified once; ns1, the SOA MNAME, left out)', async () => {
    await until('NS host notified', () => p2.serials.length > 0);
    // ns2 is notified; ns1 is the MNAME (RFC 1996 section 3.3 notify set): not.
    expect(p2.serials).toEqual([100]);
    // Zone b has no targets of its own and none serve-wide.
    expect(events().filter((e) => e.event === 'notify_sent' && e.zone === 'b.test.')).toEqual([]);
  });

  it('serial "increment": a change without a raised serial is served, transferred and announced as 101', async () => {
    const before = p1.serials.length;
    writeFileSync(files[0]!, zoneText('a.test.', 100, 'new A 192.0.2.9\n'));
    await h.server.reload();
    expect(events().find((e) => e.event === 'zone_serial_raised')).toMatchObject({
      origin: 'a.test.',
      serial: 101,
      fileSerial: 100,
    });
    const soa = await query(h.port, 'udp', 'a.test.', 'SOA');
    expect(soa.answer[0]).toContain(`"serial":101,`);
    const ixfr = await xfr(h.port, xfrQuery('a.test.', 'IXFR', 100));
    const serials = ixfr.records
      .filter((r) => r.type === 'SOA')
      .map((r) => (r.data as { serial: number }).serial);
    expect(serials).toEqual([101, 100, 101, 101]);
    expect(ixfr.records.some((r) => r.name === 'new.a.test')).toBe(true);
    await until('NOTIFY of 101', () => p1.serials.slice(before).includes(101));
    // The file keeps what the user wrote.
    expect(readFileSync(files[0]!, 'utf8')).toContain('hostmaster 100 ');
    // Touching the file with the same content again raises nothing.
    writeFileSync(files[0]!, zoneText('a.test.', 100, '; only a comment\nnew A 192.0.2.9\n'));
    await h.server.reload();
    const again = await query(h.port, 'udp', 'a.test.', 'SOA');
    expect(again.answer[0]).toContain(`"serial":101,`);
    expect(events().filter((e) => e.event === 'zone_serial_raised')).toHaveLength(1);
  });
});
