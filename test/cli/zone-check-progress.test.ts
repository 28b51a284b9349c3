/**
 * Regression (issue 31 item 22): `zone check` was silent for its last 3.5 s
 * on 300,000 records (the progress line covered the reading only). On a
 * terminal it now says when validation and lint start and ends with the
 * time of each phase; standard output and a non-terminal stay as they were.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';

const dir = mkdtempSync(join(tmpdir(), 'lexroute-check-progress-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = join(dir, 'progress.example.zone');
const lines = [
  '$TTL 300',
  '@ IN SOA ns1 hostmaster 1 3600 600 86400 300',
  '@ IN NS ns1',
  'ns1 IN A 192.0.2.1',
];
for (let i = 0; i < 5000; i++) lines.push(`h${i} IN A 192.0.2.${i % 250}`);
writeFileSync(file, `${lines.join('\n')}\n`);

describe('zone check progress', () => {
  it('on a terminal: the read, then validation and lint announced, then the time of each', async () => {
    const io = captureIo();
    const code = await run(['zone', 'check', file], { ...io, errIsTTY: true });
    expect(code).toBe(0);
    const err = io.stderr();
    expect(err).toMatch(/progress\.example\.zone: read in [\d.]+ s; validating and linting/);
    expect(err).toMatch(
      /progress\.example\.zone: checked in [\d.]+ s \(read [\d.]+ s, validation and lint [\d.]+ s\)\x1b\[K\n$/,
    );
    expect(io.stdout()).toMatch(/^1 file, 5003 records, 1 zone loaded: 0 errors/m);
  });

  it('not on a terminal: nothing on standard error, the same summary', async () => {
    const io = captureIo();
    expect(await run(['zone', 'check', file], io)).toBe(0);
    expect(io.stderr()).toBe('');
    expect(io.stdout()).toMatch(/^1 file, 5003 records, 1 zone loaded: 0 errors/m);
  });
});
