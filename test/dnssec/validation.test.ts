/**
 * Validation of lexroute's signed answers by tools not written here:
 * `delv` with the zone's trust anchor validates NAPTR, SRV, A and a negative
 * answer; Unbound, validating with that trust anchor in front of lexroute,
 * sets AD on them and answers SERVFAIL for an RRset whose signature the
 * test corrupts (RFC 4035 section 5).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolOrSkip } from '../helpers/tools.ts';
import { query, startBogusServer, TEST_ZONES, type Harness } from '../server/harness.ts';
import { freePort } from '../server/named.ts';
import { startUnbound, type Daemon } from '../e2e/daemons.ts';
import { bindSign, corrupt, type SignedZone } from './bind-sign.ts';

const delv = toolOrSkip('delv');
const unbound = toolOrSkip('unbound');
const signer = toolOrSkip('dnssec-signzone');

const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-dnssec-validate-'));
let zone: SignedZone;
let h: Harness;

beforeAll(async () => {
  if (signer.skipReason) return;
  zone = bindSign(path.join(TEST_ZONES, 'signed.test.zone'), 'signed.test.', tmp, 'nsec3');
  corrupt(zone.file, 'www.signed.test.', 'TXT');
  // Served as filed: serve refuses a zone whose signature does not verify.
  h = await startBogusServer([zone.file]);
}, 60_000);
afterAll(async () => {
  await h?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf((delv.skipReason ?? signer.skipReason) !== undefined)('delv validates', () => {
  // Asynchronous: the server under test runs in this process.
  const run = async (qname: string, qtype: string): Promise<string> => {
    const anchor = path.join(tmp, 'anchor.conf');
    const [owner, , , flags, proto, alg, ...key] = zone.ksk.split(/\s+/);
    writeFileSync(
      anchor,
      `trust-anchors { "${owner}" static-key ${flags} ${proto} ${alg} "${key.join('')}"; };\n`,
    );
    try {
      const r = await promisify(execFile)(
        delv.path!,
        ['@127.0.0.1', '-p', String(h.port), '-a', anchor, '+root=signed.test.', qname, qtype],
        { encoding: 'utf8', timeout: 20_000 },
      );
      return r.stdout + r.stderr;
    } catch (e) {
      return String((e as { stdout?: string }).stdout) + String((e as { stderr?: string }).stderr);
    }
  };
  it.each([
    ['naptr-s.signed.test', 'NAPTR'],
    ['_http._tcp.signed.test', 'SRV'],
    ['www.signed.test', 'A'],
    ['x.wild.signed.test', 'A'],
  ])('%s %s: fully validated', async (qname, qtype) => {
    const out = await run(qname, qtype);
    expect(out, out).toContain('; fully validated');
    expect(out).toMatch(new RegExp(`\\sIN\\s+${qtype}\\s`));
  });
  it('a negative answer is validated too (NSEC3)', async () => {
    const out = await run('nx.signed.test', 'A');
    expect(out, out).toMatch(/negative response, fully validated/);
  });
  it('a corrupted signature fails', async () => {
    const out = await run('www.signed.test', 'TXT');
    expect(out, out).not.toContain('; fully validated');
    expect(out).toMatch(/resolution failed|validation failure|no valid RRSIG/i);
  });
});

describe.skipIf((unbound.skipReason ?? signer.skipReason) !== undefined)(
  'Unbound validating in front of lexroute',
  () => {
    let u: Daemon;
    beforeAll(async () => {
      const port = await freePort();
      u = await startUnbound(
        unbound.path!,
        port,
        [{ origin: 'signed.test.', host: '127.0.0.1', port: h.port }],
        'naptr-s.signed.test.',
        [zone.ksk],
      );
    }, 30_000);
    afterAll(async () => {
      await u?.close();
    });
    it.each([
      ['naptr-s.signed.test', 'NAPTR', 0],
      ['_http._tcp.signed.test', 'SRV', 0],
      ['www.signed.test', 'A', 0],
      ['x.wild.signed.test', 'NAPTR', 0],
      ['nx.signed.test', 'A', 3],
      ['www.signed.test', 'MX', 0],
    ])('%s %s: AD set, rcode %i', async (qname, qtype, rcode) => {
      const r = await query(u.port, 'udp', qname, qtype, { edns: { do: true } });
      expect(r.rcode).toBe(rcode);
      expect(r.raw.readUInt16BE(2) & 0x0020).toBe(0x0020);
    });
    it('SERVFAIL for the RRset whose signature is corrupted', async () => {
      const r = await query(u.port, 'udp', 'www.signed.test', 'TXT', { edns: { do: true } });
      expect(r.rcode).toBe(2);
    });
  },
);
