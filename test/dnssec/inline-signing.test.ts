/**
 * Inline signing in `lexroute serve` (`--keys`, the `dnssec` block): the
 * zone is signed in the reload worker at start, `delv` with the trust
 * anchor of the generated KSK validates the answers; after a reload that
 * changes a record the new record validates and the serial went up; the
 * signatures are refreshed before they expire (a short validity); a
 * signing failure keeps the zone being served, logged with its code.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { dnssecRefresh, validateServerConfig } from '../../src/config/server.ts';
import { generateKey } from '../../src/dnssec/keys.ts';
import { captureIo, type CapturedIo, events } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { query } from '../server/harness.ts';
import { waitFor } from '../helpers/wait.ts';

const delv = toolOrSkip('delv');
const ORIGIN = 'inline.test.';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-inline-'));
const keys = path.join(tmp, 'keys');
const zoneFile = path.join(tmp, 'inline.test.zone');

function zoneText(txt: string, serial = 1): string {
  return `$ORIGIN inline.test.
$TTL 300
@ IN SOA ns.inline.test. hostmaster.inline.test. ${serial} 3600 600 86400 300
@ IN NS ns
ns IN A 127.0.0.1
@ IN NAPTR 100 10 "" "" "!^urn:lex:xx:(.*)$!\\\\1.inline.test!" .
_http._tcp IN SRV 0 0 80 www
www IN A 192.0.2.1
www IN TXT "${txt}"
sub.deep IN A 192.0.2.2
`;
}

interface Served {
  io: CapturedIo;
  port: number;
  done: Promise<number>;
}
let s: Served;
let anchor: string;

const count = (event: string, field?: string, value?: unknown) =>
  events(s.io).filter((e) => e.event === event && (field === undefined || e[field] === value))
    .length;

async function runDelv(qname: string, qtype: string): Promise<string> {
  try {
    const r = await promisify(execFile)(
      delv.path!,
      ['@127.0.0.1', '-p', String(s.port), '-a', anchor, `+root=${ORIGIN}`, qname, qtype],
      { encoding: 'utf8', timeout: 20_000 },
    );
    return r.stdout + r.stderr;
  } catch (e) {
    return String((e as { stdout?: string }).stdout) + String((e as { stderr?: string }).stderr);
  }
}

/** SOA serial and the RRSIG (inception, expiration) of the SOA, asked with DO. */
async function soaState(): Promise<{ serial: number; sig: string }> {
  const r = await query(s.port, 'udp', ORIGIN, 'SOA', { edns: { do: true } });
  const data = (type: string) => {
    const line = r.answer.find((a) => a.split(' ')[2] === type);
    return JSON.parse(line!.split(' ').slice(3).join(' ')) as Record<string, number>;
  };
  const sig = data('RRSIG');
  return { serial: data('SOA').serial!, sig: `${sig.inception}-${sig.expiration}` };
}

beforeAll(async () => {
  mkdirSync(keys);
  const ksk = await generateKey(keys, ORIGIN, 13, true);
  await generateKey(keys, ORIGIN, 13, false);
  const [flags, proto, alg] = [257, 3, 13];
  anchor = path.join(tmp, 'anchor.conf');
  writeFileSync(
    anchor,
    `trust-anchors { "${ORIGIN}" static-key ${flags} ${proto} ${alg} "${Buffer.from(ksk.publicKey).toString('base64')}"; };\n`,
  );
  writeFileSync(zoneFile, zoneText('first'));
  // Validity 16 s, refreshed 5 s before the earliest expiration (16 - 2 of jitter): 9 s after
  // signing, so served signatures always have 5 s left for delv.
  const config = path.join(tmp, 'server.json');
  writeFileSync(
    config,
    JSON.stringify({ dnssec: { keys: 'keys', validity: 16, refresh: 5, nsec3: true } }),
  );
  const io = captureIo({ cwd: tmp });
  const done = run(
    [
      'serve',
      '--config',
      config,
      '--zones',
      zoneFile,
      '--listen',
      '127.0.0.1:0',
      '--log-format',
      'json',
    ],
    io,
  );
  const port = await waitFor('listening', () => {
    const e = events(io).find((x) => x.event === 'listening');
    return e ? (e.port as number) : undefined;
  });
  s = { io, port, done };
}, 30_000);

