/**
 * A reload always ends (issue 20, and `bench/reload.ts --workers 2` at
 * 1,000,000 records, which once ran past 400 s): a load that takes longer
 * than the loader's bound is stopped with ZONE_LOAD_TIMEOUT, logged, and the
 * previous version of the zone stays served; the next load starts a fresh
 * worker and succeeds. A worker that was ended after its load never fails
 * the next load.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BackgroundZoneLoader } from '../../src/authority/zones/background.ts';
import { ZoneReloader } from '../../src/authority/reload.ts';
import { createLogger } from '../../src/authority/log.ts';
import type { Zone } from '../../src/dns/core/zone/model.ts';
import type { IndexedZone } from '../../src/authority/core/zone-lookup.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-load-bounded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const zone = (serial: number) =>
  `$TTL 300\n@ IN SOA ns host ${serial} 3600 600 86400 300\n@ IN NS ns\nns IN A 192.0.2.1\n`;

describe('a zone load is bounded in time', () => {
  it('over the bound: ZONE_LOAD_TIMEOUT logged, the previous version kept; then a load succeeds', async () => {
    const file = path.join(dir, 'bounded.test.zone');
    writeFileSync(file, zone(1));
    const normal = new BackgroundZoneLoader({ shared: 'all' });
    // 1 ms: shorter than any worker takes to start, so the load cannot finish in time.
    const hurried = new BackgroundZoneLoader({}, { timeoutMs: 1 });
    let useHurried = false;
    let lines = '';
    const log = createLogger((l) => void (lines += l), 'info', 'json');
    let served: readonly (Zone | IndexedZone)[] = [];
    const reloader = new ZoneReloader({
      specs: [{ path: dir }],
      cwd: dir,
      loader: (f, o, h, s) => (useHurried ? hurried : normal).load(f, o, h, s),
      engine: { setZones: (z) => void (served = z) },
      log,
      retrySoon: () => {},
    });
    try {
      expect((await reloader.reload()).loaded).toBe(1);
      writeFileSync(file, zone(2));
      useHurried = true;
      const failed = await reloader.reload();
      expect(failed).toMatchObject({ loaded: 0, failed: 1 });
      expect(lines).toMatch(/"event":"zone_diagnostic".*"code":"ZONE_LOAD_TIMEOUT"/);
      expect(lines).toMatch(
        /"event":"zone_rejected".*"keeping":"bounded\.test\. \(previous version\)"/,
      );
      expect(served).toHaveLength(1);
      // The next load (a fresh worker) succeeds, and a shared load's ended worker fails nothing.
      useHurried = false;
      expect((await reloader.reload()).loaded).toBe(1);
      writeFileSync(file, zone(3));
      expect((await reloader.reload()).loaded).toBe(1);
      expect(lines.match(/"event":"zone_loaded"/g)).toHaveLength(3);
    } finally {
      await normal.close();
      await hurried.close();
    }
  });
});
