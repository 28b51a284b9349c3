/**
 * Where BIND loads a zone with a warning, and where it refuses one, and what
 * the one load path (`loadZoneFile`: `serve` and `zone check`) does:
 *
 * - out-of-zone data: BIND "ignoring out-of-zone data"; we warn
 *   (ZONE_OUT_OF_ZONE, file:line:col), leave the record out, and load. Such a
 *   record is never served anyway. `zone check --strict` fails on it.
 * - a `*` label that is not leftmost: BIND warns ("non-terminal wildcard");
 *   so do we (ZONE_NONTERMINAL_WILDCARD), and load.
 * - DS at the apex: BIND refuses the zone ("DS record at top of zone"); so do
 *   we (ZONE_DS_AT_APEX).
 * - MX/SRV targets in the zone that are aliases or have no address record,
 *   and the NS of a delegation that is an alias: BIND warns; so do we
 *   (ZONE_TARGET_CNAME, ZONE_TARGET_NO_ADDRESS, ZONE_NS_TARGET_CNAME). An apex
 *   NS that is an alias: BIND refuses; so do we.
 * - records in a presentation form we do not read (SINK):
 *   BIND reads them; we refuse the zone (ZONE_UNSUPPORTED_TYPE_SYNTAX) rather
 *   than serve it without them, which would give different answers. Kept
 *   strict on purpose (see test/zone/bind-corpus.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { zoneCommand } from '../../src/cli/commands/zone.ts';
import { loadZoneFile } from '../../src/authority/zones/load.ts';
import { captureIo } from '../helpers/io.ts';
import { corpusOrSkip, titled, toolOrSkip } from '../helpers/tools.ts';

const nztest = corpusOrSkip('external-test-data/pdns-regression/zones-strict/nztest.com');
import { query, startTestServer } from '../server/harness.ts';

const named = toolOrSkip('named-checkzone');
const dir = mkdtempSync(join(tmpdir(), 'lexroute-leniency-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function zoneFile(name: string, text: string): string {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}

const HEAD = `$TTL 300
@ IN SOA ns1 hostmaster 1 3600 900 604800 300
@ IN NS ns1
ns1 IN A 192.0.2.1
`;

const OUT_OF_ZONE = zoneFile(
  'lex.example.zone',
  `$ORIGIN lex.example.
${HEAD}br IN NAPTR 100 10 "" "" "!^urn:lex:br;([^:;@$~]+)[;:].*$!\\\\1.br.lex.example!i" .
other.example. IN NAPTR 100 10 "" "" "!^urn:lex:xx;.*$!x!" .
  IN TXT "same out-of-zone owner"
$ORIGIN example.net.
www IN A 192.0.2.7
`,
);

describe('out-of-zone data: a warning, the record ignored, the zone loads (as BIND)', () => {
  it('the load path warns with code, position and token, and leaves the records out', async () => {
    const r = await loadZoneFile(OUT_OF_ZONE);
    expect(r.zone).toBeDefined();
    const ooz = r.diagnostics.filter((d) => d.code === 'ZONE_OUT_OF_ZONE');
    expect(ooz.map((d) => [d.severity, d.position?.line, d.position?.column, d.token])).toEqual([
      ['warning', 7, 1, 'other.example.'],
      // A record with a blank owner starts at its first token (issue 19: stored
      // records kept no column and reported 1).
      ['warning', 8, 3, 'other.example.'],
      ['warning', 10, 1, 'www.example.net.'],
    ]);
    expect(ooz[0]!.message).toMatch(/ignoring out-of-zone data/);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const zone = r.zone!;
    expect(zone.nodes.has('other.example.')).toBe(false);
    expect(zone.nodes.has('www.example.net.')).toBe(false);
    expect(zone.names).not.toContain('other.example.');
    // SOA, NS, A, NAPTR: the three ignored records are not counted.
    expect(zone.size).toBe(4);
  });

  it.skipIf(!named.path)('named-checkzone loads it too, with its own warning', () => {
    const b = spawnSync(named.path!, ['lex.example.', OUT_OF_ZONE], { encoding: 'utf8' });
    expect(b.status).toBe(0);
    expect(b.stdout).toMatch(/ignoring out-of-zone data \(other\.example\)/);
    expect(b.stdout).toMatch(/ignoring out-of-zone data \(www\.example\.net\)/);
  });

  it('zone check prints the warnings and exits 0; --strict exits 1', async () => {
    const io = captureIo();
    expect(await zoneCommand.run(['check', OUT_OF_ZONE], io)).toBe(0);
    const lines = io.stdout().trim().split('\n');
    expect(lines.filter((l) => l.includes('ZONE_OUT_OF_ZONE warning:'))).toHaveLength(3);
    expect(lines[0]).toMatch(/lex\.example\.zone:7:1: ZONE_OUT_OF_ZONE warning: ignoring/);
    expect(lines.at(-1)).toMatch(/1 zone loaded: 0 errors, 3 warnings$/);
    const strict = captureIo();
    expect(await zoneCommand.run(['check', '--strict', OUT_OF_ZONE], strict)).toBe(1);
  });

  it('serve loads it and answers for the zone; the ignored name is not served', async () => {
    const h = await startTestServer([OUT_OF_ZONE]);
    try {
      const hit = await query(h.port, 'udp', 'br.lex.example', 'NAPTR');
      expect(hit.rcode).toBe(0);
      expect(hit.aa).toBe(true);
      expect(hit.answer).toHaveLength(1);
      const out = await query(h.port, 'udp', 'other.example', 'NAPTR');
      expect(out.rcode).toBe(5); // REFUSED: not a zone served here
      expect(h.logs.some((l) => l.includes('ZONE_OUT_OF_ZONE'))).toBe(true);
    } finally {
      await h.close();
    }
  });

  it.skipIf(nztest.skipReason !== undefined)(
    titled('the PowerDNS nztest.com zone (out-of-zone data) loads through the load path', nztest),
    async () => {
      const f = nztest.path;
      const r = await loadZoneFile(f, { origin: 'nztest.com.' });
      expect(r.zone).toBeDefined();
      expect(
        r.diagnostics.map((d) => `${d.position?.line} ${d.code} ${d.severity} ${d.token}`),
      ).toEqual([
        '15 ZONE_OUT_OF_ZONE warning testnonzone.com.',
        '16 ZONE_OUT_OF_ZONE warning nztest.com.net.',
      ]);
    },
  );
});

describe('other cases decided against BIND', () => {
  it('a non-leftmost * label: a warning (BIND warns too), the zone loads', async () => {
    const f = zoneFile(
      'wild.example.zone',
      `$ORIGIN wild.example.\n${HEAD}host.*.sub IN A 192.0.2.9\n*.ok IN A 192.0.2.10\n`,
    );
    const r = await loadZoneFile(f);
    expect(r.zone).toBeDefined();
    expect(r.diagnostics.map((d) => [d.code, d.severity, d.position?.line, d.token])).toEqual([
      ['ZONE_NONTERMINAL_WILDCARD', 'warning', 6, 'host.*.sub.wild.example.'],
    ]);
    if (named.path) {
      const b = spawnSync(named.path, ['-k', 'ignore', 'wild.example.', f], { encoding: 'utf8' });
      expect(b.status).toBe(0);
      expect(b.stdout).toMatch(/non-terminal wildcard/);
    }
  });

  it('DS at the apex: an error (BIND refuses the zone too)', async () => {
    const f = zoneFile(
      'ds.example.zone',
      `$ORIGIN ds.example.\n${HEAD}@ IN DS 14364 10 2 FD03B2312C8F0FE72C1751EFA1007D743C94EC91594FF0047C23C37CE119BA0C\n`,
    );
    const r = await loadZoneFile(f);
    expect(r.zone).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.code, d.severity, d.position?.line])).toEqual([
      ['ZONE_DS_AT_APEX', 'error', 6],
    ]);
    if (named.path) {
      const b = spawnSync(named.path, ['ds.example.', f], { encoding: 'utf8' });
      expect(b.status).not.toBe(0);
      expect(b.stdout).toMatch(/DS record at top of zone/);
    }
  });

  const TARGETS = `$ORIGIN t.example.
$TTL 300
@ SOA ns1 h 1 2 3 4 5
@ NS ns1
ns1 A 192.0.2.1
alias CNAME ns1
@ MX 10 alias
@ MX 20 noaddr
@ MX 30 via-wildcard.w
*.w CNAME ns1
noaddr TXT "x"
_sip._tcp SRV 0 0 5060 alias
_x._tcp SRV 0 0 5060 noaddr
_y._tcp SRV 0 0 5060 .
sub NS alias
`;

  it('MX/SRV targets that are aliases or have no address, NS of a cut that is an alias: warnings (BIND warns too)', async () => {
    const f = zoneFile('t.example.zone', TARGETS);
    const r = await loadZoneFile(f);
    expect(r.zone).toBeDefined();
    expect(
      r.diagnostics.map((d) => `${d.position?.line} ${d.code} ${d.severity} ${d.token}`),
    ).toEqual([
      '15 ZONE_NS_TARGET_CNAME warning alias.t.example.',
      '7 ZONE_TARGET_CNAME warning alias.t.example.',
      '8 ZONE_TARGET_NO_ADDRESS warning noaddr.t.example.',
      '9 ZONE_TARGET_CNAME warning via-wildcard.w.t.example.',
      '12 ZONE_TARGET_CNAME warning alias.t.example.',
      '13 ZONE_TARGET_NO_ADDRESS warning noaddr.t.example.',
    ]);
    if (named.path) {
      const b = spawnSync(named.path, ['t.example.', f], { encoding: 'utf8' });
      expect(b.status).toBe(0);
      const complaints = b.stdout
        .split('\n')
        .filter((l) => /CNAME \(illegal\)|no address records/.test(l));
      expect(complaints).toHaveLength(6);
    }
  });

  it('an apex NS that is an alias: an error (BIND refuses the zone too)', async () => {
    const f = zoneFile(
      't2.example.zone',
      TARGETS.replace('$ORIGIN t.example.', '$ORIGIN t2.example.') + '@ NS alias\n',
    );
    const r = await loadZoneFile(f);
    expect(r.zone).toBeUndefined();
    expect(
      r.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, d.position?.line]),
    ).toEqual([['ZONE_NS_TARGET_CNAME', 16]]);
    if (named.path) {
      const b = spawnSync(named.path, ['t2.example.', f], { encoding: 'utf8' });
      expect(b.status).not.toBe(0);
      expect(b.stdout).toMatch(/NS 'alias\.t2\.example' is a CNAME \(illegal\)/);
    }
  });

  it('a presentation form we do not read: the zone is refused, not served without the record', async () => {
    const f = zoneFile(
      'sink.example.zone',
      `$ORIGIN sink.example.\n${HEAD}here IN SINK 1 0 0 AAAA\n`,
    );
    const r = await loadZoneFile(f);
    expect(r.zone).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.code, d.severity, d.position?.line])).toEqual([
      ['ZONE_UNSUPPORTED_TYPE_SYNTAX', 'error', 6],
    ]);
  });
});
