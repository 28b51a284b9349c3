/**
 * The sample zones are valid: `lexroute zone check` is clean on every one
 * (their `; expect` vectors included), BIND's named-checkzone accepts every
 * one, and config/dev.json serves each zone file of zones/ exactly once.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { loadZoneFile } from '../../src/authority/zones/load.ts';
import { captureIo } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { devConfig, REPO } from './helpers.ts';

const exec = promisify(execFile);
const ZONES = path.join(REPO, 'zones');
const config = devConfig();

/** Every zone of the deployment and the documented example, with its origin. */
const ALL: { file: string; origin: string }[] = [
  ...config.dns.flatMap((d) =>
    d.zones.map((z) => ({
      file: path.join(REPO, z.file),
      origin: z.origin ?? `${path.basename(z.file).replace(/\.zone$/, '')}.`,
    })),
  ),
  { file: path.join(ZONES, 'examples/variant-a/nic.it.zone'), origin: 'nic.it.' },
];

describe('zones/', () => {
  it('lexroute zone check zones: clean, expect vectors verified', async () => {
    const io = captureIo({ cwd: REPO });
    const code = await run(['zone', 'check', '--strict', 'zones'], io);
    expect(io.stdout() + io.stderr()).toMatch(
      /11 files, \d+ records, 11 zones loaded: 0 errors, 0 warnings/,
    );
    expect(code).toBe(0);
  });

  it('the root zone and the variant A example check clean too', async () => {
    for (const [args, origin] of [
      [['--origin', '.', 'zones/root/root.zone'], '.'],
      [['zones/examples/variant-a'], 'nic.it.'],
    ] as const) {
      const io = captureIo({ cwd: REPO });
      const code = await run(['zone', 'check', '--strict', ...args], io);
      expect(io.stdout() + io.stderr(), origin).toMatch(/0 errors, 0 warnings/);
      expect(code).toBe(0);
    }
  });

  it('every LEX zone carries expect vectors, and each is verified', async () => {
    for (const z of ALL) {
      if (z.origin === '.') continue; // the root holds delegations only, no NAPTR to test
      const r = await loadZoneFile(z.file, { origin: z.origin });
      expect(r.expects.length, z.file).toBeGreaterThanOrEqual(1);
    }
  });

  it('config/dev.json serves every zones/*.zone file once, and the root', () => {
    const served = config.dns.flatMap((d) => d.zones.map((z) => z.file));
    const files = readdirSync(ZONES)
      .filter((f) => f.endsWith('.zone'))
      .map((f) => `zones/${f}`);
    expect([...served].sort()).toEqual([...files, 'zones/root/root.zone'].sort());
  });

  const checkzone = toolOrSkip('named-checkzone');
  it.skipIf(!checkzone.path)(
    `named-checkzone accepts every sample zone ${checkzone.skipReason ?? ''}`,
    async () => {
      for (const z of ALL) {
        const { stdout } = await exec(checkzone.path!, [
          '-k',
          'fail',
          '-n',
          'fail',
          z.origin,
          z.file,
        ]);
        expect(stdout, z.file).toMatch(/\nOK\s*$/);
      }
    },
  );
});
