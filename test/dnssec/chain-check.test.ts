/**
 * `zone check` on the NSEC and NSEC3 chains of a signed zone (RFC 4035
 * section 2.3, RFC 5155 section 7.1): zones signed by `dnssec-signzone`,
 * `ldns-signzone` and `lexroute zone sign` (NSEC, NSEC3, NSEC3 opt-out) have
 * complete chains; the same files broken line by line (a record removed, a
 * next name changed, a bitmap edited, parameters changed, a name added
 * without re-signing) give each finding its code and the line of the record.
 * A real signed zone from outside (uri.arpa, RFC 8976 appendix A.4) is
 * checked as it is.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDenialChains } from '../../src/dnssec/core/chain-check.ts';
import type { ZoneDiagnostic } from '../../src/dns/core/zone/model.ts';
import { run } from '../../src/cli/main.ts';
import { signZoneFile } from '../../src/dnssec/sign.ts';
import { generateKey } from '../../src/dnssec/keys.ts';
import { loadZoneFile } from '../../src/authority/zones/load.ts';
import { captureIo } from '../helpers/io.ts';
import { corpusOrSkip, toolOrSkip } from '../helpers/tools.ts';
import { TEST_ZONES } from '../server/harness.ts';

const bind = toolOrSkip('dnssec-signzone');
const ldns = toolOrSkip('ldns-signzone');
const ORIGIN = 'signed.test.';
const SOURCE = path.join(TEST_ZONES, 'signed.test.zone');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-chain-'));

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The chain findings of a zone file (it must load). */
async function chainFindings(file: string): Promise<ZoneDiagnostic[]> {
  const r = await loadZoneFile(file, { origin: ORIGIN });
  expect(r.zone, JSON.stringify(r.diagnostics)).toBeDefined();
  return checkDenialChains(r.zone!);
}

const summary = (ds: readonly ZoneDiagnostic[]) =>
  ds.map((d) => `${d.position?.line ?? '-'} ${d.code}`);

/** Sign the test zone with BIND's tools, one record per line (`-O full`). */
function bindSigned(denial: 'nsec' | 'nsec3' | 'optout'): string {
  const dir = path.join(tmp, 'bind');
  mkdirSync(dir, { recursive: true });
  if (!readdirKeys(dir)) {
    execFileSync('dnssec-keygen', ['-q', '-K', dir, '-a', '13', '-f', 'KSK', '-n', 'ZONE', ORIGIN]);
    execFileSync('dnssec-keygen', ['-q', '-K', dir, '-a', '13', '-n', 'ZONE', ORIGIN]);
  }
  const out = path.join(dir, `${denial}.zone`);
  const args = ['-q', '-O', 'full', '-K', dir, '-d', dir, '-o', ORIGIN, '-S', '-f', out];
  if (denial !== 'nsec') args.push('-3', '-', '-H', '0');
  if (denial === 'optout') args.push('-A');
  execFileSync('dnssec-signzone', [...args, SOURCE], { stdio: 'pipe' });
  return out;
}

/** Whether the folder holds keys already. */
function readdirKeys(dir: string): boolean {
  return readdirSync(dir).some((f) => f.endsWith('.private'));
}

/** A copy of `file` with its lines changed by `edit` (which must change something). */
function mutate(file: string, name: string, edit: (lines: string[]) => string[]): string {
  const before = readFileSync(file, 'utf8').split('\n');
  const after = edit([...before]);
  expect(after.join('\n')).not.toBe(before.join('\n'));
  const out = path.join(tmp, `${name}.zone`);
  writeFileSync(out, after.join('\n'));
  return out;
}

/** The index of the first line matching `re` (one-based line = index + 1). */
function lineOf(lines: readonly string[], re: RegExp): number {
  const i = lines.findIndex((l) => re.test(l));
  expect(i, String(re)).toBeGreaterThanOrEqual(0);
  return i;
}

describe('complete chains pass', () => {
  it.each(['nsec', 'nsec3', 'optout'] as const)('lexroute zone sign (%s)', async (denial) => {
    const keys = path.join(tmp, 'lexroute-keys');
    mkdirSync(keys, { recursive: true });
    if (!readdirKeys(keys)) {
      await generateKey(keys, ORIGIN, 13, true);
      await generateKey(keys, ORIGIN, 13, false);
    }
    const out = path.join(tmp, `lexroute-${denial}.zone`);
    await signZoneFile(SOURCE, {
      keysDir: keys,
      out,
      origin: ORIGIN,
      nsec3: denial !== 'nsec',
      optOut: denial === 'optout',
    });
    expect(summary(await chainFindings(out))).toEqual([]);
  });

  describe.skipIf(bind.skipReason !== undefined)('dnssec-signzone', () => {
    it.each(['nsec', 'nsec3', 'optout'] as const)('%s', async (denial) => {
      expect(summary(await chainFindings(bindSigned(denial)))).toEqual([]);
    });
  });

  describe.skipIf(ldns.skipReason !== undefined)('ldns-signzone', () => {
    it.each([
      ['nsec', []],
      ['nsec3', ['-n', '-s', '', '-t', '0']],
      ['nsec3 with the opt-out flag', ['-n', '-p', '-s', '', '-t', '0']],
    ] as const)('%s', async (name, flags) => {
      const dir = path.join(tmp, 'ldns');
      mkdirSync(dir, { recursive: true });
      const zsk = execFileSync('ldns-keygen', ['-a', 'ECDSAP256SHA256', ORIGIN], {
        cwd: dir,
        encoding: 'utf8',
      }).trim();
      const out = path.join(dir, `${name.replace(/\W+/g, '-')}.zone`);
      execFileSync(
        'ldns-signzone',
        [...flags, '-f', out, '-o', ORIGIN, SOURCE, path.join(dir, zsk)],
        { cwd: dir, stdio: 'pipe' },
      );
      expect(summary(await chainFindings(out))).toEqual([]);
    });
  });
});

