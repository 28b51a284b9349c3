/**
 * The CLI's one outcome-to-exit-code table (src/cli/exit.ts, issue 19):
 * every code of every table has its exit code (1 for a failure, 2 for a
 * usage error), the help and the README give the same numbers, and real
 * runs exit with them.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CODE_TABLES } from '../../scripts/code-tables.ts';
import { CLI_CODES } from '../../src/cli/codes.ts';
import { EXIT_STATUS, exitCodeOf } from '../../src/cli/exit.ts';
import { mainHelp, run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';

describe('failure to exit code (cli/exit.ts)', () => {
  it('every registered code has an exit code: 2 for USAGE, 1 for every failure', () => {
    const seen = new Map<number, number>();
    for (const t of CODE_TABLES) {
      for (const code of Object.keys(t.codes)) {
        const exit = exitCodeOf(code);
        expect(exit, code).toBe(code in CLI_CODES ? EXIT_STATUS.usage : EXIT_STATUS.failed);
        seen.set(exit, (seen.get(exit) ?? 0) + 1);
      }
    }
    expect(seen.get(EXIT_STATUS.usage)).toBe(Object.keys(CLI_CODES).length);
  });

  it('the main help and the README give the table’s exit codes', () => {
    const help = mainHelp().replace(/\s+/g, ' ');
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').replace(
      /\s+/g,
      ' ',
    );
    for (const [outcome, status] of Object.entries(EXIT_STATUS)) {
      expect(help, outcome).toMatch(new RegExp(`\\b${status} `));
      expect(readme, outcome).toMatch(new RegExp(`\\b${status} `));
    }
  });

  it('real runs exit with the table’s codes', async () => {
    const cases: [string[], number][] = [
      [['urn', 'parse', 'urn:lex:br:federal:lei:2002-01-10;10406'], EXIT_STATUS.ok],
      [['urn', 'parse', 'urn:lex:'], EXIT_STATUS.failed],
      [['urn', 'parse', '--no-such-option'], EXIT_STATUS.usage],
      [['no-such-command'], EXIT_STATUS.usage],
      [[], EXIT_STATUS.usage],
    ];
    for (const [argv, status] of cases) {
      const io = captureIo();
      expect(await run(argv, io), argv.join(' ')).toBe(status);
    }
  });

  it('a command returns EXIT_FAIL itself only where no code is at hand', () => {
    const root = new URL('../../src/cli/', import.meta.url).pathname;
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.ts') && f !== 'io.ts' && f !== 'exit.ts',
    );
    // A code within the statement or the few lines before it: a diagnostic's or
    // error's `.code`, a `code` variable, a coded list, or a code literal.
    const coded =
      /\.code\b|\bcode\b|\.codes\b|\.errors\b|\.issues\b|\.diagnostics\b|'[A-Z][A-Z0-9]*_[A-Z0-9_]*'/;
    const offenders: string[] = [];
    let sites = 0;
    for (const f of files) {
      const lines = readFileSync(join(root, f), 'utf8').split('\n');
      lines.forEach((line, i) => {
        // Returned or assigned (a comparison with a worker's exit status is neither).
        if (!/(return\b.*|[^=!]=\s*)\bEXIT_FAIL\b/.test(line) || /exitCodeOf/.test(line)) return;
        sites++;
        const window = lines.slice(Math.max(0, i - 6), i + 1).join('\n');
        if (coded.test(window)) offenders.push(`src/cli/${f}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offenders, 'use exitCodeOf(code) or exitCodeOfFailure(codes) there').toEqual([]);
    // What is left: a batch file that cannot be read, the resolver's workers failing.
    expect(sites).toBeLessThanOrEqual(3);
  });

  describe('real failures exit with exitCodeOf(the code they report)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lexroute-exit-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const soa =
      '@ 300 IN SOA ns1 host 1 7200 3600 1209600 300\n@ 300 IN NS ns1\nns1 300 IN A 192.0.2.1\n';
    writeFileSync(join(dir, 'a.zone'), `$ORIGIN a.test.\n${soa}`);
    writeFileSync(join(dir, 'b.zone'), `$ORIGIN b.test.\n${soa}`);
    writeFileSync(join(dir, 'bad.zone'), `$ORIGIN bad.test.\n${soa}x 300 IN A 999.1.2.3\n`);
    writeFileSync(join(dir, 'exists.key'), 'x');
    writeFileSync(join(dir, 'bad.json'), '{"listen": ');
    const registered = new Set(CODE_TABLES.flatMap((t) => Object.keys(t.codes)));
    const cases: string[][] = [
      ['urn', 'parse', 'urn:lex:'],
      ['urn', 'parse', '--json', 'urn:lex:br'],
      ['urn', 'normalize', 'urn:lex:'],
      ['urn', 'key', 'a..b'],
      ['zone', 'check', join(dir, 'bad.zone')],
      ['zone', 'print', join(dir, 'bad.zone')],
      ['zone', 'diff', join(dir, 'a.zone'), join(dir, 'b.zone')],
      ['zone', 'build', join(dir, 'missing.yaml')],
      ['ctl', 'keygen', join(dir, 'exists.key')],
      ['ctl', '--control', '127.0.0.1:1', '--control-key', join(dir, 'missing.key'), 'status'],
      ['serve', '--config', join(dir, 'bad.json')],
      ['resolver', '--config', join(dir, 'bad.json')],
      ['dev', '--config', join(dir, 'bad.json')],
    ];
    for (const argv of cases) {
      it(argv.join(' ').replace(dir, 'DIR'), async () => {
        const io = captureIo({ cwd: dir });
        const status = await run(argv, io);
        const codes = [
          ...`${io.stderr()}\n${io.stdout()}`.matchAll(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]\b/g),
        ]
          .map((m) => m[0])
          .filter((c) => registered.has(c));
        expect(codes.length, `${io.stderr()}${io.stdout()}`).toBeGreaterThan(0);
        expect(status).not.toBe(EXIT_STATUS.ok);
        expect(status).toBe(Math.max(...codes.map(exitCodeOf)));
      });
    }
  });
});