afterAll(async () => {
  if (s) {
    s.io.abort();
    await s.done;
  }
  rmSync(tmp, { recursive: true, force: true });
});

describe('serve --keys: inline signing', () => {
  it('signs the zone at load, in the worker (zone_loaded says so)', () => {
    const loaded = events(s.io).find((e) => e.event === 'zone_loaded')!;
    const signed = loaded.signed as { keys: string[]; rrsets: number };
    expect(signed.keys).toHaveLength(2);
    expect(signed.rrsets).toBeGreaterThan(5);
  });

  it('answers with RRSIGs and an NSEC3 proof with DO set, none without', async () => {
    const r = await query(s.port, 'udp', 'www.inline.test', 'A', { edns: { do: true } });
    expect(r.answer.map((a) => a.split(' ')[2]).sort()).toEqual(['A', 'RRSIG']);
    const nx = await query(s.port, 'udp', 'nx.inline.test', 'A', { edns: { do: true } });
    expect(nx.rcode).toBe(3);
    expect(nx.authority.filter((a) => a.split(' ')[2] === 'NSEC3').length).toBeGreaterThan(0);
    const plain = await query(s.port, 'udp', 'www.inline.test', 'A');
    expect(plain.answer.map((a) => a.split(' ')[2])).toEqual(['A']);
  });

  describe.skipIf(delv.skipReason !== undefined)('delv with the KSK as trust anchor', () => {
    it.each([
      [ORIGIN, 'NAPTR'],
      ['_http._tcp.inline.test', 'SRV'],
      ['www.inline.test', 'A'],
      ['www.inline.test', 'TXT'],
    ])('%s %s: fully validated', async (qname, qtype) => {
      const out = await runDelv(qname, qtype);
      expect(out, out).toContain('; fully validated');
      expect(out).toMatch(new RegExp(`\\sIN\\s+${qtype}\\s`));
    });
    it('a negative answer and an empty non-terminal validate (NSEC3)', async () => {
      expect(await runDelv('nx.inline.test', 'A')).toMatch(/negative response, fully validated/);
      expect(await runDelv('deep.inline.test', 'A')).toMatch(/negative response, fully validated/);
    });
  });

  it('a reload that changes a record: re-signed, serial raised, validated', async () => {
    const before = await soaState();
    writeFileSync(zoneFile, zoneText('second'));
    const reloads = count('zones_reloaded');
    s.io.reload();
    await waitFor('reload', () => (count('zones_reloaded') > reloads ? true : undefined));
    const after = await soaState();
    // The file's serial did not change: the signed version's goes past the served one.
    expect(after.serial).toBe(before.serial + 1);
    const r = await query(s.port, 'udp', 'www.inline.test', 'TXT', { edns: { do: true } });
    expect(r.answer.join('\n')).toContain('second');
    if (!delv.skipReason) {
      const out = await runDelv('www.inline.test', 'TXT');
      expect(out, out).toContain('; fully validated');
      expect(out).toContain('"second"');
      // Re-signed by difference (the changed name and the apex): the denial chain still proves.
      expect(await runDelv('nx.inline.test', 'A')).toMatch(/negative response, fully validated/);
    }
  });

  it('a signing failure keeps the served zone, logged with a code', async () => {
    const before = await soaState();
    // A private key that does not give the key tag of its file name.
    const zsk = events(s.io).find((e) => e.event === 'zone_loaded')!.signed as { keys: string[] };
    const victim = path.join(keys, `${zsk.keys[1]}.private`);
    const good = readFileSync(victim, 'utf8');
    const other = await generateKey(tmp, ORIGIN, 13, false);
    writeFileSync(victim, readFileSync(path.join(tmp, `${other.basename}.private`), 'utf8'));
    writeFileSync(zoneFile, zoneText('third'));
    const failed = count('zone_rejected');
    s.io.reload();
    await waitFor('failure', () => (count('zone_rejected') > failed ? true : undefined));
    const diag = events(s.io)
      .filter((e) => e.event === 'zone_diagnostic')
      .at(-1)!;
    expect(diag.code).toBe('KEY_MISMATCH');
    const r = await query(s.port, 'udp', 'www.inline.test', 'TXT', { edns: { do: true } });
    expect(r.answer.join('\n')).toContain('second');
    expect((await soaState()).serial).toBe(before.serial);
    // Repaired: the next reload signs the new version.
    writeFileSync(victim, good);
    const reloads = count('zones_reloaded');
    s.io.reload();
    await waitFor('reload', () => (count('zones_reloaded') > reloads ? true : undefined));
    const r2 = await query(s.port, 'udp', 'www.inline.test', 'TXT', { edns: { do: true } });
    expect(r2.answer.join('\n')).toContain('third');
  });

  it('signatures are refreshed before they expire (SOA serial raised)', async () => {
    const before = await soaState();
    const refreshes = count('zones_reloaded', 'trigger', 'dnssec_refresh');
    await waitFor('dnssec_refresh', () =>
      count('zones_reloaded', 'trigger', 'dnssec_refresh') > refreshes ? true : undefined,
    );
    const after = await soaState();
    expect(after.sig).not.toBe(before.sig);
    expect(after.serial).toBe(before.serial + 1);
    if (!delv.skipReason) {
      const out = await runDelv('www.inline.test', 'A');
      expect(out, out).toContain('; fully validated');
    }
  }, 30_000);
});

