/**
 * Regression (issue 31 item 15):
 * - `zone build` reported one table mistake per run (a table with four took
 *   five runs): every part is read on its own and all mistakes come at once;
 * - `zone diff OLD NEW` took the origin of `pt.old.zone` from its file name
 *   over the file's own `$ORIGIN` (then two noise errors).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRoutingTable } from '../../src/routes/table.ts';
import { run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';

const dir = mkdtempSync(join(tmpdir(), 'lexroute-item15-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Four mistakes in four different parts, one per line. */
const FOUR = `zone: lex.example.br.
ttl: -5
ns:
  - { name: ns1.lex.example.br., address: 192.0.2.1 }
routes:
  - prefix: br;sao.paulo
    zone: lex.sp.gov.br.
    colour: red
  - prefix: br;rio
    zone: not a name!
  - prefix: br;bahia
    zone: lex.ba.gov.br.
default:
  url: http://d.example/{urn}
  flag: X
`;

describe('zone build: every table mistake in one run', () => {
  it('readRoutingTable reports the four mistakes, each at its line', () => {
    const r = readRoutingTable(FOUR);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const got = r.diagnostics.map((d) => [d.position.line, d.code]);
    expect(got.map(([line]) => line).sort((a, b) => Number(a) - Number(b))).toEqual([2, 8, 10, 15]);
    expect(new Set(r.diagnostics.map((d) => d.severity))).toEqual(new Set(['error']));
    expect(got).toContainEqual([8, 'TABLE_UNKNOWN_KEY']);
    expect(got).toContainEqual([2, 'TABLE_BAD_NUMBER']);
  });

  it('a good table still reads, and the CLI prints all four in one run', async () => {
    const good = FOUR.replace('ttl: -5', 'ttl: 60')
      .replace('    colour: red\n', '')
      .replace('not a name!', 'lex.rj.gov.br.')
      .replace('  flag: X\n', '');
    const ok = readRoutingTable(good);
    expect(ok.ok).toBe(true);
    if (ok.ok) expect(ok.table.routes.length).toBe(3);
    const file = join(dir, 'four.yaml');
    writeFileSync(file, FOUR);
    const io = captureIo({ cwd: dir });
    expect(await run(['zone', 'build', file], io)).toBe(1);
    const lines = io.stderr().trim().split('\n');
    for (const at of [':2:', ':8:', ':10:', ':15:']) {
      expect(
        lines.some((l) => l.includes(`four.yaml${at}`)),
        at,
      ).toBe(true);
    }
  });
});

describe("zone diff: the file's own $ORIGIN wins over its name", () => {
  const zone = (serial: number, address: string) =>
    `; an old copy kept beside the new one\n$ORIGIN pt.\n$TTL 300\n` +
    `@ IN SOA ns1 hostmaster ${serial} 3600 600 86400 300\n@ IN NS ns1\nns1 IN A ${address}\n`;

  it('pt.old.zone and pt.new.zone (both $ORIGIN pt.) diff as the zone pt. without noise', async () => {
    const oldFile = join(dir, 'pt.old.zone');
    const newFile = join(dir, 'pt.new.zone');
    writeFileSync(oldFile, zone(1, '192.0.2.1'));
    writeFileSync(newFile, zone(2, '192.0.2.2'));
    const io = captureIo({ cwd: dir });
    expect(await run(['zone', 'diff', oldFile, newFile], io)).toBe(0);
    expect(io.stderr()).toBe('');
    expect(io.stdout().split('\n')).toEqual([
      '; pt. serial 1 -> 2: 1 deleted, 1 added',
      '; deleted',
      'pt. 300 IN SOA ns1.pt. hostmaster.pt. 1 3600 600 86400 300',
      'ns1.pt. 300 IN A 192.0.2.1',
      '; added',
      'pt. 300 IN SOA ns1.pt. hostmaster.pt. 2 3600 600 86400 300',
      'ns1.pt. 300 IN A 192.0.2.2',
      '',
    ]);
  });

  it('--origin still wins over both; without $ORIGIN the file name gives it', async () => {
    const a = join(dir, 'x.example.zone');
    const b = join(dir, 'x.example.new');
    const body = (s: number) =>
      `$TTL 60\n@ IN SOA ns1 h ${s} 3600 600 86400 300\n@ IN NS ns1\nns1 IN A 192.0.2.9\n`;
    writeFileSync(a, body(1));
    writeFileSync(b, body(2));
    const io = captureIo({ cwd: dir });
    expect(await run(['zone', 'diff', a, b, '--origin', 'x.example.'], io)).toBe(0);
    expect(io.stdout()).toContain('; x.example. serial 1 -> 2');
  });
});
