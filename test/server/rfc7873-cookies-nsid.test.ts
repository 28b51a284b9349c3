/**
 * What an operator expects of an authoritative server: NSID (RFC 5001), DNS
 * cookies (RFC 7873, server cookies of RFC 9018) and CH TXT version.bind /
 * id.server only when configured (REFUSED by default).
 *
 * - SipHash-2-4 against the reference vectors, the server cookie against
 *   RFC 9018 appendix A (A.1 to A.4), byte for byte;
 * - the engine with a fixed clock: the A.1 exchange through respond();
 * - a real `lexroute serve` asked with dig +nsid +cookie (dig checks that the
 *   client cookie comes back: "(good)") and kdig;
 * - malformed COOKIE options get FORMERR (RFC 7873 section 5.2.2).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import dnsPacket from 'dns-packet';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkServerCookie,
  ipBytes,
  makeServerCookie,
  sipHash24,
} from '../../src/dns/core/wire/cookie.ts';
import { Engine, TRANSPORT_TCP, TRANSPORT_UDP } from '../../src/authority/engine.ts';
import { validateServerConfig } from '../../src/config/server.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import {
  buildQuery,
  decode,
  query,
  startTestServer,
  TEST_ZONES,
  udpRaw,
  type Harness,
} from './harness.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const unhex = (s: string): Buffer => Buffer.from(s, 'hex');

/** The EDNS options of a response, by code. */
function ednsOptions(raw: Buffer): Map<number, Buffer> {
  const p = dnsPacket.decode(raw);
  const opt = p.additionals?.find((a) => a.type === 'OPT') as
    { options?: { code: number; data?: Buffer }[] } | undefined;
  return new Map((opt?.options ?? []).map((o) => [o.code, o.data ?? Buffer.alloc(0)]));
}

describe('SipHash-2-4 and RFC 9018 server cookies', () => {
  it('SipHash-2-4 reference vectors (key 00..0f)', () => {
    const key = Uint8Array.from({ length: 16 }, (_, i) => i);
    const msg = (n: number) => Uint8Array.from({ length: n }, (_, i) => i);
    expect(hex(sipHash24(key, msg(0)))).toBe('310e0edd47db6f72');
    expect(hex(sipHash24(key, msg(1)))).toBe('fd67dc93c539f874');
    expect(hex(sipHash24(key, msg(8)))).toBe('6224939a79f5f593');
    expect(hex(sipHash24(key, msg(15)))).toBe('e545be4961ca29a1');
  });

  it('RFC 9018 appendix A.1-A.4, byte for byte', () => {
    const s1 = unhex('e5e973e5a6b2a43f48e7dc849e37bfcf');
    const ip1 = ipBytes('198.51.100.100');
    const cc1 = unhex('2464c4abcf10c957');
    // A.1: learning a new server cookie.
    expect(hex(makeServerCookie(s1, cc1, ip1, 1559731985))).toBe(
      '010000005cf79f111f8130c3eee29480',
    );
    // A.2: the same cookie 40 minutes later is valid but old: a new one is made.
    const a1 = unhex('010000005cf79f111f8130c3eee29480');
    expect(checkServerCookie(s1, cc1, a1, ip1, 1559734385)).toBe('renew');
    expect(hex(makeServerCookie(s1, cc1, ip1, 1559734385))).toBe(
      '010000005cf7a871d4a564a1442aca77',
    );
    // A.3: another client whose cookie came from another server (unknown hash).
    const cc3 = unhex('fc93fc62807ddb86');
    const ip3 = ipBytes('203.0.113.203');
    expect(
      checkServerCookie(s1, cc3, unhex('01abcdef5cf78f71a314227b6679ebf5'), ip3, 1559734700),
    ).toBe('invalid');
    expect(hex(makeServerCookie(s1, cc3, ip3, 1559734700))).toBe(
      '010000005cf7a9acf73a7810aca2381e',
    );
    // A.4: IPv6, a cookie made with the previous secret, a new one with the new secret.
    const ip4 = ipBytes('2001:db8:220:1:59de:d0f4:8769:82b8');
    const cc4 = unhex('22681ab97d52c298');
    const old = unhex('dd3bdf9344b678b185a6f5cb60fca715');
    const now = unhex('445536bcd2513298075a5d379663c962');
    const sent = unhex('010000005cf7c57926556bd0934c72f8');
    expect(checkServerCookie(old, cc4, sent, ip4, 1559741961)).toBe('valid');
    expect(checkServerCookie(now, cc4, sent, ip4, 1559741961)).toBe('invalid');
    expect(hex(makeServerCookie(now, cc4, ip4, 1559741961))).toBe(
      '010000005cf7c609a6bb79d16625507a',
    );
  });

  it('time window: over an hour old or over 5 minutes ahead is invalid (RFC 9018 section 4.3)', () => {
    const s = unhex('e5e973e5a6b2a43f48e7dc849e37bfcf');
    const cc = unhex('2464c4abcf10c957');
    const ip = ipBytes('198.51.100.100');
    const t = 1559731985;
    const c = makeServerCookie(s, cc, ip, t);
    expect(checkServerCookie(s, cc, c, ip, t + 60)).toBe('valid');
    expect(checkServerCookie(s, cc, c, ip, t + 3601)).toBe('invalid');
    expect(checkServerCookie(s, cc, c, ip, t - 299)).toBe('valid');
    expect(checkServerCookie(s, cc, c, ip, t - 301)).toBe('invalid');
    expect(checkServerCookie(s, cc, c, ipBytes('198.51.100.101'), t)).toBe('invalid');
  });

  it('ipBytes: IPv4, IPv4-mapped, IPv6 with zone, garbage', () => {
    expect(hex(ipBytes('127.0.0.1'))).toBe('7f000001');
    expect(hex(ipBytes('::ffff:127.0.0.1'))).toBe('7f000001');
    expect(hex(ipBytes('::1'))).toBe('00000000000000000000000000000001');
    expect(hex(ipBytes('fe80::1%eth0'))).toBe('fe800000000000000000000000000001');
    expect(ipBytes('not an address')).toHaveLength(0);
  });
});

