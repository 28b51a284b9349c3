/**
 * Reference DNS software for the interoperability tests: BIND 9, NSD, Knot
 * and Unbound, each an unprivileged process (uid/gid 65534 when the tests run
 * as root) on a loopback address and a free port, with a generated
 * configuration in a temporary directory, ready when it answers a query, and
 * killed in close().
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DnsTransport } from '../../src/client/transport.ts';

export interface ServedZone {
  readonly origin: string;
  readonly file: string;
}

export interface Daemon {
  readonly name: string;
  readonly host: string;
  readonly port: number;
  output(): string;
  close(): Promise<void>;
}

const AS_ROOT = process.getuid?.() === 0;

/** A temporary directory the unprivileged daemon can read and write. */
export function daemonDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `lexroute-e2e-${prefix}-`));
  chmodSync(dir, 0o777);
  return dir;
}

/** Copy the zone files into `dir` (world-readable), one file per origin. */
function copyZones(dir: string, zones: readonly ServedZone[]): ServedZone[] {
  return zones.map((z, i) => {
    const file = path.join(dir, `zone${i}.db`);
    copyFileSync(z.file, file);
    chmodSync(file, 0o644);
    return { origin: z.origin, file };
  });
}

/** The server, database and log sections of a Knot configuration in `dir` (its `db` folder). */
export function knotHead(dir: string, host: string, port: number, level = 'info'): string {
  return `server:
  listen: ${host}@${port}
  rundir: "${dir}"
database:
  storage: "${dir}/db"
log:
  - target: stderr
    any: ${level}
`;
}

export function writeConf(file: string, text: string): void {
  writeFileSync(file, text);
  chmodSync(file, 0o644);
}

