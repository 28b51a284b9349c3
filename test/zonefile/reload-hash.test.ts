/**
 * The content hash of a reload (issue 20): a file whose size changed is
 * certainly another content, so the load worker does not read it twice (a
 * hash pass, then the parse): the hash is taken from the parse's own read.
 * That hash must be the file's SHA-256, so that the next touch of the same
 * content is still recognised without parsing. A file of the same size is
 * hashed first (it may be the same content). `zone_loaded` names the steps
 * the worker took, with their times.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BackgroundZoneLoader } from '../../src/authority/zones/background.ts';
import { ZoneReloader } from '../../src/authority/reload.ts';
import { createLogger } from '../../src/authority/log.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-reload-hash-'));
const bg = new BackgroundZoneLoader();
afterAll(async () => {
  await bg.close();
  rmSync(dir, { recursive: true, force: true });
});

const zone = (serial: number, extra = '') =>
  `$TTL 300\n@ IN SOA ns host ${serial} 3600 600 86400 300\n@ IN NS ns\nns IN A 192.0.2.1\n${extra}`;
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const later = (s: number) => new Date(Date.now() + s * 1000);

describe('the reload hash, taken in the parse when the size changed', () => {
  it('the hash of a load is the SHA-256 of the file, with or without a hash pass first', async () => {
    const file = path.join(dir, 'direct.test.zone');
    writeFileSync(file, zone(1, 'a IN A 192.0.2.2\n'));
    const read = await bg.load(file);
    expect(read.hash).toBe(sha256(file));
    expect(read.phases).not.toHaveProperty('hash');
    expect(Object.keys(read.phases ?? {})).toEqual(['load', 'index', 'pack']);
    // Given the hash of another content: hashed first (a differing hash), then parsed.
    const first = await bg.load(file, undefined, 'not-this-hash');
    expect(first.hash).toBe(sha256(file));
    expect(first.unchanged).toBeUndefined();
    expect(Object.keys(first.phases ?? {})).toEqual(['hash', 'load', 'index', 'pack']);
    // Given its own hash: recognised, not parsed.
    const same = await bg.load(file, undefined, sha256(file));
    expect(same).toMatchObject({ unchanged: true, hash: sha256(file) });
  });

  it('through the reloader: size changed, same size changed, touched, rewritten identically', async () => {
    const sub = mkdtempSync(path.join(dir, 'reloader-'));
    const file = path.join(sub, 'hash.test.zone');
    let lines = '';
    const log = createLogger((l) => void (lines += l), 'info', 'json');
    const reloader = new ZoneReloader({
      specs: [{ path: sub }],
      cwd: sub,
      loader: (f, o, h, s) => bg.load(f, o, h, s),
      engine: { setZones: () => {} },
      log,
      retrySoon: () => {},
    });
    const loadedLine = () => {
      const all = lines.split('\n').filter((l) => l.includes('"event":"zone_loaded"'));
      return JSON.parse(all.at(-1)!) as { serial: number; phases: Record<string, number> };
    };
    writeFileSync(file, zone(1));
    expect(await reloader.reload()).toMatchObject({ loaded: 1 });
    // Another size: no hash pass, the hash comes from the parse's read.
    writeFileSync(file, zone(2, 'b IN A 192.0.2.3\n'));
    utimesSync(file, later(10), later(10));
    expect(await reloader.reload()).toMatchObject({ loaded: 1 });
    expect(loadedLine().serial).toBe(2);
    expect(loadedLine().phases).not.toHaveProperty('hash');
    expect(loadedLine().phases.load).toBeGreaterThanOrEqual(0);
    // Touched: the hash taken in the read recognises the same content.
    utimesSync(file, later(20), later(20));
    expect(await reloader.reload()).toMatchObject({ loaded: 0, unchanged: 1 });
    expect(lines).toContain('"event":"zone_unchanged"');
    // The same size, another content: hashed first, then parsed.
    writeFileSync(file, zone(3, 'b IN A 192.0.2.3\n'));
    utimesSync(file, later(30), later(30));
    expect(await reloader.reload()).toMatchObject({ loaded: 1 });
    expect(loadedLine().serial).toBe(3);
    expect(loadedLine().phases).toHaveProperty('hash');
    // Rewritten identically: recognised by the hash pass.
    writeFileSync(file, zone(3, 'b IN A 192.0.2.3\n'));
    utimesSync(file, later(40), later(40));
    expect(await reloader.reload()).toMatchObject({ loaded: 0, unchanged: 1 });
  });
});
