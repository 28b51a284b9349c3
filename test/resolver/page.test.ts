/**
 * The resolver's outputs for people (issue 13): the resolution page at `/`
 * for a request that prefers HTML (other clients keep the text index), its
 * script (the browser build of the client, bundled from the sources), the
 * N2C description as HTML when preferred (JSON otherwise, as before); and
 * the DoH endpoint's CORS origin from `doh.allowOrigin`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyseReference } from '../../src/resolver/core/from-urn.ts';
import { ensureCatalogue } from '../../src/resolver/catalogue/open.ts';
import type { SqliteCatalogue } from '../../src/resolver/catalogue/store.ts';
import { DEFAULT_RESOLVER_CONFIG, validateResolverConfig } from '../../src/config/resolver.ts';
import { validateServerConfig } from '../../src/config/server.ts';
import { createResolverApp, type ResolverApp } from '../../src/resolver/http/app.ts';
import { pageScript } from '../../src/resolver/http/page.ts';
import { base64UrlEncode } from '../../src/dns/core/wire/doh.ts';
import { SAMPLE_ZONES, startTestServer } from '../server/harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'lexroute-page-'));
let store: SqliteCatalogue;
let withPage: ResolverApp;
let withoutPage: ResolverApp;
const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const URN = 'urn:lex:it:stato:legge:2000-04-03;56';

beforeAll(async () => {
  store = (
    await ensureCatalogue(join(dir, 'c.sqlite'), 'data/sample-catalogue.jsonl', process.cwd())
  ).store;
  const base = { reader: store, analyse: analyseReference, config: DEFAULT_RESOLVER_CONFIG };
  withPage = createResolverApp({
    ...base,
    page: { doh: () => 'http://127.0.0.1:1/dns-query?x="<>', script: pageScript },
  });
  withoutPage = createResolverApp(base);
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (app: ResolverApp, target: string, accept?: string) =>
  app.fetch(new Request(`http://r.test${target}`, accept ? { headers: { accept } } : {}));

describe('the resolution page', () => {
  it('is served at / to a browser, with the DoH URL filled in (escaped)', async () => {
    const r = await get(withPage, '/', HTML);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const body = await r.text();
    expect(body).toContain('<form id="resolve">');
    expect(body).toContain('value="http://127.0.0.1:1/dns-query?x=&#34;&#60;&#62;"');
    expect(body).toContain('<script src="/lexroute-page.js" defer>');
    expect(body).toContain('name="viewport"');
  });

  it('leaves / as the text index for other clients, and for an app without the page', async () => {
    for (const [app, accept] of [
      [withPage, undefined],
      [withPage, 'text/plain'],
      [withoutPage, HTML],
    ] as const) {
      const r = await get(app, '/', accept);
      expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await r.text()).toContain('GET /uri-res/N2L?<urn>');
    }
    expect((await get(withoutPage, '/lexroute-page.js')).status).toBe(404);
  });

  it('serves its script: the browser client bundled, no Node built-in left in it', async () => {
    const r = await get(withPage, '/lexroute-page.js');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const js = await r.text();
    expect(js.length).toBeGreaterThan(50_000);
    expect(js).toContain('dns-message');
    expect(js).not.toMatch(/\brequire\(["'](node:)?[a-z_]+["']\)|from\s*["']node:/);
  }, 30_000);
});

describe('N2C for people', () => {
  it('is HTML when the request prefers it: title, versions, formats, each with its link', async () => {
    const r = await get(withPage, `/uri-res/N2C?${URN}`, HTML);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('vary')).toContain('Accept');
    const body = await r.text();
    const json = (await (await get(withPage, `/uri-res/N2C?${URN}`)).json()) as {
      work: {
        title: string;
        expressions: { urn: string; manifestations: { items: { url: string }[] }[] }[];
      };
    };
    expect(body).toContain(`<h1>${json.work.title}</h1>`);
    for (const e of json.work.expressions) {
      expect(body).toContain(e.urn);
      for (const m of e.manifestations)
        for (const i of m.items) expect(body).toContain(`href="${i.url}"`);
    }
  });

  it('stays JSON without a preference for HTML', async () => {
    for (const accept of [
      undefined,
      '*/*',
      'application/json',
      'application/json, text/html;q=0.5',
    ]) {
      const r = await get(withPage, `/uri-res/N2C?${URN}`, accept);
      expect(r.headers.get('content-type'), String(accept)).toBe('application/json');
    }
  });
});

describe('configuration', () => {
  it('resolver: page.enabled and page.doh, checked', () => {
    const ok = validateResolverConfig({
      page: { enabled: false, doh: 'https://dns.example/dns-query' },
    });
    expect(ok.ok && ok.config.page).toEqual({
      enabled: false,
      doh: 'https://dns.example/dns-query',
    });
    const bad = validateResolverConfig({ page: { enabled: 'yes', nope: 1 } });
    expect(bad.ok ? [] : bad.issues.map((i) => [i.code, i.path])).toEqual([
      ['CONFIG_BAD_TYPE', 'page.enabled'],
      ['CONFIG_UNKNOWN_KEY', 'page.nope'],
    ]);
  });

  it('server: doh.allowOrigin sets the DoH answers CORS origin ("" turns it off)', async () => {
    const bad = validateServerConfig({
      doh: { allowOrigin: 'https://a.example, https://b.example' },
    });
    expect(bad.errors.map((e) => [e.code, e.path])).toEqual([
      ['CONFIG_BAD_TEXT', 'doh.allowOrigin'],
    ]);
    const q = base64UrlEncode(
      dnsPacket.encode({
        type: 'query',
        id: 0,
        questions: [{ name: 'lex.urn.arpa', type: 'NAPTR' }],
      }),
    );
    for (const [origin, expected, vary] of [
      ['https://portal.example', 'https://portal.example', 'Origin'],
      ['', null, null],
    ] as const) {
      const h = await startTestServer([SAMPLE_ZONES], {
        doh: { listen: [{ host: '127.0.0.1', port: 0 }], allowOrigin: origin },
      });
      try {
        const url = h.server.doh[0]!.url;
        const r = await fetch(`${url}?dns=${q}`);
        expect(r.status).toBe(200);
        expect(r.headers.get('access-control-allow-origin')).toBe(expected);
        expect(r.headers.get('vary')).toBe(vary);
        const bad400 = await fetch(url);
        expect(bad400.status).toBe(400);
        expect(bad400.headers.get('access-control-allow-origin')).toBe(expected);
      } finally {
        await h.close();
      }
    }
  });
});
