/**
 * Start the sample chain of `config/dev.json` (for `lexroute dev` and the
 * end-to-end tests): the jurisdiction resolvers over a sample catalogue and
 * the DNS servers, each on its loopback address. The zones name the resolver
 * ports, so `httpPort` serves rewritten copies (`rewriteHttpPorts`); `dnsPort`
 * needs none (glue carries addresses only).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { signChain, type SignedChain } from './sign-chain.ts';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureCatalogue } from '../resolver/catalogue/open.ts';
import { DEFAULT_RESOLVER_CONFIG, type ResolverConfig } from '../config/resolver.ts';
import { DEFAULT_SERVER_CONFIG, type ListenAddress } from '../config/server.ts';
import type { LogEntry } from '../resolver/http/server.ts';
import {
  ResolverStartError,
  startResolver,
  type RunningResolverService,
} from '../resolver/service.ts';
import type { Logger } from '../authority/log.ts';
import type { RunningServer } from '../authority/server.ts';
import { startAuthority, type Authority } from '../authority/authority.ts';
import { inferOriginFromFileName } from '../authority/zones/load.ts';
import { formatListen, type DevConfig } from './config.ts';
import { freePortOnAll, probePort } from './ports.ts';

/** A failure to start the chain: a stable code and a message naming the address. */
export class DevStartError extends Error {
  readonly code:
    | 'PORT_IN_USE'
    | 'ADDRESS_UNAVAILABLE'
    | 'PORT_DENIED'
    | 'DEV_ZONE_FAILED'
    | 'DEV_CATALOGUE_FAILED';
  constructor(code: DevStartError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DevStartError';
    this.code = code;
  }
}

export interface DevChainOptions {
  readonly config: DevConfig;
  /** Base directory of the relative paths in the configuration. */
  readonly cwd: string;
  /** Move every DNS server to this port (0: a port free on all their addresses). */
  readonly dnsPort?: number;
  /** Move every resolver to this port (0: a free one); the zones are rewritten to match. */
  readonly httpPort?: number;
  /** Serve this SQLite catalogue instead of a fresh one built from `sampleCatalogue`. */
  readonly catalogue?: string;
  /** DNS server logs (default: none). */
  readonly log?: Logger;
  /** Sign every zone at start (`--dnssec`), the root's key written as the trust anchor. */
  readonly dnssec?: boolean;
  /** Resolver request logs, with the resolver's name (default: none). */
  readonly onRequest?: (resolver: string, entry: LogEntry) => void;
}

export interface RunningDnsInstance {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  /** Origins served, in configuration order (`.` for the root). */
  readonly origins: readonly string[];
  readonly server: RunningServer;
}

export interface RunningResolverInstance {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  /** `http://127.0.0.1:8300` */
  readonly url: string;
  /** The resolver service (`startResolver`): its status, reload and close. */
  readonly server: RunningResolverService;
}

export interface RunningDevChain {
  readonly dns: readonly RunningDnsInstance[];
  readonly resolvers: readonly RunningResolverInstance[];
  /** `host:port` of the server iterative resolution starts at. */
  readonly root: string;
  /** Zone files served, per origin (the rewritten copies when the HTTP port moved). */
  readonly zoneFiles: ReadonlyMap<string, string>;
  readonly catalogue: { readonly path: string; readonly works: number; readonly items: number };
  /** DNS over HTTPS (plain HTTP on loopback): one engine with every zone, one URL for a page. */
  readonly doh: string;
  /** With `dnssec`: the trust anchor (the root's DNSKEY) and the files holding it. */
  readonly dnssec?: {
    readonly anchor: string;
    readonly anchorFile: string;
    readonly bindAnchorFile: string;
    /** An Unbound configuration with the anchor and one stub-zone per zone served (`unboundStubConfig`). */
    readonly unboundConfFile: string;
  };
  close(): Promise<void>;
}

/**
 * The Unbound configuration of the README's "A signed chain": validating, on
 * the first DNS server's host one port up, a stub-zone per zone (loopback:
 * `do-not-query-localhost: no`).
 */
