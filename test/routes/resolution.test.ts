/**
 * Zones built from a routing table, served by lexroute serve and by NSD:
 * `resolveLexUrn` of each route's example reaches the route's target, and
 * URNs between two routes' prefixes (a unit that only shares a prefix
 * string: br;sao.paulo.x, br;mato.grosso.sul, br;parana beside br;para) do
 * not take the wrong route. The expected targets come from the table's
 * meaning (kind, template, SRV target), not from the built zone.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLexUrn, type ResolveResult } from '../../src/client/resolve.ts';
import { buildAus } from '../../src/ddds/core/aus.ts';
import { buildZone } from '../../src/routes/core/build.ts';
import { normalizeLexUrn } from '../../src/urn/core/index.ts';
import { freePortOnAll } from '../../src/dev/ports.ts';
import { readRoutingTable } from '../../src/routes/table.ts';
import { startNsd, type Daemon } from '../e2e/daemons.ts';
import { startTestServer, type Harness } from '../server/harness.ts';
import { run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { ROOT } from './brazil.ts';

const FEDERAL = `zone: lex.senado.gov.br.
ns:
  - { name: ns1.lex.senado.gov.br., address: 127.0.0.1 }
routes:
  - prefix: br;sao.paulo
    zone: lex.sp.gov.br.
  - prefix: br;mato.grosso
    url: http://mt.example:8300/uri-res/{service}?{urn}
    services: [N2L, N2Ls]
  - prefix: br;mato.grosso.sul
    zone: lex.ms.gov.br.
  - prefix: br;para
    srv: _http._tcp.pa.lex.senado.gov.br.
    services: [N2L, N2C]
    targets: [{ target: res-pa.lex.senado.gov.br., port: 8301, address: 127.0.0.1 }]
  - prefix: br;paraiba
    host: res-pb.lex.senado.gov.br.
    address: 127.0.0.1
  - prefix: br;goiás
    url: https://go.example/uri-res/{service}?{urn}
    services: [N2L]
  - prefix: br:senado.federal
    handoff: z3950.senado.gov.br
    protocol: z3950
    services: [N2L]
default:
  url: http://federal.example:8300/uri-res/{service}?{urn}
  services: [N2L, N2Ls, N2C]
`;
const state = (zone: string, url: string) => `zone: ${zone}
ns: [{ name: ns1.${zone}, address: 127.0.0.1 }]
routes: []
default: { url: "${url}" }
`;
const TABLES: Record<string, string> = {
  'lex.senado.gov.br.': FEDERAL,
  'lex.sp.gov.br.': state('lex.sp.gov.br.', 'http://sp.example/uri-res/N2L?{urn}'),
  'lex.ms.gov.br.': state('lex.ms.gov.br.', 'http://ms.example/uri-res/N2L?{urn}'),
};

const canonical = (u: string) => {
  const n = normalizeLexUrn(u);
  return n.ok ? n.canonical : u;
};

/** What each URN must give, from the table's meaning. */
const aus = (u: string) => {
  const a = buildAus(u);
  if (!a.ok) throw new Error(u);
  return a.value.aus;
};
const CASES: { urn: string; want: (a: string) => string }[] = [
  {
    urn: 'urn:lex:br;sao.paulo:estadual:lei:1998-12-30;10177',
    want: (a) => `http://sp.example/uri-res/N2L?${a}`,
  },
  {
    urn: 'URN:LEX:BR;SAO.PAULO;CAMPINAS:MUNICIPAL:LEI:2018-01-08;189',
    want: (a) => `http://sp.example/uri-res/N2L?${a}`,
  },
  {
    urn: 'urn:lex:br;mato.grosso:estadual:lei:2000-01-01;1',
    want: (a) => `http://mt.example:8300/uri-res/N2L?${a}`,
  },
  {
    urn: 'urn:lex:br;mato.grosso.sul:estadual:lei:2000-01-01;1',
    want: (a) => `http://ms.example/uri-res/N2L?${a}`,
  },
  {
    urn: 'urn:lex:br;para:estadual:lei:2000-01-01;1',
    want: (a) => `http://res-pa.lex.senado.gov.br:8301/uri-res/N2L?${a}`,
  },
  {
    urn: 'urn:lex:br;paraiba:estadual:lei:2000-01-01;1',
    want: (a) => `http://res-pb.lex.senado.gov.br/uri-res/N2L?${a}`,
  },
  {
    urn: 'urn:lex:br;goiás:estadual:lei:2000-01-01;1',
    want: (a) => `https://go.example/uri-res/N2L?${a}`,
  },
  { urn: 'urn:lex:br:senado.federal:resolucao:2000-01-01;1', want: () => 'P z3950.senado.gov.br' },
  // Near misses: a unit that only shares the prefix string takes the default.
  {
    urn: 'urn:lex:br;sao.paulo.x:estadual:lei:2000-01-01;1',
    want: (a) => `http://federal.example:8300/uri-res/N2L?${a}`,
  },
  {
    urn: 'urn:lex:br;saoxpaulo:estadual:lei:2000-01-01;1',
    want: (a) => `http://federal.example:8300/uri-res/N2L?${a}`,
  },
  {
    urn: 'urn:lex:br;parana:estadual:lei:2000-01-01;1',
    want: (a) => `http://federal.example:8300/uri-res/N2L?${a}`,
  },
  {
    urn: 'urn:lex:br;paraiba.x:estadual:lei:2000-01-01;1',
    want: (a) => `http://federal.example:8300/uri-res/N2L?${a}`,
  },
  {
    urn: 'urn:lex:br;goias:estadual:lei:2000-01-01;1',
    want: (a) => `http://federal.example:8300/uri-res/N2L?${a}`,
  },
  {
    urn: 'urn:lex:br:senado:lei:2000-01-01;1',
    want: (a) => `http://federal.example:8300/uri-res/N2L?${a}`,
  },
  {
    urn: 'urn:lex:br:federal:lei:2002-01-10;10406',
    want: (a) => `http://federal.example:8300/uri-res/N2L?${a}`,
  },
];