describe('engine: NSID, cookies and CH TXT', () => {
  const secret = unhex('e5e973e5a6b2a43f48e7dc849e37bfcf');
  const engine = new Engine([], {
    cookieSecret: secret,
    nsid: Buffer.from('ns1.test'),
    now: () => 1559731985,
  });
  const cookieQuery = (data: Buffer, nsid = false) =>
    buildQuery('example.com', 'A', {
      edns: {
        options: [{ code: 10, data }, ...(nsid ? [{ code: 3, data: Buffer.alloc(0) }] : [])],
      },
    });

  it('answers the RFC 9018 A.1 exchange with the A.1 cookie, and NSID when asked', () => {
    const out = engine.respond(
      cookieQuery(unhex('2464c4abcf10c957'), true),
      TRANSPORT_UDP,
      '198.51.100.100',
    )!;
    const opts = ednsOptions(out);
    expect(hex(opts.get(10)!)).toBe('2464c4abcf10c957010000005cf79f111f8130c3eee29480');
    expect(opts.get(3)!.toString()).toBe('ns1.test');
    // The name is not served: REFUSED, but the options are there (RFC 7873 section 5.2.1).
    expect(decode(out).rcode).toBe(5);
  });

  it('returns a valid, fresh server cookie as it came; replaces a wrong one', () => {
    const good = unhex('2464c4abcf10c957010000005cf79f111f8130c3eee29480');
    const out = engine.respond(cookieQuery(good), TRANSPORT_TCP, '198.51.100.100')!;
    expect(hex(ednsOptions(out).get(10)!)).toBe(hex(good));
    const bad = unhex('2464c4abcf10c957010000005cf79f11ffffffffffffffff');
    const out2 = engine.respond(cookieQuery(bad), TRANSPORT_UDP, '198.51.100.100')!;
    expect(hex(ednsOptions(out2).get(10)!)).toBe(hex(good));
    expect(decode(out2).rcode).toBe(5); // answered normally, no BADCOOKIE
  });

  it('malformed COOKIE options get FORMERR (RFC 7873 section 5.2.2)', () => {
    for (const len of [0, 7, 9, 15, 41]) {
      const out = engine.respond(cookieQuery(Buffer.alloc(len, 1)), TRANSPORT_UDP, '127.0.0.1')!;
      expect(decode(out).rcode, `length ${len}`).toBe(1);
      expect(ednsOptions(out).has(10)).toBe(false);
    }
    for (const len of [8, 16, 40]) {
      const out = engine.respond(cookieQuery(Buffer.alloc(len, 1)), TRANSPORT_UDP, '127.0.0.1')!;
      expect(decode(out).rcode, `length ${len}`).toBe(5);
    }
  });

  it('without configuration: no NSID, no cookie, CH REFUSED', () => {
    const plain = new Engine([]);
    const out = plain.respond(
      cookieQuery(unhex('2464c4abcf10c957'), true),
      TRANSPORT_UDP,
      '127.0.0.1',
    )!;
    expect(ednsOptions(out).size).toBe(0);
    for (const name of ['version.bind', 'version.server', 'id.server', 'hostname.bind']) {
      const r = decode(plain.respond(buildQuery(name, 'TXT', { qclass: 3 }), TRANSPORT_UDP)!);
      expect(r.rcode, name).toBe(5);
    }
  });
});