export function unboundStubConfig(
  dns: readonly Pick<RunningDnsInstance, 'host' | 'port' | 'origins'>[],
  anchorFile: string,
): string {
  const first = dns[0];
  const lines = [
    '# unbound.conf written by lexroute dev --dnssec: unbound -d -c THIS_FILE',
    'server:',
    `  interface: ${first?.host ?? '127.0.0.1'}`,
    `  port: ${(first?.port ?? 5300) + 1}`,
    '  do-not-query-localhost: no',
    '  module-config: "validator iterator"',
    `  trust-anchor-file: "${anchorFile}"`,
  ];
  for (const d of dns) {
    for (const origin of d.origins) {
      lines.push('stub-zone:', `  name: "${origin}"`, `  stub-addr: ${d.host}@${d.port}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

async function withUnboundStubs(
  signed: SignedChain,
  dns: readonly RunningDnsInstance[],
): Promise<NonNullable<RunningDevChain['dnssec']>> {
  const unboundConfFile = path.join(path.dirname(signed.anchorFile), 'unbound.conf');
  await writeFile(unboundConfFile, unboundStubConfig(dns, signed.anchorFile));
  return {
    anchor: signed.anchor,
    anchorFile: signed.anchorFile,
    bindAnchorFile: signed.bindAnchorFile,
    unboundConfFile,
  };
}

/**
 * The zone text with each resolver endpoint `HOST:OLD` in `moves` moved to
 * its new port (NAPTR URLs and SRV ports); everything else untouched.
 */
export function rewriteHttpPorts(text: string, moves: ReadonlyMap<string, number>): string {
  if (moves.size === 0) return text;
  const byPort = new Map<number, number>();
  for (const [endpoint, to] of moves) {
    const from = Number(endpoint.slice(endpoint.lastIndexOf(':') + 1));
    byPort.set(from, to);
  }
  let out = text.replace(
    /(https?:\/\/)(\[[0-9a-fA-F:.]+\]|[0-9.]+):(\d+)(?=\/)/g,
    (m, scheme: string, host: string, port: string) => {
      const to = moves.get(`${host.replace(/^\[|\]$/g, '')}:${port}`);
      return to === undefined ? m : `${scheme}${host}:${to}`;
    },
  );
  // SRV RDATA: priority weight port target.
  out = out.replace(/(\bSRV\s+\d+\s+\d+\s+)(\d+)(?=\s)/gi, (m, head: string, port: string) => {
    const to = byPort.get(Number(port));
    return to === undefined ? m : `${head}${to}`;
  });
  return out;
}

function describeBindProblem(
  what: string,
  l: ListenAddress,
  p: { problem: string; message: string },
): DevStartError {
  const [code, why]: [DevStartError['code'], string] =
    p.problem === 'in-use'
      ? [
          'PORT_IN_USE',
          ` is already in use (${p.message}); stop what holds it, or move the chain with --dns-port/--http-port`,
        ]
      : p.problem === 'denied'
        ? ['PORT_DENIED', `: permission denied (${p.message}); ports below 1024 need privileges`]
        : [
            'ADDRESS_UNAVAILABLE',
            `: the address is not available (${p.message}); on macOS add it with 'sudo ifconfig lo0 alias ${l.host} up'`,
          ];
  return new DevStartError(code, `${formatListen(l)} (${what})${why}`);
}

/** A fresh temporary folder, removed when the chain stops. */
async function tempDir(closers: (() => Promise<void>)[], prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Sign the zones (`signChain`) into the catalogue's folder (or their own) and serve those. */
async function signServed(
  zoneFiles: Map<string, string>,
  served: DevZones['served'],
  tmp: string | undefined,
  closers: (() => Promise<void>)[],
): Promise<SignedChain> {
  const dir = tmp ?? (await tempDir(closers, 'lexroute-dev-dnssec-'));
  let signed: SignedChain;
  try {
    signed = await signChain(zoneFiles, dir);
  } catch (e) {
    throw new DevStartError('DEV_ZONE_FAILED', `cannot sign the zones: ${(e as Error).message}`, {
      cause: e,
    });
  }
  for (const z of served.flat()) z.file = signed.files.get(z.origin)!;
  for (const [origin, file] of signed.files) zoneFiles.set(origin, file);
  return signed;
}

/** What the start-up steps share: resolved paths and the stack of things to stop. */
interface Setup {
  readonly options: DevChainOptions;
  readonly abs: (p: string) => string;
  readonly closers: (() => Promise<void>)[];
  readonly dnsAt: (l: ListenAddress) => ListenAddress;
  readonly httpAt: (l: ListenAddress) => ListenAddress;
}

/** Start the resolvers, then the DNS servers; on any failure stop what started and throw DevStartError. */
export async function startDevChain(options: DevChainOptions): Promise<RunningDevChain> {
  const { config, cwd } = options;
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
  };
  try {
    const setup: Setup = {
      options,
      abs: (p) => (path.isAbsolute(p) ? p : path.resolve(cwd, p)),
      closers,
      ...(await placePorts(options)),
    };
    const { catalogue, tmp } = await openDevCatalogue(setup);
    let dohUrl = '';
    let anchors = '';
    const resolvers = await startResolvers(setup, catalogue.path, {
      doh: () => dohUrl,
      trustAnchors: () => anchors,
    });
    const zones = await prepareZones(setup, resolvers);
    const dnssec = options.dnssec
      ? await signServed(zones.zoneFiles, zones.served, tmp, closers)
      : undefined;
    // The page validates from the sample root's key (it replaces the real root's).
    anchors = dnssec ? `${dnssec.anchor}\n` : '';
    const dns = await startDnsServers(setup, zones.served);
    const doh = await startDohView(
      zones.served.flat(),
      options.log,
      cwd,
      config.dns[0] ? setup.dnsAt(config.dns[0].listen).host : '127.0.0.1',
    );
    closers.push(() => doh.close());
    dohUrl = doh.server.doh[0]?.url ?? '';
    return {
      dns,
      resolvers,
      root: rootAddress(setup, dns),
      zoneFiles: zones.zoneFiles,
      catalogue,
      doh: dohUrl,
      ...(dnssec ? { dnssec: await withUnboundStubs(dnssec, dns) } : {}),
      close: closeAll,
    };
  } catch (e) {
    await closeAll();
    throw e;
  }
}

/** The ports to serve on (free ones when asked for 0), each checked before anything starts. */
async function placePorts(options: DevChainOptions): Promise<Pick<Setup, 'dnsAt' | 'httpAt'>> {
  const { config } = options;
  /** Addresses moved to `port` (0: one free on all of `servers`' hosts), or left. */
  const mover = async (port: number | undefined, servers: readonly { listen: ListenAddress }[]) => {
    const to =
      port === 0 ? await freePortOnAll([...new Set(servers.map((s) => s.listen.host))]) : port;
    return (l: ListenAddress): ListenAddress => (to === undefined ? l : { host: l.host, port: to });
  };
  const dnsAt = await mover(options.dnsPort, config.dns);
  const httpAt = await mover(options.httpPort, config.resolvers);
  for (const d of config.dns) {
    const p = await probePort(d.listen.host, dnsAt(d.listen).port);
    if (p) throw describeBindProblem(`DNS server "${d.name}"`, dnsAt(d.listen), p);
  }
  for (const r of config.resolvers) {
    const p = await probePort(r.listen.host, httpAt(r.listen).port, ['tcp']);
    if (p) throw describeBindProblem(`resolver "${r.name}"`, httpAt(r.listen), p);
  }
  return { dnsAt, httpAt };
}

/** The catalogue given, or the sample rows seeded into a temporary one (closed: resolvers open it). */
async function openDevCatalogue(
  setup: Setup,
): Promise<{ catalogue: RunningDevChain['catalogue']; tmp?: string }> {
  const { options, abs, closers } = setup;
  let catalogueFile: string;
  let tmp: string | undefined;
  if (options.catalogue !== undefined) catalogueFile = abs(options.catalogue);
  else {
    tmp = await tempDir(closers, 'lexroute-dev-');
    catalogueFile = path.join(tmp, 'catalogue.sqlite');
  }
  let opened;
  try {
    opened = await ensureCatalogue(catalogueFile, abs(options.config.sampleCatalogue), options.cwd);
  } catch (e) {
    throw new DevStartError(
      'DEV_CATALOGUE_FAILED',
      `cannot open the catalogue ${catalogueFile}: ${(e as Error).message}`,
      { cause: e },
    );
  }
  const store = opened.store;
  const counts = store.counts();
  store.close();
  if (opened.seeded && opened.seeded.errors.length > 0) {
    const first = opened.seeded.errors[0];
    throw new DevStartError(
      'DEV_CATALOGUE_FAILED',
      `${opened.seeded.errors.length} rows of ${opened.seeded.from} were rejected (first: ${JSON.stringify(first)})`,
    );
  }
  const catalogue = { path: store.path, works: counts.works, items: counts.items };
  return tmp === undefined ? { catalogue } : { catalogue, tmp };
}

/** One resolver service per configured resolver over the catalogue, its page given the DoH URL. */
async function startResolvers(
  setup: Setup,
  catalogue: string,
  page: { doh: () => string; trustAnchors: () => string },
): Promise<RunningResolverInstance[]> {
  const { options, closers } = setup;
  const resolvers: RunningResolverInstance[] = [];
  for (const r of options.config.resolvers) {
    const l = setup.httpAt(r.listen);
    const onRequest = options.onRequest;
    const config: ResolverConfig = {
      ...DEFAULT_RESOLVER_CONFIG,
      listen: [formatListen(l)],
      log: { ...DEFAULT_RESOLVER_CONFIG.log, requests: onRequest !== undefined },
    };
    let running: RunningResolverService;
    try {
      running = await startResolver({
        ...{ config, catalogue, cwd: options.cwd, name: r.name, page },
        log: (e) => onRequest?.(r.name, e as LogEntry),
      });
    } catch (e) {
      if (!(e instanceof ResolverStartError)) throw resolverCatalogueFailed(catalogue, e);
      throw describeBindProblem(`resolver "${r.name}"`, l, {
        problem:
          e.code === 'PORT_IN_USE' ? 'in-use' : e.code === 'PORT_DENIED' ? 'denied' : 'no-address',
        message: (e.cause as Error | undefined)?.message ?? e.message,
      });
    }
    closers.push(() => running.close());
    const url = running.urls[0]!;
    const port = Number(new URL(url).port);
    resolvers.push({ name: r.name, host: l.host, port, url, server: running });
  }
  return resolvers;
}

function resolverCatalogueFailed(catalogue: string, e: unknown): DevStartError {
  const message = `cannot open the catalogue ${catalogue}: ${(e as Error).message}`;
  return new DevStartError('DEV_CATALOGUE_FAILED', message, { cause: e });
}

interface DevZones {
  /** Zone file served, per origin. */
  readonly zoneFiles: Map<string, string>;
  /** Per DNS server, its zone files with their origins (a rewritten copy serves the same zone). */
  readonly served: { file: string; origin: string }[][];
}

/** The zone files as they are, or rewritten copies when resolvers moved to other ports. */
async function prepareZones(
  setup: Setup,
  resolvers: readonly RunningResolverInstance[],
): Promise<DevZones> {
  const { config } = setup.options;
  const moves = new Map<string, number>();
  config.resolvers.forEach((r, i) => {
    const now = resolvers[i]!.port;
    if (now !== r.listen.port) moves.set(`${r.listen.host}:${r.listen.port}`, now);
  });
  const zoneDir = moves.size > 0 ? await tempDir(setup.closers, 'lexroute-dev-zones-') : undefined;
  const zones: DevZones = { zoneFiles: new Map(), served: [] };
  for (const [i, d] of config.dns.entries()) {
    const served: DevZones['served'][number] = [];
    for (const [j, z] of d.zones.entries()) {
      const src = setup.abs(z.file);
      const origin = z.origin ?? inferOriginFromFileName(src);
      if (origin === undefined) {
        throw new DevStartError(
          'DEV_ZONE_FAILED',
          `${z.file}: the file name does not give the zone's origin; add "origin" to it in the configuration`,
        );
      }
      const norm = origin === '.' ? '.' : `${origin.replace(/\.$/, '')}.`;
      const file =
        zoneDir === undefined
          ? src
          : await copyRewritten(src, path.join(zoneDir, `${i}-${j}-${path.basename(src)}`), moves);
      zones.zoneFiles.set(norm, file);
      served.push({ file, origin: norm });
    }
    zones.served.push(served);
  }
  return zones;
}

