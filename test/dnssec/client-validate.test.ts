/**
 * `lexroute resolve --validate`: the client checks the signatures itself,
 * with no validating resolver, in stub (--server) and iterative (--root)
 * mode, against lexroute's server holding the signed Italian chain
 * (urn.arpa, nic.it, lex.normattiva.it, each signed with dnssec-signzone
 * and given as a trust anchor, since the sample zones carry no DS), the
 * unsigned Brazilian zone, and the German zone whose wildcard NAPTR
 * signature is corrupted.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { LexClient } from '../../src/client/resolve.ts';
import { captureIo } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import {
  SAMPLE_ZONES,
  startBogusServer,
  startTestServer,
  type Harness,
} from '../server/harness.ts';
import { bindSign, corrupt } from './bind-sign.ts';

const signer = toolOrSkip('dnssec-signzone');

const SIGNED = ['urn.arpa.', 'nic.it.', 'lex.normattiva.it.', 'lex.example.de.'];
const UNSIGNED = ['lex.senado.gov.br.'];
const IT = 'urn:lex:it:stato:legge:2000-04-03;56';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-validate-client-'));
const anchorFile = path.join(tmp, 'anchors.key');
let h: Harness;

beforeAll(async () => {
  if (signer.skipReason) return;
  const zones = SIGNED.map((o) => bindSign(path.join(SAMPLE_ZONES, `${o}zone`), o, tmp, 'nsec'));
  corrupt(zones[3]!.file, '*.authority.lex.example.de.', 'NAPTR');
  writeFileSync(anchorFile, `${zones.map((z) => z.ksk).join('\n')}\n`);
  // The corrupted zone served as filed: serve refuses a zone whose signature does not verify.
  h = await startBogusServer(
    [zones[3]!.file],
    [
      ...zones.slice(0, 3).map((z) => z.file),
      ...UNSIGNED.map((o) => path.join(SAMPLE_ZONES, `${o}zone`)),
    ],
  );
}, 60_000);
afterAll(async () => {
  await h?.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function resolve(mode: '--server' | '--root', urn: string, ...extra: string[]) {
  const io = captureIo();
  const code = await run(
    [
      'resolve',
      '--validate',
      '--trust-anchor',
      anchorFile,
      mode,
      `127.0.0.1:${h.port}`,
      '--no-http',
      ...extra,
      urn,
    ],
    io,
  );
  return { code, out: io.stdout(), err: io.stderr() };
}

describe.skipIf(signer.skipReason !== undefined)('resolve --validate', () => {
  it.each(['--server', '--root'] as const)(
    '%s: the signed chain resolves, every step secure (trace and JSON)',
    async (mode) => {
      const r = await resolve(mode, IT, '--trace');
      expect(r.code, r.out + r.err).toBe(0);
      const steps = r.out.split('\n').filter((l) => /^step \d+ {2}NAPTR/.test(l));
      expect(steps.length).toBe(4);
      for (const s of steps) expect(s).toMatch(/, secure \(validated: \S+ from anchor \S+\)$/);
      const j = await resolve(mode, IT, '--trace', '--json');
      const trace = (
        JSON.parse(j.out) as {
          trace: { steps: { kind: string; validation?: { status: string } }[] };
        }
      ).trace;
      const naptr = trace.steps.filter((s) => s.kind === 'naptr');
      expect(naptr.map((s) => s.validation?.status)).toEqual([
        'secure',
        'secure',
        'secure',
        'secure',
      ]);
    },
  );

  it('--doh: validated through a DoH server that does not validate (lexroute serve --doh)', async () => {
    const doh = await startTestServer(
      SIGNED.slice(0, 3).map((o) => path.join(tmp, `${o}zone`)),
      { doh: { listen: [{ host: '127.0.0.1', port: 0 }] } },
    );
    try {
      const io = captureIo();
      const url = doh.server.doh[0]!.url;
      const args = ['resolve', '--validate', '--trust-anchor', anchorFile, '--doh', url];
      const code = await run([...args, '--no-http', '--trace', IT], io);
      expect(code, io.stdout() + io.stderr()).toBe(0);
      const steps = io
        .stdout()
        .split('\n')
        .filter((l) => /^step \d+ {2}NAPTR/.test(l));
      expect(steps.length).toBe(4);
      for (const s of steps) expect(s).toMatch(/\(doh.*, secure \(validated/);
    } finally {
      await doh.close();
    }
  });

  it('a corrupted signature: DNSSEC_BOGUS with the reason', async () => {
    const r = await resolve('--server', 'urn:lex:de:bund:gesetz:1896-08-18;bgb', '--trace');
    expect(r.code).toBe(1);
    expect(r.out + r.err).toContain('DNSSEC_BOGUS');
    expect(r.out + r.err).toContain('BOGUS_SIGNATURE');
    // The text trace and the JSON name the RRset and the key of the failed RRSIG (issue 32 item 3).
    expect(r.out).toMatch(
      /, bogus \(BOGUS_SIGNATURE: .*\[\S*authority\.lex\.example\.de\. NAPTR, key \d+, alg \d+\]\)/,
    );
    const j = await resolve(
      '--server',
      'urn:lex:de:bund:gesetz:1896-08-18;bgb',
      '--trace',
      '--json',
    );
    const steps = (JSON.parse(j.out) as { trace: { steps: { validation?: unknown }[] } }).trace
      .steps;
    expect(steps.at(-1)).toMatchObject({
      result: 'error',
      error: { code: 'DNSSEC_BOGUS' },
      validation: {
        status: 'bogus',
        code: 'BOGUS_SIGNATURE',
        zone: 'lex.example.de.',
        rrset: { name: expect.stringMatching(/authority\.lex\.example\.de\.$/), type: 'NAPTR' },
        keyTag: expect.any(Number),
        algorithm: expect.any(Number),
      },
    });
  });

  it('an unsigned zone: insecure (no anchor above it), refused by --require-secure', async () => {
    const client = new LexClient({
      servers: [`127.0.0.1:${h.port}`],
      validate: { rootAnchors: false, trustAnchors: [] },
    });
    try {
      const r = await client.resolve('urn:lex:br:federal:lei:2008-06-19;11705', { noHttp: true });
      const last = r.trace.steps.filter((s) => s.kind === 'naptr').at(-1);
      expect(last).toMatchObject({
        validation: { status: 'insecure', code: 'INSECURE_NO_ANCHOR' },
      });
    } finally {
      await client.close();
    }
    const strict = new LexClient({
      servers: [`127.0.0.1:${h.port}`],
      validate: { rootAnchors: false, trustAnchors: [] },
      requireSecure: true,
    });
    try {
      await expect(
        strict.resolve('urn:lex:br:federal:lei:2008-06-19;11705', { noHttp: true }),
      ).rejects.toMatchObject({ code: 'DNSSEC_INSECURE' });
    } finally {
      await strict.close();
    }
  });

  it('bad options and anchor files: usage errors and DNSSEC_TRUST_ANCHOR', async () => {
    const bad = path.join(tmp, 'bad.key');
    writeFileSync(bad, 'example. IN A 192.0.2.1\n');
    const io = captureIo();
    expect(await run(['resolve', '--validate', '--trust-anchor', bad, IT], io)).toBe(1);
    expect(io.stderr()).toContain('DNSSEC_TRUST_ANCHOR');
    const missing = captureIo();
    expect(
      await run(['resolve', '--validate', '--trust-anchor', path.join(tmp, 'none'), IT], missing),
    ).toBe(1);
    expect(missing.stderr()).toContain('DNSSEC_TRUST_ANCHOR');
    expect(await run(['resolve', '--validate', '--dnssec', IT], captureIo())).toBe(2);
    expect(await run(['resolve', '--require-secure', IT], captureIo())).toBe(2);
    expect(await run(['resolve', '--no-root-anchors', IT], captureIo())).toBe(2);
    const none = captureIo();
    expect(await run(['resolve', '--validate', '--no-root-anchors', IT], none)).toBe(2);
    expect(none.stderr()).toContain('--trust-anchor');
  });

  it('--no-root-anchors: the given anchor alone still makes the chain secure', async () => {
    const r = await resolve('--server', IT, '--no-root-anchors', '--require-secure', '--json');
    expect(r.code, r.out + r.err).toBe(0);
  });
});
