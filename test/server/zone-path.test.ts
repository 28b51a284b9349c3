/**
 * One zone path (issue 29): what `lexroute zone check` reports as an error,
 * `lexroute serve` refuses, with the same code, line and message in its log
 * (`zone_rejected`, and `zone_diagnostic` for each finding), and keeps
 * answering the version it serves. Every error code of the zone path is
 * enumerated from the code tables, each with a broken zone file
 * (`test/helpers/broken-zones.ts`); a real `serve` on 127.0.0.1 serves the
 * good version, each broken one is written over it, SIGHUP reloads, and a
 * query still gets the good version. Warnings are logged and served;
 * `--strict` refuses them as `zone check --strict` fails on them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { ZONE_CODES } from '../../src/dns/core/zone/codes.ts';
import { NAPTR_LINT_CODES } from '../../src/ddds/core/lint/codes.ts';
import { DDDS_CODES } from '../../src/ddds/core/codes.ts';
import { captureIo, events, type CapturedIo } from '../helpers/io.ts';
import {
  BROKEN_ZONES,
  brokenSignedZones,
  goodZone,
  LIMITS,
  WARNED_ZONES,
  ZONE_FILE,
  zoneBody,
  type BrokenZone,
} from '../helpers/broken-zones.ts';
import { query } from './harness.ts';
import { waitFor } from '../helpers/wait.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-zone-path-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const errorsOf = (table: Record<string, string>) =>
  Object.entries(table)
    .filter(([, meaning]) => !meaning.startsWith('warning:'))
    .map(([code]) => code);

/**
 * The NAPTR lint's record checks that are errors (from the DDDS table; the
 * walk-time ones, NAPTR_NO_MATCH and the like, are not lint findings), and
 * every REGEXP error under the NAPTR_ prefix.
 */
const LINT_DDDS_ERRORS = [
  'NAPTR_BOTH_FIELDS',
  'NAPTR_FLAG_MULTIPLE',
  'NAPTR_FLAG_INVALID',
  'NAPTR_SERVICES_SYNTAX',
  'NAPTR_U_WITHOUT_REGEXP',
  'NAPTR_U_NOT_URI',
  ...Object.keys(DDDS_CODES)
    .filter((c) => c.startsWith('SUBST_') || c.startsWith('ERE_'))
    .map((c) => `NAPTR_${c}`),
];

/** Error codes no zone source given to `serve` can carry, and why. */
const NOT_FROM_A_ZONE_SOURCE: Record<string, string> = {
  ZONE_INCLUDE_DISABLED: 'the library parse functions without a file source; a file load has one',
  ZONE_BAD_ORIGIN: 'an origin given from outside the file: checked at start below',
  ZONE_FILE_UNREADABLE:
    'read errors past open and fstat (EIO); a file that cannot be opened is logged zone_unreadable by the reload first, and root reads every file',
  ZONE_LOAD_ABORTED: "zone check's own abort signal (Ctrl-C)",
  ZONE_LOAD_FAILED: 'the load worker failing unexpectedly',
  ZONE_LOAD_TIMEOUT: 'the load bound: test/zonefile/load-bounded.test.ts keeps the version served',
  ZONE_RELOAD_FAILED: "ctl reload's answer, not a finding",
  ZONE_INVALID: 'lexroute zone sign',
  ZONE_DIFF_ORIGINS: 'lexroute zone diff',
  NAPTR_MALFORMED:
    'the parser refuses NAPTR RDATA that does not decode first (ZONE_BAD_GENERIC_RDATA)',
  NAPTR_SUBST_EMPTY: 'an empty REGEXP field is no REGEXP (NAPTR_NO_REWRITE)',
  NAPTR_SUBST_TOO_LONG: 'a <character-string> is at most 255 octets (ZONE_STRING_TOO_LONG first)',
  NAPTR_SUBST_BAD_INPUT: 'zone text read as UTF-8 has no unpaired surrogate',
  NAPTR_SUBST_ENGINE: 'the engine failing (should not happen)',
  NAPTR_SUBST_UNREPRESENTABLE: 'formatSubstitution, not the lint',
  // Listed without "warning:" but reported as warnings: served (WARNED_ZONES).
  ZONE_MISSING_GLUE: 'a warning',
  ZONE_TARGET_CNAME: 'a warning',
  ZONE_TARGET_NO_ADDRESS: 'a warning',
};