/** Copy a zone file with its resolver ports moved (`rewriteHttpPorts`); the copy's path. */
async function copyRewritten(
  src: string,
  file: string,
  moves: ReadonlyMap<string, number>,
): Promise<string> {
  let text: string;
  try {
    text = await readFile(src, 'utf8');
  } catch (e) {
    throw new DevStartError('DEV_ZONE_FAILED', `cannot read ${src}: ${(e as Error).message}`);
  }
  await writeFile(file, rewriteHttpPorts(text, moves));
  return file;
}

/** One authoritative service (`startAuthority`) per configured DNS server; a zone that fails to load fails the start. */
async function startDnsServers(
  setup: Setup,
  served: DevZones['served'],
): Promise<RunningDnsInstance[]> {
  const { options, closers } = setup;
  const dns: RunningDnsInstance[] = [];
  for (const [i, d] of options.config.dns.entries()) {
    const l = setup.dnsAt(d.listen);
    const problems: string[] = [];
    let authority: Authority;
    try {
      const config = { ...DEFAULT_SERVER_CONFIG, listen: [l], zones: [...served[i]!] };
      const log = serverLog(d.name, options.log, problems);
      authority = await startAuthority(config, { log, cwd: options.cwd });
    } catch (e) {
      const msg = (e as Error).message;
      throw describeBindProblem(`DNS server "${d.name}"`, l, {
        problem: /EADDRINUSE/.test(msg) ? 'in-use' : /EACCES/.test(msg) ? 'denied' : 'no-address',
        message: msg,
      });
    }
    closers.push(() => authority.close());
    const { server } = authority;
    if (problems.length > 0) {
      throw new DevStartError(
        'DEV_ZONE_FAILED',
        `DNS server "${d.name}" could not load its zones: ${problems.join('; ')}`,
      );
    }
    const port = server.udp[0]?.port ?? l.port;
    const origins = served[i]!.map((z) => z.origin);
    dns.push({ name: d.name, host: l.host, port, origins, server });
  }
  return dns;
}

