/**
 * Coverage on real data: all 5,664 jurisdiction codes of LexML's
 * localidade.csv checked against a federal table that routes each state to
 * its own zone (test/routes/brazil.ts). The expected resolver of every code
 * is derived from the CSV's own hierarchy (the `broader` column, walked up
 * to a state), not from the prefixes the tables and zones are built from.
 * The in-process walk (--zones) is compared with the real client over UDP
 * against lexroute serve, and the HTML report is opened in headless Chromium.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import type { ChainOutcome } from '../../src/routes/chain.ts';
import { captureIo } from '../helpers/io.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { startTestServer } from '../server/harness.ts';
import {
  FEDERAL_URL,
  LOCALIDADE,
  LOCALIDADE_CORPUS,
  withLocalidade,
  ROOT,
  brazilChain,
  stateUrl,
  states,
  type Localidade,
} from './brazil.ts';

interface Report {
  total: number;
  resolved: number;
  handoff: number;
  failed: number;
  byResolver: { resolver: string; count: number }[];
  groups: { prefix: string; count: number; outcome: string }[];
  items: ChainOutcome[];
}

let chain: Awaited<ReturnType<typeof brazilChain>>;
let report: Report;
let expected: Map<string, string>;

/** Each code's resolver from the CSV hierarchy: its state's, else the federal one. */
function expectedResolvers(rows: readonly Localidade[]): Map<string, string> {
  const byId = new Map(rows.map((r) => [r.about, r]));
  const stateOf = new Map(states(rows).map((s) => [s.about, s]));
  const out = new Map<string, string>();
  for (const r of rows) {
    let at: Localidade | undefined = r;
    let state: Localidade | undefined;
    for (let hops = 0; at && hops < 10; hops++) {
      if (stateOf.has(at.about)) state = stateOf.get(at.about);
      at = at.broader.startsWith('#') ? byId.get(at.broader.slice(1)) : undefined;
    }
    const url = state ? stateUrl(state) : FEDERAL_URL;
    out.set(r.about, url.replace('{service}', 'N2L'));
  }
  return out;
}

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo();
  const code = await run(args, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

const skipped = LOCALIDADE_CORPUS.skipReason !== undefined;

beforeAll(async () => {
  if (skipped) return;
  chain = await brazilChain(async (table, zone) => {
    const r = await cli(['zone', 'build', table, '-o', zone]);
    if (r.code !== 0) throw new Error(r.err);
  });
  expected = expectedResolvers(chain.rows);
  const r = await cli([
    'chain',
    'check',
    '--zones',
    chain.zones,
    '--json',
    '--html',
    join(chain.dir, 'report.html'),
    LOCALIDADE,
  ]);
  expect(r.code).toBe(0);
  report = JSON.parse(r.out) as Report;
}, 60_000);

afterAll(() => {
  if (!skipped) rmSync(chain.dir, { recursive: true, force: true });
});

describe.skipIf(skipped)(
  withLocalidade('chain check over localidade.csv (5,664 codes, states routed to their own zones)'),
  () => {
    it('the built zones pass lexroute zone check (lint and every "; expect")', async () => {
      const r = await cli(['zone', 'check', '--strict', chain.zones]);
      expect(r.out).toMatch(/: 0 errors, 0 warnings\n$/);
      expect(r.code).toBe(0);
      expect(readdirSync(chain.zones).length).toBe(2 + 1 + 27);
    });

    it('counts: every code reaches a resolver, per resolver as the CSV hierarchy says', () => {
      expect(chain.rows.length).toBe(5664);
      expect(states(chain.rows).length).toBe(27);
      expect(report.total).toBe(5664);
      expect(report.resolved).toBe(5664);
      expect(report.failed).toBe(0);
      expect(report.handoff).toBe(0);
      const want = new Map<string, number>();
      for (const url of expected.values()) want.set(url, (want.get(url) ?? 0) + 1);
      const got = new Map(report.byResolver.map((b) => [b.resolver.replace('{urn}', ''), b.count]));
      expect(got).toEqual(new Map([...want].map(([u, n]) => [u.replace('{urn}', ''), n])));
      // Known totals of the vocabulary: 645 municipalities in São Paulo (plus the state), 853 in Minas Gerais.
      expect(want.get('http://resolver.lex.sp.gov.br:8300/uri-res/N2L?{urn}')).toBe(646);
      expect(want.get('http://resolver.lex.mg.gov.br:8300/uri-res/N2L?{urn}')).toBe(854);
    });

    it('each code goes to its own resolver through its state zone', () => {
      for (const item of report.items) {
        expect(item.resolver, item.input).toBe(expected.get(item.input));
        const statePart = item.input.split(';').slice(0, 2).join(';');
        const inState = states(chain.rows).find(
          (s) => s.about === statePart && item.input !== 'br',
        );
        expect(item.path.length).toBe(inState ? 5 : 4);
      }
    });

    it('groups by prefix: one group per state, named by the state code', () => {
      const sp = report.groups.find((g) => g.outcome.includes('lex.sp.gov.br'));
      expect(sp).toMatchObject({ prefix: 'br;sao.paulo', count: 646 });
      expect(report.groups.length).toBe(28);
    });

    it('the real client over UDP against lexroute serve gives the same outcomes (a tenth of the codes)', async () => {
      const files = readdirSync(chain.zones).map((f) => join(chain.zones, f));
      const h = await startTestServer(files);
      try {
        const list = join(chain.dir, 'tenth.txt');
        const some = chain.rows.filter((_, i) => i % 10 === 0).map((r) => r.about);
        const { writeFileSync } = await import('node:fs');
        writeFileSync(list, some.join('\n') + '\n');
        const r = await cli(['chain', 'check', '--server', `127.0.0.1:${h.port}`, '--json', list]);
        expect(r.code).toBe(0);
        const udp = JSON.parse(r.out) as Report;
        expect(udp.total).toBe(some.length);
        const inProcess = new Map(report.items.map((i) => [i.input, i]));
        for (const item of udp.items) {
          const mine = inProcess.get(item.input)!;
          expect({ resolver: item.resolver, path: item.path }).toEqual({
            resolver: mine.resolver,
            path: mine.path,
          });
        }
      } finally {
        await h.close();
      }
    }, 60_000);

    it('a zone missing from the folder: the codes below it fail with a code, grouped', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'lexroute-cov-'));
      try {
        const list = join(dir, 'list.txt');
        const { writeFileSync, copyFileSync } = await import('node:fs');
        mkdirSync(join(dir, 'zones'));
        for (const f of readdirSync(chain.zones)) {
          if (f !== 'lex.sp.gov.br.zone') copyFileSync(join(chain.zones, f), join(dir, 'zones', f));
        }
        writeFileSync(
          list,
          '# three codes\nbr;sao.paulo;campinas\nbr;minas.gerais\n\nurn:lex:br:federal:lei:2002-01-10;10406\n',
        );
        const r = await cli(['chain', 'check', '--zones', join(dir, 'zones'), list]);
        expect(r.code).toBe(1);
        expect(r.out).toMatch(/3 checked: 2 reach a resolver, 0 handed off, 1 failed/);
        expect(r.out).toMatch(/FAIL CHAIN_NO_ZONE/);
        expect(r.out).toMatch(/CHAIN_NO_ZONE: 1 \(e\.g\. br;sao\.paulo;campinas\)/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);

const chromium = toolOrSkip('chromium');

describe.skipIf(skipped)(withLocalidade('the HTML report'), () => {
  it.skipIf(chromium.path === undefined)(
    'opens in headless Chromium with the delegation tree (screenshot in .tmp/)',
    async () => {
      const browser = await launchChromium(chromium.path!);
      try {
        const page = browser.page;
        const requests: string[] = [];
        page.on('request', (r) => requests.push(r.url()));
        await page.goto(`file://${join(chain.dir, 'report.html')}`);
        expect(await page.textContent('#total')).toBe('5664 checked');
        expect(await page.textContent('#failed')).toBe('0 failed');
        const box = await page.locator('#tree').boundingBox();
        expect(box!.width).toBeGreaterThan(1000);
        expect(box!.height).toBeGreaterThan(300);
        // The tree: one box for the keys every code passes (down to lex.senado.gov.br.), 27 state zones, 28 resolvers.
        expect(await page.locator('#tree rect').count()).toBe(1 + 27 + 28);
        expect(await page.locator('#tree text', { hasText: 'lex.mg.gov.br.' }).count()).toBe(1);
        expect(await page.locator('#groups tbody tr').count()).toBe(28);
        // Self-contained: nothing but the page itself is loaded.
        expect(requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
        mkdirSync(join(ROOT, '.tmp'), { recursive: true });
        await page.screenshot({ path: join(ROOT, '.tmp/chain-check-report.png'), fullPage: true });
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