const ERROR_CODES = [
  ...errorsOf(ZONE_CODES),
  ...errorsOf(NAPTR_LINT_CODES),
  ...LINT_DDDS_ERRORS,
].filter((c) => !(c in NOT_FROM_A_ZONE_SOURCE));

interface Finding {
  code: string;
  severity: string;
  message: string;
  position?: { line: number; column: number };
}

/** `zone check --json` on one file with the serve's limits: its findings, and its exit code. */
async function zoneCheck(
  file: string,
  strict = false,
): Promise<{ exit: number; found: Finding[] }> {
  const io = captureIo();
  const limits = ['--max-bytes', String(LIMITS.maxBytes)];
  const entry = ['--max-entry-chars', String(LIMITS.maxEntryChars)];
  const exit = await run(
    ['zone', 'check', '--json', ...limits, ...entry, ...(strict ? ['--strict'] : []), file],
    io,
  );
  const report = JSON.parse(io.stdout()) as { files: { diagnostics: Finding[] }[] };
  return { exit, found: report.files[0]!.diagnostics };
}

/** `lexroute serve` on 127.0.0.1 port 0 over `dir`, with the limits of the broken zones. */
async function startServe(dir: string, extra: string[] = []) {
  const config = path.join(dir, 'server.json');
  writeFileSync(config, JSON.stringify({ zoneFiles: LIMITS }));
  const io = captureIo({ cwd: dir });
  const argv = ['serve', '--listen', '127.0.0.1:0', '--log-format', 'json', '--config', config];
  const done = run([...argv, '--zones', dir, ...extra], io);
  const port = await waitFor('ready', () => {
    const e = events(io).find((x) => x.event === 'listening');
    return events(io).some((x) => x.event === 'ready') ? (e!.port as number) : undefined;
  });
  return { io, port, done };
}

/** SIGHUP, then the events of that reload. */
async function reload(io: CapturedIo): Promise<Record<string, unknown>[]> {
  const before = events(io).length;
  const reloads = () => events(io).filter((e) => e.event === 'zones_reloaded').length;
  const n = reloads();
  io.reload();
  await waitFor('zones_reloaded', () => (reloads() > n ? true : undefined));
  return events(io).slice(before);
}

async function txt(port: number, name: string): Promise<string> {
  const r = await query(port, 'udp', name, 'TXT');
  return r.answer.join('\n');
}

/** Write a broken zone where its file is (a FIFO in place of the file for ZONE_NOT_REGULAR_FILE). */
function writeBroken(dir: string, b: BrokenZone): string {
  const file = path.join(dir, b.file ?? ZONE_FILE);
  rmSync(file, { force: true });
  if (b.fifo) execFileSync('mkfifo', [file]);
  else writeFileSync(file, b.text ?? `${goodZone('v2')}${b.add}\n`);
  return file;
}

