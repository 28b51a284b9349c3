/**
 * `lexroute chain check` over the 5,664 jurisdiction codes of LexML's
 * localidade.csv with one zone per municipality (issue 30): the Brazil
 * fixture of test/routes/brazil.ts (a federal table routing the 27 states to
 * their zones), where each state table also delegates every municipality of
 * the list to its own zone (`<city>.lex.<uf>.gov.br.`, a zone cut with NS
 * and glue), and each municipality zone routes to its own resolver. All the
 * zones are built with `lexroute zone build` and served by one `lexroute
 * serve` (a separate process).
 *
 * Printed: the zones built and the time to build them; the server's time
 * from spawn until the last municipality zone answers and its resident
 * memory then; `chain check --server` over the list (time, totals, failures
 * by code, the share of codes that reached a municipality's own resolver)
 * and the server's memory after it; `chain check --zones` in process.
 *
 * Usage: node bench/chain-municipalities.ts [flat]
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DnsTransport } from '../src/client/transport.ts';
import type { CoverageReport } from '../src/routes/coverage.ts';
import { run } from '../src/cli/main.ts';
import { freePort, spawnServe } from './harness.ts';
import { captureIo } from '../test/helpers/io.ts';
import {
  brazilChain,
  LOCALIDADE,
  stateZone,
  states,
  type Localidade,
} from '../test/routes/brazil.ts';

/** `flat` as the argument: the state tables without `index: true` (every rule at the state's apex). */
const INDEX = process.argv[2] !== 'flat';

/** The municipalities of the list: codes directly under a state (br;<state>;<city>). */
function municipalities(rows: readonly Localidade[]): Map<Localidade, Localidade[]> {
  const byState = new Map<Localidade, Localidade[]>();
  for (const s of states(rows)) {
    const cities = rows.filter((r) => r.broader === `#${s.about}`);
    byState.set(
      s,
      cities.filter((c) => c.about.split(';').length === 3),
    );
  }
  return byState;
}

const cityZone = (s: Localidade, c: Localidade) =>
  `${c.about.split(';')[2]!.replaceAll('.', '-')}.${stateZone(s)}`;
const cityUrl = (zone: string) =>
  `http://resolver.${zone.slice(0, -1)}:8300/uri-res/{service}?{urn}`;

function stateTable(s: Localidade, cities: readonly Localidade[]): string {
  const zone = stateZone(s);
  const routes = cities
    .map((c) => {
      const z = cityZone(s, c);
      return `  - prefix: ${c.about}\n    zone: ${z}\n    ns:\n      - { name: ns1.${z}, address: 127.0.0.1 }\n`;
    })
    .join('');
  return `zone: ${zone}
soa: { serial: 2026112801 }
ns:
  - { name: ns1.${zone}, address: 127.0.0.1 }
${INDEX ? 'index: true\n' : ''}routes:
${routes}default:
  url: http://resolver.${zone.slice(0, -1)}:8300/uri-res/{service}?{urn}
  services: [N2L, N2Ls]
`;
}

function cityTable(zone: string, code: string): string {
  return `zone: ${zone}
soa: { serial: 2026112801 }
ns:
  - { name: ns1.${zone}, address: 127.0.0.1 }
routes: []
default:
  url: ${cityUrl(zone)}
  services: [N2L, N2Ls]
  example: urn:lex:${code}:municipal:lei:2000-01-01;1
`;
}

async function build(table: string, zone: string): Promise<void> {
  const io = captureIo();
  if ((await run(['zone', 'build', table, '-o', zone], io)) !== 0) throw new Error(io.stderr());
}

/** The federal and state zones of the fixture, then the state tables rewritten with their cuts and one zone per city. */
async function buildChain(): Promise<{ zones: string; lastZone: string; count: number }> {
  const chain = await brazilChain(build);
  let count = 2 + 1 + 27;
  let lastZone = '';
  for (const [s, cities] of municipalities(chain.rows)) {
    for (const c of cities) {
      const z = cityZone(s, c);
      const t = path.join(chain.tables, `${z}yaml`);
      writeFileSync(t, cityTable(z, c.about));
      await build(t, path.join(chain.zones, `${z}zone`));
      lastZone = z;
      count++;
    }
    const t = path.join(chain.tables, `${stateZone(s)}yaml`);
    writeFileSync(t, stateTable(s, cities));
    await build(t, path.join(chain.zones, `${stateZone(s)}zone`));
  }
  return { zones: chain.zones, lastZone, count };
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) / 1024;
}

/** Spawn `serve` over the folder; resolve once `lastZone` answers its SOA. */
async function serve(dir: string, lastZone: string) {
  const port = await freePort();
  const t0 = performance.now();
  const children: ChildProcess[] = [];
  const server = spawnServe(
    ['--zones', dir, '--listen', `127.0.0.1:${port}`, '--log-level', 'error'],
    children,
  ).child;
  const t = new DnsTransport({ timeoutMs: 200, tries: 1 });
  for (;;) {
    try {
      const ex = await t.query(lastZone, 'SOA', { servers: [{ host: '127.0.0.1', port }] });
      if (ex.message.answers.length > 0) break;
    } catch {
      // not up yet
    }
    if (performance.now() - t0 > 300_000) throw new Error('the server did not answer in 300 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  t.close();
  return { port, server, seconds: (performance.now() - t0) / 1000 };
}

type Report = CoverageReport;

async function chainCheck(args: string[]): Promise<{ seconds: number; report: Report }> {
  const io = captureIo();
  const t0 = performance.now();
  await run(['chain', 'check', ...args, '--json', LOCALIDADE], io);
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, report: JSON.parse(io.stdout()) as Report };
}

function summary(r: Report): string {
  const city = r.byResolver
    .filter((x) => /resolver\.[^.]+\.lex\.[a-z]{2}\.gov\.br/.test(x.resolver))
    .reduce((n, x) => n + x.count, 0);
  const failures = r.byFailure.map((f) => `${f.code} ${f.count} (${f.examples[0]})`).join(', ');
  return `${r.total} codes, ${r.resolved} reach a resolver (${city} a municipality's own), ${r.handoff} hand-offs, ${r.failed} fail${failures ? `: ${failures}` : ''}`;
}

const b0 = performance.now();
const chain = await buildChain();
console.log(
  `built ${chain.count} zones (${chain.count - 30} municipalities) in ${((performance.now() - b0) / 1000).toFixed(1)} s`,
);
const s = await serve(chain.zones, chain.lastZone);
console.log(
  `serve: the last zone answers ${s.seconds.toFixed(2)} s after spawn, RSS ${rssMb(s.server.pid!).toFixed(0)} MB`,
);
try {
  const net = await chainCheck(['--server', `127.0.0.1:${s.port}`]);
  console.log(`chain check --server: ${net.seconds.toFixed(2)} s, ${summary(net.report)}`);
  console.log(`serve RSS after the check: ${rssMb(s.server.pid!).toFixed(0)} MB`);
} finally {
  s.server.kill('SIGTERM');
}
const local = await chainCheck(['--zones', chain.zones]);
console.log(`chain check --zones: ${local.seconds.toFixed(2)} s, ${summary(local.report)}`);
