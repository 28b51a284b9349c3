/**
 * Issue 30, signing that costs what changed, with transfers served: a
 * reload of an inline-signed zone that the load thread signed before gets
 * back only the names re-signed, and the IXFR difference is read from those
 * names after the swap (`ixfr_difference` "after the swap"), not from a
 * comparison of the whole signed version sent to the load thread. The
 * difference must still be exact: the AXFR of each version equals the one
 * before with the IXFR applied, one step or two.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { generateKey } from '../../src/dnssec/keys.ts';
import { captureIo, type CapturedIo, events } from '../helpers/io.ts';
import { xfr, xfrQuery } from './client.ts';
import { waitFor } from '../helpers/wait.ts';

const ORIGIN = 'sixfr.test.';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-signed-ixfr-'));
const zoneFile = path.join(tmp, `${ORIGIN}zone`);

/** 40 names; `changed` rewrites the TXT of those listed. */
function zoneText(changed: readonly number[]): string {
  const lines = [
    `$ORIGIN ${ORIGIN}`,
    '$TTL 300',
    '@ IN SOA ns hostmaster 1 3600 600 86400 300',
    '@ IN NS ns',
    'ns IN A 127.0.0.1',
  ];
  for (let i = 0; i < 40; i++) {
    lines.push(`n${i} IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!https://r/${i}?\\\\1!" .`);
    lines.push(`n${i} IN TXT "${changed.includes(i) ? `changed ${changed.join(',')}` : `v${i}`}"`);
  }
  return `${lines.join('\n')}\n`;
}

let io: CapturedIo;
let done: Promise<number>;
let port: number;

const keyOf = (r: dnsPacket.Answer) =>
  JSON.stringify([
    r.name.toLowerCase(),
    r.type,
    (r as { ttl?: number }).ttl,
    (r as { data?: unknown }).data,
  ]);

/** The zone's records (the closing SOA left out), as comparable keys. */
async function axfr(): Promise<{ serial: number; records: Set<string> }> {
  const r = await xfr(port, xfrQuery(ORIGIN, 'AXFR'));
  expect(r.complete).toBe(true);
  const soa = r.records[0]!;
  return {
    serial: (soa as { data: { serial: number } }).data.serial,
    records: new Set(r.records.slice(0, -1).map(keyOf)),
  };
}

/** `from` with the IXFR from its serial applied (RFC 1995 section 4: deletions, then additions, per step). */
async function applyIxfr(from: { serial: number; records: Set<string> }): Promise<Set<string>> {
  const r = await xfr(port, xfrQuery(ORIGIN, 'IXFR', from.serial));
  expect(r.complete).toBe(true);
  // The current SOA, then per step: the old SOA, its deletions, the new SOA, its additions; the current SOA.
  const recs = r.records.slice(1, -1);
  expect(recs[0]?.type, 'an incremental answer').toBe('SOA');
  const out = new Set(from.records);
  let adding = true;
  for (const rec of recs) {
    if (rec.type === 'SOA') adding = !adding;
    if (adding) out.add(keyOf(rec));
    else {
      expect(out.has(keyOf(rec)), `deleted ${keyOf(rec)} was there`).toBe(true);
      out.delete(keyOf(rec));
    }
  }
  return out;
}

async function reloadWith(changed: readonly number[]): Promise<void> {
  writeFileSync(zoneFile, zoneText(changed));
  const before = events(io).filter((e) => e.event === 'zones_reloaded').length;
  io.reload();
  await waitFor('the reload', () =>
    events(io).filter((e) => e.event === 'zones_reloaded').length > before ? true : undefined,
  );
}

beforeAll(async () => {
  const keys = path.join(tmp, 'keys');
  mkdirSync(keys);
  await generateKey(keys, ORIGIN, 13, true);
  await generateKey(keys, ORIGIN, 13, false);
  writeFileSync(zoneFile, zoneText([]));
  io = captureIo({ cwd: tmp });
  done = run(
    [
      'serve',
      '--zones',
      zoneFile,
      '--keys',
      keys,
      '--allow-transfer',
      '127.0.0.1/32',
      '--listen',
      '127.0.0.1:0',
      '--log-format',
      'json',
    ],
    io,
  );
  port = await waitFor('listening', () => {
    const e = events(io).find((x) => x.event === 'listening');
    return e ? (e.port as number) : undefined;
  });
}, 30_000);

afterAll(async () => {
  io?.abort();
  await done;
  rmSync(tmp, { recursive: true, force: true });
});

describe('signed zone with transfers: the IXFR difference from the names re-signed', () => {
  it('each reload: the IXFR applied to the versions before gives the AXFR; read from the names re-signed', async () => {
    const v0 = await axfr();
    await reloadWith([3]);
    const v1 = await axfr();
    expect(v1.serial).toBe(v0.serial + 1);
    expect(await applyIxfr(v0)).toEqual(v1.records);
    await reloadWith([3, 17]);
    const v2 = await axfr();
    expect(v2.serial).toBe(v1.serial + 1);
    expect(await applyIxfr(v1)).toEqual(v2.records);
    expect(await applyIxfr(v0)).toEqual(v2.records);
    await reloadWith([29]);
    const v3 = await axfr();
    expect(await applyIxfr(v2)).toEqual(v3.records);
    expect(await applyIxfr(v0)).toEqual(v3.records);
    const diffs = events(io).filter((e) => e.event === 'ixfr_difference');
    expect(diffs.map((d) => d.where)).toEqual([
      'after the swap',
      'after the swap',
      'after the swap',
    ]);
    // The TXT records changed and their RRSIGs, the SOA's RRSIG: a few records, not the zone's 253.
    for (const d of diffs.slice(1)) {
      expect(d.added as number).toBeGreaterThan(0);
      expect((d.added as number) + (d.removed as number)).toBeLessThan(20);
    }
  }, 60_000);
});