describe('serve --keys: options', () => {
  it('--nsec3, --opt-out, --validity without --keys are usage errors', async () => {
    for (const argv of [['--nsec3'], ['--validity', '3'], ['--keys', 'k', '--opt-out']]) {
      const io = captureIo();
      expect(await run(['serve', ...argv], io)).toBe(2);
    }
  });
  it('a key folder that does not exist: exit 1, DNSSEC_KEYS_DIR', async () => {
    const io = captureIo({ cwd: tmp });
    const code = await run(
      ['serve', '--zones', zoneFile, '--keys', 'nope', '--listen', '127.0.0.1:0', '--json'],
      io,
    );
    expect(code).toBe(1);
    expect(io.stderr()).toContain('DNSSEC_KEYS_DIR');
  });
});

describe('the dnssec block of the server configuration', () => {
  it.each([
    [{ keys: 3 }, 'CONFIG_BAD_PATH', 'dnssec.keys'],
    [{ keys: 'k', nsec3: 'yes' }, 'CONFIG_BAD_BOOLEAN', 'dnssec.nsec3'],
    [{ keys: 'k', optOut: true }, 'CONFIG_DNSSEC_OPT_OUT', 'dnssec.optOut'],
    [{ keys: 'k', validity: 5 }, 'CONFIG_BAD_NUMBER', 'dnssec.validity'],
    [{ keys: 'k', validity: 100, refresh: 90 }, 'CONFIG_DNSSEC_REFRESH', 'dnssec.refresh'],
    [{ keys: 'k', salt: 'ab' }, 'CONFIG_UNKNOWN_KEY', 'dnssec.salt'],
  ])('%j: %s at %s', (dnssec, code, at) => {
    const { errors } = validateServerConfig({ dnssec });
    expect(errors.map((e) => [e.code, e.path])).toContainEqual([code, at]);
  });
  it('the defaults: off, NSEC, 30 days, refreshed a quarter before', () => {
    const { config, errors } = validateServerConfig({ dnssec: { keys: 'k' } });
    expect(errors).toEqual([]);
    expect(config.dnssec).toEqual({
      keys: 'k',
      nsec3: false,
      optOut: false,
      validity: 2592000,
      refresh: null,
    });
    expect(dnssecRefresh(config.dnssec)).toBe(648000);
  });
});
