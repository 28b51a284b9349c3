/**
 * IXFR out (RFC 1995) from the history the reloads build: the incremental
 * difference from a known serial (condensed), the whole zone when the history does not
 * reach the asked serial, the single current SOA for a current or future
 * serial (RFC 1995 section 2), IXFR over UDP with the single-SOA fallback,
 * and the history surviving a restart through the journal (--state-dir).
 * Also the pure parts: RFC 1982 serial comparison, the difference of two
 * zones, the journal codec, and `lexroute zone diff`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serialCompare, nextSerial } from '../../src/xfr/core/serial.ts';
import { diffZones } from '../../src/xfr/core/diff.ts';
import { decodeJournal, encodeJournal, JournalError } from '../../src/xfr/core/journal.ts';
import { zoneFromText } from '../server/fixture.ts';
import { startTestServer, udpRaw, type Harness } from '../server/harness.ts';
import { journalFile } from '../../src/xfr/history.ts';
import { captureIo } from '../helpers/io.ts';
import { run } from '../../src/cli/main.ts';
import { DEFAULT_TRANSFER_CONFIG as DEFAULTS } from '../../src/config/server.ts';

async function runCli(argv: string[]) {
  const io = captureIo();
  const code = await run(argv, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}
import { xfr, xfrQuery } from './client.ts';

const ORIGIN = 'ixfr.test.';
function zone(serial: number, body: string): string {
  return `$ORIGIN ${ORIGIN}\n$TTL 300\n@ SOA ns1 hostmaster ${serial} 3600 600 86400 300\n@ NS ns1\nns1 A 192.0.2.1\n${body}`;
}
const V1 = zone(1, 'a NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://one/?\\\\1!" .\nb A 192.0.2.2\n');
const V2 = zone(
  2,
  'a NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://two/?\\\\1!" .\nb A 192.0.2.2\nc A 192.0.2.3\n',
);
const V3 = zone(3, 'a NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://two/?\\\\1!" .\nc A 192.0.2.3\n');

function text(a: dnsPacket.Answer): string {
  const d = (a as { data: unknown }).data;
  return `${a.name} ${a.type} ${a.type === 'SOA' ? (d as { serial: number }).serial : JSON.stringify(d)}`;
}

describe('RFC 1982 serial arithmetic and the difference of two zones', () => {
  it('compares serials on the circle, undefined at half of it', () => {
    expect(serialCompare(1, 2)).toBe(-1);
    expect(serialCompare(0xffffffff, 0)).toBe(-1);
    expect(serialCompare(0, 0xffffffff)).toBe(1);
    expect(serialCompare(5, 5)).toBe(0);
    expect(serialCompare(0, 0x80000000)).toBeNaN();
    expect(serialCompare(0x7fffffff, 0)).toBe(1);
    expect(nextSerial(2026010101, 20260102)).toBe(2026010200);
    expect(nextSerial(2026010205, 20260102)).toBe(2026010206);
    expect(nextSerial(0xffffffff)).toBe(0);
  });

  it('diffZones lists deleted and added records, the SOA aside; an RRset whose TTL changed goes whole', () => {
    const d = diffZones(zoneFromText(V1, ORIGIN), zoneFromText(V2, ORIGIN));
    expect(d.removed.map((r) => r.type)).toEqual([35]);
    expect(d.added.map((r) => r.type).sort()).toEqual([1, 35]);
    const ttl = diffZones(
      zoneFromText(V1, ORIGIN),
      zoneFromText(V1.replace('b A', 'b 60 A'), ORIGIN),
    );
    expect(ttl.removed).toHaveLength(1);
    expect(ttl.added.map((r) => r.ttl)).toEqual([60]);
  });

  it('the journal codec round-trips and rejects a damaged file with a position', () => {
    const d = diffZones(zoneFromText(V1, ORIGIN), zoneFromText(V2, ORIGIN));
    const bytes = encodeJournal([d]);
    const back = decodeJournal(bytes);
    expect(back).toHaveLength(1);
    expect(back[0]!.added.map((r) => [r.key, r.type, r.ttl, [...r.rdata]])).toEqual(
      d.added.map((r) => [r.key, r.type, r.ttl, [...r.rdata]]),
    );
    expect(() => decodeJournal(bytes.subarray(0, bytes.length - 3))).toThrow(JournalError);
    try {
      decodeJournal(bytes.subarray(0, 20));
    } catch (e) {
      expect((e as JournalError).code).toBe('JOURNAL_CORRUPT');
      expect((e as JournalError).offset).toBeGreaterThan(0);
    }
  });
});

describe('IXFR out over TCP and UDP, with the journal across a restart', () => {
  let dir: string;
  let file: string;
  let h: Harness;
  const state = () => path.join(dir, 'state');
  const start = () =>
    startTestServer([file], {
      allowTransfer: ['127.0.0.1/32'],
      transfer: { ...DEFAULTS, stateDir: state() },
    });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-ixfr-'));
    file = path.join(dir, `${ORIGIN}zone`);
    writeFileSync(file, V1);
    h = await start();
    writeFileSync(file, V2);
    await h.server.reload();
    writeFileSync(file, V3);
    await h.server.reload();
  });
  afterAll(async () => {
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('from serial 1: the two differences condensed into one (RFC 1995 section 6), bracketed by the current SOA', async () => {
    const r = await xfr(h.port, xfrQuery(ORIGIN, 'IXFR', 1));
    expect(r.rcode).toBe(0);
    const seq = r.records.map(text);
    const soas = r.records
      .filter((a) => a.type === 'SOA')
      .map((a) => (a.data as { serial: number }).serial);
    // current, (old 1, deleted, new 3, added), current: serial 2 is not named (transfer.ixfrCondense).
    expect(soas).toEqual([3, 1, 3, 3]);
    expect(seq.filter((l) => l.includes('http://one/'))).toHaveLength(1);
    expect(seq.filter((l) => l.startsWith('b.ixfr.test A'))).toHaveLength(1);
    expect(seq.filter((l) => l.startsWith('c.ixfr.test A'))).toHaveLength(1);
  });

  it('from an older serial the history does not reach (RFC 1982: 0xfffffff0 < 3): the whole zone (AXFR form)', async () => {
    const r = await xfr(h.port, xfrQuery(ORIGIN, 'IXFR', 0xfffffff0));
    expect(r.complete).toBe(true);
    const types = r.records.map((a) => a.type);
    expect(types[0]).toBe('SOA');
    expect(types.at(-1)).toBe('SOA');
    expect(types.filter((t) => t === 'SOA')).toHaveLength(2);
    expect(r.records).toHaveLength(6);
  });

  it('the current serial, or one in the future: the single current SOA', async () => {
    for (const serial of [3, 4, 1_000_000]) {
      const r = await xfr(h.port, xfrQuery(ORIGIN, 'IXFR', serial));
      expect(r.records.map(text)).toEqual(['ixfr.test SOA 3']);
    }
  });

  it('IXFR over UDP: the answer when it fits, else the single SOA (RFC 1995 section 2)', async () => {
    const q = xfrQuery(ORIGIN, 'IXFR', 2).subarray(2);
    const logged = h.logs.length;
    const res = dnsPacket.decode((await udpRaw(h.port, Buffer.from(q)))!);
    expect(res.answers!.map((a) => a.type)).toEqual(['SOA', 'SOA', 'A', 'SOA', 'SOA']);
    // Logged (and counted per zone) as a transfer out, as over TCP.
    const out = h.logs.slice(logged).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out.filter((e) => e.event === 'xfr_out')).toMatchObject([
      { zone: ORIGIN, kind: 'IXFR:incremental', transport: 'udp', messages: 1 },
    ]);
    const axfr = (await udpRaw(h.port, Buffer.from(xfrQuery(ORIGIN, 'AXFR').subarray(2))))!;
    // AXFR is TCP only (RFC 5936 section 4.2): REFUSED over UDP.
    expect(axfr[3]! & 0xf).toBe(5);
  });

  it('a restart keeps the history (journal in --state-dir)', async () => {
    expect(decodeJournal(readFileSync(journalFile(state(), ORIGIN)))).toHaveLength(2);
    await h.close();
    h = await start();
    expect(h.logs.some((l) => l.includes('"journal_loaded"'))).toBe(true);
    const r = await xfr(h.port, xfrQuery(ORIGIN, 'IXFR', 2));
    expect(
      r.records.filter((a) => a.type === 'SOA').map((a) => (a.data as { serial: number }).serial),
    ).toEqual([3, 2, 3, 3]);
  });

  it('lexroute zone diff prints the IXFR-style difference and warns when the serial did not go up', async () => {
    const a = path.join(dir, 'a.zone');
    const b = path.join(dir, 'b.zone');
    writeFileSync(a, V1);
    writeFileSync(b, V2);
    const r = await runCli(['zone', 'diff', '--origin', ORIGIN, a, b]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('; ixfr.test. serial 1 -> 2: 1 deleted, 2 added');
    expect(lines[2]).toMatch(/^ixfr\.test\. 300 IN SOA .* 1 3600 600 86400 300$/);
    expect(lines[3]).toContain('http://one/');
    expect(lines[5]).toMatch(/ SOA .* 2 3600/);
    writeFileSync(b, V2.replace('hostmaster 2', 'hostmaster 1'));
    const w = await runCli(['zone', 'diff', '--origin', ORIGIN, a, b]);
    expect(w.stderr).toContain('ZONE_SERIAL_NOT_RAISED');
  });
});
