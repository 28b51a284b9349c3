/**
 * Issue 31 item 8: a signed zone leaves lexroute as zone data with each
 * RRSIG's own TTL, the TTL of the RRset it covers (RFC 4034 section 3: "The
 * TTL value of an RRSIG RR MUST match the TTL value of the RRset it
 * covers"), not the smallest TTL at its owner. A zone signed by `zone sign`
 * with a different TTL for every RRset at a name is compared RRSIG by RRSIG
 * with the file as `zone print` writes it, as lexroute's AXFR sends it, and
 * as a lexroute secondary stores it after an AXFR and then an IXFR;
 * `dnssec-verify` (BIND) accepts the AXFR output.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG, type ServerConfig } from '../../src/config/server.ts';
import { createLogger } from '../../src/authority/log.ts';
import { startServer, type RunningServer } from '../../src/authority/server.ts';
import { run } from '../../src/cli/main.ts';
import { generateKey } from '../../src/dnssec/keys.ts';
import { signZoneFile } from '../../src/dnssec/sign.ts';
import { captureIo } from '../helpers/io.ts';
import { eventLogger, type LogEvent } from '../helpers/events.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { freePort } from '../server/named.ts';
import { query } from '../server/harness.ts';
import { xfr, xfrQuery } from './client.ts';

const verify = toolOrSkip('dnssec-verify');
const dig = toolOrSkip('dig');

const ORIGIN = 'ttl.test.';

/** Every RRset at a name with its own TTL: SOA (and so DNSKEY) 900, NS 86400, NSEC 600, ... */
function sourceText(extra: string): string {
  return `$ORIGIN ${ORIGIN}
@ 900 SOA ns1 hostmaster 1 3600 600 86400 600
@ 86400 NS ns1
ns1 300 A 127.0.0.1
ns1 7200 TXT "glue-free host"
lex 60 NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://127.0.0.1/n2l?\\\\1!" .
lex 3600 TXT "rules"
${extra}
`;
}

/** RRSIG TTLs by owner, covered type and key tag, from presentation lines (a zone file, `zone print`, dig). */
function rrsigTtlsOfText(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const t = line.trim().split(/\s+/);
    if (t[3] !== 'RRSIG' || line.startsWith(';')) continue;
    out.set(`${t[0]!.toLowerCase()}|${t[4]}|${t[10]}`, Number(t[1]));
  }
  return out;
}

/** The key tag of the ZSK's RRSIG over the apex NSEC3PARAM (any RRSIG NSEC3PARAM line's). */
function keyTagOf(text: string): string {
  const line = text.split('\n').find((l) => /\sRRSIG\s+NSEC3PARAM\s/.test(l))!;
  return line.trim().split(/\s+/)[10]!;
}

/** The TTL of each RRset but RRSIG, by owner and type, from presentation lines. */
function rrsetTtlsOfText(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const t = line.trim().split(/\s+/);
    if (t.length < 4 || t[3] === 'RRSIG' || line.startsWith(';') || line.startsWith('$')) continue;
    out.set(`${t[0]!.toLowerCase()}|${t[3]}`, Number(t[1]));
  }
  return out;
}

const sh = async (cmd: string, args: string[]) => {
  try {
    const r = await promisify(execFile)(cmd, args, { encoding: 'utf8' });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: x.code ?? 1, out: x.stdout ?? '', err: x.stderr ?? '' };
  }
};

