/**
 * Regression (issue 31 item 22): `lexroute --help` listed `zone` without
 * `diff`, `catalogue` without `registry`/`migrate`, `ctl` without
 * `keygen`/`flush-cache`. The main help is generated from the command table
 * (`subcommands`), and here the table is checked against what each command
 * itself accepts: the list its own unknown-subcommand message gives, and
 * `--help` of every subcommand listed.
 */
import { describe, expect, it } from 'vitest';
import { mainHelp, run } from '../../src/cli/main.ts';
import { commands } from '../../src/cli/commands/index.ts';
import { captureIo } from '../helpers/io.ts';

/** The subcommands a command names when refusing an unknown one: `(a | b)` or `(a, b)`. */
async function ownList(name: string): Promise<string[]> {
  const io = captureIo();
  expect(await run([name, 'no-such-subcommand'], io)).toBe(2);
  const m = /unknown (?:sub)?command 'no-such-subcommand' \(([^)]+)\)/.exec(io.stderr());
  expect(m, io.stderr()).not.toBeNull();
  return m![1]!.split(/\s*[|,]\s*/).map((s) => s.trim());
}

describe('lexroute --help is generated from the command table', () => {
  it('lists every command and every subcommand of the table', () => {
    const help = mainHelp();
    for (const c of commands) {
      expect(help).toContain(`  ${c.name} `);
      if (c.subcommands) expect(help).toContain(`(${c.subcommands.join(' | ')})`);
    }
    for (const line of help.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
  });

  for (const c of commands.filter((x) => x.subcommands)) {
    it(`${c.name}: the table's subcommands are the command's own, each with its help`, async () => {
      expect(new Set(await ownList(c.name))).toEqual(new Set(c.subcommands));
      if (c.name === 'ctl') return; // ctl has one help for all its commands
      for (const sub of c.subcommands!) {
        const io = captureIo();
        expect(await run([c.name, sub, '--help'], io), `${c.name} ${sub}`).toBe(0);
        expect(io.stdout()).toMatch(/Usage: lexroute/);
      }
    });
  }

  it("the issue's missing ones are there", () => {
    const help = mainHelp();
    for (const s of ['diff', 'registry', 'migrate', 'keygen', 'flush-cache']) {
      expect(help).toMatch(new RegExp(`[(|] ${s}[ )]|\\(${s} `));
    }
  });
});
