/**
 * `serve` loads HTTP only when it serves HTTP (issue 30, memory over many
 * zones): importing `node:http` made Node 24 load its own fetch (undici),
 * 38 ms and 16 MB resident in every server. Without `--metrics` and
 * `--doh`, neither is loaded; with `--metrics`, both are (the check is not
 * vacuous). Read from the server process itself: a preloaded module
 * reports Node's list of loaded built-in modules on SIGUSR2.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/lexroute.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'lexroute-footprint-'));
const zone = join(dir, 'lex.urn.arpa.zone');
writeFileSync(
  zone,
  '$ORIGIN lex.urn.arpa.\n@ 300 SOA ns hm 1 3600 600 86400 300\n@ 300 NS ns\nns 300 A 127.0.0.1\n',
);
const report = join(dir, 'report.cjs');
writeFileSync(
  report,
  "process.on('SIGUSR2', () => process.stderr.write('MODULES ' + JSON.stringify(process.moduleLoadList) + '\\n'));\n",
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The built-in modules a `serve` started with `extra` has loaded once ready. */
async function modulesOfServe(extra: string[]): Promise<string[]> {
  const args = ['serve', '--zones', zone, '--listen', '127.0.0.1:0', ...extra];
  const child = spawn(process.execPath, ['--require', report, BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const until = async (what: string) => {
    const end = Date.now() + 20_000;
    while (!out.includes(what)) {
      if (Date.now() > end || child.exitCode !== null) throw new Error(`no ${what}: ${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  try {
    await until('"event":"ready"');
    child.kill('SIGUSR2');
    await until('MODULES ');
    const line = out.slice(out.indexOf('MODULES ') + 8).split('\n')[0]!;
    return JSON.parse(line) as string[];
  } finally {
    child.kill('SIGTERM');
  }
}

const loaded = (mods: string[], name: string) => mods.includes(`NativeModule ${name}`);

describe('what serve loads', () => {
  it('without --metrics or --doh: no node:http, no Node fetch (undici)', async () => {
    const mods = await modulesOfServe([]);
    expect(loaded(mods, 'dgram')).toBe(true);
    expect(loaded(mods, 'http')).toBe(false);
    expect(loaded(mods, 'internal/deps/undici/undici')).toBe(false);
  });

  it('with --metrics: node:http is loaded', async () => {
    const mods = await modulesOfServe(['--metrics', '127.0.0.1:0']);
    expect(loaded(mods, 'http')).toBe(true);
  });
});
