/**
 * `lexroute serve` started through bin/lexroute.js as a child process over
 * a one-zone folder, with node options of the test's choosing: for tests
 * that read the server process itself (its command line, its modules).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = new URL('../../bin/lexroute.js', import.meta.url).pathname;

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