/** A DNS server's log: its name on every line, and its errors kept in `problems`. */
function serverLog(name: string, base: Logger | undefined, problems: string[]): Logger {
  return {
    debug: (e, f) => base?.debug(e, { server: name, ...f }),
    info: (e, f) => base?.info(e, { server: name, ...f }),
    warn: (e, f) => base?.warn(e, { server: name, ...f }),
    error: (e, f) => {
      problems.push(`${e} ${JSON.stringify(f ?? {})}`);
      base?.error(e, { server: name, ...f });
    },
  };
}

/** `host:port` of the configured root server, where it really listens when it is one of the chain's. */
function rootAddress(setup: Setup, dns: readonly RunningDnsInstance[]): string {
  const { config } = setup.options;
  const i = config.dns.findIndex(
    (d) => d.listen.host === config.root.host && d.listen.port === config.root.port,
  );
  return i >= 0 ? `${dns[i]!.host}:${dns[i]!.port}` : formatListen(setup.dnsAt(config.root));
}

/** One more server with every zone file of the chain, answering only what DoH asks (free ports). */
async function startDohView(
  zones: readonly { file: string; origin: string }[],
  log: Logger | undefined,
  cwd: string,
  host: string,
): Promise<Authority> {
  const quiet: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (e, f) => log?.warn(e, { server: 'doh', ...f }),
    error: (e, f) => log?.error(e, { server: 'doh', ...f }),
  };
  const config = {
    ...DEFAULT_SERVER_CONFIG,
    listen: [{ host, port: 0 }],
    zones: [...zones],
    doh: { listen: [{ host, port: 0 }] },
  };
  return startAuthority(config, { log: quiet, cwd });
}