describe('RRSIG TTLs as zone data (issue 31 item 8)', () => {
  let dir: string;
  let source: string;
  let signed: string;
  let primary: RunningServer;
  let secondary: RunningServer;
  let port: number;
  let secondaryPort: number;
  const events: LogEvent[] = [];

  const sign = async (extra: string, nsec3 = false) => {
    writeFileSync(source, sourceText(extra));
    await signZoneFile(source, {
      keysDir: path.join(dir, 'keys'),
      out: signed,
      nsec3,
      optOut: false,
    });
    return readFileSync(signed, 'utf8');
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-rrsig-ttl-'));
    source = path.join(dir, 'ttl.test.src');
    signed = path.join(dir, `${ORIGIN}zone`);
    await generateKey(path.join(dir, 'keys'), ORIGIN, 13, true);
    await generateKey(path.join(dir, 'keys'), ORIGIN, 13, false);
    await sign('');
    port = await freePort();
    secondaryPort = await freePort();
    const quiet = createLogger(() => undefined, 'silent', 'json');
    const primaryConfig: ServerConfig = {
      ...DEFAULT_SERVER_CONFIG,
      listen: [{ host: '127.0.0.1', port }],
      zones: [
        {
          file: signed,
          origin: ORIGIN,
          allowTransfer: ['127.0.0.1/32'],
          secondaries: [{ host: '127.0.0.1', port: secondaryPort }],
        },
      ],
      transfer: { ...DEFAULT_SERVER_CONFIG.transfer, stateDir: path.join(dir, 'primary-state') },
    };
    primary = await startServer({
      config: primaryConfig,
      log: quiet,
      cwd: dir,
    });
    const { log } = eventLogger('info', events);
    const secondaryConfig: ServerConfig = {
      ...DEFAULT_SERVER_CONFIG,
      listen: [{ host: '127.0.0.1', port: secondaryPort }],
      zones: [{ origin: ORIGIN, primaries: [{ host: '127.0.0.1', port }] }],
      transfer: { ...DEFAULT_SERVER_CONFIG.transfer, stateDir: path.join(dir, 'secondary-state') },
    };
    secondary = await startServer({
      config: secondaryConfig,
      log,
      cwd: dir,
    });
  }, 60_000);

  afterAll(async () => {
    await secondary?.close();
    await primary?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the signed file itself: each RRSIG has the TTL of the RRset it covers, and they differ at one name', () => {
    const text = readFileSync(signed, 'utf8');
    const sigs = rrsigTtlsOfText(text);
    const sets = rrsetTtlsOfText(text);
    expect(sigs.size).toBeGreaterThanOrEqual(10);
    for (const [k, ttl] of sigs) {
      const [owner, covered] = k.split('|');
      expect(sets.get(`${owner}|${covered}`), k).toBe(ttl);
    }
    const apex = [...sigs].filter(([k]) => k.startsWith(`${ORIGIN}|`)).map(([, t]) => t);
    expect(new Set(apex)).toEqual(new Set([900, 86400, 600]));
  });

  it('zone print writes every RRSIG with the TTL the file has', async () => {
    const io = captureIo();
    expect(await run(['zone', 'print', signed], io)).toBe(0);
    expect(rrsigTtlsOfText(io.stdout())).toEqual(rrsigTtlsOfText(readFileSync(signed, 'utf8')));
  });

  it('AXFR sends every RRSIG with the TTL the file has', async () => {
    const r = await xfr(port, xfrQuery(ORIGIN, 'AXFR'));
    expect(r.complete).toBe(true);
    const got = new Map<string, number>();
    for (const a of r.records)
      if (a.type === 'RRSIG') {
        const d = a.data as { typeCovered: string; keyTag: number };
        got.set(`${a.name.toLowerCase()}.|${d.typeCovered}|${d.keyTag}`, a.ttl!);
      }
    expect(got).toEqual(rrsigTtlsOfText(readFileSync(signed, 'utf8')));
  });

  it.skipIf((verify.skipReason ?? dig.skipReason) !== undefined)(
    'dnssec-verify accepts the AXFR output',
    async () => {
      const axfr = await sh(dig.path!, [
        '@127.0.0.1',
        '-p',
        String(port),
        ORIGIN,
        'AXFR',
        '+onesoa',
        '+nocmd',
        '+nostats',
      ]);
      expect(axfr.code).toBe(0);
      const out = path.join(dir, 'axfr.zone');
      writeFileSync(out, axfr.out);
      expect(rrsigTtlsOfText(axfr.out)).toEqual(rrsigTtlsOfText(readFileSync(signed, 'utf8')));
      const v = await sh(verify.path!, ['-o', ORIGIN, out]);
      expect(v.code, v.err + v.out).toBe(0);
      expect(v.err + v.out).toMatch(/Zone fully signed/);
    },
  );

  /**
   * The secondary's stored copy once it serves `serial` and its file holds it
   * (a zone changed by difference is served first and written after), and
   * `done()` holds (the xfr_in line is logged after the swap).
   */
  const storedCopy = async (serial: number, done: () => boolean = () => true) => {
    const file = path.join(dir, 'secondary-state', 'secondary', `${ORIGIN}zone`);
    const t0 = performance.now();
    for (;;) {
      const r = await query(secondaryPort, 'udp', ORIGIN, 'SOA');
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
      const stored = Number(/SOA\s+\S+\s+\S+\s+(\d+)/.exec(text)?.[1]) === serial;
      if (r.answer[0]?.includes(`"serial":${serial},`) && stored && done()) return text;
      if (performance.now() - t0 > 10_000)
        throw new Error(`the secondary never served, stored and logged ${serial}`);
      await new Promise((res) => setTimeout(res, 25));
    }
  };

  it("the secondary's copy after AXFR, then after IXFR, has every RRSIG with the primary's TTL", async () => {
    const first = readFileSync(signed, 'utf8');
    const serial1 = Number(/SOA\s+\S+\s+\S+\s+(\d+)/.exec(first)![1]);
    expect(rrsigTtlsOfText(await storedCopy(serial1))).toEqual(rrsigTtlsOfText(first));
    // A change: re-signed with a raised serial; the primary reloads and NOTIFYs.
    // NSEC3 now: NSEC3PARAM has TTL 0 at the apex, as Knot signs it; the apex's other RRSIGs keep theirs.
    const second = await sign('new 120 TXT "added"', true);
    expect(rrsigTtlsOfText(second).get(`${ORIGIN}|NSEC3PARAM|${keyTagOf(second)}`)).toBe(0);
    const serial2 = Number(/SOA\s+\S+\s+\S+\s+(\d+)/.exec(second)![1]);
    await primary.reload();
    const ixfrIn = () => events.some((e) => e.event === 'xfr_in' && e.kind === 'IXFR');
    const copy = await storedCopy(serial2, ixfrIn);
    expect(ixfrIn()).toBe(true);
    expect(rrsigTtlsOfText(copy)).toEqual(rrsigTtlsOfText(second));
    // And the secondary answers RRSIG DNSKEY with the DNSKEY RRset's TTL.
    const a = await query(secondaryPort, 'tcp', ORIGIN, 'DNSKEY', { edns: { do: true } });
    const sig = a.answer.find((l) => l.split(' ')[2] === 'RRSIG');
    expect(sig?.split(' ')[1], a.answer.join('\n')).toBe('900');
  });
});