describe('config keys', () => {
  it('nsid, cookies and chaos validate with codes that name the key', () => {
    const ok = validateServerConfig({
      nsid: 'ns1',
      cookies: { enabled: false, secret: '00112233445566778899aabbccddeeff' },
      chaos: { version: 'lexroute', id: null },
    });
    expect(ok.errors).toEqual([]);
    expect(ok.config.cookies).toEqual({
      enabled: false,
      secret: '00112233445566778899aabbccddeeff',
    });
    const bad = validateServerConfig({
      nsid: '',
      cookies: { enabled: 'yes', secret: 'abc', extra: 1 },
      chaos: { version: 'a\nb' },
    });
    expect(bad.errors.map((e) => `${e.code} ${e.path}`).sort()).toEqual([
      'CONFIG_BAD_BOOLEAN cookies.enabled',
      'CONFIG_BAD_COOKIE_SECRET cookies.secret',
      'CONFIG_BAD_TEXT chaos.version',
      'CONFIG_BAD_TEXT nsid',
      'CONFIG_UNKNOWN_KEY cookies.extra',
    ]);
  });
});

const dig = toolOrSkip('dig');
const kdig = toolOrSkip('kdig');

describe.skipIf(dig.skipReason !== undefined)('lexroute serve asked by dig and kdig', () => {
  let h: Harness;
  let plain: Harness;
  beforeAll(async () => {
    const zones = [path.join(TEST_ZONES, 'example.test.zone')];
    h = await startTestServer(zones, {
      nsid: 'ns1.lexroute.test',
      cookies: { enabled: true, secret: 'e5e973e5a6b2a43f48e7dc849e37bfcf' },
      chaos: { version: 'lexroute test', id: 'ns1' },
    });
    plain = await startTestServer(zones);
  });
  afterAll(async () => {
    await h?.close();
    await plain?.close();
  });

  // Asynchronous: the server answers from this same process.
  const run = async (tool: string, port: number, ...args: string[]): Promise<string> =>
    (
      await promisify(execFile)(
        tool,
        [
          '@127.0.0.1',
          '-p',
          String(port),
          ...(tool.endsWith('kdig') ? ['+timeout=2', '+retry=0'] : ['+time=2', '+tries=1']),
          ...args,
        ],
        { encoding: 'utf8' },
      )
    ).stdout;

  it('dig +nsid +cookie over UDP and TCP: NSID shown, cookie "(good)"', async () => {
    for (const t of ['+notcp', '+tcp']) {
      const out = await run(dig.path!, h.port, t, '+nsid', '+cookie', 'www.example.test', 'A');
      expect(out, t).toMatch(/status: NOERROR/);
      expect(out, t).toContain('("ns1.lexroute.test")');
      expect(out, t).toMatch(/; COOKIE: [0-9a-f]{48} \(good\)/);
    }
  });

  it('dig sends back the server cookie it learned and gets it again', async () => {
    const first = await run(dig.path!, h.port, '+cookie=2464c4abcf10c957', 'www.example.test');
    const cookie = /; COOKIE: ([0-9a-f]{48})/.exec(first)![1]!;
    const second = await run(dig.path!, h.port, `+cookie=${cookie}`, 'www.example.test');
    expect(second).toContain(`; COOKIE: ${cookie} (good)`);
  });

  it('dig: a 2-octet cookie is FORMERR', async () => {
    expect(await run(dig.path!, h.port, '+cookie=0102', 'www.example.test')).toMatch(
      /status: FORMERR/,
    );
  });

  it('CH TXT version.bind, version.server, id.server, hostname.bind when configured', async () => {
    expect((await run(dig.path!, h.port, 'CH', 'TXT', 'version.bind', '+short')).trim()).toBe(
      '"lexroute test"',
    );
    expect((await run(dig.path!, h.port, 'CH', 'TXT', 'version.server', '+short')).trim()).toBe(
      '"lexroute test"',
    );
    expect((await run(dig.path!, h.port, 'CH', 'TXT', 'id.server', '+short')).trim()).toBe('"ns1"');
    expect((await run(dig.path!, h.port, 'CH', 'TXT', 'hostname.bind', '+short')).trim()).toBe(
      '"ns1"',
    );
    expect(await run(dig.path!, h.port, 'CH', 'TXT', 'authors.bind')).toMatch(/status: REFUSED/);
  });

  it('by default: cookies answered, no NSID, CH TXT REFUSED', async () => {
    const out = await run(dig.path!, plain.port, '+nsid', '+cookie', 'www.example.test');
    expect(out).not.toContain('NSID');
    expect(out).toMatch(/; COOKIE: [0-9a-f]{48} \(good\)/);
    expect(await run(dig.path!, plain.port, 'CH', 'TXT', 'version.bind')).toMatch(
      /status: REFUSED/,
    );
  });

  it.skipIf(kdig.skipReason !== undefined)('kdig +nsid +cookie', async () => {
    const out = await run(kdig.path!, h.port, '+nsid', '+cookie', 'www.example.test');
    expect(out).toContain('"ns1.lexroute.test"');
    expect(out).toMatch(/COOKIE: [0-9A-F]{48}/i);
  });

  it('a raw query without EDNS still gets a plain answer', async () => {
    const r = await query(h.port, 'udp', 'www.example.test', 'A');
    expect(r.rcode).toBe(0);
    const raw = await udpRaw(h.port, buildQuery('www.example.test', 'A'));
    expect(decode(raw!).rcode).toBe(0);
  });
});
