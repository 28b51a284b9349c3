/**
 * The programs of examples/ run as a user runs them (`node examples/x.ts`,
 * as child processes), importing `lexroute/...` through the package's exports
 * map (the `lexroute-source` condition maps it to src/ in the checkout; the
 * packaging test runs the same files against the installed tarball).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_ZONES, startTestServer, type Harness } from '../server/harness.ts';
import { feedStdin } from '../helpers/io.ts';

const REPO = path.resolve(import.meta.dirname, '../..');

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run examples/<name> with `args`, optionally feeding `stdin`. */
function example(name: string, args: readonly string[], stdin?: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=lexroute-source', path.join(REPO, 'examples', name), ...args],
      { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    feedStdin(child.stdin, stdin ?? '');
  });
}

describe('examples/', () => {
  let dns: Harness;
  let tmp: string;
  beforeAll(async () => {
    dns = await startTestServer([SAMPLE_ZONES]);
    tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-examples-'));
  });
  afterAll(async () => {
    await dns?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('resolve-with-trace.ts follows the sample chain and prints every step', async () => {
    const urn = 'urn:lex:br;sao.paulo:estadual:lei:1998-12-30;10177~art1';
    const r = await example('resolve-with-trace.ts', [
      urn,
      '--server',
      `127.0.0.1:${dns.port}`,
      '--no-http',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('step 1  NAPTR lex.urn.arpa.');
    expect(r.stdout).toMatch(/step \d+ {2}NAPTR lex\.sao-paulo\.gov\.br\./);
    // --no-http: the last line is the resolver URL the terminal rule produced.
    const last = r.stdout.trim().split('\n').at(-1);
    expect(last).toMatch(
      /^http:\/\/.*\/uri-res\/N2L\?urn:lex:br;sao\.paulo:estadual:lei:1998-12-30;10177~art1$/,
    );
  });

  it('resolve-with-trace.ts prints the trace and the code of a failure', async () => {
    const r = await example('resolve-with-trace.ts', [
      'urn:lex:fr:etat:loi:2004-05-15;106',
      '--server',
      `127.0.0.1:${dns.port}`,
      '--no-http',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^DNS_NXDOMAIN: /);
    expect(r.stdout).toContain('fr.lex-routing.nic.it');
  });

  it('normalize-batch.ts prints the canonical form or the errors of each line', async () => {
    const r = await example(
      'normalize-batch.ts',
      [],
      'URN:LEX:IT:Stato:Legge:2000-04-03;56~art1\n\n# a comment\nurn:lex:it:stato:legge:2000-04;56\n',
    );
    expect(r.code).toBe(1);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      canonical: 'urn:lex:it:stato:legge:2000-04-03;56~art1',
      partition: 'art1',
    });
    expect(lines[0]!.changes).toContain('case-fold');
    expect(lines[1]).toMatchObject({ errors: [{ code: 'LEX_BAD_DATE', column: 24 }] });
  });

  it('normalize-batch.ts reads a file and exits 0 when every URN is valid', async () => {
    const file = path.join(tmp, 'urns.txt');
    writeFileSync(file, 'urn:lex:br:federal:lei:2008-06-19;11705\r\n');
    const r = await example('normalize-batch.ts', [file]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      canonical: 'urn:lex:br:federal:lei:2008-06-19;11705',
      changes: [],
    });
  });

  it('lint-zone.ts passes a sample zone and reports lint findings with positions', async () => {
    const good = await example('lint-zone.ts', [path.join(SAMPLE_ZONES, 'lex.senado.gov.br.zone')]);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/^lex\.senado\.gov\.br\. \d+ records: 0 errors, 0 warnings$/m);

    const file = path.join(tmp, 'lex.test.zone');
    writeFileSync(
      file,
      [
        '$TTL 3600',
        '@ IN SOA ns hostmaster 1 7200 900 1209600 300',
        '@ IN NS ns',
        'ns IN A 127.0.0.1',
        '@ IN NAPTR 100 10 "" "" "!urn:lex:un.org.*$!lex.un.org!i" .',
        '@ IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://127.0.0.1/uri-res/N2L?\\\\2!" .',
        '',
      ].join('\n'),
    );
    const bad = await example('lint-zone.ts', [file]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/lex\.test\.zone:5:\d+: NAPTR_UNANCHORED warning: /);
    expect(bad.stdout).toMatch(/lex\.test\.zone:5:\d+: NAPTR_UNESCAPED_DOT warning: /);
    expect(bad.stdout).toMatch(/lex\.test\.zone:6:\d+: \S+ error: /);
  });

  it('embedded-resolver.ts serves the sample catalogue and answers N2L with the partition as a fragment', async () => {
    const r = await example('embedded-resolver.ts', []);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^imported \d+ rows from .*sample-catalogue\.jsonl$/m);
    expect(r.stdout).toContain(
      'N2L urn:lex:it:stato:legge:2000-04-03;56~art1 -> 303 https://www.normattiva.it/uri-res/N2Ls?urn:nir:stato:legge:2000-04-03;56#art1',
    );
  });

  it('examples/ holds exactly the programs run above', () => {
    expect(readdirSync(path.join(REPO, 'examples')).sort()).toEqual([
      'embedded-resolver.ts',
      'lint-zone.ts',
      'normalize-batch.ts',
      'resolve-with-trace.ts',
    ]);
  });
});
