/**
 * `lexroute serve` as a child process of this checkout, through
 * bin/lexroute.js (as an operator runs it, with its own memory and CPU to
 * measure from /proc). `spawnServeProcess`: UDP/TCP on `listen`, and a plain
 * DoH endpoint on `doh` when given (tests and bench/doh.ts).
 * `startServeChild`: over a one-zone folder, with node options of the
 * test's choosing, once ready (tests that read the server process itself:
 * its command line, its modules).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';

const BIN = path.resolve(import.meta.dirname, '../../bin/lexroute.js');

export function spawnServeProcess(zones: string, listen: string, doh?: string): ChildProcess {
  return spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--zones',
      zones,
      '--listen',
      listen,
      ...(doh === undefined ? [] : ['--doh', doh]),
      '--log-level',
      'error',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
}

/** A NAPTR query for lex.urn.arpa, ID 0, base64url (a DoH GET's `dns` parameter). */
const PROBE = 'AAABAAABAAAAAAAAA2xleAN1cm4EYXJwYQAAIwAB';

/** Wait until the plain DoH endpoint on `port` answers (HTTP 200); throw after 10 s. */
export async function waitForDoh(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/dns-query?dns=${PROBE}`);
      await r.arrayBuffer();
      if (r.status === 200) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`lexroute serve --doh on port ${port} did not answer`);
}

/** A temporary folder holding a minimal `lex.urn.arpa.` zone; `remove` deletes it. */
export function minimalZoneFolder(prefix: string): { dir: string; zone: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const zone = join(dir, 'lex.urn.arpa.zone');
  writeFileSync(
    zone,
    '$ORIGIN lex.urn.arpa.\n@ 300 SOA ns hm 1 3600 600 86400 300\n@ 300 NS ns\nns 300 A 127.0.0.1\n',
  );
  return { dir, zone, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ServeChild {
  readonly child: ChildProcess;
  /** Standard output and error so far. */
  output(): string;
  /** Resolves once the output holds `what`; throws after 20 s or if the server exited. */
  until(what: string): Promise<void>;
}

/** `node NODEARGS bin/lexroute.js serve --zones ZONE --listen 127.0.0.1:0 EXTRA`, ready. */
export async function startServeChild(
  zone: string,
  nodeArgs: readonly string[] = [],
  extra: readonly string[] = [],
): Promise<ServeChild> {
  const args = [...nodeArgs, BIN, 'serve', '--zones', zone, '--listen', '127.0.0.1:0', ...extra];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const until = async (what: string) => {
    const end = Date.now() + 20_000;
    while (!out.includes(what)) {
      if (Date.now() > end || child.exitCode !== null) throw new Error(`no ${what}: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const served = { child, output: () => out, until };
  try {
    await until('"event":"ready"');
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return served;
}
