/**
 * Issue 31 item 5 (and issue 29, one seam for speed): a DoH client that
 * pipelines GETs on plain HTTP/1.1 and never reads its answers. Before the
 * shared HTTP/1.1 layer (src/kit/http1.ts), the DoH fast path wrote every
 * answer without waiting for the reader: 8 such connections took
 * `lexroute serve --doh` from 200 MB to 876 MB, 24 to 1,833 MB, not given
 * back. Now a connection whose answers are not read is read no further, and
 * is closed past a cap on unsent bytes or when idle.
 *
 * `lexroute serve` runs as a child process (as an operator runs it) so its
 * resident memory is its own (/proc/PID/status, Linux); 24 connections
 * flood it for a few seconds (reconnecting when the server closes one)
 * while UDP queries keep going and must keep being answered.
 */
import type { ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64UrlEncode } from '../../src/dns/core/wire/doh.ts';
import { freePortOnAll } from '../../src/dev/ports.ts';
import { spawnServeProcess } from '../helpers/serve-process.ts';

const CONNECTIONS = 24;
const FLOOD_MS = 6000;
const LIMIT_MB = 300;
const ZONE =
  '$ORIGIN lex.example.\n$TTL 3600\n@ IN SOA ns hostmaster 1 7200 3600 1209600 300\n@ IN NS ns\nns IN A 127.0.0.1\n' +
  '@ IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!https://resolver.lex.example/uri-res/N2L?\\\\1!" .\n' +
  // A larger answer: 40 TXT records at one name.
  Array.from({ length: 40 }, (_, i) => `big IN TXT "${'x'.repeat(200)}${i}"\n`).join('');

let dir: string;
let server: ChildProcess;
let udpPort: number;
let dohPort: number;

const query = (name: string, type: 'NAPTR' | 'TXT', id = 0) =>
  dnsPacket.encode({ type: 'query', id, questions: [{ type, name, class: 'IN' }] });

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function udpAnswer(socket: dgram.Socket, id: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.off('message', onMessage);
      resolve(false);
    }, 1000);
    const onMessage = (m: Buffer) => {
      if (m.readUInt16BE(0) !== id) return;
      clearTimeout(timer);
      socket.off('message', onMessage);
      resolve(true);
    };
    socket.on('message', onMessage);
    socket.send(query('lex.example', 'NAPTR', id), udpPort, '127.0.0.1');
  });
}

/** One connection that writes pipelined GETs as fast as the server takes them and reads nothing. */
function flooder(until: number, counts: { connects: number }): Promise<void> {
  const one = `GET /dns-query?dns=${base64UrlEncode(query('big.lex.example', 'TXT'))} HTTP/1.1\r\nhost: x\r\n\r\n`;
  const batch = one.repeat(200);
  return new Promise((resolve) => {
    const connect = () => {
      if (Date.now() >= until) {
        resolve();
        return;
      }
      counts.connects++;
      const socket = net.connect({ port: dohPort, host: '127.0.0.1' });
      socket.pause(); // never read an answer
      const write = () => {
        while (Date.now() < until && socket.write(batch));
        if (Date.now() >= until) socket.destroy();
      };
      socket.on('connect', write);
      socket.on('drain', write);
      socket.on('error', () => undefined);
      socket.on('close', () => setTimeout(connect, 50));
      setTimeout(() => socket.destroy(), Math.max(0, until - Date.now()));
    };
    connect();
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-doh-bp-'));
  writeFileSync(path.join(dir, 'lex.example.zone'), ZONE);
  udpPort = await freePortOnAll(['127.0.0.1']);
  dohPort = await freePortOnAll(['127.0.0.1']);
  server = spawnServeProcess(dir, `127.0.0.1:${udpPort}`, `127.0.0.1:${dohPort}`);
  const probe = dgram.createSocket('udp4');
  try {
    for (let i = 0; i < 100 && !(await udpAnswer(probe, i + 1)); i++);
  } finally {
    probe.close();
  }
}, 30_000);

afterAll(() => {
  server?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(existsSync('/proc/self/status'))(
  'DoH clients that never read (issue 31 item 5)',
  () => {
    it(`${CONNECTIONS} pipelining connections keep the server under ${LIMIT_MB} MB, UDP answered meanwhile`, async () => {
      const pid = server.pid as number;
      const before = rssMb(pid);
      const until = Date.now() + FLOOD_MS;
      const counts = { connects: 0 };
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
      const udp = dgram.createSocket('udp4');
      let asked = 0;
      let answered = 0;
      const udpLoop = (async () => {
        while (Date.now() < until) {
          asked++;
          if (await udpAnswer(udp, (asked % 60000) + 1)) answered++;
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      await Promise.all([
        ...Array.from({ length: CONNECTIONS }, () => flooder(until, counts)),
        udpLoop,
      ]);
      clearInterval(sampler);
      udp.close();
      peak = Math.max(peak, rssMb(pid));
      console.log(
        `RSS ${before.toFixed(0)} MB before, ${peak.toFixed(0)} MB at the peak; ${counts.connects} connections; UDP ${answered}/${asked}`,
      );
      expect(counts.connects).toBeGreaterThanOrEqual(CONNECTIONS);
      expect(peak).toBeLessThan(LIMIT_MB);
      expect(asked).toBeGreaterThan(10);
      expect(answered / asked).toBeGreaterThan(0.9);
    }, 30_000);
  },
);
