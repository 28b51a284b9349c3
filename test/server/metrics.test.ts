/**
 * `lexroute serve --metrics ADDR:PORT` (issue 16): a scrape after a known
 * query mix shows the exact counts, and `promtool check metrics` accepts the
 * output.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { metricsExposure } from '../../src/kit/metrics/http.ts';
import { captureIo, type CapturedIo } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { buildQuery, REPO, tcpRaw, udpRaw } from './harness.ts';

let io: CapturedIo;
let done: Promise<number>;
let dir: string;
let port = 0;
let url = '';

function events(): Record<string, unknown>[] {
  return io
    .stderr()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function waitEvent(name: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const e = events().find((x) => x.event === name);
    if (e) return e;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no ${name} event:\n${io.stderr()}`);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-metrics-'));
  cpSync(path.join(REPO, 'zones', 'urn.arpa.zone'), path.join(dir, 'urn.arpa.zone'));
  io = captureIo({ cwd: REPO });
  done = run(
    [
      'serve',
      '--zones',
      dir,
      '--listen',
      '127.0.0.1:0',
      '--metrics',
      '127.0.0.1:0',
      '--rrl',
      '1000',
      '--log-format',
      'json',
    ],
    io,
  );
  port = (await waitEvent('listening')).port as number;
  url = (await waitEvent('metrics_listening')).url as string;
});
afterAll(async () => {
  io?.abort();
  await done;
  rmSync(dir, { recursive: true, force: true });
});

/** `name{labels} value` lines as a map. */
function parse(text: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    m.set(line.slice(0, sp), Number(line.slice(sp + 1)));
  }
  return m;
}

describe('serve --metrics', () => {
  it('exact counts after a known query mix; promtool accepts the text', async () => {
    const naptr = buildQuery('lex.urn.arpa', 'NAPTR');
    for (let i = 0; i < 3; i++) await udpRaw(port, naptr);
    for (let i = 0; i < 2; i++) await udpRaw(port, buildQuery(`nope${i}.urn.arpa`, 'A'));
    await udpRaw(port, buildQuery('www.example.org', 'A'));
    await udpRaw(port, Buffer.concat([naptr, Buffer.alloc(10, 0x41)])); // trailing junk: FORMERR
    await udpRaw(port, naptr.subarray(0, 8)); // shorter than a header: dropped
    await tcpRaw(port, [naptr, buildQuery('urn.arpa', 'SOA')]);

    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const m = parse(text);
    const q = (t: string, qtype: string, rcode: string) =>
      m.get(`lexroute_dns_queries_total{transport="${t}",qtype="${qtype}",rcode="${rcode}"}`);
    expect(q('udp', 'NAPTR', 'NOERROR')).toBe(3);
    expect(q('udp', 'A', 'NXDOMAIN')).toBe(2);
    expect(q('udp', 'A', 'REFUSED')).toBe(1);
    expect(q('udp', 'NAPTR', 'FORMERR')).toBe(1);
    expect(q('tcp', 'NAPTR', 'NOERROR')).toBe(1);
    expect(q('tcp', 'SOA', 'NOERROR')).toBe(1);
    expect(m.get('lexroute_dns_queries_dropped_total')).toBe(1);
    expect(m.get('lexroute_dns_zone_queries_total{zone="urn.arpa."}')).toBe(7);
    expect(m.get('lexroute_dns_response_size_bytes_count{transport="udp"}')).toBe(7);
    expect(m.get('lexroute_dns_response_size_bytes_count{transport="tcp"}')).toBe(2);
    expect(m.get('lexroute_dns_tcp_connections_accepted_total')).toBe(1);
    expect(m.get('lexroute_dns_tcp_connections_refused_total{reason="perClient"}')).toBe(0);
    expect(m.get('lexroute_dns_rrl_responses_total{action="sent"}')).toBe(7);
    expect(m.get('lexroute_dns_rrl_responses_total{action="dropped"}')).toBe(0);
    expect(m.get('lexroute_dns_zone_serial{zone="urn.arpa."}')).toBe(2026112001);
    expect(m.get('lexroute_dns_zones')).toBe(1);
    expect(
      m.get(
        `lexroute_dns_zone_last_reload_success{zone="urn.arpa.",file="${path.join(dir, 'urn.arpa.zone')}"}`,
      ),
    ).toBe(1);

    const promtool = toolOrSkip('promtool');
    if (promtool.path) {
      // promtool reads the exposition on standard input; exit 0 and no complaint.
      const out = execFileSync(promtool.path, ['check', 'metrics'], {
        input: text,
        encoding: 'utf8',
      });
      expect(out.trim()).toBe('');
    }
  });

  it('on loopback no METRICS_NOT_LOOPBACK warning; any other address gets one (issue 31 item 7)', () => {
    expect(events().filter((e) => e.event === 'metrics_not_loopback')).toEqual([]);
    for (const host of ['127.0.0.1', '127.0.0.53', '::1', 'localhost'])
      expect([host, metricsExposure(host)]).toEqual([host, undefined]);
    for (const host of ['0.0.0.0', '::', '192.0.2.10', '2001:db8::1', '::ffff:127.0.0.1'])
      expect([host, metricsExposure(host)?.code]).toEqual([host, 'METRICS_NOT_LOOPBACK']);
  });

  it('anything but GET /metrics is 404', async () => {
    expect((await fetch(url.replace('/metrics', '/'))).status).toBe(404);
  });

  it('a bad --metrics address is a usage error', async () => {
    const bad = captureIo();
    expect(await run(['serve', '--metrics', 'nowhere'], bad)).toBe(2);
    expect(bad.stderr()).toContain('--metrics');
  });
});
