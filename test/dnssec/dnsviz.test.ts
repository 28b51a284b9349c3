/**
 * DNSViz (Sandia/Verisign's DNSSEC analyser, Debian's `dnsviz`) on the
 * signed sample zones as lexroute serves them: `dnsviz probe -A` asks
 * lexroute alone (`-x signed.test+:...`, no ancestor above the zone, no
 * network) for the apex and for names with answers, wildcards, CNAMEs,
 * empty non-terminals and delegations; `dnsviz grok` with the KSK as trust
 * anchor assesses the answers. Zones signed by `lexroute zone sign`, with
 * NSEC and with NSEC3 (RFC 9276 parameters): no errors and no warnings,
 * every RRset secure. A zone with one corrupted signature: grok reports it,
 * so the clean result is not an analyser that sees nothing.
 *
 * Debian 12's dnsviz 0.9.4 looks for `pygraphviz.release`, which
 * pygraphviz 1.10 no longer has ("pygraphviz is required, but not
 * installed"): the test runs dnsviz through a three-line wrapper that
 * supplies it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { startBogusServer, startTestServer, TEST_ZONES } from '../server/harness.ts';

const dnsviz = toolOrSkip('dnsviz');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-dnsviz-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const WRAPPER = path.join(tmp, 'run-dnsviz.py');
writeFileSync(
  WRAPPER,
  [
    'import runpy, sys, types, pygraphviz',
    'pygraphviz.release = sys.modules["pygraphviz.release"] = types.SimpleNamespace(version=pygraphviz.__version__)',
    'sys.argv = ["dnsviz"] + sys.argv[1:]',
    `runpy.run_path(${JSON.stringify(dnsviz.path ?? '/usr/bin/dnsviz')}, run_name="__main__")`,
  ].join('\n') + '\n',
);

async function viz(...args: string[]): Promise<string> {
  const r = await promisify(execFile)('/usr/bin/python3', [WRAPPER, ...args], {
    encoding: 'utf8',
    timeout: 150_000,
    maxBuffer: 64 << 20,
  });
  return r.stdout;
}

/**
 * Names probed: apex (SOA, NS, DNSKEY, NXDOMAIN and NODATA proofs dnsviz
 * asks for), NAPTR, SRV, a wildcard answer, an empty non-terminal's child.
 * Not the delegations: their name servers (192.0.2.x) do not exist.
 */
const NAMES = [
  'signed.test.',
  'naptr-s.signed.test.',
  '_http._tcp.signed.test.',
  'x.wild.signed.test.',
  'b.c.ent.signed.test.',
];

/** Sign the oracle zone with `lexroute zone sign`; the KSK's DNSKEY line as trust anchor. */
async function signed(name: string, denial: string[]): Promise<{ file: string; anchor: string }> {
  const dir = path.join(tmp, name);
  mkdirSync(dir);
  const io = captureIo();
  expect(await run(['zone', 'keygen', 'signed.test', '--dir', dir], io), io.stderr()).toBe(0);
  const file = path.join(dir, 'signed.test.zone');
  const zone = path.join(TEST_ZONES, 'signed.test.zone');
  const s = captureIo();
  expect(
    await run(['zone', 'sign', zone, '--keys', dir, '-o', file, ...denial], s),
    s.stderr(),
  ).toBe(0);
  const ksk = io
    .stdout()
    .match(/K\S+/g)!
    .find((k) => readFileSync(path.join(dir, `${k}.key`), 'utf8').includes(' 257 '))!;
  const anchor = path.join(dir, 'anchor.txt');
  writeFileSync(
    anchor,
    readFileSync(path.join(dir, `${ksk}.key`), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith(';'))
      .join('\n') + '\n',
  );
  return { file, anchor };
}

