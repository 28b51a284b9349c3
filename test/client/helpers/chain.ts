/**
 * A local LEX chain for integration tests: zone files written to a temp
 * directory (root `lex.urn.arpa` -> CNR table `lex-nameserver.nic.it` ->
 * jurisdiction `lex.senado.gov.br` -> sub-jurisdiction `lex.sao-paulo.gov.br`,
 * plus a Punycode branch and two `P` hand-off rules under `lex.example.de`),
 * served by the real `lexroute serve` engine, by NSD or by Knot, and ending
 * at the real `lexroute resolver` app over a catalogue built from rows below.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEFAULT_SERVER_CONFIG, type ServerConfig } from '../../../src/config/server.ts';
import { DEFAULT_RESOLVER_CONFIG } from '../../../src/config/resolver.ts';
import { createLogger } from '../../../src/authority/log.ts';
import { startServer, type RunningServer } from '../../../src/authority/server.ts';
import { ensureCatalogue } from '../../../src/resolver/catalogue/open.ts';
import { analyseReference } from '../../../src/resolver/core/from-urn.ts';
import { createResolverApp } from '../../../src/resolver/http/app.ts';
import { startResolverServer } from '../../../src/resolver/http/server.ts';
import { freePortOn } from './fake-dns.ts';

/** Catalogue rows: the URLs the chain must end at. */
export const CATALOGUE = [
  {
    urn: 'urn:lex:br:federal:lei:2002-01-10;10406$lexml.gov.br:text-html',
    url: 'https://www.lexml.gov.br/urn/urn:lex:br:federal:lei:2002-01-10;10406',
  },
  {
    urn: 'urn:lex:br;sao.paulo:governo:decreto:2008-03-05;52789$al.sp.gov.br:text-html',
    url: 'https://www.al.sp.gov.br/repositorio/legislacao/decreto/2008/decreto-52789-05.03.2008.html',
  },
  {
    urn: 'urn:lex:de;m%C3%BCnchen:stadt:rundschreiben:2020-01-01;1$muenchen.de:text-html',
    url: 'https://muenchen.example.de/rundschreiben/2020-1',
  },
];

const SOA = (origin: string) =>
  `@ IN SOA ns.${origin}. hostmaster.${origin}. 2026112001 7200 3600 1209600 300\n@ IN NS ns.${origin}.\nns IN A 127.0.0.1\n`;