describe.skipIf(bind.skipReason !== undefined)(
  'broken NSEC chains (dnssec-signzone output)',
  () => {
    let file: string;
    let lines: string[];
    beforeAll(() => {
      file = bindSigned('nsec');
      lines = readFileSync(file, 'utf8').split('\n');
    });

    it('an NSEC removed: ZONE_NSEC_MISSING at the name', async () => {
      const i = lineOf(lines, /^www\.signed\.test\.\s+\d+\s+IN\s+NSEC\s/);
      const f = mutate(file, 'nsec-removed', (l) => l.filter((_, j) => j !== i));
      const ds = await chainFindings(f);
      expect(summary(ds)).toEqual([
        `${lineOf(lines, /^www\.signed\.test\.\s/) + 1} ZONE_NSEC_MISSING`,
      ]);
      expect(ds[0]!.message).toContain('www.signed.test. has no NSEC');
    });

    it('a next name changed: ZONE_NSEC_CHAIN_BROKEN at that line', async () => {
      const i = lineOf(lines, /^alias\.signed\.test\.\s+\d+\s+IN\s+NSEC\s/);
      const f = mutate(file, 'nsec-next', (l) => {
        l[i] = l[i]!.replace(/NSEC\s+\S+/, 'NSEC zzz.signed.test.');
        return l;
      });
      const ds = await chainFindings(f);
      expect(summary(ds)).toEqual([`${i + 1} ZONE_NSEC_CHAIN_BROKEN`]);
    });

    it('the last NSEC not pointing to the apex: the chain is not closed', async () => {
      const i = lineOf(lines, /\s+IN\s+NSEC\s+signed\.test\.\s/);
      const f = mutate(file, 'nsec-open', (l) => {
        l[i] = l[i]!.replace(/NSEC\s+signed\.test\./, 'NSEC a.signed.test.');
        return l;
      });
      const ds = await chainFindings(f);
      expect(summary(ds)).toEqual([`${i + 1} ZONE_NSEC_CHAIN_BROKEN`]);
      expect(ds[0]!.message).toContain('not closed');
    });

    it('a type left out of a bitmap, another added: ZONE_NSEC_BITMAP names both', async () => {
      const i = lineOf(lines, /^www\.signed\.test\.\s+\d+\s+IN\s+NSEC\s/);
      const f = mutate(file, 'nsec-bitmap', (l) => {
        l[i] = l[i]!.replace(/ AAAA /, ' MX ');
        return l;
      });
      const ds = await chainFindings(f);
      expect(summary(ds)).toEqual([`${i + 1} ZONE_NSEC_BITMAP`]);
      expect(ds[0]!.message).toMatch(/missing AAAA; listing MX/);
    });

    it('a name added without re-signing: ZONE_NSEC_MISSING at its line, the NSEC before it', async () => {
      const f = mutate(file, 'nsec-added', (l) => [...l, 'added.signed.test. 300 IN A 192.0.2.9']);
      const ds = await chainFindings(f);
      // In canonical order _http._tcp comes before it (_tcp < added): its NSEC must now point to it.
      const before = lineOf(lines, /^_http\._tcp\.signed\.test\.\s+\d+\s+IN\s+NSEC\s/);
      expect(summary(ds)).toEqual([
        `${lines.length + 1} ZONE_NSEC_MISSING`,
        `${before + 1} ZONE_NSEC_CHAIN_BROKEN`,
      ]);
      expect(ds[1]!.message).toContain('the next name in canonical order is added.signed.test.');
    });

    it('zone check reports it with file:line:column and exits 1', async () => {
      const i = lineOf(lines, /^alias\.signed\.test\.\s+\d+\s+IN\s+NSEC\s/);
      const f = mutate(file, 'nsec-cli', (l) => {
        l[i] = l[i]!.replace(/NSEC\s+\S+/, 'NSEC zzz.signed.test.');
        return l;
      });
      const io = captureIo();
      expect(await run(['zone', 'check', '--origin', ORIGIN, f], io)).toBe(1);
      expect(io.stdout() + io.stderr()).toContain(`${f}:${i + 1}:1: ZONE_NSEC_CHAIN_BROKEN`);
    });
  },
);

