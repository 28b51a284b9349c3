/**
 * IPv6 listening (what the Docker image configures): an IPv6 socket takes
 * IPv6 only, so `0.0.0.0:P` and `[::]:P` can be listed together (one socket
 * per address family, as BIND and NSD) instead of the second failing with
 * PORT_IN_USE; both answer over UDP and TCP.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildQuery, decode, query, startTestServer, TEST_ZONES, type Harness } from './harness.ts';

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '0.0.0.0', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function udp6(port: number, msg: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp6');
    const timer = setTimeout(() => {
      s.close();
      reject(new Error('no answer over UDP/IPv6'));
    }, 2000);
    s.on('message', (m) => {
      clearTimeout(timer);
      s.close();
      resolve(m);
    });
    s.send(msg, port, '::1');
  });
}

function tcp6(port: number, msg: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: '::1', port });
    let buf = Buffer.alloc(0);
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        sock.destroy();
        resolve(buf.subarray(2, 2 + buf.readUInt16BE(0)));
      }
    });
    sock.on('error', reject);
    const frame = Buffer.alloc(2 + msg.length);
    frame.writeUInt16BE(msg.length, 0);
    msg.copy(frame, 2);
    sock.write(frame);
  });
}

let h: Harness;
let port = 0;
beforeAll(async () => {
  port = await freePort();
  h = await startTestServer([path.join(TEST_ZONES, 'example.test.zone')], {
    listen: [
      { host: '0.0.0.0', port },
      { host: '::', port },
    ],
  });
});
afterAll(async () => h?.close());

describe('0.0.0.0 and [::] on the same port', () => {
  it('both bind, and IPv4 and IPv6 clients get answers over UDP and TCP', async () => {
    expect(h.server.udp.map((u) => u.address).sort()).toEqual(['0.0.0.0', '::']);
    const v4 = await query(port, 'udp', 'www.example.test', 'A');
    expect(v4.rcode).toBe(0);
    expect(v4.answer).toContain('www.example.test 3600 A 192.0.2.80');
    const q = buildQuery('www.example.test', 'A');
    expect(decode(await udp6(port, q)).answer).toContain('www.example.test 3600 A 192.0.2.80');
    expect(decode(await tcp6(port, q)).answer).toContain('www.example.test 3600 A 192.0.2.80');
  });
});