/** The zone files of the chain, for a THTTP resolver on 127.0.0.1:`httpPort`. */
export function chainZones(httpPort: number): Record<string, string> {
  const u = (service: string) => `http://127.0.0.1:${httpPort}/uri-res/${service}?\\\\1`;
  return {
    'urn.arpa': `$ORIGIN urn.arpa.\n$TTL 3600\n${SOA('urn.arpa')}lex IN NAPTR 100 10 "" "" "" lex-nameserver.nic.it.\n`,
    'nic.it':
      `$ORIGIN nic.it.\n$TTL 3600\n${SOA('nic.it')}` +
      `lex-nameserver IN NAPTR 100 10 "" "" "!^urn:lex:br[;:].*$!lex.senado.gov.br!i" .\n` +
      `lex-nameserver IN NAPTR 100 10 "" "" "!^urn:lex:de[;:].*$!lex.example.de!i" .\n` +
      `lex-nameserver IN NAPTR 100 10 "" "" "!^urn:lex:xx[;:].*$!lex.loop-a.nic.it!i" .\n` +
      `lex-nameserver IN NAPTR 100 10 "" "" "!^urn:lex:zz[;:].*$!lex.missing.nic.it!i" .\n` +
      // Same ORDER, two preferences: the first delegation is broken (for --fallback).
      `lex-nameserver IN NAPTR 100 20 "" "" "!^urn:lex:yy[;:].*$!lex.missing.nic.it!i" .\n` +
      `lex-nameserver IN NAPTR 100 30 "" "" "!^urn:lex:yy[;:].*$!lex.senado.gov.br!i" .\n` +
      // A NAPTR loop across two zones: nic.it -> lex.senado.gov.br -> nic.it.
      `lex.loop-a IN NAPTR 100 10 "" "" "" loop.lex.senado.gov.br.\n`,
    'lex.senado.gov.br':
      `$ORIGIN lex.senado.gov.br.\n$TTL 3600\n${SOA('lex.senado.gov.br')}` +
      `@ IN NAPTR 100 10 "" "" "!^urn:lex:br;sao\\\\.paulo[;:].*$!lex.sao-paulo.gov.br!i" .\n` +
      `@ IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!${u('N2L')}!" .\n` +
      `@ IN NAPTR 200 20 "u" "http+N2Ls" "!^(.*)$!${u('N2Ls')}!" .\n` +
      `@ IN NAPTR 200 30 "u" "http+N2C" "!^(.*)$!${u('N2C')}!" .\n` +
      `loop IN NAPTR 100 10 "" "" "!^urn:lex:xx.*$!lex.loop-a.nic.it!i" .\n`,
    'lex.sao-paulo.gov.br':
      `$ORIGIN lex.sao-paulo.gov.br.\n$TTL 3600\n${SOA('lex.sao-paulo.gov.br')}` +
      `@ IN NAPTR 100 10 "s" "thttp+N2L+N2Ls+N2C" "" _http._tcp.resolver.lex.sao-paulo.gov.br.\n` +
      `_http._tcp.resolver IN SRV 10 60 ${httpPort} res1.lex.sao-paulo.gov.br.\n` +
      `res1 IN A 127.0.0.1\n`,
    'lex.example.de':
      `$ORIGIN lex.example.de.\n$TTL 3600\n${SOA('lex.example.de')}` +
      `@ IN NAPTR 100 10 "" "" "!^urn:lex:de;([^:;@$~]+)[;:].*$!\\\\1.lex.example.de!i" .\n` +
      `xn--mnchen-3ya IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!${u('N2L')}!" .\n` +
      `xn--mnchen-3ya IN NAPTR 100 20 "a" "http+N2L+N2Ls" "" www.muenchen.lex.example.de.\n` +
      `www.muenchen IN A 127.0.0.1\n` +
      // P rules (RFC 3404 section 4.3): DDDS ends and the protocol in SERVICES
      // takes over. A REPLACEMENT hand-off for N2L and N2C; N2Ls falls through
      // to the U rule of the next preference.
      `handoff IN NAPTR 100 10 "p" "z3950+N2L+N2C" "" z3950.lex.example.de.\n` +
      `handoff IN NAPTR 100 20 "u" "http+N2Ls" "!^(.*)$!${u('N2Ls')}!" .\n` +
      // A REGEXP hand-off, flag in upper case, no service list (any service).
      `ldap IN NAPTR 100 10 "P" "ldap" "!^urn:lex:de;ldap:([a-z]+):.*$!ldap.example.de/ou=\\\\1!i" .\n` +
      // Hostile zone data: an ESC (\027) in the output of a hand-off.
      `evil IN NAPTR 100 10 "p" "x" "!^.*$!a\\027[2Jb!" .\n`,
  };
}

export interface Chain {
  readonly dir: string;
  readonly httpPort: number;
  readonly resolverUrl: string;
  /** `127.0.0.1:port` of the DNS server, when one was started. */
  dns?: string;
  close(): Promise<void>;
}

