/**
 * Iterative mode across two servers that share one port on 127.0.0.1 and
 * 127.0.0.2 (glue has no port: the root's port is used for every server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IterativeResolver } from '../../src/client/iterative.ts';
import { StubResolver } from '../../src/client/stub.ts';
import { DnsTransport } from '../../src/client/transport.ts';
import { DnsError } from '../../src/client/errors.ts';
import { freePortOn, startFakeDns, type FakeDns, type FakeZone } from './helpers/fake-dns.ts';

const soa = (origin: string) => ({
  name: origin,
  type: 'SOA' as const,
  ttl: 300,
  data: {
    mname: `ns.${origin}`,
    rname: `hostmaster.${origin}`,
    serial: 1,
    refresh: 3600,
    retry: 600,
    expire: 86400,
    minimum: 60,
  },
});

const naptr = (name: string, replacement: string) => ({
  name,
  type: 'NAPTR' as const,
  ttl: 120,
  data: { order: 100, preference: 10, flags: '', services: '', regexp: '', replacement },
});

// 127.0.0.1: the root, with delegations (with and without glue) to 127.0.0.2.
const rootZones: FakeZone[] = [
  {
    origin: '',
    records: [
      soa(''),
      { name: 'urn.arpa', type: 'NS', data: 'a.ns.urn.arpa' },
      { name: 'a.ns.urn.arpa', type: 'A', data: '127.0.0.2' },
      { name: 'gov.br', type: 'NS', data: 'ns.example.net' },
      { name: 'lame.test', type: 'NS', data: 'ns.lame.test' },
      { name: 'ns.lame.test', type: 'A', data: '127.0.0.2' },
      { name: 'loop.test', type: 'NS', data: 'ns.loop.test' },
      { name: 'ns.loop.test', type: 'A', data: '127.0.0.2' },
      // Partial glue (issue 20): the in-bailiwick server has glue but nothing
      // listens there; the other is out of bailiwick, without glue, and works.
      { name: 'partial.test', type: 'NS', data: 'ns.partial.test' },
      { name: 'partial.test', type: 'NS', data: 'ns.example.net' },
      { name: 'ns.partial.test', type: 'A', data: '127.0.0.3' },
      // Six name servers, all dead (issue 21 item 7): at most four are tried.
      ...[4, 5, 6, 7, 8, 9].flatMap((i) => [
        { name: 'dead.test', type: 'NS' as const, data: `ns${i}.dead.test` },
        { name: `ns${i}.dead.test`, type: 'A' as const, data: `127.0.0.${i}` },
      ]),
    ],
  },
  {
    origin: 'example.net',
    records: [soa('example.net'), { name: 'ns.example.net', type: 'A', data: '127.0.0.2' }],
  },
];

// 127.0.0.2: the zones below.
const leafZones: FakeZone[] = [
  {
    origin: 'urn.arpa',
    records: [
      soa('urn.arpa'),
      naptr('lex.urn.arpa', 'lex.senado.gov.br'),
      { name: 'alias.urn.arpa', type: 'CNAME', data: 'lex.senado.gov.br' },
    ],
  },
  { origin: 'gov.br', records: [soa('gov.br'), naptr('lex.senado.gov.br', 'next.example')] },
  {
    origin: 'partial.test',
    records: [soa('partial.test'), naptr('lex.partial.test', 'x.example')],
  },
  {
    origin: 'loop.test',
    records: [soa('loop.test'), { name: 'x.loop.test', type: 'NS', data: 'ns.loop.test' }],
  },
];

let port: number;
let root: FakeDns;
let leaf: FakeDns;
let transport: DnsTransport;

beforeAll(async () => {
  port = await freePortOn(['127.0.0.1', '127.0.0.2']);
  root = await startFakeDns({ host: '127.0.0.1', port, zones: rootZones });
  leaf = await startFakeDns({
    host: '127.0.0.2',
    port,
    zones: leafZones,
    // x.loop.test: refer back to loop.test itself (a referral loop).
    hook: (ctx) => {
      const q = ctx.query.questions?.[0];
      if (q && q.name.toLowerCase().endsWith('x.loop.test')) {
        return {
          type: 'response',
          id: ctx.query.id,
          flags: 0,
          questions: ctx.query.questions,
          authorities: [{ name: 'loop.test', type: 'NS', ttl: 60, data: 'ns.loop.test' }],
          additionals: [{ name: 'ns.loop.test', type: 'A', ttl: 60, data: '127.0.0.2' }],
        };
      }
      return undefined;
    },
  });
  transport = new DnsTransport({ timeoutMs: 400, tries: 1 });
});

afterAll(async () => {
  transport.close();
  await root.close();
  await leaf.close();
});

const resolver = () => new IterativeResolver(transport, { root: { host: '127.0.0.1', port } });

describe('iterative mode (RFC 1034 5.3.3)', () => {
  it('follows a referral with glue to the second server, on the root port', async () => {
    const r = await resolver().lookup('lex.urn.arpa.', 'NAPTR');
    expect(r.kind).toBe('answer');
    expect(r.server).toBe(`127.0.0.2:${port}`);
    expect(r.referrals).toEqual([
      {
        server: `127.0.0.1:${port}`,
        cut: 'urn.arpa',
        ns: ['a.ns.urn.arpa'],
        addresses: [`127.0.0.2:${port}`],
        fromGlue: true,
      },
    ]);
    expect(r.records).toHaveLength(1);
  });

  it('resolves a glueless NS name iteratively from the root', async () => {
    const r = await resolver().lookup('lex.senado.gov.br', 'NAPTR');
    expect(r.kind).toBe('answer');
    expect(r.referrals[0]).toMatchObject({ cut: 'gov.br', fromGlue: false });
    expect(r.referrals[0]?.addresses).toEqual([`127.0.0.2:${port}`]);
  });

  it('follows a CNAME into another zone, restarting at the root', async () => {
    const r = await resolver().lookup('alias.urn.arpa', 'NAPTR');
    expect(r.kind).toBe('answer');
    expect(r.cnames).toEqual(['alias.urn.arpa']);
    expect(r.name).toBe('lex.senado.gov.br');
  });

  it('returns NXDOMAIN from the authoritative server as a result', async () => {
    const r = await resolver().lookup('nope.urn.arpa', 'NAPTR');
    expect(r.kind).toBe('nxdomain');
    expect(r.ttl).toBe(60);
  });

  it('uses the delegation cache for the next name in the same zone', async () => {
    const res = resolver();
    await res.lookup('lex.urn.arpa', 'NAPTR');
    const before = root.log.length;
    const r = await res.lookup('other.urn.arpa', 'NAPTR');
    expect(r.kind).toBe('nxdomain');
    expect(root.log.length).toBe(before);
  });

  it('reports a lame delegation (REFUSED from the delegated server) as DNS_LAME', async () => {
    const e = await resolver()
      .lookup('www.lame.test', 'NAPTR')
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DnsError);
    expect((e as DnsError).code).toBe('DNS_LAME');
    expect((e as DnsError).message).toMatch(/lame\.test/);
  });

  it('stops a referral loop with DNS_REFERRAL_LOOP', async () => {
    const t0 = performance.now();
    const e = await resolver()
      .lookup('a.x.loop.test', 'NAPTR')
      .catch((x: unknown) => x);
    expect((e as DnsError).code).toBe('DNS_REFERRAL_LOOP');
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('partial glue: the glued server is dead, the glueless one is looked up meanwhile and answers (RFC 1034 5.3.3)', async () => {
    const r = await resolver().lookup('lex.partial.test', 'NAPTR');
    expect(r.kind).toBe('answer');
    expect(r.server).toBe(`127.0.0.2:${port}`);
    const partial = r.referrals.filter((x) => x.cut === 'partial.test');
    expect(partial.map((x) => [x.addresses, x.fromGlue])).toEqual([
      [[`127.0.0.3:${port}`], true],
      [[`127.0.0.2:${port}`], false],
    ]);
    expect(partial[0]?.ns).toEqual(['ns.partial.test', 'ns.example.net']);
  });

  it('partial glue: the next name in the zone goes to the server that answered', async () => {
    const res = resolver();
    await res.lookup('lex.partial.test', 'NAPTR');
    const r = await res.lookup('other.partial.test', 'NAPTR');
    expect(r.kind).toBe('nxdomain');
    expect(r.server).toBe(`127.0.0.2:${port}`);
  });

  it('tries at most four name servers of a referral (maxServersPerReferral)', async () => {
    const e = await resolver()
      .lookup('x.dead.test', 'NAPTR')
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DnsError);
    const tried = [...(e as DnsError).message.matchAll(/127\.0\.0\.(\d)/g)].map((m) => m[1]);
    expect(new Set(tried)).toEqual(new Set(['4', '5', '6', '7']));
    const two = new IterativeResolver(transport, {
      root: { host: '127.0.0.1', port },
      maxServersPerReferral: 2,
    });
    const e2 = await two.lookup('x.dead.test', 'NAPTR').catch((x: unknown) => x);
    const tried2 = [...(e2 as DnsError).message.matchAll(/127\.0\.0\.(\d)/g)].map((m) => m[1]);
    expect(new Set(tried2)).toEqual(new Set(['4', '5']));
  });

  it('a stub query to a server that only refers gives DNS_REFERRAL, pointing at --root', async () => {
    const stub = new StubResolver(transport, { servers: [{ host: '127.0.0.1', port }] });
    const e = await stub.lookup('lex.urn.arpa', 'NAPTR').catch((x: unknown) => x);
    expect((e as DnsError).code).toBe('DNS_REFERRAL');
    expect((e as DnsError).message).toContain('--root');
  });
});
