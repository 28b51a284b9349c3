/**
 * Reload details (issue 21 item 10): a reload whose SOA serial goes
 * backwards is warned about (as BIND does), and `--watch` does not serve a
 * file that is still being written (no final newline, or still changing).
 */
import { mkdtempSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { serialCompare } from '../../src/xfr/core/serial.ts';
import { startTestServer, type Harness } from '../server/harness.ts';

function zone(serial: number, extra = ''): string {
  return `$TTL 3600
@ IN SOA ns host ${serial} 3600 600 86400 300
@ IN NS ns
ns IN A 192.0.2.1
${extra}`;
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function events(logs: readonly string[], name: string): Record<string, unknown>[] {
  return logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event === name);
}

async function until(test: () => boolean, ms = 5000): Promise<boolean> {
  for (let t = 0; t < ms && !test(); t += 25) await new Promise((r) => setTimeout(r, 25));
  return test();
}

describe('RFC 1982 serial comparison', () => {
  it('orders serials across the wrap', () => {
    expect(serialCompare(1, 2)).toBe(-1);
    expect(serialCompare(2, 1)).toBe(1);
    expect(serialCompare(0xffffffff, 0)).toBe(-1);
    expect(serialCompare(0, 0xffffffff)).toBe(1);
    expect(serialCompare(5, 5)).toBe(0);
    // 2^31 apart: undefined (RFC 1982 section 3.2); the reload warns as for a serial gone back.
    expect(serialCompare(0, 0x80000000)).toBeNaN();
  });
});

describe('reload and the SOA serial', () => {
  it('a serial that goes backwards is loaded with a warning; zone_loaded carries serial and time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lexroute-serial-'));
    const file = join(dir, 's.test.zone');
    writeFileSync(file, zone(2026010105));
    h = await startTestServer([dir]);
    const first = events(h.logs, 'zone_loaded')[0]!;
    expect(first.serial).toBe(2026010105);
    expect(typeof first.ms).toBe('number');
    writeFileSync(file, zone(2026010101, 'www IN A 192.0.2.7\n'));
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const r = await h.server.reload();
    expect(r.loaded).toBe(1);
    const w = events(h.logs, 'zone_serial_backwards');
    expect(w).toHaveLength(1);
    expect(w[0]).toMatchObject({ origin: 's.test.', serial: 2026010101, previous: 2026010105 });
    // Changed content with the same serial: a warning of its own.
    writeFileSync(file, zone(2026010101, 'www IN A 192.0.2.8\n'));
    utimesSync(file, new Date(), new Date(Date.now() + 10000));
    await h.server.reload();
    expect(events(h.logs, 'zone_serial_unchanged')).toHaveLength(1);
  });
});

describe('--watch and a file still being written', () => {
  it('is not served until it is whole (ends with a newline and stops changing)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lexroute-watch-'));
    const file = join(dir, 'w.test.zone');
    writeFileSync(file, zone(1));
    h = await startTestServer([dir], { watch: true });
    // Half a file: the last record cut in the middle (no final newline).
    const whole = zone(2, 'www IN A 192.0.2.9\nmore IN TXT "the end"\n');
    writeFileSync(file, whole.slice(0, whole.length - 12));
    expect(await until(() => events(h!.logs, 'zone_incomplete').length > 0)).toBe(true);
    expect(events(h.logs, 'zone_loaded')).toHaveLength(1);
    expect(events(h.logs, 'zone_rejected')).toHaveLength(0);
    writeFileSync(file, whole);
    expect(await until(() => events(h!.logs, 'zone_loaded').length === 2)).toBe(true);
    expect(events(h.logs, 'zone_loaded')[1]).toMatchObject({ serial: 2 });
    expect(h.server.engine.zones[0]!.nodes.has('more.w.test.')).toBe(true);
  });
});
