/**
 * BIND and Knot started as primaries of lexroute's secondary zones on
 * loopback ports: each serves one zone from a file the test rewrites,
 * reloads it on SIGHUP (computing the IXFR difference from the files:
 * BIND's ixfr-from-differences, Knot's zonefile-load: difference), and
 * NOTIFYs lexroute's port unless `notify` is off.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { daemonDir, knotHead, launch, waitReady, writeConf, type Daemon } from '../e2e/daemons.ts';

export interface TsigKeyText {
  readonly name: string;
  readonly algorithm: string;
  readonly secret: string;
}

export interface PrimaryOptions {
  readonly origin: string;
  readonly text: string;
  /** lexroute's port (NOTIFY target); undefined: no NOTIFY. */
  readonly notifyPort?: number;
  /** A key transfers and NOTIFY must be signed with. */
  readonly key?: TsigKeyText;
}

export interface RunningPrimary extends Daemon {
  /** Rewrite the zone file and reload it (SIGHUP). */
  change(text: string): void;
}

function withChange(d: Daemon, child: ChildProcess, file: string): RunningPrimary {
  return {
    ...d,
    change(text: string) {
      writeFileSync(file, text);
      chmodSync(file, 0o666);
      child.kill('SIGHUP');
    },
  };
}

/** BIND 9 as the primary of one zone. */
export async function startBindPrimary(
  named: string,
  port: number,
  o: PrimaryOptions,
): Promise<RunningPrimary> {
  const dir = daemonDir('named-primary');
  const file = path.join(dir, 'primary.db');
  writeFileSync(file, o.text);
  chmodSync(file, 0o666);
  const k = o.key;
  const keyRef = k ? ` key "${k.name}"` : '';
  const notify =
    o.notifyPort !== undefined
      ? `notify explicit; also-notify { 127.0.0.1 port ${o.notifyPort}${keyRef}; };`
      : 'notify no;';
  writeConf(
    path.join(dir, 'named.conf'),
    `options {
  directory "${dir}";
  pid-file none;
  listen-on port ${port} { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  notify-source 127.0.0.1;
  session-keyfile "${dir}/session.key";
  managed-keys-directory "${dir}";
  ixfr-from-differences yes;
  notify-delay 0;
};
controls { };
${k ? `key "${k.name}" { algorithm ${k.algorithm}; secret "${k.secret}"; };\n` : ''}zone "${o.origin}" {
  type primary;
  file "${file}";
  ${notify}
  allow-transfer { ${k ? `key "${k.name}"` : '127.0.0.1'}; };
};
`,
  );
  const { child, daemon } = launch(
    'named',
    named,
    ['-g', '-n', '1', '-c', path.join(dir, 'named.conf')],
    dir,
    '127.0.0.1',
    port,
  );
  return withChange(await waitReady(daemon, child, o.origin, 'SOA'), child, file);
}

/** Knot DNS as the primary of one zone. */
export async function startKnotPrimary(
  knotd: string,
  port: number,
  o: PrimaryOptions,
): Promise<RunningPrimary> {
  const dir = daemonDir('knot-primary');
  const file = path.join(dir, 'primary.zone');
  mkdirSync(path.join(dir, 'db'), { mode: 0o777 });
  chmodSync(path.join(dir, 'db'), 0o777);
  writeFileSync(file, o.text);
  chmodSync(file, 0o666);
  const k = o.key;
  writeConf(
    path.join(dir, 'knot.conf'),
    `${knotHead(dir, '127.0.0.1', port)}${k ? `key:\n  - id: ${k.name}\n    algorithm: ${k.algorithm}\n    secret: ${k.secret}\n` : ''}remote:
  - id: lexroute
    address: 127.0.0.1@${o.notifyPort ?? 9}
${k ? `    key: ${k.name}\n` : ''}acl:
  - id: transfer
    address: 127.0.0.1
    action: transfer
${k ? `    key: ${k.name}\n` : ''}template:
  - id: default
    storage: "${dir}"
    zonefile-sync: -1
    zonefile-load: difference
    journal-content: changes
zone:
  - domain: "${o.origin}"
    file: "${file}"
    acl: transfer
${o.notifyPort !== undefined ? '    notify: lexroute\n' : ''}`,
  );
  const { child, daemon } = launch(
    'knotd',
    knotd,
    ['-c', path.join(dir, 'knot.conf')],
    dir,
    '127.0.0.1',
    port,
  );
  return withChange(await waitReady(daemon, child, o.origin, 'SOA'), child, file);
}
