/**
 * The UDP socket's receive buffer (`udp.receiveBuffer`, issue 20): it holds
 * the queries that arrive while the answering thread is busy (a GC pause, a
 * swap, another process on the core). Here the thread is really stopped (a
 * busy loop) while another process sends a burst of queries: with the
 * default 1 MiB every query of the burst is answered afterwards; with the
 * system's default buffer (`receiveBuffer: 0`, 208 KiB on Linux) the kernel
 * drops most of them. A request above the kernel's cap (net.core.rmem_max)
 * is logged with the cap.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG } from '../../src/config/server.ts';
import { startTestServer, TEST_ZONES, type Harness } from './harness.ts';

const linux = process.platform === 'linux';
const BURST = 1500;

/** A child process that sends BURST queries at once when told, then counts the answers for 3 s. */
const SENDER = `
const dgram = require('node:dgram');
const port = Number(process.argv[1]);
const s = dgram.createSocket('udp4');
let answers = 0;
s.on('message', () => answers++);
s.bind(0, '127.0.0.1', () => {
  s.setRecvBufferSize(4 << 20);
  process.stdout.write('ready\\n');
  process.stdin.once('data', () => {
    for (let i = 0; i < ${BURST}; i++) {
      const q = Buffer.from('000001000001000000000000076578616d706c6504746573740000010001', 'hex');
      q.writeUInt16BE(i, 0);
      s.send(q, port, '127.0.0.1');
    }
    setTimeout(() => { process.stdout.write('answers ' + answers + '\\n'); process.exit(0); }, 3000);
  });
});
`;

/** Stop this thread for `ms` while the child sends its burst; resolves with the answers it got. */
async function burstWhileBlocked(port: number, ms: number): Promise<number> {
  const child = spawn(process.execPath, ['-e', SENDER, String(port)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => void (out += d));
  await new Promise<void>((resolve) => {
    const check = () => (out.includes('ready') ? resolve() : setTimeout(check, 10));
    check();
  });
  child.stdin.write('go\n');
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // the answering thread is stopped: the burst waits in the socket's receive buffer
  }
  await new Promise((r) => child.on('exit', r));
  return Number(/answers (\d+)/.exec(out)?.[1] ?? NaN);
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const zones = [path.join(TEST_ZONES, 'example.test.zone')];

describe.skipIf(!linux)('the UDP receive buffer', () => {
  it('default (1 MiB): a burst that arrives while the thread is stopped is answered', async () => {
    expect(DEFAULT_SERVER_CONFIG.udp.receiveBuffer).toBe(1 << 20);
    h = await startTestServer(zones);
    const listening = h.logs.find((l) => l.includes('"event":"listening"'))!;
    const granted = Number(/"udpReceiveBuffer":(\d+)/.exec(listening)?.[1]);
    const cap = Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8'));
    expect(granted).toBe(Math.min(1 << 20, cap));
    // Only meaningful where the kernel grants the buffer (rmem_max >= 1 MiB, as here and in CI).
    if (cap < 1 << 20) return;
    expect(await burstWhileBlocked(h.port, 1500)).toBe(BURST);
  }, 30_000);

  it('the system default (receiveBuffer 0): the same burst is mostly dropped by the kernel', async () => {
    h = await startTestServer(zones, { udp: { ...DEFAULT_SERVER_CONFIG.udp, receiveBuffer: 0 } });
    const answered = await burstWhileBlocked(h.port, 1500);
    expect(answered).toBeLessThan(BURST / 2);
    expect(answered).toBeGreaterThan(0);
  }, 30_000);

  it('a request above net.core.rmem_max is capped by the kernel, and the cap is logged', async () => {
    const cap = Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8'));
    const want = Math.min(cap * 2, 1 << 30);
    if (want <= cap) return;
    h = await startTestServer(zones, {
      udp: { ...DEFAULT_SERVER_CONFIG.udp, receiveBuffer: want },
    });
    const line = h.logs.find((l) => l.includes('"event":"udp_receive_buffer_capped"'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ requested: want, granted: cap, rmemMax: cap });
  }, 30_000);
});
