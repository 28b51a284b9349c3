/**
 * Records every DDDS case of the end-to-end tests (test/e2e/chain.test.ts):
 * the sample deployment of config/dev.json (and the same with a lame
 * delegation and a loop added) resolved over real sockets by the client of
 * the checkout this script runs in, with every DNS answer the client got, the
 * HTTP results, and the result or failure with its trace. The walk replays
 * them without sockets (test/ddds/walk-replay.test.ts): same results, traces
 * and codes.
 *
 * Usage: node test/vectors/ddds/record-e2e.ts > test/vectors/ddds/e2e-recorded.json
 * (it was run on the client before the walk was split out of it).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LexClient, type ResolveResult, type Trace } from '../../../src/client/resolve.ts';
import type { DevConfig } from '../../../src/dev/config.ts';
import { devConfig, EXPECTED, startSampleChain } from '../../e2e/helpers.ts';

interface Case {
  readonly id: string;
  readonly urn: string;
  readonly options: { service?: 'N2L' | 'N2Ls' | 'N2C'; noHttp?: boolean };
  readonly via: 'root' | 'broken';
}

const CASES: Case[] = [
  ...Object.keys(EXPECTED).map((urn) => ({ id: `sample ${urn}`, urn, options: {}, via: 'root' as const })),
  {
    id: 'S rule, SRV and address from the second server',
    urn: 'urn:lex:br;sao.paulo;campinas:municipal:lei.complementar:2018-01-08;189',
    options: {},
    via: 'root',
  },
  {
    id: 'N2Ls with the partition',
    urn: 'urn:lex:it:stato:legge:2000-04-03;56~art1',
    options: { service: 'N2Ls' },
    via: 'root',
  },
  {
    id: 'N2C description',
    urn: 'urn:lex:br:federal:lei:2002-01-10;10406',
    options: { service: 'N2C' },
    via: 'root',
  },
  {
    id: 'upper case input',
    urn: 'URN:LEX:BR;SAO.PAULO:ESTADUAL:LEI:1998-12-30;10177',
    options: {},
    via: 'root',
  },
  {
    id: 'Munich by its Punycode key, CNAME, no HTTP',
    urn: 'urn:lex:de:stadt.m%C3%BCnchen:rundschreiben:2020-01-01;1',
    options: { noHttp: true },
    via: 'root',
  },
  { id: 'DNS_NXDOMAIN', urn: 'urn:lex:fr:etat:loi:2004-05-15;106', options: {}, via: 'root' },
  {
    id: 'DDDS_NO_VALID_OUTPUT',
    urn: 'urn:lex:eu;ecb:governing.council:decision:2000-01-01;1',
    options: {},
    via: 'root',
  },
  { id: 'HTTP_NOT_FOUND', urn: 'urn:lex:it:stato:legge:1999-01-01;1', options: {}, via: 'root' },
  { id: 'not a LEX URN', urn: 'urn:lex:', options: {}, via: 'root' },
  {
    id: 'DNS_LAME',
    urn: 'urn:lex:un.org:united.nations;general.assembly:resolution:1961-11-28;a-res-1661',
    options: {},
    via: 'broken',
  },
  { id: 'DDDS_LOOP', urn: 'urn:lex:xx:a:b:2000-01-01;1', options: {}, via: 'broken' },
  {
    id: 'the rest of the broken deployment',
    urn: 'urn:lex:it:stato:legge:2000-04-03;56~art1',
    options: {},
    via: 'broken',
  },
];

type Recorded = { name: string; type: string } & (
  | { result: Record<string, unknown> }
  | { error: { code: string; message: string; server: string } }
);

/** The HTTP results the client got, from its trace (the raw URLs are the partition steps' `before`). */
function httpFeeds(trace: Trace, result: ResolveResult | undefined): unknown[] {
  const out: unknown[] = [];
  for (const s of trace.steps) {
    if (s.kind !== 'http') continue;
    if (s.error) out.push({ kind: 'error', code: s.error.code, message: s.error.message });
    else if (result?.description) {
      out.push({ kind: 'description', exchanges: s.exchanges, ...result.description });
    } else {
      const urls = trace.steps.flatMap((p) => (p.kind === 'partition' ? [p.before] : []));
      out.push({ kind: 'urls', exchanges: s.exchanges, urls });
    }
  }
  return out;
}

async function record(client: LexClient, c: Case): Promise<object> {
  await client.ready();
  const inner = (client as unknown as { resolver: { lookup: (...a: unknown[]) => Promise<unknown> } })
    .resolver;
  const lookups: Recorded[] = [];
  const original = inner.lookup.bind(inner);
  inner.lookup = async (name: unknown, type: unknown, signal: unknown) => {
    try {
      const r = (await original(name, type, signal)) as Record<string, unknown>;
      const { additionals: _, ...result } = r;
      lookups.push({ name: String(name), type: String(type), result });
      return r;
    } catch (e) {
      const err = e as { code: string; message: string; server?: string };
      lookups.push({
        name: String(name),
        type: String(type),
        error: { code: err.code, message: err.message, server: err.server ?? '' },
      });
      throw e;
    }
  };
  try {
    const r = await client.resolve(c.urn, c.options);
    return { ...c, lookups, http: httpFeeds(r.trace, r), expect: { ok: true, result: r } };
  } catch (e) {
    const err = e as { code: string; message: string; trace: Trace };
    const expect = { ok: false, code: err.code, message: err.message, trace: err.trace };
    return { ...c, lookups, http: err.trace ? httpFeeds(err.trace, undefined) : [], expect };
  } finally {
    inner.lookup = original;
  }
}

async function brokenConfig(dir: string): Promise<DevConfig> {
  const config = devConfig();
  const loop = path.join(dir, 'xx.lex-routing.nic.it.zone');
  await writeFile(
    loop,
    '$TTL 60\n@ IN SOA ns.nic.it. h.nic.it. 1 60 60 60 60\n@ IN NS ns.nic.it.\n' +
      '@ IN NAPTR 100 10 "" "" "" lex-nameserver.nic.it.\n',
  );
  return {
    ...config,
    dns: [
      { ...config.dns[0]!, zones: [...config.dns[0]!.zones, { file: loop }] },
      { ...config.dns[1]!, zones: config.dns[1]!.zones.filter((z) => !z.file.includes('un.org')) },
    ],
  };
}

const dir = await mkdtemp(path.join(tmpdir(), 'lexroute-record-'));
const chain = await startSampleChain();
const broken = await startSampleChain(await brokenConfig(dir));
const out: object[] = [];
try {
  for (const c of CASES) {
    const options = { root: c.via === 'broken' ? broken.root : chain.root, timeoutMs: 1000 };
    // No cache: every lookup reaches the resolver and is recorded.
    const client = new LexClient({ ...options, cache: false, random: () => 0 });
    try {
      out.push(await record(client, c));
    } finally {
      await client.close();
    }
  }
} finally {
  await chain.close();
  await broken.close();
  await rm(dir, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify({ description: 'see record-e2e.ts', cases: out }, null, 1)}\n`);
