/**
 * `lexroute resolve --dnssec` through Unbound validating in front of
 * lexroute (RFC 4035 section 3.2.3: AD from a validating resolver): the
 * signed Italian chain (urn.arpa, nic.it, lex.normattiva.it, each signed
 * with dnssec-signzone and anchored in Unbound) resolves with every step
 * secure; the Brazilian chain ends in an unsigned zone (DNSSEC_INSECURE);
 * the German zone's NAPTR signature is corrupted (DNSSEC_BOGUS). Unbound's
 * own answers are checked first: AD on each NAPTR of the signed chain, no
 * AD on the unsigned zone, SERVFAIL for the corrupted RRset.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { LexClient } from '../../src/client/resolve.ts';
import { captureIo } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { query, SAMPLE_ZONES, startBogusServer, type Harness } from '../server/harness.ts';
import { freePort } from '../server/named.ts';
import { startUnbound, type Daemon } from '../e2e/daemons.ts';
import { bindSign, corrupt } from './bind-sign.ts';

const unbound = toolOrSkip('unbound');
const signer = toolOrSkip('dnssec-signzone');
const skip = unbound.skipReason ?? signer.skipReason;

const SIGNED = ['urn.arpa.', 'nic.it.', 'lex.normattiva.it.', 'lex.example.de.'];
const UNSIGNED = ['lex.senado.gov.br.'];
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-dnssec-client-'));
let h: Harness;
let u: Daemon;

beforeAll(async () => {
  if (skip) return;
  const zones = SIGNED.map((o) => bindSign(path.join(SAMPLE_ZONES, `${o}zone`), o, tmp, 'nsec'));
  corrupt(zones[3]!.file, '*.authority.lex.example.de.', 'NAPTR');
  // The corrupted zone served as filed: serve refuses a zone whose signature does not verify.
  h = await startBogusServer(
    [zones[3]!.file],
    [
      ...zones.slice(0, 3).map((z) => z.file),
      ...UNSIGNED.map((o) => path.join(SAMPLE_ZONES, `${o}zone`)),
    ],
  );
  u = await startUnbound(
    unbound.path!,
    await freePort(),
    [...SIGNED, ...UNSIGNED].map((origin) => ({ origin, host: '127.0.0.1', port: h.port })),
    'lex.urn.arpa.',
    zones.map((z) => z.ksk),
  );
}, 60_000);
afterAll(async () => {
  await u?.close();
  await h?.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function resolve(urn: string, ...extra: string[]) {
  const io = captureIo();
  const server = `127.0.0.1:${u.port}`;
  const code = await run(
    ['resolve', '--dnssec', '--server', server, '--no-http', ...extra, urn],
    io,
  );
  return { code, out: io.stdout(), err: io.stderr() };
}

describe.skipIf(skip !== undefined)('resolve --dnssec through a validating Unbound', () => {
  it.each([
    ['lex.urn.arpa.', 0, true],
    ['lex-nameserver.nic.it.', 0, true],
    ['it.lex-routing.nic.it.', 0, true],
    ['lex.normattiva.it.', 0, true],
    ['lex.example.de.', 0, true],
    ['lex.senado.gov.br.', 0, false],
    ['bund.authority.lex.example.de.', 2, false],
  ] as const)('Unbound: %s NAPTR, rcode %i, AD %s', async (qname, rcode, ad) => {
    const r = await query(u.port, 'udp', qname, 'NAPTR', { edns: { do: true } });
    expect(r.rcode).toBe(rcode);
    expect((r.raw.readUInt16BE(2) & 0x0020) !== 0).toBe(ad);
  });

  it('the signed chain resolves, every step secure', async () => {
    const r = await resolve('urn:lex:it:stato:legge:2000-04-03;56', '--trace');
    expect(r.code, r.out + r.err).toBe(0);
    const steps = r.out.split('\n').filter((l) => /^step \d+ {2}NAPTR/.test(l));
    expect(steps.length).toBe(4);
    for (const s of steps) expect(s).toMatch(/, secure$/);
    expect(r.out).toContain(
      'http://127.0.0.1:8300/uri-res/N2L?urn:lex:it:stato:legge:2000-04-03;56',
    );
  });

  it('an unsigned zone in the chain: DNSSEC_INSECURE, and the trace says insecure', async () => {
    const r = await resolve('urn:lex:br:federal:lei:2008-06-19;11705', '--trace');
    expect(r.code).toBe(1);
    expect(r.out + r.err).toContain('DNSSEC_INSECURE');
    expect(r.out).toMatch(/NAPTR lex\.senado\.gov\.br\. .*error DNSSEC_INSECURE|DNSSEC_INSECURE/s);
  });

  it('a corrupted signature: DNSSEC_BOGUS (SERVFAIL, answered with CD)', async () => {
    const r = await resolve('urn:lex:de:bund:gesetz:1896-08-18;bgb', '--trace');
    expect(r.code).toBe(1);
    expect(r.out + r.err).toContain('DNSSEC_BOGUS');
    expect(r.out).toContain(', bogus');
  });

  it('the library option gives the same codes, and iterative mode refuses DNSSEC', async () => {
    const client = new LexClient({ servers: [`127.0.0.1:${u.port}`], dnssec: true });
    try {
      const ok = await client.resolve('urn:lex:it:stato:legge:2000-04-03;56', { noHttp: true });
      expect(ok.kind).toBe('resolved');
      await expect(
        client.resolve('urn:lex:br:federal:lei:2008-06-19;11705', { noHttp: true }),
      ).rejects.toMatchObject({ code: 'DNSSEC_INSECURE' });
    } finally {
      await client.close();
    }
    const usage = captureIo();
    expect(
      await run(['resolve', '--dnssec', '--root', '127.0.0.1:53', 'urn:lex:it:x:y:2000;1'], usage),
    ).toBe(2);
  });

  it('without --dnssec the same unsigned chain resolves (nothing is required)', async () => {
    const io = captureIo();
    const code = await run(
      [
        'resolve',
        '--server',
        `127.0.0.1:${u.port}`,
        '--no-http',
        'urn:lex:br:federal:lei:2008-06-19;11705',
      ],
      io,
    );
    expect(code, io.stderr()).toBe(0);
  });
});
