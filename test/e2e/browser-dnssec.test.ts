/**
 * The resolution page validating DNSSEC in Chromium (issue 32): the sample
 * chain signed as `lexroute dev --dnssec` signs it, the page handed the
 * sample root's key by the resolver that serves it, validation on by
 * default. The featured Campinas URN resolves `secure` end to end (every
 * NAPTR, SRV and A lookup validated by the page with WebCrypto); with one
 * NAPTR signature corrupted on the way (the DoH answers rewritten between
 * the page and the server, as a hostile network path would), `bogus`, and
 * no link.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as dnsPacket from 'dns-packet';
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDevChain } from '../../src/dev/chain.ts';
import { launchChromium, type ChromiumPage } from '../helpers/chromium.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { devConfig, startSampleChain } from './helpers.ts';

const chromium = toolOrSkip('chromium');
const CAMPINAS = 'urn:lex:br;sao.paulo;campinas:municipal:lei.complementar:2018-01-08;189';
const SHOTS = mkdtempSync(join(tmpdir(), 'lexroute-browser-dnssec-'));

describe.skipIf(chromium.path === undefined)('the page validates DNSSEC (Chromium)', () => {
  let chain: RunningDevChain;
  let browser: ChromiumPage;
  let page: Page;

  beforeAll(async () => {
    chain = await startSampleChain(devConfig(), { dnssec: true });
    browser = await launchChromium(chromium.path!, { width: 800, height: 1000 });
    page = browser.page;
    await page.goto(`${chain.resolvers[0]!.url}/`);
    await page.waitForSelector('html[data-ready="true"]');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await chain?.close();
    console.log(`browser DNSSEC screenshots: ${SHOTS}`);
  });

  async function resolve(urn: string, shot: string) {
    await page.fill('#urn', urn);
    await page.press('#urn', 'Enter');
    await page.waitForSelector('#status[data-state]', { timeout: 30_000 });
    await page.screenshot({ path: join(SHOTS, `${shot}.png`), fullPage: false });
    return {
      state: await page.getAttribute('#status', 'data-state'),
      verdict: await page.getAttribute('#dnssec', 'data-verdict'),
      verdictText: (await page.textContent('#dnssec')) ?? '',
      links: await page
        .locator('#links a')
        .evaluateAll((as) => as.map((a) => a.getAttribute('href'))),
      code: await page.getAttribute('#error', 'data-code'),
      trace: (await page.textContent('#trace')) ?? '',
    };
  }

  it('validation is on by default, with the sample root key the resolver handed over', async () => {
    expect(await page.isChecked('#validate')).toBe(true);
    const anchors = await page.inputValue('#anchors');
    expect(anchors).toContain('DNSKEY 257 3 13');
    expect(anchors.trim()).toBe(chain.dnssec!.anchor.trim());
  });

  it('Campinas: secure end to end, the anchor named', async () => {
    const r = await resolve(CAMPINAS, 'campinas-secure');
    expect(r.state, r.trace).toBe('resolved');
    expect(r.verdict, r.verdictText).toBe('secure');
    expect(r.verdictText).toContain('from the trust anchor at the root (.)');
    expect(r.links[0]).toBe(
      'https://bibliotecajuridica.campinas.sp.gov.br/index/visualizarleis/id/139626',
    );
    // Every DNS step of the text trace says where it was validated from.
    const dnsLines = r.trace.split('\n').filter((l) => /^step \d+ {2}NAPTR/.test(l));
    expect(dnsLines.length).toBeGreaterThan(3);
    for (const l of dnsLines) expect(l).toMatch(/secure \(validated: /);
  });

  it('a NAPTR signature corrupted on the way: bogus, no link', async () => {
    await page.route('**/dns-query?*', (route) =>
      corruptNaptrSignature(route, 'lex.campinas.sp.gov.br'),
    );
    try {
      // A fresh client: nothing of the secure run cached.
      await page.reload();
      await page.waitForSelector('html[data-ready="true"]');
      const r = await resolve(CAMPINAS, 'campinas-bogus');
      expect(r.state).toBe('failed');
      expect(r.code).toBe('DNSSEC_BOGUS');
      expect(r.verdict).toBe('bogus');
      expect(r.verdictText).toContain('BOGUS_SIGNATURE');
      expect(r.links).toEqual([]);
    } finally {
      await page.unroute('**/dns-query?*');
    }
  });

  it('no anchor from the server, box untouched: the DoH root is signed, so the root keys validate', async () => {
    // As a page served without an anchor: the box unchecked, the field empty, no change event.
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    await page.locator('#validate').evaluate((box) => box.removeAttribute('checked'));
    await page.$eval('#validate', (box) => Object.assign(box, { checked: false }));
    await page.$eval('#anchors', (field) => Object.assign(field, { value: '' }));
    const r = await resolve(CAMPINAS, 'campinas-root-keys');
    // The sample root's key is not the IANA root's: validated, and bogus.
    expect(await page.isChecked('#validate')).toBe(true);
    expect(r.code).toBe('DNSSEC_BOGUS');
    expect(r.verdict).toBe('bogus');
    expect(r.links).toEqual([]);
  });

  it('the box unchecked by the person: not validated', async () => {
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    await page.uncheck('#validate');
    await page.$eval('#anchors', (field) => Object.assign(field, { value: '' }));
    const r = await resolve(CAMPINAS, 'campinas-unchecked');
    expect(r.state).toBe('resolved');
    expect(await page.isHidden('#dnssec')).toBe(true);
  });
});

/** Pass DoH answers through, flipping one octet of the RRSIG over the NAPTR RRset of `owner`. */
async function corruptNaptrSignature(route: Route, owner: string): Promise<void> {
  const response = await route.fetch();
  const body = Buffer.from(await response.body());
  let msg: dnsPacket.Packet;
  try {
    msg = dnsPacket.decode(body);
  } catch {
    return route.fulfill({ response, body });
  }
  const q = msg.questions?.[0];
  if (q?.type !== 'NAPTR' || q.name.toLowerCase() !== owner)
    return route.fulfill({ response, body });
  for (const a of msg.answers ?? []) {
    if (a.type === 'RRSIG' && a.data.typeCovered === 'NAPTR') {
      const sig = Buffer.from(a.data.signature);
      sig[10] = sig[10]! ^ 0xff;
      a.data.signature = sig;
    }
  }
  return route.fulfill({ response, body: dnsPacket.encode(msg) });
}
