/**
 * RFC 3404 section 4.3: "The "P" flag says that the remainder of the DDDS
 * Algorithm is ignored and that the rest of the process is application
 * specific ... An application can use the Protocol part found in the
 * Services field to identify which Application specific set of rules that
 * should be followed next." A chain that ends at a `P` rule is a result of
 * its own kind (a hand-off), not an error: through `resolveLexUrn`, through
 * `lexroute resolve` (text, --json, --trace, --batch), and whichever server
 * serves the zones (lexroute, NSD, Knot).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LexClient, resolveLexUrn, type ResolveResult } from '../../src/client/resolve.ts';
import type { HandoffResult } from '../../src/ddds/core/trace.ts';
import { EXIT_HANDOFF } from '../../src/cli/commands/resolve.ts';
import { run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import {
  CATALOGUE,
  serveIterativeWithLexroute,
  serveWithKnot,
  serveWithLexroute,
  serveWithNsd,
  startResolverAndZones,
  type Chain,
} from './helpers/chain.ts';

/** lex.example.de -> handoff.lex.example.de: `100 10 "p" "z3950+N2L+N2C" "" z3950.lex.example.de.` */
const Z3950 = 'urn:lex:de;handoff:stadt:satzung:2020-01-01;1';
/** lex.example.de -> ldap.lex.example.de: `100 10 "P" "ldap" "!...!ldap.example.de/ou=\1!i" .` */
const LDAP = 'urn:lex:de;ldap:stadt:satzung:2020-01-01;1';
const FEDERAL = 'urn:lex:br:federal:lei:2002-01-10;10406';
/** lex.example.de -> evil.lex.example.de: `100 10 "p" "x" "!^.*$!a\027[2Jb!" .` (an ESC). */
const EVIL = 'urn:lex:de;evil:stadt:satzung:2020-01-01;1';

/** The P rule of Z3950's chain, as the hand-off result reports it. */
const Z3950_RECORD = {
  order: 100,
  preference: 10,
  flags: 'p',
  services: 'z3950+N2L+N2C',
  regexp: '',
  replacement: 'z3950.lex.example.de.',
  ttl: 3600,
};

let chain: Chain;
let dns: string;

beforeAll(async () => {
  chain = await startResolverAndZones();
  dns = await serveWithLexroute(chain);
});

afterAll(async () => {
  await chain?.close();
});

function handoffOf(r: ResolveResult): HandoffResult {
  expect(r.kind).toBe('handoff');
  return r as HandoffResult;
}

const keysOf = (r: ResolveResult) =>
  r.trace.steps.flatMap((s) => (s.kind === 'naptr' ? [s.key] : []));