/** Probe lexroute serving `file`, then grok with the trust anchor: the parsed assessment. */
async function assess(
  file: string,
  anchor: string,
  names: readonly string[] = NAMES,
  bogus = false,
): Promise<{ json: string; report: unknown }> {
  // A corrupted signature is served as filed: serve refuses such a zone.
  const h = bogus ? await startBogusServer([file]) : await startTestServer([file]);
  const probe = path.join(path.dirname(file), 'probe.json');
  try {
    await viz(
      'probe',
      '-A',
      // Ancestry from the zone itself: the root and test. servers are not reachable here (each
      // probe otherwise waited out their time-outs, 36 s of the 36.5 s a case took).
      '-a',
      'signed.test.',
      '-4',
      '-t',
      '4',
      // dnsviz's default types leave out NAPTR and SRV, the ones a LEX chain uses.
      '-R',
      'SOA,NS,DNSKEY,A,AAAA,TXT,MX,NAPTR,SRV',
      '-x',
      `signed.test+:ns1.signed.test=127.0.0.1:${h.port}`,
      '-o',
      probe,
      ...names,
    );
  } finally {
    await h.close();
  }
  const json = await viz('grok', '-t', anchor, '-r', probe);
  return { json, report: JSON.parse(json) };
}

/** Every `errors` and `warnings` list in a grok report, with where it is. */
function problems(o: unknown, at = ''): string[] {
  if (Array.isArray(o)) return o.flatMap((v, i) => problems(v, `${at}[${i}]`));
  if (o === null || typeof o !== 'object') return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (k === 'errors' || k === 'warnings') out.push(`${at}/${k}: ${JSON.stringify(v)}`);
    out.push(...problems(v, `${at}/${k}`));
  }
  return out;
}

describe.skipIf(dnsviz.skipReason !== undefined)(
  'dnsviz on zones lexroute signs and serves',
  () => {
    for (const [name, denial] of [
      ['nsec', []],
      ['nsec3', ['--nsec3']],
    ] as const)
      it(`${name}: no errors or warnings, every RRSIG valid and every RRset secure`, async () => {
        const z = await signed(name, [...denial]);
        const { json, report } = await assess(z.file, z.anchor);
        expect(problems(report), json.slice(0, 4000)).toEqual([]);
        const statuses = [...json.matchAll(/"status": "([A-Z_]+)"/g)].map((m) => m[1]);
        // The names probed all have answers (NOERROR) and their RRsets are secure.
        expect(statuses.filter((s) => s === 'SECURE').length).toBeGreaterThan(20);
        expect(statuses.filter((s) => s === 'VALID').length).toBeGreaterThan(20);
        expect(statuses.filter((s) => !['SECURE', 'VALID', 'NOERROR'].includes(s!))).toEqual([]);
        for (const n of NAMES) expect(json).toContain(`"${n}"`);
        if (name === 'nsec3') expect(json).toContain('NSEC3');
        expect(json).toContain('"naptr-s.signed.test./IN/NAPTR": {');
        expect(json).toContain('"_http._tcp.signed.test./IN/SRV": {');
      }, 300_000);

    it('a corrupted signature is reported', async () => {
      const z = await signed('broken', []);
      const lines = readFileSync(z.file, 'utf8').split('\n');
      const i = lines.findIndex((l) => /^naptr-s\.signed\.test\. \d+ IN RRSIG NAPTR /.test(l));
      expect(i).toBeGreaterThan(0);
      // Flip one character of the base64 signature (the last field).
      lines[i] = lines[i]!.replace(
        /(\s\S{10})(\S)(\S*)$/,
        (_, a, c, b) => a + (c === 'A' ? 'B' : 'A') + b,
      );
      writeFileSync(z.file, lines.join('\n'));
      const { json, report } = await assess(z.file, z.anchor, NAMES.slice(0, 2), true);
      const found = problems(report);
      expect(found.length, json.slice(0, 2000)).toBeGreaterThan(0);
      expect(found.join('\n')).toContain('naptr-s.signed.test.');
      expect(json).toMatch(/"status": "(INVALID_SIG|INVALID|BOGUS)"/);
    }, 300_000);
  },
);
