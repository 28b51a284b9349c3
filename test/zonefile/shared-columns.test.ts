/**
 * Which zones come from the load thread on SharedArrayBuffers: every zone
 * with several answering threads (`shared: 'all'`); with one answering
 * thread and versions compared (transfers, a serial policy: `'unsigned'`),
 * unsigned zones only: their version served goes back to the load thread for
 * the comparison, while a signed zone's never does (its token does), so its
 * columns are transferred rather than copied into shared memory (a
 * 1,000,000-record signed zone: 1,108 MB peak with the copy, 745 MB without).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackgroundZoneLoader } from '../../src/authority/zones/background.ts';
import { generateKey } from '../../src/dnssec/keys.ts';
import type { InlineSigning } from '../../src/dnssec/inline.ts';
import { StoreZone } from '../../src/dns/core/zone/views.ts';
import type { Zone } from '../../src/dns/core/zone/model.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-shared-columns-'));
const keys = path.join(dir, 'keys');
const fileOf = (origin: string) => path.join(dir, `${origin}zone`);
const sign: InlineSigning = {
  keysDir: keys,
  nsec3: false,
  optOut: false,
  validity: 30 * 86400,
  refresh: 7 * 86400,
};

beforeAll(async () => {
  mkdirSync(keys);
  await generateKey(keys, 'signed.test.', 13, true);
  await generateKey(keys, 'signed.test.', 13, false);
  for (const origin of ['signed.test.', 'plain.test.'])
    writeFileSync(
      fileOf(origin),
      `$ORIGIN ${origin}\n$TTL 300\n@ SOA ns host 1 3600 600 86400 300\n@ NS ns\nns A 192.0.2.1\nwww TXT "x"\n`,
    );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether the zone's name columns are on a SharedArrayBuffer. */
function onShared(zone: Zone | undefined): boolean {
  expect(zone).toBeInstanceOf(StoreZone);
  return (zone as StoreZone).store.nameBlockOf(0).buffer instanceof SharedArrayBuffer;
}

describe('zones on shared memory from the load thread', () => {
  it("'unsigned': the unsigned zone shared, the signed one transferred", async () => {
    const loader = new BackgroundZoneLoader({ shared: 'unsigned', sign });
    try {
      const signed = await loader.load(fileOf('signed.test.'));
      const plain = await loader.load(fileOf('plain.test.'));
      expect(signed.signed).toBeDefined();
      expect(plain.signed).toBeUndefined();
      expect(onShared(signed.zone)).toBe(false);
      expect(onShared(plain.zone)).toBe(true);
    } finally {
      await loader.close();
    }
  });

  it("'all' (several answering threads): both shared", async () => {
    const loader = new BackgroundZoneLoader({ shared: 'all', sign });
    try {
      expect(onShared((await loader.load(fileOf('signed.test.'))).zone)).toBe(true);
      expect(onShared((await loader.load(fileOf('plain.test.'))).zone)).toBe(true);
    } finally {
      await loader.close();
    }
  });
});
