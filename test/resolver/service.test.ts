/**
 * `startResolver` (issue 29: services that own their lifecycle), as a
 * library user starts it: the sample catalogue in SQLite, two listen
 * addresses, reload with a changed configuration, status, close; a missing
 * catalogue and a taken port fail with their codes, nothing left open.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RESOLVER_CONFIG, type ResolverConfig } from '../../src/config/resolver.ts';
import { ResolverStartError, startResolver } from '../../src/resolver/index.ts';
import { CatalogueError } from '../../src/resolver/catalogue/store.ts';
import { sampleCatalogue } from '../helpers/sample-catalogue.ts';

const URN = 'urn:lex:it:stato:legge:2000-04-03;56';
let dir = '';
let catalogue = '';
const logs: Record<string, unknown>[] = [];
const log = (e: Readonly<Record<string, unknown>>) => void logs.push({ ...e });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lexroute-service-'));
  catalogue = join(dir, 'catalogue.sqlite');
  (await sampleCatalogue(dir)).close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = (over: Partial<ResolverConfig> = {}): ResolverConfig => ({
  ...DEFAULT_RESOLVER_CONFIG,
  listen: ['127.0.0.1:0', '127.0.0.1:0'],
  ...over,
});

describe('startResolver', () => {
  it('answers on every listen address, reloads, reports its status, closes', async () => {
    let current = config();
    const service = await startResolver({
      config: current,
      catalogue,
      cwd: dir,
      log,
      reloadConfig: () => Promise.resolve({ config: current, lines: [] }),
    });
    try {
      expect(service.urls).toHaveLength(2);
      for (const url of service.urls) {
        const res = await fetch(`${url}/uri-res/N2Ls?${URN}`);
        expect(res.status).toBe(200);
        expect(await res.text()).toMatch(/^https?:\/\//m);
      }
      const status = service.status();
      expect(status).toMatchObject({ kind: 'resolver', workers: 1 });
      expect((status.catalogue as { works: number }).works).toBeGreaterThan(0);
      current = { ...current, listen: ['127.0.0.1:1'] };
      const reloaded = await service.reload();
      expect(reloaded).toMatchObject({ ok: true, result: { needRestart: ['listen'] } });
    } finally {
      await service.close();
    }
    await expect(fetch(`${service.urls[0]!}/health`)).rejects.toThrow();
    expect(logs.map((l) => l.msg)).toEqual(expect.arrayContaining(['catalogue', 'stopped']));
  });

  it('a missing catalogue is a CatalogueError; a taken port a ResolverStartError', async () => {
    await expect(
      startResolver({ config: config(), catalogue: join(dir, 'none.sqlite'), cwd: dir, log }),
    ).rejects.toBeInstanceOf(CatalogueError);
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const e = await startResolver({
        config: config({ listen: [`127.0.0.1:${port}`] }),
        catalogue,
        cwd: dir,
        log,
      }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ResolverStartError);
      expect((e as ResolverStartError).code).toBe('PORT_IN_USE');
      expect((e as ResolverStartError).address).toBe(`127.0.0.1:${port}`);
    } finally {
      taken.close();
    }
  });
});