describe.skipIf(bind.skipReason !== undefined)(
  'broken NSEC3 chains (dnssec-signzone output)',
  () => {
    let file: string;
    let lines: string[];
    const nsec3Lines = () =>
      lines.map((l, i) => [l, i] as const).filter(([l]) => /\sIN\s+NSEC3\s/.test(l));
    beforeAll(() => {
      file = bindSigned('nsec3');
      lines = readFileSync(file, 'utf8').split('\n');
    });

    it('an NSEC3 removed: ZONE_NSEC3_MISSING for its name, the chain broken before it', async () => {
      const [, i] = nsec3Lines()[3]!;
      const f = mutate(file, 'nsec3-removed', (l) => l.filter((_, j) => j !== i));
      const ds = await chainFindings(f);
      const codes = ds.map((d) => d.code).sort();
      expect(codes).toEqual(['ZONE_NSEC3_CHAIN_BROKEN', 'ZONE_NSEC3_MISSING']);
    });

    it('iterations that differ from NSEC3PARAM: ZONE_NSEC3_PARAMS at that line', async () => {
      const [, i] = nsec3Lines()[2]!;
      const f = mutate(file, 'nsec3-params', (l) => {
        l[i] = l[i]!.replace(/NSEC3\s+1\s+0\s+0\s+-/, 'NSEC3 1 0 5 -');
        return l;
      });
      expect(summary(await chainFindings(f))).toEqual([`${i + 1} ZONE_NSEC3_PARAMS`]);
    });

    it('a bitmap edited: ZONE_NSEC3_BITMAP', async () => {
      const [, i] = nsec3Lines().find(([l]) => / A RRSIG$/.test(l))!;
      const f = mutate(file, 'nsec3-bitmap', (l) => {
        l[i] = l[i]!.replace(/ A RRSIG$/, ' A TXT RRSIG');
        return l;
      });
      const ds = await chainFindings(f);
      expect(summary(ds)).toEqual([`${i + 1} ZONE_NSEC3_BITMAP`]);
      expect(ds[0]!.message).toContain('listing TXT');
    });

    it('a next hash changed: ZONE_NSEC3_CHAIN_BROKEN', async () => {
      const [, i] = nsec3Lines()[1]!;
      const f = mutate(file, 'nsec3-next', (l) => {
        l[i] = l[i]!.replace(
          /(NSEC3\s+1\s+\d+\s+\d+\s+\S+\s+)(\S)/,
          (_, a: string, c: string) => a + (c === '0' ? '1' : '0'),
        );
        return l;
      });
      expect(summary(await chainFindings(f))).toEqual([`${i + 1} ZONE_NSEC3_CHAIN_BROKEN`]);
    });

    it('no NSEC3PARAM: ZONE_NSEC3PARAM_MISSING', async () => {
      const i = lineOf(lines, /\sNSEC3PARAM\s/);
      const f = mutate(file, 'nsec3-noparam', (l) => l.filter((_, j) => j !== i));
      const ds = await chainFindings(f);
      // The apex NSEC3 still lists NSEC3PARAM in its bitmap.
      expect(ds.map((d) => d.code).sort()).toEqual([
        'ZONE_NSEC3PARAM_MISSING',
        'ZONE_NSEC3_BITMAP',
      ]);
      expect(ds.find((d) => d.code === 'ZONE_NSEC3_BITMAP')!.message).toContain(
        'listing NSEC3PARAM',
      );
    });

    it('an empty non-terminal without its NSEC3 is found', async () => {
      // c.ent.signed.test. is an empty non-terminal above a.b.c.ent; its NSEC3 has an empty bitmap.
      const ents = nsec3Lines().filter(([l]) => /NSEC3\s+1\s+0\s+0\s+-\s+\S+\s*$/.test(l));
      expect(ents.length).toBeGreaterThan(0);
      const f = mutate(file, 'nsec3-ent', (l) => l.filter((_, j) => j !== ents[0]![1]));
      const ds = await chainFindings(f);
      expect(ds.find((d) => d.code === 'ZONE_NSEC3_MISSING')?.message).toContain(
        'an empty non-terminal',
      );
    });
  },
);

describe('a signed zone from outside, as it is', () => {
  const corpus = corpusOrSkip('external-test-data/ldns/zonemd-rfc8976/A.4.The-URI.ARPA-Zone');
  it.skipIf(corpus.skipReason !== undefined)(
    'uri.arpa (RFC 8976 A.4): the chain is whole; the apex NSEC lacks the ZONEMD added after signing',
    async () => {
      const dir = path.join(tmp, 'uri');
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, 'uri.arpa.zone');
      cpSync(corpus.path, file);
      const r = await loadZoneFile(file);
      const ds = checkDenialChains(r.zone!);
      expect(summary(ds)).toEqual(['44 ZONE_NSEC_BITMAP']);
      expect(ds[0]!.message).toContain('missing ZONEMD');
    },
  );
});