/** The temp dir, the zone files and the real resolver app on a free port. */
export async function startResolverAndZones(): Promise<Chain> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lexroute-chain-'));
  const rows = `${CATALOGUE.map((r) => JSON.stringify(r)).join('\n')}\n`;
  await writeFile(path.join(dir, 'catalogue.jsonl'), rows);
  const opened = await ensureCatalogue(
    path.join(dir, 'catalogue.sqlite'),
    path.join(dir, 'catalogue.jsonl'),
    dir,
  );
  const app = createResolverApp({
    reader: opened.store,
    analyse: analyseReference,
    config: DEFAULT_RESOLVER_CONFIG,
  });
  const resolver = await startResolverServer({ app, host: '127.0.0.1', port: 0 });
  const zones = chainZones(resolver.port);
  for (const [origin, text] of Object.entries(zones)) {
    await writeFile(path.join(dir, `${origin}.zone`), text);
  }
  const closers: (() => Promise<void>)[] = [];
  const chain: Chain = {
    dir,
    httpPort: resolver.port,
    resolverUrl: resolver.url,
    async close() {
      for (const c of closers.reverse()) await c().catch(() => undefined);
      await resolver.close();
      opened.store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  (chain as { closers?: typeof closers }).closers = closers;
  return chain;
}

function closersOf(chain: Chain): (() => Promise<void>)[] {
  return (chain as unknown as { closers: (() => Promise<void>)[] }).closers;
}

/** The real lexroute server on 127.0.0.1 (port 0) serving the chain's zones. */
export async function serveWithLexroute(chain: Chain): Promise<string> {
  const logs: string[] = [];
  const config: ServerConfig = {
    ...DEFAULT_SERVER_CONFIG,
    listen: [{ host: '127.0.0.1', port: 0 }],
    zones: Object.keys(chainZones(0)).map((o) => path.join(chain.dir, `${o}.zone`)),
  };
  const server = await startServer({
    config,
    log: createLogger((l) => void logs.push(l), 'warn', 'json'),
    cwd: chain.dir,
  });
  closersOf(chain).push(() => server.close());
  const port = server.udp[0]?.port;
  if (port === undefined) throw new Error(`lexroute server did not listen: ${logs.join('\n')}`);
  return `127.0.0.1:${port}`;
}

async function waitForDns(port: number, proc: ChildProcess, log: () => string): Promise<void> {
  const { DnsTransport } = await import('../../../src/client/transport.ts');
  const t = new DnsTransport({ timeoutMs: 200, tries: 1 });
  try {
    for (let i = 0; i < 50; i++) {
      if (proc.exitCode !== null) throw new Error(`daemon exited: ${log()}`);
      try {
        const ex = await t.query('lex.urn.arpa.', 'NAPTR', {
          servers: [{ host: '127.0.0.1', port }],
        });
        if (ex.message.answers.length > 0) return;
      } catch {
        // not up yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`daemon did not answer: ${log()}`);
  } finally {
    t.close();
  }
}

function spawnDaemon(
  chain: Chain,
  program: string,
  args: string[],
): { proc: ChildProcess; log: () => string } {
  let out = '';
  const proc = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  closersOf(chain).push(async () => {
    if (proc.exitCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    }
  });
  return { proc, log: () => out.slice(-2000) };
}

/** NSD, unprivileged, on a free loopback port. */
export async function serveWithNsd(chain: Chain, nsd: string): Promise<string> {
  const port = await freePortOn(['127.0.0.1']);
  const zones = Object.keys(chainZones(0))
    .map((o) => `zone:\n  name: "${o}"\n  zonefile: "${path.join(chain.dir, `${o}.zone`)}"\n`)
    .join('');
  const conf = path.join(chain.dir, 'nsd.conf');
  await writeFile(
    conf,
    `server:\n  ip-address: 127.0.0.1@${port}\n  port: ${port}\n  username: ""\n  chroot: ""\n` +
      `  zonesdir: "${chain.dir}"\n  pidfile: "${chain.dir}/nsd.pid"\n  database: ""\n` +
      `  xfrdfile: "${chain.dir}/xfrd.state"\n  zonelistfile: "${chain.dir}/zone.list"\n` +
      `  xfrdir: "${chain.dir}"\n  logfile: "${chain.dir}/nsd.log"\n  verbosity: 1\n  server-count: 1\n` +
      `remote-control:\n  control-enable: no\n${zones}`,
  );
  const { proc, log } = spawnDaemon(chain, nsd, ['-d', '-c', conf]);
  await waitForDns(port, proc, log);
  return `127.0.0.1:${port}`;
}

/** Knot DNS, unprivileged, on a free loopback port. */
export async function serveWithKnot(chain: Chain, knotd: string): Promise<string> {
  const port = await freePortOn(['127.0.0.1']);
  const zones = Object.keys(chainZones(0))
    .map((o) => `  - domain: ${o}\n    file: "${path.join(chain.dir, `${o}.zone`)}"\n`)
    .join('');
  const conf = path.join(chain.dir, 'knot.conf');
  await writeFile(
    conf,
    `server:\n  listen: 127.0.0.1@${port}\n  rundir: "${chain.dir}"\n` +
      `database:\n  storage: "${chain.dir}/knot-db"\n` +
      `log:\n  - target: stderr\n    any: warning\n` +
      `template:\n  - id: default\n    storage: "${chain.dir}"\n    semantic-checks: off\n` +
      `zone:\n${zones}`,
  );
  const { proc, log } = spawnDaemon(chain, knotd, ['-c', conf]);
  await waitForDns(port, proc, log);
  return `127.0.0.1:${port}`;
}

/** The root zone for iterative mode: delegations (with and without glue) to 127.0.0.2. */
export function rootZone(): string {
  const cut = (zone: string) => `${zone}. IN NS ns.${zone}.\nns.${zone}. IN A 127.0.0.2\n`;
  return (
    `$ORIGIN .\n$TTL 3600\n` +
    `@ IN SOA a.root.test. hostmaster.root.test. 1 7200 3600 1209600 300\n` +
    `@ IN NS a.root.test.\na.root.test. IN A 127.0.0.1\n` +
    cut('urn.arpa') +
    cut('nic.it') +
    cut('lex.senado.gov.br') +
    cut('lex.sao-paulo.gov.br') +
    // NS name outside the delegated zone; its address is root-zone data.
    `lex.example.de. IN NS ns.example.net.\nns.example.net. IN A 127.0.0.2\n`
  );
}

/**
 * Iterative set-up: one lexroute server on 127.0.0.1:P with the root zone,
 * another on 127.0.0.2:P with the chain's zones (same port P).
 */
export async function serveIterativeWithLexroute(chain: Chain): Promise<string> {
  const port = await freePortOn(['127.0.0.1', '127.0.0.2']);
  await writeFile(path.join(chain.dir, '..zone'), rootZone());
  const start = async (host: string, zones: string[]) => {
    const logs: string[] = [];
    const server = await startServer({
      config: { ...DEFAULT_SERVER_CONFIG, listen: [{ host, port }], zones },
      log: createLogger((l) => void logs.push(l), 'warn', 'json'),
      cwd: chain.dir,
    });
    closersOf(chain).push(() => server.close());
    if (server.udp.length === 0)
      throw new Error(`no listener on ${host}:${port}: ${logs.join('\n')}`);
    if (logs.some((l) => l.includes('"error"'))) throw new Error(logs.join('\n'));
  };
  await start(
    '127.0.0.2',
    Object.keys(chainZones(0)).map((o) => path.join(chain.dir, `${o}.zone`)),
  );
  await start('127.0.0.1', [path.join(chain.dir, '..zone')]);
  return `127.0.0.1:${port}`;
}

/** The chain's zones served by one lexroute server over UDP/TCP and DoH (both on free ports). */
export interface DohChain {
  readonly chain: Chain;
  readonly server: RunningServer;
  /** `127.0.0.1:PORT` of the UDP listener. */
  readonly dns: string;
  /** The DoH URL. */
  readonly doh: string;
  close(): Promise<void>;
}

export async function startDohChain(): Promise<DohChain> {
  const chain = await startResolverAndZones();
  const server = await startServer({
    config: {
      ...DEFAULT_SERVER_CONFIG,
      listen: [{ host: '127.0.0.1', port: 0 }],
      zones: Object.keys(chainZones(0)).map((o) => path.join(chain.dir, `${o}.zone`)),
      doh: { listen: [{ host: '127.0.0.1', port: 0 }] },
    },
    log: createLogger(() => undefined, 'silent', 'json'),
    cwd: chain.dir,
  });
  return {
    chain,
    server,
    dns: `127.0.0.1:${server.udp[0]!.port}`,
    doh: server.doh[0]!.url,
    close: async () => {
      await server.close();
      await chain.close();
    },
  };
}
