/**
 * `lexroute dev --dnssec`: the sample chain signed at start (keys made
 * fresh, each parent with its children's DS, the root's key as the trust
 * anchor beside the catalogue). Unbound, validating from that one anchor
 * with every zone stubbed to the server that serves it, gives AD on the
 * chain; `resolve --dnssec` through it resolves every sample URN with every
 * step secure, HTTP step included (Campinas: S rule, SRV and address).
 * Without Unbound, `resolve --validate --trust-anchor` (lexroute checking
 * the signatures itself) does the same from the root, iteratively.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import type { RunningDevChain } from '../../src/dev/chain.ts';
import { captureIo } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { freePort } from '../server/named.ts';
import { startUnbound, type Daemon } from '../e2e/daemons.ts';
import { devConfig, EXPECTED, startSampleChain } from '../e2e/helpers.ts';

const unbound = toolOrSkip('unbound');
let chain: RunningDevChain;
let u: Daemon;

beforeAll(async () => {
  chain = await startSampleChain(devConfig(), { dnssec: true });
  const stubs = chain.dns.flatMap((d) =>
    d.origins.map((origin) => ({ origin, host: d.host, port: d.port })),
  );
  if (unbound.skipReason) return;
  u = await startUnbound(unbound.path!, await freePort(), stubs, 'lex.urn.arpa.', [
    chain.dnssec!.anchor,
  ]);
}, 60_000);
afterAll(async () => {
  await u?.close();
  await chain?.close();
});

/** The DNS steps of a --trace text (NAPTR, SRV, address). */
function dnsSteps(out: string): string[] {
  return out.split('\n').filter((l) => /^(step \d+ {2}NAPTR|SRV |A {4}|AAAA )/.test(l));
}

describe('lexroute dev --dnssec, validated by lexroute', () => {
  it('every sample URN resolves with --validate from the root, every step secure', async () => {
    const root = `${chain.dns[0]!.host}:${chain.dns[0]!.port}`;
    for (const urn of Object.keys(EXPECTED)) {
      const io = captureIo();
      const args = ['resolve', '--validate', '--trust-anchor', chain.dnssec!.anchorFile];
      const code = await run([...args, '--root', root, '--trace', urn], io);
      expect(code, `${urn}\n${io.stdout()}${io.stderr()}`).toBe(0);
      const steps = dnsSteps(io.stdout());
      expect(steps.length).toBeGreaterThanOrEqual(3);
      for (const s of steps) expect(s, urn).toMatch(/, secure \(validated: \S+ from anchor \.\)$/);
      expect(io.stdout()).toContain(EXPECTED[urn]!.url);
    }
  }, 60_000);
});

describe.skipIf(unbound.skipReason !== undefined)('lexroute dev --dnssec', () => {
  it("writes Unbound's configuration for the chain (issue 31 item 22), which unbound-checkconf accepts", () => {
    const file = chain.dnssec!.unboundConfFile;
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`trust-anchor-file: "${chain.dnssec!.anchorFile}"`);
    const stubs = [...text.matchAll(/stub-zone:\n {2}name: "([^"]+)"\n {2}stub-addr: (\S+)/g)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    const served = chain.dns.flatMap((d) => d.origins.map((o) => `${o} ${d.host}@${d.port}`));
    expect(stubs.sort()).toEqual(served.sort());
    const check = spawnSync('unbound-checkconf', [file], { encoding: 'utf8' });
    expect(check.status, check.stderr + check.stdout).toBe(0);
  });

  it('writes the root key beside the catalogue, in both forms', () => {
    const d = chain.dnssec!;
    expect(path.dirname(d.anchorFile)).toBe(path.dirname(chain.catalogue.path));
    expect(readFileSync(d.anchorFile, 'utf8')).toMatch(/^\. IN DNSKEY 257 3 13 \S+\n$/);
    expect(readFileSync(d.bindAnchorFile, 'utf8')).toContain('"." static-key 257 3 13');
  });

  it('every sample URN resolves through validating Unbound with --dnssec, every step secure', async () => {
    for (const urn of Object.keys(EXPECTED)) {
      const io = captureIo();
      const code = await run(
        ['resolve', '--dnssec', '--server', `127.0.0.1:${u.port}`, '--trace', urn],
        io,
      );
      expect(code, `${urn}\n${io.stdout()}${io.stderr()}`).toBe(0);
      const dnsSteps = io
        .stdout()
        .split('\n')
        .filter((l) => /^(step \d+ {2}NAPTR|SRV |A {4}|AAAA )/.test(l));
      expect(dnsSteps.length).toBeGreaterThanOrEqual(3);
      for (const s of dnsSteps) expect(s, urn).toMatch(/, secure$/);
      expect(io.stdout()).toContain(EXPECTED[urn]!.url);
    }
  }, 60_000);
});
