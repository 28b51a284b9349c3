/**
 * The CLI's one outcome-to-exit-code table (src/cli/exit.ts, issue 19):
 * every code of every table has its exit code (1 for a failure, 2 for a
 * usage error), the help and the README give the same numbers, and real
 * runs exit with them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
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
});
