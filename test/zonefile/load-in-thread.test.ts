/**
 * A server's first load runs in its own thread (issue 30: thousands of small
 * zones at start cost no load thread, no copy of each zone's columns and no
 * second heap): `inThreadFirst` loads through the same steps as the load
 * worker, with the same zone, hash, diagnostics and file stamp, and starts no
 * worker; after `offThread` (the server answers) every load goes to the worker.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BackgroundZoneLoader,
  type BackgroundLoadResult,
} from '../../src/authority/zones/background.ts';
import { writeZone } from '../../src/dns/core/zone/writer.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-load-in-thread-'));
const here = new BackgroundZoneLoader({}, { inThreadFirst: true });
const worker = new BackgroundZoneLoader();
afterAll(async () => {
  await Promise.all([here.close(), worker.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const good =
  '$TTL 300\n@ IN SOA ns host 7 3600 600 86400 300\n@ IN NS ns\nns IN A 192.0.2.1\n' +
  '@ IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!https://example.org/?\\\\1!" .\nj1 IN TXT "x"\n';
const bad = '$TTL 300\n@ IN SOA ns host 1 3600 600 86400 300\n@ IN NS ns\nns IN A 192.0.2.300\n';
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
/** Whether the loader has started its worker thread (a private field, read for this test only). */
const workerStarted = (l: BackgroundZoneLoader) =>
  (l as unknown as { worker: unknown }).worker !== undefined;
/** What a load gave, comparable across threads. */
const outcome = (r: BackgroundLoadResult) => ({
  text: r.zone ? writeZone(r.zone) : undefined,
  origin: r.zone?.origin,
  size: r.zone?.size,
  hash: r.hash,
  codes: r.diagnostics.map((d) => [d.code, d.severity, d.position?.line]),
  stat: r.stat && { size: r.stat.size, mtimeMs: r.stat.mtimeMs },
});

describe('the first load in the calling thread', () => {
  it('gives what the load worker gives, and starts no worker', async () => {
    const file = path.join(dir, 'good.test.zone');
    writeFileSync(file, good);
    const a = await here.load(file);
    expect(workerStarted(here)).toBe(false);
    expect(a.zone?.size).toBe(5);
    expect(a.hash).toBe(sha256(file));
    expect(a.indexed).toBeDefined();
    expect(outcome(a)).toEqual(outcome(await worker.load(file)));
    // The same hash given: recognised without a parse, as in the worker.
    expect(await here.load(file, undefined, sha256(file))).toMatchObject({ unchanged: true });
  });

  it('refuses a bad zone with the same diagnostics', async () => {
    const file = path.join(dir, 'bad.test.zone');
    writeFileSync(file, bad);
    const a = await here.load(file);
    expect(a.diagnostics.some((d) => d.severity === 'error')).toBe(true);
    expect(outcome(a)).toEqual(outcome(await worker.load(file)));
    const missing = await here.load(path.join(dir, 'missing.test.zone'));
    expect(missing.zone).toBeUndefined();
    expect(missing.diagnostics.map((d) => d.code)).toEqual(
      (await worker.load(path.join(dir, 'missing.test.zone'))).diagnostics.map((d) => d.code),
    );
    expect(workerStarted(here)).toBe(false);
  });

  it('after offThread, loads go to the worker', async () => {
    const file = path.join(dir, 'later.test.zone');
    writeFileSync(file, good);
    here.offThread();
    const r = await here.load(file);
    expect(workerStarted(here)).toBe(true);
    expect(r.hash).toBe(sha256(file));
  });

  it('a signing loader never loads in its own thread', async () => {
    const file = path.join(dir, 'signed.test.zone');
    writeFileSync(file, good);
    // A key folder with no key for the zone: loaded unsigned, but through the worker.
    const sign = {
      keysDir: dir,
      nsec3: false,
      optOut: false,
      validity: 1_209_600,
      refresh: 259_200,
    };
    const signing = new BackgroundZoneLoader({ sign }, { inThreadFirst: true });
    try {
      await signing.load(file);
      expect(workerStarted(signing)).toBe(true);
    } finally {
      await signing.close();
    }
  });
});
