import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { zoneCommand } from '../../src/cli/commands/zone.ts';
import { UsageError } from '../../src/cli/io.ts';
import { parseZoneText } from '../../src/dns/core/zone/parser.ts';
import { captureIo } from '../helpers/io.ts';

const ZONES = new URL('../vectors/zonefile/zones/', import.meta.url).pathname;

describe('lexroute zone check', () => {
  it('passes the worked LEX chain with all its expect directives', async () => {
    const io = captureIo();
    const code = await zoneCommand.run(['check', `${ZONES}example.zone`], io);
    // The worked chain delegates to four names below example. that this one
    // file does not hold (lex.normattiva.it, lex.un.org, lex.mg.gov.br,
    // lex.campinas.sp.gov.br): no zone cut there, NXDOMAIN when served alone.
    const lines = io.stdout().trim().split('\n');
    expect(lines.at(-1)).toBe('1 file, 21 records, 1 zone loaded: 0 errors, 4 warnings');
    expect(
      lines.slice(0, -1).map((l) => /:(\d+):\d+: ([A-Z_]+) /.exec(l)?.slice(1).join(' ')),
    ).toEqual([
      '15 NAPTR_DELEGATION_NO_CUT',
      '16 NAPTR_DELEGATION_NO_CUT',
      '26 NAPTR_DELEGATION_NO_CUT',
      '33 NAPTR_DELEGATION_NO_CUT',
    ]);
    expect(code).toBe(0);
  });

  it('reports every NAPTR problem with file:line:col and a stable code, exit 1', async () => {
    const io = captureIo();
    const code = await zoneCommand.run(['check', `${ZONES}bad.example.zone`], io);
    expect(code).toBe(1);
    const lines = io.stdout().trim().split('\n');
    const found = lines.slice(0, -1).map((l) => {
      const m = /^(.+):(\d+):(\d+): ([A-Z0-9_]+) /.exec(l);
      expect(m, l).not.toBeNull();
      return `${m![2]} ${m![4]}`;
    });
    expect(found.sort()).toEqual(
      [
        '6 NAPTR_BOTH_FIELDS',
        '7 NAPTR_NO_REWRITE',
        '8 NAPTR_FLAG_UNKNOWN',
        '9 NAPTR_FLAG_MULTIPLE',
        '10 NAPTR_SERVICES_SYNTAX',
        '11 NAPTR_U_WITHOUT_REGEXP',
        '12 NAPTR_U_NOT_URI',
        '13 NAPTR_SUBST_DELIMITER_COUNT',
        '14 NAPTR_SUBST_BAD_FLAG',
        '15 NAPTR_SUBST_BACKREF_ZERO',
        '16 NAPTR_SUBST_BACKREF_RANGE',
        '17 NAPTR_UNANCHORED',
        '18 NAPTR_JURISDICTION_UNBOUNDED',
        '19 NAPTR_UNESCAPED_DOT',
        '21 NAPTR_PREFERENCE_AS_ORDER',
        '22 NAPTR_TERMINAL_NO_PROTOCOL',
        '23 NAPTR_EXPECT_MISMATCH',
        '24 NAPTR_EXPECT_SYNTAX',
      ].sort(),
    );
    expect(lines.at(-1)).toBe('1 file, 20 records, 1 zone loaded: 12 errors, 6 warnings');
  });

  it('checks a directory, and --json gives the same counts', async () => {
    const io = captureIo();
    const code = await zoneCommand.run(['check', '--json', ZONES], io);
    expect(code).toBe(1);
    const out = JSON.parse(io.stdout()) as {
      ok: boolean;
      errors: number;
      warnings: number;
      files: { file: string; origin: string; loaded: boolean }[];
    };
    expect(out.ok).toBe(false);
    expect(out.errors).toBe(12);
    // 6 in bad.example, 4 NAPTR_DELEGATION_NO_CUT in example (see above).
    expect(out.warnings).toBe(10);
    expect(out.files.map((f) => f.origin).sort()).toEqual(['bad.example.', 'example.']);
  });

  it('warnings fail only with --strict', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lexroute-zone-'));
    const file = join(dir, 'w.example.zone');
    writeFileSync(
      file,
      '$TTL 60\n@ SOA ns hm 1 1 1 1 1\n@ NS ns\nns A 192.0.2.1\nns 30 A 192.0.2.2\nx NAPTR 1 1 "" "" "!urn:lex:br[;:].*$!x.example!" .\n',
    );
    const lenient = captureIo();
    expect(await zoneCommand.run(['check', file], lenient)).toBe(0);
    expect(lenient.stdout()).toMatch(/w\.example\.zone:5:1: ZONE_MIXED_TTL warning: /);
    expect(lenient.stdout()).toMatch(/w\.example\.zone:6:1: NAPTR_UNANCHORED warning: /);
    const strict = captureIo();
    expect(await zoneCommand.run(['check', '--strict', file], strict)).toBe(1);
  });

  it('reports an unreadable file as an error, not a crash', async () => {
    const io = captureIo();
    expect(await zoneCommand.run(['check', '/nonexistent/x.zone'], io)).toBe(1);
    expect(io.stdout()).toMatch(/ZONE_FILE_UNREADABLE/);
  });

  it('usage errors: no file, unknown option, unknown subcommand', async () => {
    await expect(zoneCommand.run(['check'], captureIo())).rejects.toBeInstanceOf(UsageError);
    await expect(zoneCommand.run(['check', '--bogus', 'x'], captureIo())).rejects.toBeInstanceOf(
      UsageError,
    );
    await expect(zoneCommand.run(['frobnicate'], captureIo())).rejects.toBeInstanceOf(UsageError);
    expect(await zoneCommand.run([], captureIo())).toBe(2);
  });

  it('--help on each subcommand', async () => {
    for (const argv of [['--help'], ['check', '--help'], ['print', '-h']]) {
      const io = captureIo();
      expect(await zoneCommand.run(argv, io)).toBe(0);
      expect(io.stdout()).toMatch(/^Usage: lexroute zone/);
    }
  });
});

