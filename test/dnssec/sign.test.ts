/**
 * `lexroute zone keygen` and `lexroute zone sign`, checked by tools not
 * written here: `dnssec-verify` (BIND) and `ldns-verify-zone` (ldns) accept
 * the output for each algorithm (13, 15, 8) with NSEC, NSEC3 and NSEC3
 * opt-out; keys made by BIND's `dnssec-keygen` sign too; the serial rises
 * on each re-sign; `delv` validates lexroute serving its own signed zone.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { runTool, toolOrSkip } from '../helpers/tools.ts';
import { captureIo } from '../helpers/io.ts';
import { startTestServer, TEST_ZONES } from '../server/harness.ts';
import { bindKeygen } from './bind-sign.ts';

const verify = toolOrSkip('dnssec-verify');
const ldns = toolOrSkip('ldns-verify-zone');
const delv = toolOrSkip('delv');
const ZONE = path.join(TEST_ZONES, 'signed.test.zone');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-sign-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo();
  const code = await run(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

const sh = runTool;

describe.skipIf((verify.skipReason ?? ldns.skipReason) !== undefined)(
  'zone sign output verifies',
  () => {
    for (const alg of ['13', '15', '8'])
      for (const denial of [[], ['--nsec3'], ['--nsec3', '--opt-out']]) {
        it(`algorithm ${alg} ${denial.join(' ') || 'NSEC'}: dnssec-verify and ldns-verify-zone accept`, async () => {
          const dir = path.join(tmp, `k${alg}${denial.join('')}`);
          mkdirSync(dir);
          const kg = await cli('zone', 'keygen', 'signed.test', '--algorithm', alg, '--dir', dir);
          expect(kg.code, kg.err).toBe(0);
          expect(kg.out.trim().split('\n')).toHaveLength(2);
          const out = path.join(dir, 'signed.test.zone');
          const s = await cli('zone', 'sign', ZONE, '--keys', dir, '-o', out, ...denial);
          expect(s.code, s.err).toBe(0);
          const v = await sh(verify.path!, ['-o', 'signed.test.', out]);
          expect(v.code, v.out).toBe(0);
          expect(v.out).toContain('Zone fully signed');
          const l = await sh(ldns.path!, [out]);
          expect(l.code, l.out).toBe(0);
          expect(l.out).toContain('Zone is verified and complete');
          const text = readFileSync(out, 'utf8');
          expect(text.includes(' NSEC3 ')).toBe(denial.length > 0);
          if (denial.includes('--opt-out')) expect(text).toMatch(/NSEC3 1 1 0 - /);
        }, 60_000);
      }

    it('keys made by dnssec-keygen (all three algorithms at once) sign, and re-signing raises the serial', async () => {
      const dir = path.join(tmp, 'bindkeys');
      for (const a of ['ECDSAP256SHA256', 'ED25519', 'RSASHA256'])
        bindKeygen('signed.test.', dir, a);
      const out = path.join(dir, 'signed.test.zone');
      const first = await cli('zone', 'sign', ZONE, '--keys', dir, '-o', out, '--nsec3');
      expect(first.code, first.err).toBe(0);
      expect(first.out).toContain('serial 2');
      const second = await cli('zone', 'sign', ZONE, '--keys', dir, '-o', out, '--nsec3');
      expect(second.out).toContain('serial 3');
      const v = await sh(verify.path!, ['-o', 'signed.test.', out]);
      expect(v.code, v.out).toBe(0);
      expect(v.out).toMatch(/ED25519: KSKs: 1 active/);
    }, 60_000);

    it('bad input: no keys, a key for another zone, a broken private key', async () => {
      const empty = path.join(tmp, 'empty');
      mkdirSync(empty);
      const none = await cli('zone', 'sign', ZONE, '--keys', empty, '-o', path.join(empty, 'x'));
      expect(none.code).toBe(1);
      expect(none.err).toContain('KEY_NONE');
      const bad = path.join(tmp, 'badkey');
      mkdirSync(bad);
      const kg = await cli('zone', 'keygen', 'signed.test', '--csk', '--dir', bad);
      const base = path.join(bad, kg.out.trim());
      writeFileSync(
        `${base}.private`,
        readFileSync(`${base}.private`, 'utf8').replace(/PrivateKey: \S+/, 'PrivateKey: AAAA'),
      );
      const r = await cli('zone', 'sign', ZONE, '--keys', bad, '-o', path.join(bad, 'x'));
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/lexroute zone sign: \w+:/);
      const usage = await cli('zone', 'sign', ZONE);
      expect(usage.code).toBe(2);
    });
  },
);

describe('zone keygen --dir (issue 31 item 10)', () => {
  it('makes a missing folder (mode 0700) and writes both keys into it', async () => {
    const dir = path.join(tmp, 'new', 'keys');
    const r = await cli('zone', 'keygen', 'signed.test', '--dir', dir);
    expect(r.code).toBe(0);
    const names = r.out.trim().split('\n');
    expect(names).toHaveLength(2);
    for (const n of names) {
      expect(readFileSync(path.join(dir, `${n}.key`), 'utf8')).toContain('DNSKEY');
      expect(statSync(path.join(dir, `${n}.private`)).mode & 0o777).toBe(0o600);
    }
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('a file in the way fails with KEY_DIR_UNWRITABLE and exit 1, no stack trace', async () => {
    const file = path.join(tmp, 'not-a-folder');
    writeFileSync(file, 'x');
    const r = await cli('zone', 'keygen', 'signed.test', '--csk', '--dir', path.join(file, 'keys'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^lexroute zone keygen: KEY_DIR_UNWRITABLE: .*ENOTDIR/);
    expect(r.err).not.toMatch(/\n\s+at /);
  });
});

describe.skipIf(delv.skipReason !== undefined)('lexroute serves what it signed', () => {
  it('delv validates NAPTR and a negative answer from the zone signed with a CSK', async () => {
    const dir = path.join(tmp, 'csk');
    mkdirSync(dir);
    const kg = await cli('zone', 'keygen', 'signed.test', '--csk', '--dir', dir);
    const out = path.join(dir, 'signed.test.zone');
    expect((await cli('zone', 'sign', ZONE, '--keys', dir, '-o', out, '--nsec3')).code).toBe(0);
    const key = readFileSync(path.join(dir, `${kg.out.trim()}.key`), 'utf8')
      .split('\n')
      .find((l) => l.includes('DNSKEY'))!
      .split(/\s+/);
    const anchor = path.join(dir, 'anchor.conf');
    writeFileSync(
      anchor,
      `trust-anchors { "signed.test." static-key ${key[3]} ${key[4]} ${key[5]} "${key.slice(6).join('')}"; };\n`,
    );
    const h = await startTestServer([out]);
    try {
      const q = (name: string, type: string) =>
        sh(delv.path!, [
          '@127.0.0.1',
          '-p',
          String(h.port),
          '-a',
          anchor,
          '+root=signed.test.',
          name,
          type,
        ]);
      const pos = await q('naptr-s.signed.test', 'NAPTR');
      expect(pos.out).toContain('; fully validated');
      const neg = await q('nx.wild2.signed.test', 'A');
      expect(neg.out).toContain('negative response, fully validated');
    } finally {
      await h.close();
    }
  }, 60_000);
});

describe.skipIf(verify.skipReason !== undefined)('zone check verifies signatures', () => {
  it('a clean signed zone passes; a broken, a missing and an expired RRSIG are reported with their lines', async () => {
    const dir = path.join(tmp, 'check');
    mkdirSync(dir);
    await cli('zone', 'keygen', 'signed.test', '--dir', dir);
    const out = path.join(dir, 'signed.test.zone');
    expect((await cli('zone', 'sign', ZONE, '--keys', dir, '-o', out)).code).toBe(0);
    const clean = await cli('zone', 'check', out);
    expect(clean.code, clean.out).toBe(0);
    expect(clean.out).toContain('0 errors, 0 warnings');
    const lines = readFileSync(out, 'utf8').split('\n');
    // Change www's address (its RRSIG no longer verifies) and drop ns1's RRSIG.
    const www = lines.findIndex((l) => /^www\.signed\.test\. \d+ IN A /.test(l));
    lines[www] = lines[www]!.replace(/192\.0\.2\.80$/, '192.0.2.81');
    const ns1 = lines.findIndex((l) => /^ns1\.signed\.test\. \d+ IN RRSIG A /.test(l));
    lines.splice(ns1, 1);
    const broken = path.join(dir, 'broken.zone');
    writeFileSync(broken, lines.join('\n'));
    const r = await cli('zone', 'check', '--origin', 'signed.test.', broken);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/broken\.zone:\d+:\d+: ZONE_RRSIG_BAD .*A at www\.signed\.test\./);
    expect(r.out).toMatch(/broken\.zone:\d+:\d+: ZONE_RRSIG_MISSING A at ns1\.signed\.test\./);
    // Signatures that ended yesterday.
    const old = path.join(dir, 'old.zone');
    const day = 86400;
    const { signZoneFile } = await import('../../src/dnssec/sign.ts');
    await signZoneFile(ZONE, {
      keysDir: dir,
      out: old,
      nsec3: false,
      optOut: false,
      now: Math.floor(Date.now() / 1000) - 40 * day,
    });
    const e = await cli('zone', 'check', '--origin', 'signed.test.', old);
    expect(e.code).toBe(1);
    expect(e.out).toMatch(/old\.zone:\d+:\d+: ZONE_RRSIG_EXPIRED /);
  });
});
