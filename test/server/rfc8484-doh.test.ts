/**
 * DNS over HTTPS (RFC 8484) on `lexroute serve`: BIND's `dig +https` and
 * Knot's `kdig +https` against a TLS endpoint (certificate made by openssl)
 * give the same answers as UDP over the sample zones; the section 4.1
 * examples (GET and POST) are answered; HTTP/2 and HTTP/1.1, TLS and plain
 * loopback (h2c by prior knowledge too); malformed requests get a 4xx with a
 * problem+json body, never a 5xx.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64UrlDecode, base64UrlEncode, dohFreshness } from '../../src/dns/core/wire/doh.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { SAMPLE_ZONES, startTestServer, type Harness } from './harness.ts';
import { selfSignedLoopbackCert } from '../helpers/tls.ts';

const run = promisify(execFile);
const openssl = toolOrSkip('openssl');
const dig = toolOrSkip('dig');
const kdig = toolOrSkip('kdig');

interface Decoded {
  id: number;
  rcode: string;
  flag_aa: boolean;
  questions: { name: string; type: string; class: string }[];
  answers: { type: string; ttl: number }[];
  authorities: { type: string; ttl: number; data: unknown }[];
}
const decode = (b: Buffer): Decoded => dnsPacket.decode(b) as unknown as Decoded;

/** RFC 8484 section 4.1: "www.example.com" A, ID 0, RD, as the GET example encodes it. */
const RFC_GET = 'AAABAAABAAAAAAAAA3d3dwdleGFtcGxlA2NvbQAAAQAB';

let h: Harness;
let dir: string;
let tlsUrl: string;
let plainUrl: string;
let ca: Buffer;