export function launch(
  name: string,
  program: string,
  args: readonly string[],
  dir: string,
  host: string,
  port: number,
): { child: ChildProcess; daemon: Daemon } {
  let out = '';
  const child = spawn(program, [...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: dir,
    ...(AS_ROOT ? { uid: 65534, gid: 65534 } : {}),
  });
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const daemon: Daemon = {
    name,
    host,
    port,
    output: () => out.slice(-2500),
    async close() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return { child, daemon };
}

/** Wait until `host:port` answers `qname qtype` with NOERROR (and an answer unless `referral`). */
export async function waitReady(
  d: Daemon,
  child: ChildProcess,
  qname: string,
  qtype: 'SOA' | 'NAPTR',
): Promise<Daemon> {
  const t = new DnsTransport({ timeoutMs: 200, tries: 1 });
  try {
    for (let i = 0; i < 75; i++) {
      if (child.exitCode !== null || child.signalCode !== null) break;
      try {
        const ex = await t.query(qname, qtype, { servers: [{ host: d.host, port: d.port }] });
        if (ex.message.rcode === 'NOERROR' && ex.message.answers.length > 0) return d;
      } catch {
        // not up yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    t.close();
  }
  await d.close();
  throw new Error(
    `${d.name} on ${d.host}:${d.port} did not answer ${qname} ${qtype}:\n${d.output()}`,
  );
}

/** BIND 9 (`named -g`), authoritative only, on host:port. */
export async function startBind(
  named: string,
  host: string,
  port: number,
  zones: readonly ServedZone[],
  /** More lines: inside `options` (listeners), and at the top level (tls, http blocks). */
  extra: { readonly options?: string; readonly top?: string } = {},
): Promise<Daemon> {
  const dir = daemonDir('named');
  const local = copyZones(dir, zones);
  const conf = path.join(dir, 'named.conf');
  writeConf(
    conf,
    `options {
  directory "${dir}";
  pid-file none;
  listen-on port ${port} { ${host}; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  notify no;
  session-keyfile "${dir}/session.key";
  managed-keys-directory "${dir}";
${extra.options ?? ''}};
controls { };
${extra.top ?? ''}
${local.map((z) => `zone "${z.origin}" { type primary; file "${z.file}"; };`).join('\n')}
`,
  );
  const { child, daemon } = launch('named', named, ['-g', '-n', '1', '-c', conf], dir, host, port);
  return waitReady(daemon, child, local[0]!.origin, 'SOA');
}

/** NSD on host:port. */
/**
 * NSD's `server:` and `remote-control:` sections for a test instance: one
 * server process on host@port, every file in `dir`, no chroot, no database,
 * plus the `extra` server lines (verbosity, transfer options).
 */
export function nsdServerConf(
  dir: string,
  host: string,
  port: number,
  extra: readonly string[],
): string {
  return `server:
  ip-address: ${host}@${port}
  port: ${port}
  username: ""
  chroot: ""
  zonesdir: "${dir}"
  pidfile: "${dir}/nsd.pid"
  database: ""
  xfrdfile: "${dir}/xfrd.state"
  zonelistfile: "${dir}/zone.list"
  xfrdir: "${dir}"
  logfile: "${dir}/nsd.log"
${extra.map((l) => `  ${l}\n`).join('')}  server-count: 1
remote-control:
  control-enable: no`;
}

export async function startNsd(
  nsd: string,
  host: string,
  port: number,
  zones: readonly ServedZone[],
): Promise<Daemon> {
  const dir = daemonDir('nsd');
  const local = copyZones(dir, zones);
  const conf = path.join(dir, 'nsd.conf');
  writeConf(
    conf,
    `${nsdServerConf(dir, host, port, ['verbosity: 1'])}
${local.map((z) => `zone:\n  name: "${z.origin}"\n  zonefile: "${z.file}"\n`).join('')}`,
  );
  const { child, daemon } = launch('nsd', nsd, ['-d', '-c', conf], dir, host, port);
  return waitReady(daemon, child, local[0]!.origin, 'SOA');
}

/**
 * Knot DNS on host:port; `rrl` loads its response-rate limiting module
 * (mod-rrl: `rate-limit` responses per second, `slip`) for every zone.
 */
export async function startKnot(
  knotd: string,
  host: string,
  port: number,
  zones: readonly ServedZone[],
  options: { rrl?: { rate: number; slip: number } } = {},
): Promise<Daemon> {
  const dir = daemonDir('knot');
  const local = copyZones(dir, zones);
  const conf = path.join(dir, 'knot.conf');
  writeConf(
    conf,
    `${knotHead(dir, host, port, 'warning')}${options.rrl ? `mod-rrl:\n  - id: limit\n    rate-limit: ${options.rrl.rate}\n    slip: ${options.rrl.slip}\n` : ''}template:
  - id: default
    storage: "${dir}"
    zonefile-sync: -1
    journal-content: none
${options.rrl ? '    global-module: mod-rrl/limit\n' : ''}zone:
${local.map((z) => `  - domain: "${z.origin}"\n    file: "${z.file}"\n`).join('')}`,
  );
  const { child, daemon } = launch('knotd', knotd, ['-c', conf], dir, host, port);
  return waitReady(daemon, child, local[0]!.origin, 'SOA');
}

/** The `server:` lines of every test Unbound: a foreground process, its files in `dir`, loopback only. */
export function unboundServerLines(dir: string): string {
  return `  do-ip6: no
  do-daemonize: no
  username: ""
  chroot: ""
  directory: "${dir}"
  pidfile: "${dir}/unbound.pid"
  use-syslog: no
  logfile: ""
  verbosity: 1
  num-threads: 1
  so-reuseport: no
  access-control: 127.0.0.0/8 allow
`;
}

/**
 * Unbound as a recursive resolver on 127.0.0.1:port, with one stub zone per
 * served zone pointing at the server that serves it (port included), and the
 * root "." stubbed to the deployment's root server, so nothing leaves the
 * machine. `do-not-query-localhost: no` lets it ask loopback servers.
 */
export async function startUnbound(
  unbound: string,
  port: number,
  stubs: readonly { origin: string; host: string; port: number }[],
  probe: string,
  /** DNSKEY or DS records (presentation form): with them Unbound validates (DNSSEC). */
  trustAnchors: readonly string[] = [],
): Promise<Daemon> {
  const dir = daemonDir('unbound');
  const validating = trustAnchors.length > 0;
  const conf = path.join(dir, 'unbound.conf');
  writeConf(
    conf,
    `server:
  interface: 127.0.0.1
  port: ${port}
${unboundServerLines(dir)}  do-not-query-localhost: no
  module-config: "${validating ? 'validator iterator' : 'iterator'}"
${trustAnchors.map((a) => `  trust-anchor: "${a.replace(/\s+/g, ' ')}"\n`).join('')}  local-zone: "test." nodefault
  harden-referral-path: no
  qname-minimisation: yes
  val-log-level: 0
remote-control:
  control-enable: no
${stubs.map((s) => `stub-zone:\n  name: "${s.origin}"\n  stub-addr: ${s.host}@${s.port}\n`).join('')}`,
  );
  const { child, daemon } = launch('unbound', unbound, ['-d', '-c', conf], dir, '127.0.0.1', port);
  return waitReady(daemon, child, probe, 'NAPTR');
}
