/**
 * Regression (issue 31 item 20), the resolver's pages for people over the
 * sample catalogue in a real SQLite file:
 * - N2C HTML said "in force from" for an expression with no in-force date
 *   (the JSON said `effective`);
 * - an unknown URN asked with `Accept: text/html` got raw problem+json;
 * - the best link was listed last (the selected expression came last).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqliteCatalogue } from '../../src/resolver/catalogue/store.ts';
import type { ResolverApp } from '../../src/resolver/http/app.ts';
import { getFrom, sampleApp, sampleCatalogue } from '../helpers/sample-catalogue.ts';

const dir = mkdtempSync(join(tmpdir(), 'lexroute-n2c-html-'));
let store: SqliteCatalogue;
let app: ResolverApp;
/** What Chromium sends when following a link. */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const CC = 'urn:lex:br:federal:lei:2002-01-10;10406';

beforeAll(async () => {
  store = await sampleCatalogue(dir);
  app = sampleApp(store);
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (target: string, accept?: string) => getFrom(app, target, accept);

interface Described {
  work: { expressions: { urn: string; inForce: string | null; effective: string | null }[] };
  selected: { expression: string; locations: { url: string }[] };
}

/** The page's sections by expression URN, in page order. */
function sections(html: string): { urn: string; text: string }[] {
  return html
    .split('<section')
    .slice(1)
    .map((s) => ({
      urn: /<h2><code>([^<]+)<\/code>/.exec(s)![1]!.replace(/&#59;/g, ';'),
      text: s,
    }));
}

describe('N2C as a page', () => {
  it('"in force from" only where the catalogue holds an in-force date', async () => {
    const json = (await (await get(`/uri-res/N2C?${CC}`)).json()) as Described;
    const html = await (await get(`/uri-res/N2C?${CC}`, BROWSER)).text();
    const byUrn = new Map(sections(html).map((s) => [s.urn, s.text]));
    const exprs = json.work.expressions;
    expect(exprs.some((e) => e.inForce === null && e.effective !== null)).toBe(true);
    expect(exprs.some((e) => e.inForce !== null)).toBe(true);
    for (const e of exprs) {
      const text = byUrn.get(e.urn);
      expect(text, e.urn).toBeDefined();
      if (e.inForce !== null) expect(text).toContain(`in force from ${e.inForce}`);
      else {
        expect(text).not.toContain('in force');
        if (e.effective !== null) expect(text).toContain(`dated ${e.effective}`);
      }
    }
  });

  it('the best link first: the selected expression leads, its formats in the answer order', async () => {
    const json = (await (await get(`/uri-res/N2C?${CC}`)).json()) as Described;
    const html = await (await get(`/uri-res/N2C?${CC}`, BROWSER)).text();
    const best = json.selected.locations[0]!.url;
    const [first] = sections(html);
    expect(first!.urn).toBe(json.selected.expression);
    expect(first!.text).toContain('aria-current="true"');
    // Every link of the selected expression in the order of the answer's locations.
    const links = [...first!.text.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]);
    expect(links[0]).toBe(best);
    expect(links).toEqual(json.selected.locations.map((l) => l.url));
    // Both ways of finding it on the page agree.
    expect(html).toContain(`<a id="best" href="${best}">`);
  });
});

describe('a problem asked for by a browser is a page', () => {
  const UNKNOWN = 'urn:lex:br:federal:lei:2099-01-10;1';

  it('an unknown URN: 404 text/html with the code and the detail; other clients keep problem+json', async () => {
    for (const target of [`/uri-res/N2C?${UNKNOWN}`, `/uri-res/N2L?${UNKNOWN}`, `/${UNKNOWN}`]) {
      const page = await get(target, BROWSER);
      expect(page.status, target).toBe(404);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('vary')).toContain('Accept');
      const html = await page.text();
      expect(html).toContain('<code id="code">UNKNOWN_URN</code>');
      expect(html).toContain(`no catalogued work matches ${UNKNOWN}`);
      expect(html).toMatch(/^<!doctype html>/);
      for (const accept of [undefined, '*/*', 'application/json']) {
        const res = await get(target, accept);
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(res.headers.get('vary')).toContain('Accept');
        expect(((await res.json()) as { code: string }).code).toBe('UNKNOWN_URN');
      }
    }
  });

  it('an invalid URN: 400 page, its text escaped', async () => {
    const page = await get('/uri-res/N2C?urn:lex:br:federal:lei:2020-13-01;1<b>', BROWSER);
    expect(page.status).toBe(400);
    const html = await page.text();
    expect(html).toContain('<code id="code">INVALID_URN</code>');
    expect(html).not.toContain('<b>');
  });
});
