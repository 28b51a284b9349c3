/**
 * `lexroute resolve` in-process over real sockets: stub mode against the
 * lexroute server, iterative mode across two lexroute servers on 127.0.0.1
 * and 127.0.0.2 sharing one port, batch mode.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';
import {
  CATALOGUE,
  serveIterativeWithLexroute,
  serveWithLexroute,
  startResolverAndZones,
  type Chain,
} from './helpers/chain.ts';

const FEDERAL = 'urn:lex:br:federal:lei:2002-01-10;10406';
const SP = 'urn:lex:br;sao.paulo:governo:decreto:2008-03-05;52789';
const MUNICH = 'urn:lex:de;m%C3%BCnchen:stadt:rundschreiben:2020-01-01;1';

let chain: Chain;
let dns: string;
let root: string;

beforeAll(async () => {
  chain = await startResolverAndZones();
  dns = await serveWithLexroute(chain);
  root = await serveIterativeWithLexroute(chain);
});

afterAll(async () => {
  await chain?.close();
});

describe('lexroute resolve', () => {
  it('prints the document URL and exits 0', async () => {
    const io = captureIo();
    expect(await run(['resolve', FEDERAL, '--server', dns], io)).toBe(0);
    expect(io.stdout()).toBe(`${CATALOGUE[0]?.url}\n`);
  });

  it('--trace shows keys, servers, record fates, Punycode and the HTTP exchange', async () => {
    const io = captureIo();
    expect(await run(['resolve', MUNICH, '--server', dns, '--trace'], io)).toBe(0);
    const out = io.stdout();
    expect(out).toContain('step 1  NAPTR lex.urn.arpa.');
    expect(out).toContain(`from ${dns}`);
    expect(out).toContain(`service  N2L, stub mode via ${dns}`);
    expect(out).toContain(
      'punycode: m%C3%BCnchen.lex.example.de -> xn--mnchen-3ya.lex.example.de.',
    );
    expect(out).toMatch(/used +#0 100 10 "" "" "" lex-nameserver\.nic\.it\./);
    expect(out).toMatch(/skipped #\d .*\n +NAPTR_NO_MATCH|skipped #\d .*\n +\w+:/);
    expect(out).toContain('HTTP  GET http://127.0.0.1:');
    expect(out).toContain('-> 303 Location:');
    expect(out.trimEnd().endsWith(CATALOGUE[2]?.url ?? '?')).toBe(true);
  });

  it('--json prints the result; with --trace the trace too', async () => {
    const io = captureIo();
    expect(await run(['resolve', `${SP}~art1`, '--server', dns, '--json', '--trace'], io)).toBe(0);
    const j = JSON.parse(io.stdout()) as {
      ok: boolean;
      kind: string;
      urls: string[];
      trace: { steps: unknown[] };
    };
    expect(j.ok).toBe(true);
    expect(j.kind).toBe('resolved');
    expect(j.urls).toEqual([`${CATALOGUE[1]?.url}#art1`]);
    expect(j.trace.steps.length).toBeGreaterThan(5);
  });

  it('--no-http prints the resolver URL', async () => {
    const io = captureIo();
    expect(await run(['resolve', FEDERAL, '--server', dns, '--no-http'], io)).toBe(0);
    expect(io.stdout()).toBe(`http://127.0.0.1:${chain.httpPort}/uri-res/N2L?${FEDERAL}\n`);
  });

  it('a failure exits 1 with its code on stderr (and as JSON with --json)', async () => {
    let io = captureIo();
    expect(await run(['resolve', 'urn:lex:zz:a:b:2000-01-01;1', '--server', dns], io)).toBe(1);
    expect(io.stderr()).toMatch(
      /^lexroute resolve: DNS_NXDOMAIN: not found: lex\.missing\.nic\.it\./,
    );
    io = captureIo();
    expect(
      await run(['resolve', 'urn:lex:zz:a:b:2000-01-01;1', '--server', dns, '--json'], io),
    ).toBe(1);
    expect(JSON.parse(io.stdout())).toMatchObject({ ok: false, code: 'DNS_NXDOMAIN' });
  });

  it('--root: iterative mode across 127.0.0.1 and 127.0.0.2 on one port', async () => {
    const io = captureIo();
    expect(await run(['resolve', `${SP}~art1`, '--root', root, '--trace'], io)).toBe(0);
    const out = io.stdout();
    expect(out).toMatch(
      /referral from 127\.0\.0\.1:\d+: urn\.arpa\. NS ns\.urn\.arpa at 127\.0\.0\.2:\d+ \(glue\)/,
    );
    expect(out).toContain('lex.sao-paulo.gov.br.');
    expect(out.trimEnd().endsWith(`${CATALOGUE[1]?.url}#art1`)).toBe(true);
    const io2 = captureIo();
    expect(await run(['resolve', MUNICH, '--root', root, '--trace'], io2)).toBe(0);
    expect(io2.stdout()).toMatch(
      /referral from 127\.0\.0\.1:\d+: lex\.example\.de\. NS ns\.example\.net/,
    );
  });

  it('--batch -: one JSON line per URN, in input order, exit 1 if any failed', async () => {
    const io = captureIo({
      stdin: `# comment\n${FEDERAL}\n\nurn:lex:fr:etat:loi:2004-05-15;106\r\n${SP}\nnot a urn\n`,
    });
    expect(await run(['resolve', '--batch', '-', '--server', dns, '--concurrency', '2'], io)).toBe(
      1,
    );
    const lines = io
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { urn: string; ok: boolean; code?: string; urls?: string[] });
    expect(lines.map((l) => l.urn)).toEqual([
      FEDERAL,
      'urn:lex:fr:etat:loi:2004-05-15;106',
      SP,
      'not a urn',
    ]);
    expect(lines.map((l) => l.ok)).toEqual([true, false, true, false]);
    expect(lines[1]?.code).toBe('DDDS_NO_VALID_OUTPUT');
    expect(lines[2]?.urls).toEqual([CATALOGUE[1]?.url]);
  });

  it('usage errors exit 2; --help exits 0', async () => {
    for (const argv of [
      ['resolve'],
      ['resolve', FEDERAL, '--service', 'N2R'],
      ['resolve', FEDERAL, '--server', 'dns.example'],
      ['resolve', FEDERAL, '--timeout', '0'],
      ['resolve', FEDERAL, '--deadline', 'soon'],
      ['resolve', FEDERAL, '--url-schemes', 'http,ht tp'],
      ['resolve', FEDERAL, '--root', dns, '--server', dns],
    ]) {
      const io = captureIo();
      expect(await run(argv, io)).toBe(2);
      expect(io.stderr()).toContain("Try 'lexroute resolve --help'");
    }
    const io = captureIo();
    expect(await run(['resolve', '--help'], io)).toBe(0);
    expect(io.stdout()).toContain('--batch FILE|-');
  });
});
