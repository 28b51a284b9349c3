/**
 * NSD, Knot and BIND started as secondaries of a primary on loopback ports:
 * each pulls its zones by AXFR at start, takes NOTIFY from the primary's
 * address and then transfers by IXFR. These configurations are the ones the
 * README's production layout shows.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  daemonDir,
  knotHead,
  launch,
  nsdServerConf,
  waitReady,
  writeConf,
  type Daemon,
} from '../e2e/daemons.ts';

export interface Primary {
  readonly host: string;
  readonly port: number;
  /** A TSIG key the secondary signs its requests with (and expects on NOTIFY). */
  readonly key?: { readonly name: string; readonly algorithm: string; readonly secret: string };
  /** The addresses NOTIFY is accepted from (NSD's allow-notify); default: the primary's host. */
  readonly notifyFrom?: readonly string[];
}

/** NSD as a secondary of `primary` for `origins`, on host:port. */
export async function startNsdSecondary(
  nsd: string,
  host: string,
  port: number,
  primary: Primary,
  origins: readonly string[],
): Promise<Daemon> {
  const dir = daemonDir('nsd-secondary');
  const k = primary.key;
  const keyName = k ? k.name : 'NOKEY';
  writeConf(
    path.join(dir, 'nsd.conf'),
    `${nsdServerConf(dir, host, port, ['verbosity: 2', 'xfrd-reload-timeout: 0'])}
${k ? `key:\n  name: "${k.name}"\n  algorithm: ${k.algorithm}\n  secret: "${k.secret}"\n` : ''}${origins
      .map(
        (o) =>
          `zone:\n  name: "${o}"\n  zonefile: "${dir}/${o}zone"\n  request-xfr: ${primary.host}@${primary.port} ${keyName}\n${(primary.notifyFrom ?? [primary.host]).map((a) => `  allow-notify: ${a} ${keyName}\n`).join('')}`,
      )
      .join('')}`,
  );
  const { child, daemon } = launch(
    'nsd',
    nsd,
    ['-d', '-c', path.join(dir, 'nsd.conf')],
    dir,
    host,
    port,
  );
  return withLog(await waitReady(daemon, child, origins[0]!, 'SOA'), path.join(dir, 'nsd.log'));
}

/** Knot DNS as a secondary. */
export async function startKnotSecondary(
  knotd: string,
  host: string,
  port: number,
  primary: Primary,
  origins: readonly string[],
): Promise<Daemon> {
  const dir = daemonDir('knot-secondary');
  // Knot keeps its journal (IXFR changes) in the database storage, which must exist.
  mkdirSync(path.join(dir, 'db'), { mode: 0o777 });
  chmodSync(path.join(dir, 'db'), 0o777);
  const k = primary.key;
  writeConf(
    path.join(dir, 'knot.conf'),
    `${knotHead(dir, host, port)}${k ? `key:\n  - id: ${k.name}\n    algorithm: ${k.algorithm}\n    secret: ${k.secret}\n` : ''}remote:
  - id: primary
    address: ${primary.host}@${primary.port}
${k ? `    key: ${k.name}\n` : ''}acl:
  - id: notify_from_primary
    address: ${primary.host}
    action: notify
${k ? `    key: ${k.name}\n` : ''}template:
  - id: default
    storage: "${dir}"
    zonefile-sync: -1
zone:
${origins.map((o) => `  - domain: "${o}"\n    master: primary\n    acl: notify_from_primary\n`).join('')}`,
  );
  const { child, daemon } = launch(
    'knotd',
    knotd,
    ['-c', path.join(dir, 'knot.conf')],
    dir,
    host,
    port,
  );
  return waitReady(daemon, child, origins[0]!, 'SOA');
}

/** BIND 9 as a secondary. */
export async function startBindSecondary(
  named: string,
  host: string,
  port: number,
  primary: Primary,
  origins: readonly string[],
): Promise<Daemon> {
  const dir = daemonDir('named-secondary');
  const k = primary.key;
  const keyRef = k ? ` key "${k.name}"` : '';
  writeConf(
    path.join(dir, 'named.conf'),
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
};
controls { };
${k ? `key "${k.name}" { algorithm ${k.algorithm}; secret "${k.secret}"; };\n` : ''}${origins
      .map(
        (o, i) =>
          `zone "${o}" { type secondary; primaries { ${primary.host} port ${primary.port}${keyRef}; }; file "${dir}/sec${i}.db"; allow-notify { ${primary.host}; }; };`,
      )
      .join('\n')}
`,
  );
  const { child, daemon } = launch(
    'named',
    named,
    ['-g', '-n', '1', '-c', path.join(dir, 'named.conf')],
    dir,
    host,
    port,
  );
  return waitReady(daemon, child, origins[0]!, 'SOA');
}

/** NSD writes its log to a file: output() reads it. */
function withLog(d: Daemon, file: string): Daemon {
  return {
    ...d,
    output: () => {
      try {
        return readFileSync(file, 'utf8');
      } catch {
        return d.output();
      }
    },
  };
}

/** NSD, Knot and BIND as secondaries of `primary` on 127.0.0.1 at `ports` (in that order). */
export function startAllSecondaries(
  bins: { nsd: string; knotd: string; named: string },
  ports: readonly number[],
  primary: Primary,
  origins: readonly string[],
): Promise<Daemon[]> {
  return Promise.all([
    startNsdSecondary(bins.nsd, '127.0.0.1', ports[0]!, primary, origins),
    startKnotSecondary(bins.knotd, '127.0.0.1', ports[1]!, primary, origins),
    startBindSecondary(bins.named, '127.0.0.1', ports[2]!, primary, origins),
  ]);
}

/** Tear-down of a transfer test: the secondaries, then the server, then its folder. */
export async function stopAll(
  daemons: readonly Daemon[],
  server: { close(): Promise<unknown> } | undefined,
  dir: string | undefined,
): Promise<void> {
  await Promise.all(daemons.map((d) => d.close()));
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
