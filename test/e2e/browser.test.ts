/**
 * The resolution page in a real browser (issue 13): Debian's Chromium,
 * headless, driven by playwright-core. The sample chain runs as `lexroute
 * dev` starts it (on free ports); the page, served by a jurisdiction
 * resolver at `/`, resolves URNs with the browser build of the client over
 * the chain's DoH endpoint and THTTP through `fetch`. Screenshots go to a
 * temporary directory (printed; not committed).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDevChain } from '../../src/dev/chain.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { startSampleChain } from './helpers.ts';

const chromium = toolOrSkip('chromium');
const SHOTS = mkdtempSync(join(tmpdir(), 'lexroute-browser-shots-'));

describe.skipIf(chromium.path === undefined)('the resolution page in headless Chromium', () => {
  let chain: RunningDevChain;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const requests: string[] = [];

  beforeAll(async () => {
    chain = await startSampleChain();
    const { chromium: pw } = await import('playwright-core');
    profile = mkdtempSync(join(tmpdir(), 'lexroute-chromium-'));
    context = await pw.launchPersistentContext(profile, {
      executablePath: chromium.path!,
      headless: true,
      viewport: { width: 412, height: 915 }, // a phone
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
    });
    page = await context.newPage();
    page.on('request', (r) => requests.push(`${r.method()} ${r.url()}`));
    await page.goto(`${chain.resolvers[0]!.url}/`);
    await page.waitForSelector('html[data-ready="true"]');
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await chain?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    console.log(`browser screenshots: ${SHOTS}`);
  });

  /** Type the URN and press Enter (the keyboard path); the page's outcome. */
  async function resolve(urn: string, shot: string) {
    await page.fill('#urn', urn);
    await page.press('#urn', 'Enter');
    await page.waitForSelector('#status[data-state]', { timeout: 20_000 });
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, `${shot}.png`), fullPage: true });
    return {
      state: await page.getAttribute('#status', 'data-state'),
      links: await page
        .locator('#links a')
        .evaluateAll((as) => as.map((a) => a.getAttribute('href'))),
      trace: (await page.textContent('#trace')) ?? '',
      code: await page.getAttribute('#error', 'data-code'),
    };
  }

  it('the page is served at / with the chain DoH URL filled in', async () => {
    expect(await page.inputValue('#doh')).toBe(chain.doh);
    expect(await page.title()).toContain('LEX URN');
  });

  it('a partition becomes a fragment (Italy, ~art1 -> #art1), through DoH and fetch', async () => {
    const r = await resolve('urn:lex:it:stato:legge:2000-04-03;56~art1', 'italy-partition');
    expect(r.state).toBe('resolved');
    expect(r.links[0]).toBe(
      'https://www.normattiva.it/uri-res/N2Ls?urn:nir:stato:legge:2000-04-03;56#art1',
    );
    for (const key of ['lex.urn.arpa.', 'lex-nameserver.nic.it.', 'lex.normattiva.it.']) {
      expect(r.trace).toContain(key);
    }
    expect(r.trace).toContain(chain.doh);
    // The DNS went over DoH (GET ?dns=), the THTTP step to the resolver, from the page.
    expect(requests.some((q) => q.startsWith(`GET ${chain.doh}?dns=`))).toBe(true);
    expect(
      requests.some((q) => /GET http:\/\/127\.0\.0\.1:\d+\/uri-res\/N2Ls\?urn:lex:it/.test(q)),
    ).toBe(true);
    expect(new URL(await page.url()).searchParams.get('urn')).toBe(
      'urn:lex:it:stato:legge:2000-04-03;56~art1',
    );
  });

  it('a non-ASCII unit becomes a Punycode key (Munich)', async () => {
    const r = await resolve(
      'urn:lex:de;stadt.m%C3%BCnchen:stadtrat:satzung:1997-12-09;hauptsatzung',
      'munich-punycode',
    );
    expect(r.state).toBe('resolved');
    expect(r.trace).toContain('stadt.xn--mnchen-3ya.lex.example.de.');
    expect(r.links[0]).toBe(
      'https://stadt.muenchen.de/dam/Home/Stadtverwaltung/Direktorium/Stadtrecht/pdf_1_1_0.pdf',
    );
  });

  it('a Cyrillic authority on the second resolver (Russia, 127.0.0.2: CORS)', async () => {
    const r = await resolve(
      'urn:lex:ru:%D0%BF%D1%80%D0%B5%D0%B7%D0%B8%D0%B4%D0%B5%D0%BD%D1%82:%D1%83%D0%BA%D0%B0%D0%B7:2020-07-21;474',
      'russia-cyrillic',
    );
    expect(r.state).toBe('resolved');
    expect(r.trace).toContain('xn--d1abbgf6aiiy.lex.pravo.gov.ru.');
    expect(r.links[0]).toBe('http://www.kremlin.ru/acts/bank/45726');
  });

  it('an unregistered jurisdiction fails with its code, and shows the trace so far', async () => {
    const r = await resolve('urn:lex:fr:etat:loi:2004-05-15;106', 'france-unregistered');
    expect(r.state).toBe('failed');
    expect(r.code).toBe('DNS_NXDOMAIN');
    expect(r.links).toEqual([]);
    expect(r.trace).toContain('fr.lex-routing.nic.it.');
  });

  it('the N2C description as HTML for people', async () => {
    const url = `${chain.resolvers[0]!.url}/uri-res/N2C?urn:lex:it:stato:legge:2000-04-03;56`;
    const res = await page.goto(url);
    expect(res?.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(await page.textContent('h1')).toBeTruthy();
    expect(await page.getAttribute('#best', 'href')).toBe(
      'https://www.normattiva.it/uri-res/N2Ls?urn:nir:stato:legge:2000-04-03;56',
    );
    expect(await page.locator('section').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, 'n2c-html.png'), fullPage: true });
  });
});