function outcomeText(r: ResolveResult): string {
  return r.kind === 'handoff' ? `P ${r.handoff.output}` : r.resolverUrl;
}

let dir: string;
let files: { origin: string; file: string }[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lexroute-routes-res-'));
  files = [
    { origin: 'urn.arpa.', file: join(ROOT, 'zones/urn.arpa.zone') },
    { origin: 'nic.it.', file: join(ROOT, 'zones/nic.it.zone') },
  ];
  for (const [zone, text] of Object.entries(TABLES)) {
    const r = readRoutingTable(text);
    if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
    const built = buildZone(r.table, canonical);
    const file = join(dir, `${zone}zone`);
    writeFileSync(file, built.text);
    files.push({ origin: zone, file });
  }
});

function suite(name: string, start: () => Promise<{ port: number; close(): Promise<void> }>) {
  describe(`routes of a built zone, served by ${name}`, () => {
    let server: { port: number; close(): Promise<void> };
    beforeAll(async () => {
      server = await start();
    }, 30_000);
    afterAll(async () => server?.close());
    it.each(CASES)('$urn', async ({ urn, want }) => {
      const r = await resolveLexUrn(urn, {
        servers: [`127.0.0.1:${server.port}`],
        noHttp: true,
        timeoutMs: 1000,
      });
      expect(outcomeText(r)).toBe(want(aus(urn)));
    });
  });
}

suite('lexroute serve', async () => {
  const h: Harness = await startTestServer(files.map((f) => f.file));
  return { port: h.port, close: () => h.close() };
});

const nsd = toolOrSkip('nsd');
if (nsd.path !== undefined) {
  suite('NSD', async () => {
    const port = await freePortOnAll(['127.0.0.1']);
    const d: Daemon = await startNsd(nsd.path!, '127.0.0.1', port, files);
    return { port, close: () => d.close() };
  });
} else {
  it.skip(`NSD: ${nsd.skipReason}`, () => {});
}

describe('lexroute chain check --root (iterative, following referrals)', () => {
  it('reaches the same resolvers as the table says', async () => {
    const zones = ['urn.arpa.', 'nic.it.', ...Object.keys(TABLES)];
    const root = join(mkdtempSync(join(tmpdir(), 'lexroute-routes-root-')), 'root.db');
    writeFileSync(
      root,
      `$ORIGIN .\n$TTL 86400\n@ IN SOA a.root.test. hostmaster.root.test. 1 7200 3600 1209600 3600\n@ IN NS a.root.test.\na.root.test. IN A 127.0.0.1\n` +
        zones.map((z) => `${z} IN NS ns.${z}\nns.${z} IN A 127.0.0.1\n`).join(''),
    );
    const h = await startTestServer([], {
      zones: [...files.map((f) => f.file), { file: root, origin: '.' }],
    });
    try {
      const list = join(dir, 'list.txt');
      writeFileSync(list, CASES.map((c) => c.urn).join('\n'));
      const io = captureIo();
      const code = await run(
        ['chain', 'check', '--root', `127.0.0.1:${h.port}`, '--json', list],
        io,
      );
      expect(io.stderr()).toBe('');
      expect(code).toBe(0);
      const items = (
        JSON.parse(io.stdout()) as { items: { urn: string; kind: string; resolver: string }[] }
      ).items;
      for (const [i, c] of CASES.entries()) {
        const a = aus(c.urn);
        const want = c.want(a);
        // The resolver is named by the rule: a U URL with {urn}, S/A by the name asked, P by protocol and output.
        if (want.startsWith('P '))
          expect(items[i]).toMatchObject({ kind: 'handoff', resolver: `P z3950 ${want.slice(2)}` });
        else if (c.urn.includes('br;para:'))
          expect(items[i]!.resolver).toBe('S _http._tcp.pa.lex.senado.gov.br.');
        else if (c.urn.includes('br;paraiba:'))
          expect(items[i]!.resolver).toBe('A res-pb.lex.senado.gov.br.');
        else expect(items[i]!.resolver).toBe(want.split(a).join('{urn}'));
      }
    } finally {
      await h.close();
    }
  });

  it('draws a progress bar on a terminal', async () => {
    const list = join(dir, 'three.txt');
    writeFileSync(list, 'br;sao.paulo\nbr;para\nbr\n');
    const io = { ...captureIo(), errIsTTY: true };
    let err = '';
    io.err = (t: string) => void (err += t);
    expect(await run(['chain', 'check', '--zones', dir, list], io)).toBe(1);
    expect(err).toMatch(/\r\[#+ *\] 3\/3\n$/);
  });
});

it('the federal table builds the same zone twice (stable output)', () => {
  const r = readRoutingTable(FEDERAL);
  if (!r.ok) throw new Error('table');
  const a = buildZone(r.table, canonical).text;
  expect(buildZone(r.table, canonical).text).toBe(a);
  expect(readFileSync(files[2]!.file, 'utf8')).toBe(a);
});
