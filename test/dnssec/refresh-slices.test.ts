/**
 * Signature refresh in slices (issue 30): a zone signed at once has its
 * expirations spread over the jitter (an eighth of the validity); the
 * refresh at `refreshAt` re-signs only the signatures due within the refresh
 * window plus a slice (a quarter of the jitter) and keeps the others byte
 * for byte, so each refresh signs about a quarter of the zone, not all of it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { signLoadedZone, type InlineSigning } from '../../src/dnssec/inline.ts';
import { generateKey } from '../../src/dnssec/keys.ts';
import { loadZoneFile } from '../../src/authority/zones/load.ts';
import type { Zone } from '../../src/dns/core/zone/model.ts';

const ORIGIN = 'slices.test.';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-slices-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** RRSIG RDATA (hex) of every RRSIG of the zone. */
function signatures(zone: Zone): Set<string> {
  const out = new Set<string>();
  for (const node of zone.nodes.values())
    for (const r of node.rrsets.get(46)?.records ?? [])
      out.add(Buffer.from(r.rdata).toString('hex'));
  return out;
}

describe('signature refresh', () => {
  it('re-signs the slice due at refreshAt and keeps the rest; the next refresh comes later', async () => {
    const keys = path.join(tmp, 'keys');
    await generateKey(keys, ORIGIN, 15, true);
    await generateKey(keys, ORIGIN, 15, false);
    const file = path.join(tmp, 'slices.test.zone');
    const lines = [
      '$ORIGIN slices.test.',
      '$TTL 300',
      '@ SOA ns h 1 3600 600 86400 300',
      '@ NS ns',
      'ns A 192.0.2.1',
    ];
    for (let i = 0; i < 300; i++) lines.push(`n${i} TXT "v${i}"`);
    writeFileSync(file, lines.join('\n') + '\n');
    const zone = (await loadZoneFile(file, { origin: ORIGIN })).zone!;
    const sign: InlineSigning = {
      keysDir: keys,
      nsec3: true,
      optOut: false,
      validity: 30 * 86400,
      refresh: 7 * 86400,
    };
    const t0 = Math.floor(Date.now() / 1000);
    const first = await signLoadedZone(zone, sign, undefined, t0);
    expect(first.signed, JSON.stringify(first.diagnostics)).toBeDefined();
    const at = first.signed!.refreshAt / 1000;
    // The first refresh comes the refresh window before the earliest expiration (validity less at most the jitter).
    expect(at).toBeGreaterThanOrEqual(t0 + sign.validity - sign.validity / 8 - sign.refresh - 3600);
    const second = await signLoadedZone(zone, sign, first.signed!.serial, at, first.zone!);
    const s = second.signed!;
    const resigned = s.rrsets - (s.kept ?? 0);
    // The SOA (new serial) and the slice due; about a quarter of the zone, never all of it.
    expect(resigned).toBeGreaterThan(1);
    expect(resigned).toBeLessThan(s.rrsets / 2);
    expect(s.refreshAt).toBeGreaterThan(first.signed!.refreshAt);
    const before = signatures(first.zone!);
    const after = signatures(second.zone!);
    expect([...after].filter((x) => before.has(x)).length).toBe(after.size - resigned);
  }, 60_000);
});
