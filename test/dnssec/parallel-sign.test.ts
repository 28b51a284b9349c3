/**
 * Signing on several threads gives the same signed zone as signing in one:
 * the plan (order, NSEC/NSEC3 chain, expiration jitter) is made in one
 * thread and only the signatures are made elsewhere. Ed25519 (RFC 8080)
 * and RSASHA256 signatures are deterministic, so the outputs must be equal
 * byte for byte; ECDSA signatures are randomized, so there every line but
 * the signatures must be equal and the threaded output must verify. The
 * streamed file equals `writeZone` of the records signed in one thread.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { signingPlan, signZone, type SignZoneOptions } from '../../src/dnssec/core/sign-zone.ts';
import type { ResourceRecord } from '../../src/dns/core/zone/model.ts';
import { writeZone } from '../../src/dns/core/zone/writer.ts';
import { generateKey, readZoneKeys, type LoadedKey } from '../../src/dnssec/keys.ts';
import { signChunks } from '../../src/dnssec/parallel-sign.ts';
import { signZoneFile } from '../../src/dnssec/sign.ts';
import { zoneRecords } from '../../src/dnssec/core/sign-store.ts';
import { loadZoneFile } from '../../src/authority/zones/load.ts';
import { TEST_ZONES } from '../server/harness.ts';
import { toolOrSkip } from '../helpers/tools.ts';

const verify = toolOrSkip('dnssec-verify');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-psign-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// The oracle zone (cuts, glue, wildcards, empty non-terminals) and 1,200
// NAPTR owners more, so that a batch of 64 signatures makes dozens of batches.
const ZONE = path.join(tmp, 'signed.test.zone');
const extra: string[] = [];
for (let i = 0; i < 1200; i++)
  extra.push(`j${i} IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!https://j${i}.example/\\\\1!" .`);
writeFileSync(
  ZONE,
  readFileSync(path.join(TEST_ZONES, 'signed.test.zone'), 'utf8') + extra.join('\n') + '\n',
);

/** A seeded generator, so that both runs draw the same jitter. */
function seeded(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

/** One key pair folder per algorithm, made once and shared by the cases (they only read it). */
const keyFolders = new Map<number, Promise<{ dir: string; keys: LoadedKey[] }>>();
function keysFor(alg: number): Promise<{ dir: string; keys: LoadedKey[] }> {
  let made = keyFolders.get(alg);
  if (made === undefined) {
    made = (async () => {
      const dir = mkdtempSync(path.join(tmp, `k${alg}-`));
      await generateKey(dir, 'signed.test.', alg, true);
      await generateKey(dir, 'signed.test.', alg, false);
      return { dir, keys: await readZoneKeys(dir, 'signed.test.') };
    })();
    keyFolders.set(alg, made);
  }
  return made;
}

/** The zone's records, loaded once (each case copies the array it signs). */
let loaded: Promise<ResourceRecord[]> | undefined;
async function records(): Promise<ResourceRecord[]> {
  loaded ??= loadZoneFile(ZONE).then((z) => [...zoneRecords(z.zone!)]);
  return [...(await loaded)];
}

// One "now" for both runs, current so that dnssec-verify accepts the signatures.
const NOW = Math.floor(Date.now() / 1000);

const options = (keys: LoadedKey[], nsec3: boolean): SignZoneOptions => ({
  origin: 'signed.test.',
  keys,
  denial: nsec3 ? 'nsec3' : 'nsec',
  optOut: nsec3,
  now: 1_780_000_000,
  validity: 30 * 86400,
  random: seeded(7),
  serial: 5,
});

/** A presentation line without its signature when it is an RRSIG (the last field). */
const unsigned = (line: string) => (/ RRSIG /.test(line) ? line.replace(/ \S+$/, '') : line);

describe('signing on worker threads', () => {
  for (const [alg, nsec3] of [
    [15, false],
    [15, true],
    [8, true],
  ] as const)
    it(`algorithm ${alg} ${nsec3 ? 'NSEC3 opt-out' : 'NSEC'}: 3 threads in batches of 64 give the single-thread zone byte for byte`, async () => {
      const { keys } = await keysFor(alg);
      const input = await records();
      const one = signZone(input, options(keys, nsec3));
      const streamed: string[] = [];
      const threaded: ResourceRecord[] = [];
      const signed = await signChunks(
        signingPlan(input, options(keys, nsec3)),
        keys,
        (rrs) => {
          for (const r of rrs) threaded.push(r);
          streamed.push(writeZone(rrs));
        },
        { threads: 3, batch: 64 },
      );
      expect(signed).toBe(one.signed);
      expect(threaded.length).toBe(one.records.length);
      const text = writeZone(one.records);
      expect(text.split('\n').filter((l) => / RRSIG /.test(l)).length).toBeGreaterThan(2400);
      expect(writeZone(threaded)).toBe(text);
      // Owner by owner, in the order emitted, is already the order writeZone prints.
      expect(streamed.join('')).toBe(text);
    }, 60_000);

  it('zone sign with --threads 1 and 3 writes the same file (Ed25519); ECDSA differs only in the signatures and verifies', async () => {
    for (const alg of [15, 13]) {
      const { dir: keysDir } = await keysFor(alg);
      const outs: string[] = [];
      for (const threads of [1, 3]) {
        const out = path.join(tmp, `out-${alg}-${threads}.zone`);
        const r = await signZoneFile(ZONE, {
          keysDir,
          out,
          nsec3: true,
          optOut: false,
          now: NOW,
          random: seeded(11),
          threads,
        });
        expect(r.records).toBe(readFileSync(out, 'utf8').trim().split('\n').length);
        outs.push(readFileSync(out, 'utf8'));
      }
      if (alg === 15) expect(outs[1]).toBe(outs[0]);
      else {
        expect(outs[1]).not.toBe(outs[0]);
        expect(outs[1]!.split('\n').map(unsigned)).toEqual(outs[0]!.split('\n').map(unsigned));
        if (verify.path) {
          const v = await promisify(execFile)(verify.path, [
            '-o',
            'signed.test.',
            path.join(tmp, `out-${alg}-3.zone`),
          ]);
          expect(v.stdout + v.stderr).toContain('Zone fully signed');
        }
      }
    }
  }, 60_000);
});
