/**
 * Issue 31 item 9: the DoH client (`lexroute resolve --doh`) against BIND's
 * and Unbound's DoH listeners, which speak HTTP/2 only, plain (h2c by prior
 * knowledge, found without any flag after HTTP/1.1 is refused) and over TLS
 * (h2 by ALPN, with a throwaway self-signed certificate made by openssl in
 * the test's folder and trusted through NODE_EXTRA_CA_CERTS), GET and POST;
 * and against `lexroute serve --doh` (HTTP/1.1) for the same chain, with the
 * same result. The client runs as the CLI, a child process, as a user runs it.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePortOnAll } from '../../src/dev/ports.ts';
import {
  daemonDir,
  launch,
  startBind,
  unboundServerLines,
  waitReady,
  writeConf,
  type Daemon,
} from '../e2e/daemons.ts';
import { selfSignedLoopbackCert } from '../helpers/tls.ts';
import { CHAIN_RESOLVER, CHAIN_URN, CHAIN_ZONES } from '../helpers/doh-chain.ts';
import { spawnServeProcess, waitForDoh } from '../helpers/serve-process.ts';
import { titled, toolOrSkip } from '../helpers/tools.ts';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../..');
const named = toolOrSkip('named');
const unbound = toolOrSkip('unbound');
const openssl = toolOrSkip('openssl');

let files: string;
const daemons: Daemon[] = [];
let serve: ChildProcess | undefined;

/** Zone files of the chain and a self-signed certificate for 127.0.0.1, world-readable. */
function prepare(): void {
  files = mkdtempSync(path.join(os.tmpdir(), 'lexroute-doh-interop-'));
  chmodSync(files, 0o755);
  for (const [origin, text] of Object.entries(CHAIN_ZONES)) {
    writeFileSync(path.join(files, `${origin}.zone`), text);
  }
  selfSignedLoopbackCert(openssl.path as string, files);
  for (const f of ['key.pem', 'cert.pem']) chmodSync(path.join(files, f), 0o644);
}

async function ports(n: number): Promise<number[]> {
  const out: number[] = [];
  while (out.length < n) {
    const p = await freePortOnAll(['127.0.0.1']);
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

/** BIND, authoritative for the chain: DNS on `dns`, plain DoH on `plain`, DoH over TLS on `tls`. */
function startBindDoh(dns: number, plain: number, tls: number): Promise<Daemon> {
  const zones = Object.keys(CHAIN_ZONES).map((origin) => ({
    origin,
    file: path.join(files, `${origin}.zone`),
  }));
  return startBind(named.path as string, '127.0.0.1', dns, zones, {
    options:
      `  listen-on port ${plain} tls none http local { 127.0.0.1; };\n` +
      `  listen-on port ${tls} tls local-tls http local { 127.0.0.1; };\n`,
    top:
      `tls local-tls { cert-file "${files}/cert.pem"; key-file "${files}/key.pem"; };\n` +
      'http local { endpoints { "/dns-query"; }; };',
  });
}

/** Unbound, authoritative for the chain (auth-zone), DoH on `https` (plain or TLS). */
async function startUnboundDoh(dns: number, https: number, tls: boolean): Promise<Daemon> {
  const dir = daemonDir('unbound-doh');
  const conf = path.join(dir, 'unbound.conf');
  writeConf(
    conf,
    `server:
  interface: 127.0.0.1@${dns}
  interface: 127.0.0.1@${https}
  https-port: ${https}
  ${tls ? `tls-service-key: "${files}/key.pem"\n  tls-service-pem: "${files}/cert.pem"` : 'http-notls-downstream: yes'}
${unboundServerLines(dir)}remote-control:
  control-enable: no
${Object.keys(CHAIN_ZONES)
  .map(
    (o) =>
      `auth-zone:\n  name: "${o}"\n  zonefile: "${files}/${o}.zone"\n  for-downstream: yes\n  for-upstream: no\n`,
  )
  .join('')}`,
  );
  const { child, daemon } = launch(
    'unbound',
    unbound.path as string,
    ['-d', '-c', conf],
    dir,
    '127.0.0.1',
    dns,
  );
  return waitReady(daemon, child, 'urn.arpa', 'SOA');
}

/** `lexroute resolve CHAIN_URN --doh URL --no-http --json` as a user runs it. */
async function resolve(url: string, post: boolean): Promise<Record<string, unknown>> {
  const args = [
    path.join(REPO, 'bin/lexroute.js'),
    'resolve',
    CHAIN_URN,
    '--doh',
    url,
    '--no-http',
    '--json',
  ];
  if (post) args.push('--doh-post');
  try {
    const { stdout } = await run(process.execPath, args, {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: path.join(files, 'cert.pem') },
      timeout: 20_000,
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    throw new Error(`resolve --doh ${url} failed: ${err.stderr ?? ''}${err.stdout ?? ''}`, {
      cause: e,
    });
  }
}

const skip = named.skipReason ?? unbound.skipReason ?? openssl.skipReason;
const endpoints: { name: string; url: string }[] = [];

beforeAll(async () => {
  if (skip) return;
  prepare();
  const [bDns, bPlain, bTls, uDns, uPlain, uDns2, uTls, sDns, sDoh] = await ports(9);
  daemons.push(await startBindDoh(bDns!, bPlain!, bTls!));
  daemons.push(await startUnboundDoh(uDns!, uPlain!, false));
  daemons.push(await startUnboundDoh(uDns2!, uTls!, true));
  serve = spawnServeProcess(files, `127.0.0.1:${sDns}`, `127.0.0.1:${sDoh}`);
  await waitForDoh(sDoh!);
  endpoints.push(
    { name: 'lexroute serve --doh (HTTP/1.1)', url: `http://127.0.0.1:${sDoh}/dns-query` },
    { name: 'BIND, plain (h2c)', url: `http://127.0.0.1:${bPlain}/dns-query` },
    { name: 'BIND, TLS (h2 by ALPN)', url: `https://127.0.0.1:${bTls}/dns-query` },
    { name: 'Unbound, plain (h2c)', url: `http://127.0.0.1:${uPlain}/dns-query` },
    { name: 'Unbound, TLS (h2 by ALPN)', url: `https://127.0.0.1:${uTls}/dns-query` },
  );
}, 60_000);

afterAll(async () => {
  serve?.kill('SIGTERM');
  await Promise.all(daemons.map((d) => d.close()));
  if (files) rmSync(files, { recursive: true, force: true });
});

describe.skipIf(skip !== undefined)(
  titled('lexroute resolve --doh against BIND and Unbound (issue 31 item 9)', { skipReason: skip }),
  () => {
    it('walks the chain through every endpoint, GET and POST, to the same resolver URL', async () => {
      const results: string[] = [];
      for (const e of endpoints) {
        for (const post of [false, true]) {
          const r = await resolve(e.url, post);
          results.push(
            `${e.name} ${post ? 'POST' : 'GET'}: ${String(r.resolverUrl ?? JSON.stringify(r))}`,
          );
        }
      }
      expect(results).toEqual(
        endpoints.flatMap((e) => [
          `${e.name} GET: ${CHAIN_RESOLVER}`,
          `${e.name} POST: ${CHAIN_RESOLVER}`,
        ]),
      );
    }, 120_000);
  },
);
