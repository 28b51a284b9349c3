/**
 * End to end over real sockets: the sample deployment (config/dev.json,
 * zones/, data/sample-catalogue.jsonl) served by lexroute's DNS servers on
 * 127.0.0.1 and 127.0.0.2 and its resolvers, and every sample URN resolved
 * from the root: NAPTR chain (with referrals to the second server) -> terminal
 * rule (U, or S + SRV + A) -> THTTP request -> document URL (#partition).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG } from '../../src/config/server.ts';
import { startServer, type RunningServer } from '../../src/authority/server.ts';
import { createLogger } from '../../src/authority/log.ts';
import { run } from '../../src/cli/main.ts';
import type { DevConfig } from '../../src/dev/config.ts';
import type { RunningDevChain } from '../../src/dev/chain.ts';
import { resolveLexUrn } from '../../src/client/resolve.ts';
import { captureIo } from '../helpers/io.ts';
import { devConfig, EXPECTED, outcome, startSampleChain } from './helpers.ts';

const config = devConfig();
let chain: RunningDevChain;

beforeAll(async () => {
  chain = await startSampleChain(config);
});
afterAll(async () => chain?.close());

const opts = () => ({ root: chain.root, timeoutMs: 1000 });

describe('the sample deployment', () => {
  it('every sample URN of config/dev.json has an expectation, and each expectation a sample', () => {
    expect(config.samples.map((s) => s.urn).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it('runs two DNS instances on two loopback addresses with the same port, and two resolvers', () => {
    expect(chain.dns.map((d) => d.host)).toEqual(['127.0.0.1', '127.0.0.2']);
    expect(chain.dns[0]!.port).toBe(chain.dns[1]!.port);
    expect(chain.resolvers.map((r) => r.host)).toEqual(['127.0.0.1', '127.0.0.2']);
    expect(chain.catalogue.items).toBeGreaterThan(100);
  });
});

describe.each(Object.entries(EXPECTED))('%s', (urn, want) => {
  it('resolves from the root to the document URL, through the expected keys and resolver', async () => {
    const r = await resolveLexUrn(urn, opts());
    expect(r.urls).toEqual([want.url]);
    const resolver = new URL(r.resolverUrl);
    expect(resolver.hostname).toBe(want.resolverHost);
    expect(Number(resolver.port)).toBe(chain.resolvers[0]!.port);
    expect(r.resolverUrl).toContain(`/uri-res/N2L?`);
    const keys = r.trace.steps.flatMap((s) => (s.kind === 'naptr' ? [s.key] : []));
    expect(keys).toEqual(want.keys);
    // Keys in zones of the second instance were answered by it; the first such
    // key was reached through a referral (NS + glue) from the root.
    let referred = false;
    for (const s of r.trace.steps) {
      if (s.kind !== 'naptr') continue;
      const zone = [...chain.zoneFiles.keys()].find(
        (o) => o !== '.' && (s.key === o || s.key.endsWith(`.${o}`)),
      );
      const onSecond = chain.dns[1]!.origins.some((o) => o === zone);
      expect(s.server.startsWith(onSecond ? '127.0.0.2:' : '127.0.0.1:'), s.key).toBe(true);
      if (onSecond && !referred) {
        expect(s.referrals?.[0], s.key).toMatchObject({ server: chain.root, fromGlue: true });
        expect(s.referrals?.[0]?.addresses.join(' '), s.key).toMatch(/^127\.0\.0\.2/);
        referred = true;
      }
    }
    const http = r.trace.steps.find((s) => s.kind === 'http');
    expect(http?.kind === 'http' && http.exchanges[0]?.status).toBe(303);
  });
});

describe('terminal rules and services', () => {
  it('the S rule: SRV target and its address from the second server, THTTP to it', async () => {
    const r = await resolveLexUrn(
      'urn:lex:br;sao.paulo;campinas:municipal:lei.complementar:2018-01-08;189',
      opts(),
    );
    const srv = r.trace.steps.find((s) => s.kind === 'srv');
    const addr = r.trace.steps.find((s) => s.kind === 'address');
    expect(srv?.kind === 'srv' && srv.name).toBe('_http._tcp.lex.campinas.sp.gov.br.');
    expect(srv?.kind === 'srv' && srv.server).toMatch(/^127\.0\.0\.2:/);
    expect(addr?.kind === 'address' && addr.records).toEqual(['127.0.0.2']);
  });

  it('--service N2Ls lists every manifestation of the Italian law, with the partition', async () => {
    const r = await resolveLexUrn('urn:lex:it:stato:legge:2000-04-03;56~art1', {
      ...opts(),
      service: 'N2Ls',
    });
    expect(r.resolverUrl).toContain('/uri-res/N2Ls?urn:lex:it:stato:legge:2000-04-03;56~art1');
    expect(r.urls).toContain('https://www.parlamento.it/parlam/leggi/00056l.pdf#art1');
    expect(r.urls).toContain('https://www.senato.it/leggi/2000/00056.xml#art1');
    expect(r.urls.length).toBeGreaterThanOrEqual(3);
  });

  it('N2C returns the catalogue description from the N2C rule of the Brazilian zone', async () => {
    const r = await resolveLexUrn('urn:lex:br:federal:lei:2002-01-10;10406', {
      ...opts(),
      service: 'N2C',
    });
    expect(r.resolverUrl).toContain('/uri-res/N2C?');
    expect(r.description?.contentType).toMatch(/json/);
    expect(r.description?.body).toContain('Código Civil');
  });

  it('case does not matter: URN:LEX:BR;SAO.PAULO:... takes the same route', async () => {
    const r = await resolveLexUrn('URN:LEX:BR;SAO.PAULO:ESTADUAL:LEI:1998-12-30;10177', opts());
    expect(r.urls).toEqual([
      'https://www.al.sp.gov.br/repositorio/legislacao/lei/1998/lei-10177-30.12.1998.html',
    ]);
    expect(new URL(r.resolverUrl).hostname).toBe('127.0.0.2');
  });

  it('the RFC 9676 section 3.4 authority form of Munich reaches the Munich resolver by its Punycode key', async () => {
    const r = await resolveLexUrn('urn:lex:de:stadt.m%C3%BCnchen:rundschreiben:2020-01-01;1', {
      ...opts(),
      noHttp: true,
    });
    const keys = r.trace.steps.flatMap((s) => (s.kind === 'naptr' ? [s.key] : []));
    expect(keys.at(-1)).toBe('stadt.xn--mnchen-3ya.authority.lex.example.de.');
    const last = r.trace.steps.filter((s) => s.kind === 'naptr').at(-1);
    // The key is an alias (CNAME) of the City of Munich's key.
    expect(last?.kind === 'naptr' && last.cnames?.join(' ')).toMatch(
      /^stadt\.xn--mnchen-3ya\.authority\.lex\.example\.de\.?$/,
    );
    expect(r.resolverUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/uri-res\/N2L\?urn:lex:de:stadt/);
  });
});

describe('failures give the documented codes', () => {
  it('an unregistered jurisdiction: DNS_NXDOMAIN at its key in CNR table', async () => {
    const o = await outcome('urn:lex:fr:etat:loi:2004-05-15;106', opts());
    expect(o).toMatchObject({ ok: false, code: 'DNS_NXDOMAIN' });
    expect(o.keys.at(-1)).toBe('fr.lex-routing.nic.it.');
  });
  it('no rule of a zone matches: DDDS_NO_VALID_OUTPUT', async () => {
    const o = await outcome('urn:lex:eu;ecb:governing.council:decision:2000-01-01;1', opts());
    expect(o).toMatchObject({ ok: false, code: 'DDDS_NO_VALID_OUTPUT' });
    expect(o.keys.at(-1)).toBe('lex.europa.eu.');
  });
  it('a URN the resolver does not know: HTTP_NOT_FOUND after the whole DNS chain', async () => {
    const o = await outcome('urn:lex:it:stato:legge:1999-01-01;1', opts());
    expect(o).toMatchObject({ ok: false, code: 'HTTP_NOT_FOUND' });
    expect(o.keys.at(-1)).toBe('lex.normattiva.it.');
  });
  it('not a LEX URN: a URN_ code before any query', async () => {
    const o = await outcome('urn:lex:', opts());
    expect(o.ok).toBe(false);
    expect(o.code).toMatch(/^URN_/);
    expect(o.keys).toEqual([]);
  });
});

describe('a broken delegation and a loop (the deployment with two faults added)', () => {
  let broken: RunningDevChain;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'lexroute-e2e-faults-'));
    // A zone inside nic.it that sends "xx" back to CNR's table: a loop.
    const loop = path.join(dir, 'xx.lex-routing.nic.it.zone');
    await writeFile(
      loop,
      '$TTL 60\n@ IN SOA ns.nic.it. h.nic.it. 1 60 60 60 60\n@ IN NS ns.nic.it.\n' +
        '@ IN NAPTR 100 10 "" "" "" lex-nameserver.nic.it.\n',
    );
    const faulty: DevConfig = {
      ...config,
      dns: [
        { ...config.dns[0]!, zones: [...config.dns[0]!.zones, { file: loop }] },
        // lex.un.org stays delegated to 127.0.0.2 by the root, which no longer serves it.
        {
          ...config.dns[1]!,
          zones: config.dns[1]!.zones.filter((z) => !z.file.includes('un.org')),
        },
      ],
    };
    broken = await startSampleChain(faulty);
  });
  afterAll(async () => {
    await broken?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the delegated server does not serve the zone (lame): DNS_LAME naming the key', async () => {
    const o = await outcome(
      'urn:lex:un.org:united.nations;general.assembly:resolution:1961-11-28;a-res-1661',
      { root: broken.root, timeoutMs: 500 },
    );
    expect(o).toMatchObject({ ok: false, code: 'DNS_LAME' });
    expect(o.keys.at(-1)).toBe('lex.un.org.');
  });
  it('a key that leads back to an earlier key: DDDS_LOOP in bounded steps', async () => {
    const o = await outcome('urn:lex:xx:a:b:2000-01-01;1', { root: broken.root, timeoutMs: 500 });
    expect(o).toMatchObject({ ok: false, code: 'DDDS_LOOP' });
    expect(o.keys).toEqual(['lex.urn.arpa.', 'lex-nameserver.nic.it.', 'xx.lex-routing.nic.it.']);
    expect(o.message).toMatch(/lex-nameserver\.nic\.it/);
  });
  it('the rest of the deployment still resolves', async () => {
    const o = await outcome('urn:lex:it:stato:legge:2000-04-03;56~art1', { root: broken.root });
    expect(o.ok).toBe(true);
  });
});

describe('`lexroute serve` on zones/ alone (one server, every LEX zone), stub mode', () => {
  let server: RunningServer;
  beforeAll(async () => {
    const zones = [...chain.zoneFiles.entries()]
      .filter(([o]) => o !== '.')
      .map(([origin, file]) => ({ file, origin }));
    server = await startServer({
      config: { ...DEFAULT_SERVER_CONFIG, listen: [{ host: '127.0.0.1', port: 0 }], zones },
      log: createLogger(() => undefined, 'silent', 'json'),
      cwd: tmpdir(),
    });
  });
  afterAll(async () => server?.close());

  it('answers every sample authoritatively: --server gives the same URLs', async () => {
    const at = `127.0.0.1:${server.udp[0]!.port}`;
    for (const [urn, want] of Object.entries(EXPECTED)) {
      const r = await resolveLexUrn(urn, { servers: [at], timeoutMs: 1000 });
      expect(r.urls, urn).toEqual([want.url]);
    }
  });
});

describe('lexroute resolve (the CLI) against the chain', () => {
  it('--root --json prints the URL', async () => {
    const io = captureIo();
    const code = await run(
      ['resolve', '--root', chain.root, '--json', 'urn:lex:ru:prezident:ukaz:2020-07-21;474'],
      io,
    );
    expect(io.stderr()).toBe('');
    expect(code).toBe(0);
    const out = JSON.parse(io.stdout()) as { ok: boolean; urls: string[] };
    expect(out).toMatchObject({ ok: true, urls: ['http://www.kremlin.ru/acts/bank/45726'] });
  });
  it('--trace shows the referral to the second server and the SRV step', async () => {
    const io = captureIo();
    const code = await run(
      [
        'resolve',
        '--root',
        chain.root,
        '--trace',
        'urn:lex:br;sao.paulo;campinas:municipal:lei.complementar:2018-01-08;189',
      ],
      io,
    );
    expect(code).toBe(0);
    expect(io.stdout()).toMatch(/referral from 127\.0\.0\.1:\d+: lex\.sao-paulo\.gov\.br\. NS/);
    expect(io.stdout()).toMatch(/SRV\s+_http\._tcp\.lex\.campinas\.sp\.gov\.br\./);
    expect(io.stdout().trim().split('\n').at(-1)).toBe(
      'https://bibliotecajuridica.campinas.sp.gov.br/index/visualizarleis/id/139626',
    );
  });
  it('an unregistered jurisdiction exits 1 with DNS_NXDOMAIN', async () => {
    const io = captureIo();
    const code = await run(
      ['resolve', '--root', chain.root, 'urn:lex:fr:etat:loi:2004-05-15;106'],
      io,
    );
    expect(code).toBe(1);
    expect(io.stderr()).toMatch(/DNS_NXDOMAIN.*fr\.lex-routing\.nic\.it\./);
  });
});