describe('resolveLexUrn: a P rule is a hand-off result', () => {
  it('REPLACEMENT hand-off: key, output, protocol, services, record, trace; no HTTP', async () => {
    const r = handoffOf(await resolveLexUrn(Z3950, { servers: [dns] }));
    expect(r.urls).toEqual([]);
    expect(r.resolverUrl).toBe('');
    expect(r.description).toBeUndefined();
    expect(r.handoff).toEqual({
      key: 'handoff.lex.example.de.',
      step: 4,
      output: 'z3950.lex.example.de.',
      via: 'replacement',
      protocol: 'z3950',
      services: ['N2L', 'N2C'],
      record: Z3950_RECORD,
    });
    expect(keysOf(r)).toEqual([
      'lex.urn.arpa.',
      'lex-nameserver.nic.it.',
      'lex.example.de.',
      'handoff.lex.example.de.',
    ]);
    const last = r.trace.steps.at(-1);
    expect(last?.kind).toBe('naptr');
    if (last?.kind !== 'naptr') return;
    expect(last.outcome).toMatchObject({ kind: 'handoff', flag: 'P', protocol: 'z3950' });
    expect(last.records.map((f) => [f.fate, f.code])).toEqual([
      ['used', 'DDDS_HANDOFF'],
      ['skipped', 'DDDS_NOT_REACHED'],
    ]);
    // DDDS ends at the P rule: no SRV/A lookup, no HTTP request.
    expect(r.trace.steps.every((s) => s.kind === 'naptr')).toBe(true);
  });

  it('REGEXP hand-off, flag in upper case, no service list: serves every service', async () => {
    for (const service of ['N2L', 'N2Ls', 'N2C'] as const) {
      const r = handoffOf(await resolveLexUrn(LDAP, { servers: [dns], service }));
      expect(r.handoff).toMatchObject({
        key: 'ldap.lex.example.de.',
        output: 'ldap.example.de/ou=stadt',
        via: 'regexp',
        protocol: 'ldap',
        services: [],
        record: { flags: 'P', services: 'ldap' },
      });
    }
  });

  it('a P rule whose services lack the wanted one is skipped like any other rule', async () => {
    // N2Ls: the P rule (z3950+N2L+N2C) does not serve it; the U rule at preference 20 does.
    const r = await resolveLexUrn(Z3950, { servers: [dns], service: 'N2Ls', noHttp: true });
    expect(r.kind).toBe('resolved');
    expect(r.resolverUrl).toBe(`http://127.0.0.1:${chain.httpPort}/uri-res/N2Ls?${Z3950}`);
    const last = r.trace.steps.at(-1);
    expect(last?.kind === 'naptr' && last.records.map((f) => [f.fate, f.code])).toEqual([
      ['skipped', 'NAPTR_SERVICE_UNWANTED'],
      ['used', 'DDDS_TERMINAL'],
    ]);
  });

  it('iterative mode (--root) reaches the same hand-off through the referrals', async () => {
    const root = await serveIterativeWithLexroute(chain);
    const stub = handoffOf(await resolveLexUrn(Z3950, { servers: [dns] }));
    const iterative = handoffOf(await resolveLexUrn(Z3950, { root }));
    expect(iterative.handoff).toEqual(stub.handoff);
    expect(iterative.trace.mode).toBe('iterative');
    const io = captureIo();
    expect(await run(['resolve', LDAP, '--root', root], io)).toBe(3);
    expect(io.stdout()).toBe('ldap.example.de/ou=stadt\n');
  });

  it('a resolved result says kind "resolved"', async () => {
    const r = await resolveLexUrn(FEDERAL, { servers: [dns] });
    expect(r.kind).toBe('resolved');
    expect(r.urls).toEqual([CATALOGUE[0]?.url]);
  });

  it('a reused client gives the same hand-off from its cache (memoised step)', async () => {
    const client = new LexClient({ servers: [dns] });
    try {
      const cold = handoffOf(await client.resolve(Z3950));
      // Third time: the URN is known and every RRset is cached, so the step memo answers.
      await client.resolve(Z3950);
      const warm = handoffOf(await client.resolve(Z3950));
      expect(warm.trace.steps.every((s) => s.kind === 'naptr' && s.cached)).toBe(true);
      expect(warm.handoff).toEqual(cold.handoff);
    } finally {
      await client.close();
    }
  });
});

