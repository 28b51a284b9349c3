/**
 * Run BIND 9 (`named -g`) for oracle tests: generated configuration, a free
 * loopback port, an unprivileged process (uid/gid 65534 when we are root),
 * readiness by query, and a kill in close().
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildQuery, udpRaw } from './harness.ts';

export interface NamedZone {
  readonly origin: string;
  readonly file: string;
}

export interface RunningNamed {
  readonly port: number;
  readonly dir: string;
  close(): Promise<void>;
  output(): string;
}

/** A port free for both TCP and UDP on 127.0.0.1. */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = net.createServer();
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const dgram = await import('node:dgram');
    const ok = await new Promise<boolean>((resolve) => {
      const u = dgram.createSocket('udp4');
      u.once('error', () => resolve(false));
      u.bind(port, '127.0.0.1', () => u.close(() => resolve(true)));
    });
    if (ok) return port;
  }
  throw new Error('no free port');
}

export async function startNamed(
  namedPath: string,
  zones: readonly NamedZone[],
  extraOptions = '',
): Promise<RunningNamed> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-named-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const zoneStanzas = zones
    .map((z, i) => {
      const local = path.join(dir, `zone${i}.db`);
      copyFileSync(z.file, local);
      chmodSync(local, 0o644);
      return `zone "${z.origin}" { type primary; file "${local}"; check-names ignore; };`;
    })
    .join('\n');
  const conf = `options {
  directory "${dir}";
  pid-file none;
  listen-on port ${port} { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  notify no;
  minimal-responses no-auth;
  session-keyfile "${dir}/session.key";
  managed-keys-directory "${dir}";
  ${extraOptions}
};
${zoneStanzas}
`;
  const confFile = path.join(dir, 'named.conf');
  writeFileSync(confFile, conf);
  chmodSync(confFile, 0o644);
  const asRoot = process.getuid?.() === 0;
  let out = '';
  const child: ChildProcess = spawn(namedPath, ['-g', '-n', '1', '-c', confFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready when the first zone answers.
  const probe = buildQuery(zones[0]!.origin, 'SOA');
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) break;
    const r = await udpRaw(port, probe, 100);
    if (r && (r.readUInt16BE(2) & 0xf) === 0) return { port, dir, close, output: () => out };
  }
  await close();
  throw new Error(`named did not start:\n${out}`);
}
