/**
 * `startResolver({ workers: N })` (issue 29: the resolver service owns its
 * workers), as a library user starts it: two worker processes (node:cluster)
 * sharing one listening port and the sample catalogue, answering THTTP over
 * real HTTP; the primary's `/metrics` sums both, `reload()` reaches both,
 * `close()` stops both. A taken port fails the start with its code and
 * leaves no worker behind.
 */
import cluster from 'node:cluster';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RESOLVER_CONFIG, type ResolverConfig } from '../../src/config/resolver.ts';
import { ResolverStartError, startResolver } from '../../src/resolver/index.ts';
import { sampleCatalogue } from '../helpers/sample-catalogue.ts';

const URN = 'urn:lex:it:stato:legge:2000-04-03;56';
let dir = '';
let catalogue = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lexroute-workers-'));
  catalogue = join(dir, 'catalogue.sqlite');
  (await sampleCatalogue(dir)).close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = (listen: string): ResolverConfig => ({
  ...DEFAULT_RESOLVER_CONFIG,
  listen: [listen],
});

/** Whether a process is still running. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startResolver with workers', () => {
  it('two workers answer on one port; metrics sum them, reload reaches both, close stops both', async () => {
    const logs: Record<string, unknown>[] = [];
    const service = await startResolver({
      ...{ config: config('127.0.0.1:0'), catalogue, cwd: dir, workers: 2 },
      metrics: { host: '127.0.0.1', port: 0 },
      log: (e) => void logs.push({ ...e }),
    });
    let pids: number[];
    try {
      expect(service.urls).toHaveLength(1);
      const url = service.urls[0]!;
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${url}/uri-res/N2Ls?${URN}`, { headers: { connection: 'close' } });
        expect(res.status).toBe(200);
        expect(await res.text()).toMatch(/^https?:\/\//m);
      }
      expect(service.status()).toMatchObject({ kind: 'resolver', workers: 2 });
      const reloaded = await service.reload();
      expect(reloaded.ok).toBe(true);
      const processes = (reloaded.result as { processes: { pid: number }[] }).processes;
      pids = processes.map((p) => p.pid);
      expect(new Set(pids).size).toBe(2);
      // The primary's /metrics: the request counters of both workers summed.
      const metricsUrl = logs.find((l) => l.msg === 'metrics')?.url as string;
      const text = await (await fetch(`${metricsUrl}`)).text();
      const served = [...text.matchAll(/^lexroute_resolver_requests_total\{[^}]*\} (\d+)/gm)];
      expect(served.reduce((n, m) => n + Number(m[1]), 0)).toBeGreaterThanOrEqual(20);
      // The workers' request log lines reach the primary's log.
      expect(logs.filter((l) => l.msg === 'request').length).toBeGreaterThanOrEqual(20);
    } finally {
      await service.close();
    }
    await expect(fetch(`${service.urls[0]!}/health`)).rejects.toThrow();
    expect(pids.filter(alive)).toEqual([]);
    expect(Object.keys(cluster.workers ?? {})).toEqual([]);
  }, 60_000);

  it('a taken port: ResolverStartError PORT_IN_USE, no worker left', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const start = startResolver({
        ...{ config: config(`127.0.0.1:${port}`), catalogue, cwd: dir, workers: 2 },
        log: () => undefined,
      });
      await expect(start).rejects.toBeInstanceOf(ResolverStartError);
      await expect(start).rejects.toMatchObject({ code: 'PORT_IN_USE' });
      expect(Object.keys(cluster.workers ?? {})).toEqual([]);
    } finally {
      taken.close();
    }
  }, 60_000);
});
