/**
 * `serve` loads HTTP only when it serves HTTP (issue 30, memory over many
 * zones): importing `node:http` made Node 24 load its own fetch (undici),
 * 38 ms and 16 MB resident in every server. Without `--metrics` and
 * `--doh`, neither is loaded; with `--metrics`, both are (the check is not
 * vacuous). Read from the server process itself: a preloaded module
 * reports Node's list of loaded built-in modules on SIGUSR2.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { minimalZoneFolder, startServeChild } from '../helpers/serve-process.ts';

const folder = minimalZoneFolder('lexroute-footprint-');
const report = join(folder.dir, 'report.cjs');
writeFileSync(
  report,
  "process.on('SIGUSR2', () => process.stderr.write('MODULES ' + JSON.stringify(process.moduleLoadList) + '\\n'));\n",
);
afterAll(() => folder.remove());

/** The built-in modules a `serve` started with `extra` has loaded once ready. */
async function modulesOfServe(extra: string[]): Promise<string[]> {
  const served = await startServeChild(folder.zone, ['--require', report], extra);
  try {
    served.child.kill('SIGUSR2');
    await served.until('MODULES ');
    const out = served.output();
    return JSON.parse(out.slice(out.indexOf('MODULES ') + 8).split('\n')[0]!) as string[];
  } finally {
    served.child.kill('SIGTERM');
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