beforeAll(async () => {
  if (openssl.skipReason) return;
  dir = mkdtempSync(path.join(tmpdir(), 'lexroute-doh-'));
  selfSignedLoopbackCert(openssl.path!, dir);
  ca = readFileSync(path.join(dir, 'cert.pem'));
  h = await startTestServer([SAMPLE_ZONES], {
    doh: {
      listen: [{ host: '127.0.0.1', port: 0 }],
      tlsCert: path.join(dir, 'cert.pem'),
      tlsKey: path.join(dir, 'key.pem'),
    },
  });
  tlsUrl = h.server.doh[0]!.url;
  plain = await startTestServer([SAMPLE_ZONES], {
    doh: { listen: [{ host: '127.0.0.1', port: 0 }] },
  });
  plainUrl = plain.server.doh[0]!.url;
});
let plain: Harness;
afterAll(async () => {
  await h?.close();
  await plain?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The parts of a dig/kdig answer that must agree: status, flags, and the record lines. */
function essence(out: string): string {
  const status = /status: ([A-Z]+)/.exec(out)?.[1] ?? '?';
  const flags = /flags: ([a-z ]+);/i.exec(out)?.[1]?.trim() ?? '?';
  const records = out
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith(';'))
    .map((l) => l.split(/\s+/).join(' '))
    .sort();
  return [status, flags, ...records].join('\n');
}

const CORPUS: [string, string][] = [
  ['lex.urn.arpa', 'NAPTR'],
  ['urn.arpa', 'SOA'],
  ['urn.arpa', 'NS'],
  ['lex.urn.arpa', 'A'],
  ['nothing.urn.arpa', 'NAPTR'],
  ['lex-nameserver.nic.it', 'NAPTR'],
  ['lex.sao-paulo.gov.br', 'NAPTR'],
  ['lex.senado.gov.br', 'NAPTR'],
  ['fr.lex-routing.nic.it', 'NAPTR'],
  ['example.com', 'A'],
];

describe.skipIf(openssl.skipReason !== undefined)('lexroute serve --doh', () => {
  describe.each([
    ['dig', dig, ['+https']],
    ['kdig', kdig, ['+https']],
  ] as const)('%s +https gives the UDP answers', (name, tool, flags) => {
    it.skipIf(tool.skipReason !== undefined).each(CORPUS)('%s %s', async (qname, qtype) => {
      const port = new URL(tlsUrl).port;
      const common = ['@127.0.0.1', '+norec', '+nocookie', '+bufsize=1232', qname, qtype];
      const overDoh = await run(tool.path!, ['-p', port, ...flags, ...common], { timeout: 5000 });
      const overUdp = await run(tool.path!, ['-p', String(h.port), '+notcp', ...common], {
        timeout: 5000,
      });
      expect(overDoh.stdout).toMatch(name === 'dig' ? /HTTPS/ : /HTTPS|TLS/);
      expect(essence(overDoh.stdout)).toBe(essence(overUdp.stdout));
    });
  });

  it.skipIf(dig.skipReason !== undefined)(
    'dig +http-plain (h2c) on a loopback endpoint',
    async () => {
      const port = new URL(plainUrl).port;
      const { stdout } = await run(
        dig.path!,
        ['@127.0.0.1', '-p', port, '+http-plain', '+short', 'lex.urn.arpa', 'NAPTR'],
        { timeout: 5000 },
      );
      expect(stdout.trim()).toBe('100 10 "" "" "" lex-nameserver.nic.it.');
    },
  );

  it('RFC 8484 section 4.1: the GET and POST examples are answered (REFUSED: not our zone), ID 0 kept', async () => {
    const get = await fetch(`${plainUrl}?dns=${RFC_GET}`, {
      headers: { accept: 'application/dns-message' },
    });
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toBe('application/dns-message');
    const g = decode(Buffer.from(await get.arrayBuffer()));
    expect(g.id).toBe(0);
    expect(g.rcode).toBe('REFUSED');
    expect(g.questions).toEqual([{ name: 'www.example.com', type: 'A', class: 'IN' }]);
    const body = base64UrlDecode(RFC_GET) as Uint8Array;
    const post = await fetch(plainUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/dns-message', accept: 'application/dns-message' },
      body: body as Uint8Array<ArrayBuffer>,
    });
    expect(post.status).toBe(200);
    expect(decode(Buffer.from(await post.arrayBuffer())).rcode).toBe('REFUSED');
  });

  it('cache-control max-age is the smallest TTL (RFC 8484 section 5.1); CORS lets any origin read', async () => {
    const q = dnsPacket.encode({
      type: 'query',
      id: 0,
      questions: [{ name: 'lex.sao-paulo.gov.br', type: 'NAPTR' }],
    });
    const r = await fetch(`${plainUrl}?dns=${base64UrlEncode(q)}`, {
      headers: { origin: 'https://portal.example' },
    });
    const bytes = Buffer.from(await r.arrayBuffer());
    const m = decode(bytes);
    const ttls = [...m.answers, ...m.authorities].map((a) => (a as { ttl: number }).ttl);
    expect(r.headers.get('cache-control')).toBe(`max-age=${Math.min(...ttls)}`);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    const nx = dnsPacket.encode({
      type: 'query',
      id: 0,
      questions: [{ name: 'nothing.urn.arpa', type: 'NAPTR' }],
    });
    const n = await fetch(`${plainUrl}?dns=${base64UrlEncode(nx)}`);
    const nm = decode(Buffer.from(await n.arrayBuffer()));
    expect(nm.rcode).toBe('NXDOMAIN');
    const soa = nm.authorities.find((a) => a.type === 'SOA') as {
      ttl: number;
      data: { minimum: number };
    };
    expect(r.headers.get('cache-control')).not.toBeNull();
    expect(n.headers.get('cache-control')).toBe(`max-age=${Math.min(soa.ttl, soa.data.minimum)}`);
    const pre = await fetch(plainUrl, {
      method: 'OPTIONS',
      headers: { origin: 'https://x.example', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('HTTP/2 over TLS (ALPN h2) answers from the same engine', async () => {
    const client = http2.connect(new URL(tlsUrl).origin, { ca });
    try {
      const q = dnsPacket.encode({
        type: 'query',
        id: 0,
        questions: [{ name: 'lex.urn.arpa', type: 'NAPTR' }],
      });
      const { status, body } = await new Promise<{ status: number; body: Buffer }>(
        (resolve, reject) => {
          const req = client.request({
            ':path': `/dns-query?dns=${base64UrlEncode(q)}`,
            accept: 'application/dns-message',
          });
          const chunks: Buffer[] = [];
          let status = 0;
          req.on('response', (hd) => (status = Number(hd[':status'])));
          req.on('data', (c: Buffer) => chunks.push(c));
          req.on('end', () => resolve({ status, body: Buffer.concat(chunks) }));
          req.on('error', reject);
          req.end();
        },
      );
      expect(status).toBe(200);
      const m = decode(body);
      expect(m.answers.map((a) => a.type)).toEqual(['NAPTR']);
      expect(m.flag_aa).toBe(true);
    } finally {
      client.close();
    }
  });

  it.each([
    ['no dns parameter', '', 'GET', undefined, undefined, 400, 'DOH_NO_DNS_PARAMETER'],
    ['bad base64url', '?dns=AA*A', 'GET', undefined, undefined, 400, 'DOH_BAD_BASE64URL'],
    ['lone sextet', '?dns=AAAAA', 'GET', undefined, undefined, 400, 'DOH_BAD_BASE64URL'],
    [
      'a response, not a query',
      `?dns=${base64UrlEncode(dnsPacket.encode({ type: 'response', id: 0, questions: [{ name: 'a.example', type: 'A' }] }))}`,
      'GET',
      undefined,
      undefined,
      400,
      'DOH_NOT_A_QUERY',
    ],
    ['short message', '?dns=AAAB', 'GET', undefined, undefined, 400, 'DOH_NOT_A_QUERY'],
    ['wrong content type', '', 'POST', 'text/plain', 'x', 415, 'DOH_BAD_CONTENT_TYPE'],
    [
      'oversized body',
      '',
      'POST',
      'application/dns-message',
      'x'.repeat(70_000),
      413,
      'DOH_TOO_LARGE',
    ],
    ['other method', '', 'PUT', undefined, undefined, 405, 'DOH_BAD_METHOD'],
    ['other path', '/../etc/passwd', 'GET', undefined, undefined, 404, 'DOH_NOT_FOUND'],
  ] as const)(
    '%s: HTTP %i with problem+json',
    async (_n, suffix, method, type, body, status, code) => {
      const url = suffix.startsWith('/')
        ? `${new URL(plainUrl).origin}${suffix}`
        : `${plainUrl}${suffix}`;
      const r = await fetch(url, {
        method,
        ...(type ? { headers: { 'content-type': type } } : {}),
        ...(body !== undefined ? { body } : {}),
      });
      expect(r.status).toBe(status);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      const j = (await r.json()) as { code: string; status: number };
      expect(j).toMatchObject({ code, status });
    },
  );

  it('DoH queries are counted under their own transport label, not as TCP', async () => {
    const families = () => plain.server.engine.stats.families();
    const count = (transport: string) =>
      families()
        .find((f) => f.name === 'lexroute_dns_queries_total')!
        .samples.filter((x) => x.labels.transport === transport)
        .reduce((a, x) => a + x.value, 0);
    const [doh0, tcp0] = [count('doh'), count('tcp')];
    const q = dnsPacket.encode({
      type: 'query',
      id: 0,
      questions: [{ name: 'x.invalid', type: 'A' }],
    });
    for (let i = 0; i < 3; i++) await fetch(`${plainUrl}?dns=${base64UrlEncode(q)}`);
    expect(count('doh') - doh0).toBe(3);
    expect(count('tcp')).toBe(tcp0);
  });

  it('plain HTTP is refused on a non-loopback address', async () => {
    await expect(
      startTestServer([SAMPLE_ZONES], { doh: { listen: [{ host: '0.0.0.0', port: 0 }] } }),
    ).rejects.toMatchObject({ code: 'DOH_PLAIN_NOT_LOOPBACK' });
  });
});

describe('base64url and freshness (pure)', () => {
  it('round-trips every length, rejects bad text with its offset', () => {
    for (let n = 0; n < 40; n++) {
      const b = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 255);
      const t = base64UrlEncode(b);
      expect(t).toBe(Buffer.from(b).toString('base64url'));
      expect(base64UrlDecode(t)).toEqual(b);
    }
    expect(base64UrlDecode('AB+C')).toMatchObject({ code: 'DOH_BAD_BASE64URL', offset: 2 });
  });
  it('no lifetime for a response without records', () => {
    const m = dnsPacket.encode({
      type: 'response',
      id: 0,
      flags: 5,
      questions: [{ name: 'x', type: 'A' }],
    });
    expect(dohFreshness(m)).toBeUndefined();
  });
});
