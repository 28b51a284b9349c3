/**
 * Regression tests for the resolver items of issues 20 and 21: timed-out
 * connections are destroyed (not half-closed), the answer cache is bounded
 * by bytes and keyed by the negotiated form of Accept headers, request logs
 * can be sampled with a summary line, /health follows imports and shows no
 * absolute path, the resolver serves the sample only with --sample, and
 * import/export leave no stray -wal/-shm files.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureCatalogue } from '../../src/resolver/catalogue/open.ts';
import { importFile } from '../../src/resolver/catalogue/import.ts';
import { analyseLexUrn, analyseReference } from '../../src/resolver/core/from-urn.ts';
import { catalogueCommand } from '../../src/cli/commands/catalogue.ts';
import { resolverCommand } from '../../src/cli/commands/resolver.ts';
import { DEFAULT_RESOLVER_CONFIG } from '../../src/config/resolver.ts';
import { createResolverApp } from '../../src/resolver/http/app.ts';
import { LruCache } from '../../src/kit/core/lru.ts';
import { startResolverServer, type LogEntry } from '../../src/resolver/http/server.ts';
import { captureIo } from '../helpers/io.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const SAMPLE = join(ROOT, 'data/sample-catalogue.jsonl');
const dir = mkdtempSync(join(tmpdir(), 'lexroute-hardening-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function sampleStore(name: string) {
  const { store } = await ensureCatalogue(join(dir, name), SAMPLE, ROOT);
  return store;
}

describe('issue 21 item 5: a timed-out connection is destroyed, not half-closed', () => {
  it('the server closes its side entirely while the slow client keeps its own open', async () => {
    const store = await sampleStore('timeout.sqlite');
    const app = createResolverApp({
      reader: store,
      analyse: analyseReference,
      config: DEFAULT_RESOLVER_CONFIG,
    });
    const running = await startResolverServer({
      app,
      host: '127.0.0.1',
      port: 0,
      timeouts: { headersMs: 300, requestMs: 300, checkMs: 100 },
    });
    try {
      // allowHalfOpen: this client never closes its side by itself, like a slowloris client.
      const socket = connect({ host: '127.0.0.1', port: running.port, allowHalfOpen: true });
      let answer = '';
      const ended = new Promise<void>((r) => socket.once('end', () => r()));
      socket.on('data', (d) => (answer += d.toString()));
      await new Promise<void>((r) => socket.once('connect', () => r()));
      socket.write('GET /health HTTP/1.1\r\nHost: a\r\n');
      await ended;
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      const deadline = Date.now() + 3_000;
      let open = 1;
      while (Date.now() < deadline) {
        open = await new Promise<number>((r) => running.server.getConnections((_e, n) => r(n)));
        if (open === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(open).toBe(0);
      socket.destroy();
    } finally {
      await running.close();
      store.close();
    }
  });
});

describe('issue 21 item 6: the answer cache is bounded by bytes, keyed by the negotiated Accept', () => {
  it('LruCache evicts by bytes and never keeps an entry larger than the bound', () => {
    const c = new LruCache<string>(100, 1000, (k, v) => k.length + v.length);
    for (let i = 0; i < 50; i++) c.set(`k${String(i).padStart(2, '0')}`, 'x'.repeat(97));
    expect(c.bytes).toBeLessThanOrEqual(1000);
    expect(c.size).toBe(Math.floor(1000 / 100));
    expect(c.get('k49')).toBeDefined();
    expect(c.get('k0')).toBeUndefined();
    c.set('huge', 'y'.repeat(2000));
    expect(c.get('huge')).toBeUndefined();
    // Slots freed by byte evictions are reused.
    for (let i = 0; i < 500; i++) c.set(`z${i}`, 'x'.repeat(5));
    expect(c.size).toBe(100);
  });

  it('6,000 distinct Accept headers of 2 KB stay within maxBytes; spellings that negotiate alike share an entry', async () => {
    const store = await sampleStore('cache.sqlite');
    const maxBytes = 512 * 1024;
    const app = createResolverApp({
      reader: store,
      analyse: analyseReference,
      config: DEFAULT_RESOLVER_CONFIG,
      cache: {
        entries: 1_000_000,
        maxBytes,
        checkMs: 1_000_000,
        version: () => 0,
        admission: 'first-request',
      },
    });
    const target = '/uri-res/N2L?urn:lex:br:federal:lei:2002-01-10;10406';
    const req = (accept: string) => ({
      method: 'GET',
      target,
      header: (h: string) => (h === 'accept' ? accept : undefined),
      httpVersion: '1.1',
    });
    const pad = 'x'.repeat(2000);
    for (let i = 0; i < 6_000; i++) app.handle(req(`text/html, application/x-${i}-${pad}`));
    expect(app.cacheStats().bytes).toBeLessThanOrEqual(maxBytes);
    const fresh = createResolverApp({
      reader: store,
      analyse: analyseReference,
      config: DEFAULT_RESOLVER_CONFIG,
      cache: { entries: 100, checkMs: 1_000_000, version: () => 0, admission: 'first-request' },
    });
    const a = fresh.handle(req('text/html'));
    const b = fresh.handle(req('TEXT/HTML ;q=1'));
    expect(b.headers.location).toBe(a.headers.location);
    expect(fresh.cacheStats().entries).toBe(1);
    fresh.handle(req('application/pdf'));
    expect(fresh.cacheStats().entries).toBe(2);
    store.close();
  });
});

describe('issue 21 item 10: request log sampling', () => {
  it('log.sample N logs one request in N and a summary line counts the others by status', async () => {
    const store = await sampleStore('log.sqlite');
    const app = createResolverApp({
      reader: store,
      analyse: analyseReference,
      config: DEFAULT_RESOLVER_CONFIG,
    });
    const lines: LogEntry[] = [];
    const running = await startResolverServer({
      app,
      host: '127.0.0.1',
      port: 0,
      log: (e) => lines.push(e),
      logSample: 10,
      summaryMs: 60_000,
    });
    for (let i = 0; i < 40; i++) await (await fetch(`${running.url}/health`)).text();
    for (let i = 0; i < 10; i++) await (await fetch(`${running.url}/nothing`)).text();
    await running.close();
    store.close();
    const requests = lines.filter((l) => l.msg === 'request');
    expect(requests.length).toBe(5);
    const summary = lines.find((l) => l.msg === 'requests');
    expect(summary).toMatchObject({ unlogged: 45 });
    expect(summary?.byStatus).toEqual({ 200: 36, 404: 9 });
  });
});

/** Run `lexroute resolver` in-process until its first /health answer; returns the answer and the log. */
async function runResolver(args: string[]) {
  const io = captureIo({ cwd: dir });
  const done = resolverCommand.run(['--listen', '127.0.0.1:0', ...args], io);
  const deadline = Date.now() + 10_000;
  let url: string | undefined;
  while (url === undefined && Date.now() < deadline) {
    url = /"event":"listening","url":"([^"]+)"/.exec(io.stderr())?.[1];
    if (url === undefined) {
      const early = await Promise.race([done, new Promise((r) => setTimeout(r, 20))]);
      if (typeof early === 'number')
        return { code: early, io, url: undefined, stop: async () => early };
    }
  }
  return {
    code: undefined,
    io,
    url,
    stop: async () => {
      io.abort();
      return done;
    },
  };
}

