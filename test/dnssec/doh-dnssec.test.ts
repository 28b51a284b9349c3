/**
 * DNSSEC over DNS over HTTPS: `lexroute serve --keys --doh` answers a DO
 * query over DoH with the same signed RRsets (RRSIGs included) as over UDP,
 * as Knot's `kdig +https +dnssec` and BIND's `dig +https +dnssec` (TLS) and
 * `dig +http-plain +dnssec` (h2c on loopback) see them; and `lexroute
 * resolve --dnssec --doh` through a DoH server that does not validate (an
 * authoritative server sets no AD) fails with DNSSEC_INSECURE.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { generateKey } from '../../src/dnssec/keys.ts';
import { captureIo, type CapturedIo, events } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { selfSignedLoopbackCert } from '../helpers/tls.ts';

const openssl = toolOrSkip('openssl');
const dig = toolOrSkip('dig');
const kdig = toolOrSkip('kdig');
const ORIGIN = 'lex.urn.arpa.';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-doh-dnssec-'));
const zoneFile = path.join(tmp, 'lex.urn.arpa.zone');

interface Served {
  io: CapturedIo;
  done: Promise<number>;
  udp: number;
  doh: URL;
}
let tls: Served;
let plain: Served;

async function serve(extra: string[]): Promise<Served> {
  const io = captureIo({ cwd: tmp });
  const args = ['serve', '--zones', zoneFile, '--keys', 'keys', '--listen', '127.0.0.1:0'];
  const done = run([...args, '--doh', '127.0.0.1:0', ...extra, '--json'], io);
  const end = Date.now() + 20_000;
  for (;;) {
    const ls = events(io).filter((e) => e.event === 'listening');
    const udp = ls.find((e) => e.transports === 'udp+tcp');
    const doh = ls.find((e) => typeof e.url === 'string');
    if (udp && doh) return { io, done, udp: udp.port as number, doh: new URL(doh.url as string) };
    if (Date.now() > end) throw new Error(`serve did not start: ${io.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The record lines of a dig/kdig answer (owner, type and data; TTLs and comments dropped). */
function records(out: string): string[] {
  return (
    out
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.startsWith(';'))
      .map((l) => l.trim().split(/\s+/))
      .filter((f) => f.length > 4 && f[2] === 'IN')
      // Owner and type, then the data without spaces (tools split base64 differently).
      .map((f) => `${f[0]!.toLowerCase()} ${f[3]} ${f.slice(4).join('')}`)
      .sort()
  );
}

async function tool(bin: string, args: string[]): Promise<string> {
  const r = await promisify(execFile)(bin, args, { encoding: 'utf8', timeout: 20_000 });
  return r.stdout;
}

beforeAll(async () => {
  if (openssl.skipReason) return;
  mkdirSync(path.join(tmp, 'keys'));
  await generateKey(path.join(tmp, 'keys'), ORIGIN, 13, true);
  await generateKey(path.join(tmp, 'keys'), ORIGIN, 13, false);
  writeFileSync(
    zoneFile,
    `$ORIGIN ${ORIGIN}
$TTL 300
@ IN SOA ns hostmaster 1 3600 600 86400 300
@ IN NS ns
ns IN A 127.0.0.1
@ IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!https://doh.example/\\\\1!" .
`,
  );
  selfSignedLoopbackCert(openssl.path!, tmp);
  tls = await serve(['--tls-cert', 'cert.pem', '--tls-key', 'key.pem']);
  plain = await serve([]);
}, 60_000);

afterAll(async () => {
  for (const s of [tls, plain]) {
    if (!s) continue;
    s.io.abort();
    await s.done;
  }
  rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf((openssl.skipReason ?? dig.skipReason) !== undefined)(
  'a signed answer over DoH',
  () => {
    it.each([
      ['kdig +https +dnssec', () => kdig, () => tls, ['+https', '+dnssec']],
      ['dig +https +dnssec', () => dig, () => tls, ['+https', '+dnssec']],
      ['dig +http-plain +dnssec', () => dig, () => plain, ['+http-plain', '+dnssec']],
    ] as const)('%s: the RRSIGs of the UDP answer', async (_name, bin, server, flags) => {
      if (bin().skipReason) return;
      const s = server();
      const port = s.doh.port;
      const over = await tool(bin().path!, ['@127.0.0.1', '-p', port, ...flags, ORIGIN, 'NAPTR']);
      const udp = await tool(dig.path!, [
        '@127.0.0.1',
        '-p',
        String(s.udp),
        '+dnssec',
        ORIGIN,
        'NAPTR',
      ]);
      const got = records(over);
      expect(
        got.some((l) => l.startsWith(`${ORIGIN} RRSIG NAPTR133`)),
        over,
      ).toBe(true);
      expect(got.some((l) => l.startsWith(`${ORIGIN} NAPTR `))).toBe(true);
      expect(got).toEqual(records(udp));
    });

    it('a negative answer over DoH carries its NSEC proof', async () => {
      const out = await tool(dig.path!, [
        '@127.0.0.1',
        '-p',
        plain.doh.port,
        '+http-plain',
        '+dnssec',
        `nx.${ORIGIN}`,
        'A',
      ]);
      expect(out).toContain('status: NXDOMAIN');
      expect(records(out).filter((l) => / NSEC /.test(l)).length).toBeGreaterThan(0);
    });

    it('resolve --dnssec --doh through a DoH server that does not validate: DNSSEC_INSECURE', async () => {
      const io = captureIo();
      const code = await run(
        ['resolve', '--dnssec', '--doh', plain.doh.href, '--json', 'urn:lex:xx:state:law:2020;1'],
        io,
      );
      expect(code).toBe(1);
      expect(io.stdout() + io.stderr()).toContain('DNSSEC_INSECURE');
    });
  },
);