describe('one zone path: serve refuses what zone check rejects', () => {
  it('every error code of the zone path has a broken zone file here', async () => {
    const signed = await brokenSignedZones(mkdtempSync(path.join(tmp, 'keys-')));
    const covered = new Set([...Object.keys(BROKEN_ZONES), ...Object.keys(signed)]);
    expect(ERROR_CODES.filter((c) => !covered.has(c))).toEqual([]);
    expect([...covered].filter((c) => !ERROR_CODES.includes(c))).toEqual([]);
  });

  it('each is refused with zone check’s code, line and message; the version served stays', async () => {
    const dir = mkdtempSync(path.join(tmp, 'serve-'));
    writeFileSync(path.join(dir, ZONE_FILE), goodZone('v1'));
    writeFileSync(path.join(dir, '@.zone'), `$ORIGIN at.example.\n${zoneBody('v1')}`);
    writeFileSync(path.join(dir, 'loop.inc'), '$INCLUDE loop.inc\n');
    writeFileSync(path.join(dir, 'bad-origin.txt'), zoneBody('v1'));
    const signed = await brokenSignedZones(mkdtempSync(path.join(tmp, 'keys-')));
    const { io, port, done } = await startServe(dir, ['--zones', `a..b.=${dir}/bad-origin.txt`]);
    try {
      // An origin given from outside that is not a name: refused at start, the others served.
      const badOrigin = `${dir}/bad-origin.txt`;
      const atStart = events(io).filter((e) => e.file === badOrigin);
      expect(atStart.find((e) => e.event === 'zone_rejected')).toMatchObject({ keeping: null });
      expect(atStart.find((e) => e.code === 'ZONE_BAD_ORIGIN')).toBeDefined();
      expect(await txt(port, 'v.t.example')).toContain('v1');
      const all = { ...BROKEN_ZONES, ...signed };
      for (const code of ERROR_CODES) {
        const b = all[code]!;
        const file = writeBroken(dir, b);
        const check = await zoneCheck(file);
        expect(check.exit, code).toBe(1);
        const wanted = check.found.find((d) => d.code === code && d.severity === 'error');
        expect(wanted, `zone check reports ${code}`).toBeDefined();
        const first = check.found.find((d) => d.severity === 'error')!;
        const seen = await reload(io);
        // Files load together: the rejection of this file (bad-origin.txt's comes too).
        const rejected = seen.find((e) => e.event === 'zone_rejected' && e.file === file);
        // The first error, as zone check prints it first.
        expect(rejected, code).toMatchObject({
          file,
          code: first.code,
          message: first.message,
          ...(first.position ? { line: first.position.line } : {}),
        });
        expect(String(rejected!.keeping), code).toContain('previous version');
        // The code itself, with zone check's line and message.
        const logged = seen.find(
          (e) => e.event === 'zone_diagnostic' && e.code === code && e.file === file,
        );
        expect(logged, code).toMatchObject({
          message: wanted!.message,
          ...(wanted!.position ? { line: wanted!.position.line } : {}),
        });
        expect(seen.some((e) => e.event === 'zone_loaded')).toBe(false);
        const name = b.file === '@.zone' ? 'v.at.example' : 'v.t.example';
        expect(await txt(port, name), code).toContain('v1');
        if (b.fifo) unlinkSync(file);
        if (b.file === '@.zone') writeFileSync(file, `$ORIGIN at.example.\n${zoneBody('v1')}`);
      }
    } finally {
      io.abort();
      await done;
    }
  }, 180_000);

  it('warnings are logged and served; with --strict they refuse the zone, as zone check --strict', async () => {
    const plain = mkdtempSync(path.join(tmp, 'warn-'));
    const strict = mkdtempSync(path.join(tmp, 'strict-'));
    for (const d of [plain, strict]) writeFileSync(path.join(d, ZONE_FILE), goodZone('v1'));
    const a = await startServe(plain);
    const s = await startServe(strict, ['--strict']);
    try {
      for (const [i, [code, add]] of Object.entries(WARNED_ZONES).entries()) {
        const text = `${goodZone(`w${i}`)}${add}\n`;
        const file = path.join(plain, ZONE_FILE);
        writeFileSync(file, text);
        writeFileSync(path.join(strict, ZONE_FILE), text);
        expect((await zoneCheck(file)).exit, code).toBe(0);
        expect((await zoneCheck(file, true)).exit, code).toBe(1);
        const served = await reload(a.io);
        expect(served.find((e) => e.event === 'zone_diagnostic' && e.code === code)).toBeDefined();
        expect(served.some((e) => e.event === 'zone_loaded')).toBe(true);
        expect(await txt(a.port, 'v.t.example'), code).toContain(`w${i}`);
        const refused = await reload(s.io);
        expect(
          refused.find((e) => e.event === 'zone_rejected'),
          code,
        ).toMatchObject({
          errors: 0,
          strict: true,
        });
        expect(await txt(s.port, 'v.t.example'), code).toContain('v1');
      }
    } finally {
      a.io.abort();
      s.io.abort();
      await Promise.all([a.done, s.done]);
    }
  }, 60_000);
});