describe('issue 20: safe defaults', () => {
  it('resolver without a catalogue fails naming --catalogue (and --sample); nothing is created', async () => {
    const r = await runResolver([]);
    expect(r.code).toBe(1);
    expect(r.io.stderr()).toMatch(/CATALOGUE_MISSING: .*--catalogue.*--sample/);
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });

  it('--sample serves the sample; /health shows no absolute path', async () => {
    const r = await runResolver(['--sample']);
    try {
      const h = (await (await fetch(`${r.url as string}/health`)).json()) as Record<
        string,
        unknown
      >;
      expect(h).toMatchObject({ status: 'ok', catalogue: 'sample', works: 40 });
      expect(JSON.stringify(h)).not.toContain(tmpdir());
    } finally {
      expect(await r.stop()).toBe(0);
    }
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });

  it('/health counts follow an import made while the resolver runs (issue 21)', async () => {
    const file = join(dir, 'health.sqlite');
    (await sampleStore('health.sqlite')).close();
    const r = await runResolver(['--catalogue', file]);
    try {
      const works = async () =>
        (await (await fetch(`${r.url as string}/health`)).json()) as {
          works: number;
          catalogue: string;
        };
      expect(await works()).toMatchObject({ works: 40, catalogue: 'health.sqlite' });
      const rows = join(dir, 'more.jsonl');
      writeFileSync(
        rows,
        '{"urn":"urn:lex:br:federal:lei:2030-01-01;1","url":"https://x.example/"}\n',
      );
      const { store } = await ensureCatalogue(file, SAMPLE, ROOT);
      await importFile(store, rows, { analyse: analyseLexUrn });
      store.close();
      await new Promise((res) => setTimeout(res, 100));
      expect((await works()).works).toBe(41);
    } finally {
      await r.stop();
    }
  });

  it('import and export leave no -wal/-shm files; export of a non-database fails with CATALOGUE_OPEN', async () => {
    const sub = mkdtempSync(join(dir, 'wal-'));
    const io1 = captureIo({ cwd: sub });
    expect(await catalogueCommand.run(['import', '--catalogue', 'c.sqlite', SAMPLE], io1)).toBe(0);
    const io2 = captureIo({ cwd: sub });
    expect(await catalogueCommand.run(['export', '--catalogue', 'c.sqlite'], io2)).toBe(0);
    expect(io2.stdout().trim().split('\n').length).toBe(107);
    expect(readdirSync(sub)).toEqual(['c.sqlite']);
    writeFileSync(join(sub, 'junk.sqlite'), 'junk'.repeat(1000));
    const io3 = captureIo({ cwd: sub });
    expect(await catalogueCommand.run(['export', '--catalogue', 'junk.sqlite'], io3)).toBe(1);
    expect(io3.stderr()).toMatch(/^lexroute catalogue: CATALOGUE_OPEN: /);
    expect(readdirSync(sub).sort()).toEqual(['c.sqlite', 'junk.sqlite']);
  });
});