describe('lexroute zone print', () => {
  it('prints a canonical form that parses back to the same records', async () => {
    const io = captureIo();
    expect(await zoneCommand.run(['print', `${ZONES}example.zone`], io)).toBe(0);
    const printed = parseZoneText(io.stdout(), { file: 'printed' });
    const original = parseZoneText(
      (await import('node:fs')).readFileSync(`${ZONES}example.zone`, 'utf8'),
      { file: 'orig' },
    );
    const key = (rs: typeof printed.records) =>
      rs.map((r) => `${r.owner} ${r.type} ${r.ttl} ${Buffer.from(r.rdata).toString('hex')}`).sort();
    expect(printed.diagnostics).toEqual([]);
    expect(key(printed.records)).toEqual(key(original.records));
    expect(io.stdout().split('\n')[1]).toMatch(/^example\. 3600 IN SOA /);
  });

  it('refuses a zone with errors, exit 1, diagnostics on stderr', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lexroute-zone-'));
    const file = join(dir, 'broken.example.zone');
    writeFileSync(file, '$TTL 60\n@ NS ns\nns A 1.2.3\n');
    const io = captureIo();
    expect(await zoneCommand.run(['print', file], io)).toBe(1);
    expect(io.stderr()).toMatch(/broken\.example\.zone:3:6: ZONE_BAD_IPV4 /);
    expect(io.stderr()).toMatch(/ZONE_NO_SOA/);
    expect(io.stdout()).toBe('');
  });
});

describe('an unknown NAPTR flag is a warning (RFC 3404 section 4.3: clients skip the record)', () => {
  it('zone check exits 0 on it, and 1 with --strict', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lexroute-flag-'));
    const file = `${dir}/flags.example.zone`;
    writeFileSync(
      file,
      [
        '$ORIGIN flags.example.',
        '$TTL 3600',
        '@ SOA ns hostmaster 1 7200 3600 1209600 300',
        '@ NS ns',
        'ns A 192.0.2.1',
        '@ NAPTR 100 10 "x" "" "" next.flags.example.',
        '@ NAPTR 200 10 "" "" "!^urn:lex:it[;:].*$!next.flags.example!" .',
        '',
      ].join('\n'),
    );
    try {
      const io = captureIo();
      expect(await zoneCommand.run(['check', file], io)).toBe(0);
      expect(io.stdout()).toMatch(/:6:\d+: NAPTR_FLAG_UNKNOWN /);
      // ... and the delegation of line 7 to next.flags.example., a name this zone does not hold.
      expect(io.stdout()).toMatch(/:7:\d+: NAPTR_DELEGATION_NO_CUT /);
      expect(io.stdout()).toContain('0 errors, 2 warnings');
      expect(await zoneCommand.run(['check', '--strict', file], captureIo())).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
