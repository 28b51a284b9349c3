/**
 * Issue 31 item 13: `lexroute_dns_truncated_total` counts the answers sent
 * truncated (TC=1) because they did not fit, as its help says; not the
 * answers response-rate limiting dropped (before: counted when the engine
 * built them, whatever RRL then did), nor RRL's slips (counted apart as
 * `lexroute_dns_rrl_responses_total{action="slipped"}`).
 *
 * A burst of identical queries whose answer does not fit in 512 octets
 * (no EDNS), over UDP with RRL at 5/s and slip 2: every datagram that comes
 * back has TC=1; those RRL sent are the truncated count, the others are its
 * slips, and the ones it dropped are counted nowhere but in its `dropped`.
 */
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RRL_CONFIG } from '../../src/config/server.ts';
import { workerFamilies } from '../../src/authority/metrics.ts';
import { buildQuery, startTestServer, tcpRaw, type Harness } from './harness.ts';

const BURST = 60;
const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-tc-'));
let h: Harness;

beforeAll(async () => {
  const file = path.join(dir, 'tc.test.zone');
  const lines = ['$ORIGIN tc.test.', '$TTL 300', '@ SOA ns1 hostmaster 1 3600 600 86400 300'];
  lines.push('@ NS ns1', 'ns1 A 192.0.2.1');
  // Twelve TXT records of 100 octets: about 1,300 octets, more than 512.
  for (let i = 0; i < 12; i++)
    lines.push(`big TXT "${String(i).padStart(2, '0')}${'x'.repeat(98)}"`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  h = await startTestServer([file], {
    rrl: { ...DEFAULT_RRL_CONFIG, responsesPerSecond: 5, slip: 2, window: 15 },
  });
});

afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The value of one sample of the server's metrics. */
function metric(name: string, labels: Record<string, string> = {}): number {
  const f = workerFamilies(h.server).find((x) => x.name === name);
  const s = f?.samples.find((x) => Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  if (s === undefined) throw new Error(`no sample ${name} ${JSON.stringify(labels)}`);
  return s.value;
}

/** Send `n` queries from one socket without waiting; the flags word of each answer that came back. */
async function burst(n: number): Promise<number[]> {
  const s = dgram.createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const flags: number[] = [];
  s.on('message', (m) => flags.push(m.readUInt16BE(2)));
  for (let i = 0; i < n; i++)
    s.send(buildQuery('big.tc.test', 'TXT', { id: i }), h.port, '127.0.0.1');
  await new Promise((r) => setTimeout(r, 400));
  s.close();
  return flags;
}

describe('lexroute_dns_truncated_total (issue 31 item 13)', () => {
  it('counts only answers sent truncated, not those RRL dropped or slipped', async () => {
    const flags = await burst(BURST);
    const received = flags.length;
    expect(received).toBeGreaterThan(0);
    expect(flags.every((f) => (f & 0x0200) !== 0)).toBe(true);

    const truncated = metric('lexroute_dns_truncated_total');
    const sent = metric('lexroute_dns_rrl_responses_total', { action: 'sent' });
    const slipped = metric('lexroute_dns_rrl_responses_total', { action: 'slipped' });
    const dropped = metric('lexroute_dns_rrl_responses_total', { action: 'dropped' });
    expect(dropped).toBeGreaterThan(0);
    expect(sent + slipped + dropped).toBe(BURST);
    // Every answer RRL let through was truncated to fit: those, and only those, are counted.
    expect(truncated).toBe(sent);
    // What came back: those and the slips (a datagram may be lost on a loaded loopback).
    expect(truncated + slipped).toBeGreaterThanOrEqual(received);
    expect(truncated + slipped - received).toBeLessThanOrEqual(2);
    expect(truncated).toBeLessThan(BURST - dropped);
  });

  it('the same answer over TCP fits: not counted', async () => {
    const before = metric('lexroute_dns_truncated_total');
    const [answer] = await tcpRaw(h.port, [buildQuery('big.tc.test', 'TXT')]);
    expect(answer!.readUInt16BE(6)).toBe(12);
    expect(answer![2]! & 0x02).toBe(0);
    expect(metric('lexroute_dns_truncated_total')).toBe(before);
  });
});