describe('lexroute resolve: a P rule is a hand-off, exit code 3', () => {
  it('text: the output on stdout, the protocol and the rule on stderr, exit 3', async () => {
    expect(EXIT_HANDOFF).toBe(3);
    const io = captureIo();
    expect(await run(['resolve', Z3950, '--server', dns], io)).toBe(3);
    expect(io.stdout()).toBe('z3950.lex.example.de.\n');
    expect(io.stderr()).toBe(
      'lexroute resolve: hand-off: the rule at handoff.lex.example.de. (flag P) hands the rest ' +
        'over to protocol z3950 (services N2L+N2C) with "z3950.lex.example.de."; DDDS ends here ' +
        '(RFC 3404 section 4.3)\n',
    );
    // --no-http changes nothing: the chain never reaches HTTP.
    const io2 = captureIo();
    expect(await run(['resolve', LDAP, '--server', dns, '--no-http'], io2)).toBe(3);
    expect(io2.stdout()).toBe('ldap.example.de/ou=stadt\n');
    expect(io2.stderr()).toContain('hands the rest over to protocol ldap with');
  });

  it('an output with control characters is printed JSON-quoted, on one line', async () => {
    const r = handoffOf(await resolveLexUrn(EVIL, { servers: [dns] }));
    expect(r.handoff.output).toBe('a\u001b[2Jb');
    expect(r.handoff.protocol).toBe('x');
    const io = captureIo();
    expect(await run(['resolve', EVIL, '--server', dns], io)).toBe(3);
    expect(io.stdout()).toBe('"a\\u001b[2Jb"\n');
    expect(io.stderr()).toContain('with "a\\u001b[2Jb"');
    const trace = captureIo();
    expect(await run(['resolve', EVIL, '--server', dns, '--trace'], trace)).toBe(3);
    expect(trace.stdout()).not.toContain('\u001b');
  });

  it('--trace: the step that hands off, then the output', async () => {
    const io = captureIo();
    expect(await run(['resolve', Z3950, '--server', dns, '--trace'], io)).toBe(3);
    const out = io.stdout();
    expect(out).toContain('step 4  NAPTR handoff.lex.example.de.');
    expect(out).toMatch(/used +#0 100 10 "p" "z3950\+N2L\+N2C" "" z3950\.lex\.example\.de\./);
    expect(out).toContain(
      `=> hand-off 'P' "z3950.lex.example.de." to protocol z3950 (services "z3950+N2L+N2C"): DDDS ends here`,
    );
    expect(out).not.toContain('HTTP  GET');
    expect(out.endsWith('\nz3950.lex.example.de.\n')).toBe(true);
  });

  it('--json: ok, kind "handoff", the hand-off and (with --trace) the trace; exit 3', async () => {
    const io = captureIo();
    expect(await run(['resolve', Z3950, '--server', dns, '--json'], io)).toBe(3);
    const j = JSON.parse(io.stdout()) as Record<string, unknown>;
    expect(j).toEqual({
      urn: Z3950,
      ok: true,
      kind: 'handoff',
      urls: [],
      handoff: {
        key: 'handoff.lex.example.de.',
        step: 4,
        protocol: 'z3950',
        services: ['N2L', 'N2C'],
        output: 'z3950.lex.example.de.',
        via: 'replacement',
        record: Z3950_RECORD,
      },
    });
    expect(io.stderr()).toBe('');
    const io2 = captureIo();
    expect(await run(['resolve', LDAP, '--server', dns, '--json', '--trace'], io2)).toBe(3);
    const j2 = JSON.parse(io2.stdout()) as {
      kind: string;
      handoff: { protocol: string };
      trace: { steps: { kind: string; outcome?: { kind: string } }[] };
    };
    expect(j2.kind).toBe('handoff');
    expect(j2.handoff.protocol).toBe('ldap');
    expect(j2.trace.steps.at(-1)?.outcome?.kind).toBe('handoff');
  });

  it('--batch: hand-off lines are ok; exit 3 when none failed, 1 when one did', async () => {
    const io = captureIo({ stdin: `${FEDERAL}\n${Z3950}\n${LDAP}\n` });
    expect(await run(['resolve', '--batch', '-', '--server', dns], io)).toBe(3);
    const lines = io
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { urn: string; ok: boolean; kind: string; urls: string[] });
    expect(lines.map((l) => [l.urn, l.ok, l.kind])).toEqual([
      [FEDERAL, true, 'resolved'],
      [Z3950, true, 'handoff'],
      [LDAP, true, 'handoff'],
    ]);
    expect(lines[0]?.urls).toEqual([CATALOGUE[0]?.url]);
    const io2 = captureIo({ stdin: `${Z3950}\nurn:lex:fr:etat:loi:2004-05-15;106\n` });
    expect(await run(['resolve', '--batch', '-', '--server', dns], io2)).toBe(1);
    const io3 = captureIo({ stdin: `${FEDERAL}\n` });
    expect(await run(['resolve', '--batch', '-', '--server', dns], io3)).toBe(0);
  });

  it('--help documents the hand-off and exit code 3', async () => {
    const io = captureIo();
    expect(await run(['resolve', '--help'], io)).toBe(0);
    expect(io.stdout()).toMatch(/3 handed off by a P rule/);
    expect(io.stdout()).toContain('"kind": "handoff"');
    expect(io.stdout()).not.toContain('DDDS_HANDOFF');
  });
});

/** The hand-off does not depend on our server: NSD and Knot serve the same rules. */
describe.each([
  ['nsd', serveWithNsd],
  ['knotd', serveWithKnot],
] as const)('the hand-off served by %s', (tool, serve) => {
  const found = toolOrSkip(tool);
  let other: Chain;
  let address: string;
  beforeAll(async () => {
    if (!found.path) return;
    other = await startResolverAndZones();
    address = await serve(other, found.path);
  });
  afterAll(async () => {
    await other?.close();
  });

  it.skipIf(!found.path)('gives the same hand-off as the lexroute server', async () => {
    for (const urn of [Z3950, LDAP]) {
      const ours = handoffOf(await resolveLexUrn(urn, { servers: [dns] }));
      const theirs = handoffOf(await resolveLexUrn(urn, { servers: [address] }));
      expect(theirs.handoff).toEqual(ours.handoff);
      expect(keysOf(theirs)).toEqual(keysOf(ours));
    }
  });
});
