/**
 * The resolution page in a real browser (issue 13): Debian's Chromium,
 * headless, driven by playwright-core. The sample chain runs as `lexroute
 * dev` starts it (on free ports); the page, served by a jurisdiction
 * resolver at `/`, resolves URNs with the browser build of the client over
 * the chain's DoH endpoint and THTTP through `fetch`. Screenshots go to a
 * temporary directory (printed; not committed).
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDevChain } from '../../src/dev/chain.ts';
import { launchChromium, type ChromiumPage } from '../helpers/chromium.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { startSampleChain } from './helpers.ts';

const chromium = toolOrSkip('chromium');
const SHOTS = mkdtempSync(join(tmpdir(), 'lexroute-browser-shots-'));

describe.skipIf(chromium.path === undefined)('the resolution page in headless Chromium', () => {
  let chain: RunningDevChain;
  let browser: ChromiumPage;
  let page: Page;
  const requests: string[] = [];

  beforeAll(async () => {
    chain = await startSampleChain();
    browser = await launchChromium(chromium.path!, { width: 412, height: 915 }); // a phone
    page = browser.page;
    page.on('request', (r) => requests.push(`${r.method()} ${r.url()}`));
    await page.goto(`${chain.resolvers[0]!.url}/`);
    await page.waitForSelector('html[data-ready="true"]');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await chain?.close();
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
      steps: await structuredSteps(),
    };
  }

  /** The step blocks the page built from the structured trace (#steps), read back from the DOM. */
  function structuredSteps() {
    return page.locator('#steps li.step').evaluateAll((lis) =>
      lis.map((li) => {
        const q = (sel: string) => li.querySelector(sel);
        const all = (sel: string) => [...li.querySelectorAll(sel)];
        return {
          kind: li.getAttribute('data-kind'),
          key: li.getAttribute('data-key'),
          name: li.getAttribute('data-name'),
          heading: q('h3')?.textContent ?? '',
          server: q('.server')?.textContent ?? null,
          records: all('ol.records > li').map((r) => ({
            fate: r.getAttribute('data-fate'),
            code: r.getAttribute('data-code'),
            reason: r.querySelector('.reason')?.textContent ?? '',
            rr: r.querySelector('.rr')?.textContent ?? '',
          })),
          outcome: q('.outcome')?.getAttribute('data-outcome') ?? null,
          nextKey: q('.outcome .key')?.textContent ?? null,
          punycode: q('.punycode')
            ? {
                from: q('.punycode')!.getAttribute('data-from'),
                to: q('.punycode')!.getAttribute('data-to'),
              }
            : null,
          error: q('.step-error')?.getAttribute('data-code') ?? null,
          exchanges: all('.exchange').map((x) => ({
            status: x.getAttribute('data-status'),
            url: x.querySelector('.url')?.textContent ?? '',
          })),
          applied: li.getAttribute('data-applied'),
        };
      }),
    );
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
    // The structured steps: each NAPTR query through the DoH URL, one record used, the next key.
    const naptr = r.steps.filter((x) => x.kind === 'naptr');
    expect(naptr.map((x) => x.key)).toEqual([
      'lex.urn.arpa.',
      'lex-nameserver.nic.it.',
      'it.lex-routing.nic.it.',
      'lex.normattiva.it.',
    ]);
    for (const x of naptr) {
      expect(x.heading).toContain(`NAPTR ${x.key}`);
      expect(x.server).toBe(chain.doh);
      expect(x.records.filter((rec) => rec.fate === 'used')).toHaveLength(1);
    }
    expect(naptr.slice(0, 3).map((x) => x.nextKey)).toEqual([
      'lex-nameserver.nic.it.',
      'it.lex-routing.nic.it.',
      'lex.normattiva.it.',
    ]);
    // The N2L rule used; the N2Ls and N2C rules skipped, each with its reason.
    const last = naptr[3]!;
    expect(last.outcome).toBe('terminal');
    expect(last.records.find((rec) => rec.fate === 'used')!.rr).toContain('"http+N2L"');
    const skipped = last.records.filter((rec) => rec.fate === 'skipped');
    expect(skipped).toHaveLength(2);
    for (const rec of skipped) {
      expect(rec.code).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(rec.reason.length).toBeGreaterThan(rec.code!.length + 5);
    }
    const http = r.steps.find((x) => x.kind === 'http')!;
    expect(http.exchanges[0]!.url).toMatch(
      /\/uri-res\/N2Ls?\?urn:lex:it:stato:legge:2000-04-03;56/,
    );
    expect(http.exchanges[0]!.status).toBe('200');
    // The resolver's URL already carries #art1 (the partition rule keeps it).
    expect(r.steps.find((x) => x.kind === 'partition')?.applied).toBe('kept');
    // The text trace is still there, folded away.
    expect(await page.locator('details#trace-text pre#trace').count()).toBe(1);
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
    const puny = r.steps.find((x) => x.punycode !== null)!;
    expect(puny.punycode!.to).toBe('stadt.xn--mnchen-3ya.lex.example.de.');
    expect(decodeURIComponent(puny.punycode!.from!)).toBe('stadt.münchen.lex.example.de');
    expect(puny.nextKey).toBe('stadt.xn--mnchen-3ya.lex.example.de.');
    expect(
      r.steps.some((x) => x.kind === 'naptr' && x.key === 'stadt.xn--mnchen-3ya.lex.example.de.'),
    ).toBe(true);
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

  it('an S rule whose host only DoH knows (Campinas, the featured URN): reached by the DoH address', async () => {
    const r = await resolve(
      'urn:lex:br;sao.paulo;campinas:municipal:lei.complementar:2018-01-08;189',
      'campinas-srv',
    );
    expect(r.state, r.trace).toBe('resolved');
    expect(r.links[0]).toBe(
      'https://bibliotecajuridica.campinas.sp.gov.br/index/visualizarleis/id/139626',
    );
    // NAPTR "s" -> SRV -> A over DoH, then THTTP: the name the SRV gives is not one the
    // browser can resolve, so the request goes to the address the A lookup gave.
    expect(r.steps.map((x) => x.kind)).toEqual(expect.arrayContaining(['srv', 'address', 'http']));
    const http = r.steps.find((x) => x.kind === 'http')!;
    expect(http.exchanges[0]!.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+\/uri-res\/N2Ls\?/);
    const note = await page.getAttribute(
      '#steps li.step[data-kind="http"] .name-resolution',
      'data-by',
    );
    expect(note).toBe('doh');
    expect(await page.textContent('#steps li.step[data-kind="http"] .name-resolution')).toContain(
      'resolver.lex.campinas.sp.gov.br',
    );
  });

  it('an unregistered jurisdiction fails with its code, and shows the trace so far', async () => {
    const r = await resolve('urn:lex:fr:etat:loi:2004-05-15;106', 'france-unregistered');
    expect(r.state).toBe('failed');
    expect(r.code).toBe('DNS_NXDOMAIN');
    expect(r.links).toEqual([]);
    expect(r.trace).toContain('fr.lex-routing.nic.it.');
    const last = r.steps.at(-1)!;
    expect(last.kind).toBe('naptr');
    expect(last.key).toBe('fr.lex-routing.nic.it.');
    expect(last.server).toBe(chain.doh);
    expect(last.error).toBe('DNS_NXDOMAIN');
    expect(r.steps.some((x) => x.kind === 'http')).toBe(false);
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
