/**
 * Signing from the store's columns (`storeSigningPlan`: inline signing,
 * `zone sign`) makes the records of the signing plan over the zone's records
 * (`signingPlan`, in canonical order and with `canonicalOrder: false`),
 * record for record in the same order: with a deterministic algorithm (Ed25519) and the same seeded jitter,
 * the same bytes. The oracle zone has cuts (secure, insecure, under an empty
 * non-terminal), glue, wildcards, empty non-terminals, a DNAME; this test
 * adds names written with escapes and in upper case, an owner whose records
 * are spread over the file, out-of-zone data and an earlier signature.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPlanHere, signZone, type SignZoneOptions } from '../../src/dnssec/core/sign-zone.ts';
import { storeSigningPlan, zoneRecords } from '../../src/dnssec/core/sign-store.ts';
import type { ResourceRecord } from '../../src/dns/core/zone/model.ts';
import { StoreZone } from '../../src/dns/core/zone/views.ts';
import { writeZone } from '../../src/dns/core/zone/writer.ts';
import { generateKey, readZoneKeys, type LoadedKey } from '../../src/dnssec/keys.ts';
import { loadZoneFile } from '../../src/authority/zones/load.ts';
import { TEST_ZONES } from '../server/harness.ts';

const ORIGIN = 'signed.test.';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-signstore-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const EXTRA = [
  'a\\.b IN A 192.0.2.10',
  'ESC\\065PED.deep.down IN TXT "upper case and an escape"',
  'www IN MX 5 www',
  '_tcp.x.y.z IN SRV 0 0 80 www',
  'out.example. IN A 192.0.2.11',
  'ns.insecure IN AAAA 2001:db8::53',
  ...Array.from({ length: 300 }, (_, i) => `j${(i * 7919) % 300} IN TXT "t${i}"`),
];

function seeded(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

const line = (r: ResourceRecord) =>
  `${r.owner} ${r.type} ${r.class} ${r.ttl} ${Buffer.from(r.rdata).toString('hex')}`;

let keys: LoadedKey[];
beforeAll(async () => {
  const dir = path.join(tmp, 'keys');
  await generateKey(dir, ORIGIN, 15, true);
  await generateKey(dir, ORIGIN, 15, false);
  keys = await readZoneKeys(dir, ORIGIN);
});

async function load(text: string, name: string): Promise<StoreZone> {
  const file = path.join(tmp, name);
  writeFileSync(file, text);
  const r = await loadZoneFile(file, { origin: ORIGIN });
  expect(r.zone).toBeInstanceOf(StoreZone);
  return r.zone as StoreZone;
}

const cases: { name: string; o: Partial<SignZoneOptions> }[] = [
  { name: 'NSEC', o: { denial: 'nsec' } },
  { name: 'NSEC3', o: { denial: 'nsec3' } },
  {
    name: 'NSEC3 opt-out, salt, 2 iterations',
    o: { denial: 'nsec3', optOut: true, salt: Uint8Array.of(0xab, 0xcd), iterations: 2 },
  },
];

describe('signing from the store gives the records of the signing plan', () => {
  for (const c of cases)
    it(`${c.name}: the same records in the same order (canonical, as met), also when signing a signed zone again`, async () => {
      const options = (): SignZoneOptions => ({
        origin: ORIGIN,
        keys,
        denial: 'nsec',
        now: 1_780_000_000,
        validity: 30 * 86400,
        random: seeded(3),
        serial: 9,
        ...c.o,
      });
      const text =
        readFileSync(path.join(TEST_ZONES, 'signed.test.zone'), 'utf8') + EXTRA.join('\n') + '\n';
      let zone = await load(text, 'unsigned.zone');
      for (const round of [1, 2]) {
        let signed: ResourceRecord[] = [];
        for (const canonicalOrder of [true, false]) {
          // Each with its own seeded jitter.
          const o = () => ({ ...options(), canonicalOrder });
          const fromStore = signPlanHere(storeSigningPlan(zone, o()), keys);
          const fromRecords = signZone(zoneRecords(zone), o());
          expect(fromStore.signed).toBe(fromRecords.signed);
          expect(fromStore.records.map(line)).toEqual(fromRecords.records.map(line));
          expect(fromStore.records.filter((r) => r.type === 46).length).toBeGreaterThan(300);
          signed = fromStore.records;
        }
        // Round 2 signs the signed zone again: its RRSIG/NSEC/NSEC3 records are dropped and remade.
        zone = await load(writeZone(signed), `signed-${round}.zone`);
      }
    });
});
