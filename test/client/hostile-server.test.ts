/**
 * resolveLexUrn against hostile DNS servers: every case ends with a clear,
 * stable error code, the trace up to the failure, in bounded time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLexUrn, ResolveError } from '../../src/client/resolve.ts';
import { startFakeDns, type FakeDns, type FakeZone, type HookContext } from './helpers/fake-dns.ts';

const URN = 'urn:lex:br:federal:lei:2002-01-10;10406';

const soa = (origin: string) => ({
  name: origin,
  type: 'SOA' as const,
  ttl: 300,
  data: {
    mname: `ns.${origin}`,
    rname: `h.${origin}`,
    serial: 1,
    refresh: 3600,
    retry: 600,
    expire: 86400,
    minimum: 60,
  },
});

const zones: FakeZone[] = [
  {
    origin: 'urn.arpa',
    records: [
      soa('urn.arpa'),
      {
        name: 'lex.urn.arpa',
        type: 'NAPTR',
        data: {
          order: 100,
          preference: 10,
          flags: '',
          services: '',
          regexp: '',
          replacement: 'lex-nameserver.nic.it',
        },
      },
    ],
  },
  {
    origin: 'nic.it',
    records: [
      soa('nic.it'),
      // 1200 records: over the client's per-message limit (1000).
      ...Array.from({ length: 1200 }, (_, i) => ({
        name: 'lex-nameserver.nic.it',
        type: 'NAPTR' as const,
        data: {
          order: 100,
          preference: i,
          flags: '',
          services: '',
          regexp: '',
          replacement: 'x.example',
        },
      })),
    ],
  },
];

let mode: (
  ctx: HookContext,
) => ReturnType<NonNullable<Parameters<typeof startFakeDns>[0]['hook']>> = () => undefined;
let server: FakeDns;

beforeAll(async () => {
  server = await startFakeDns({ zones, hook: (ctx) => mode(ctx) });
});
afterAll(async () => {
  await server.close();
});

async function attempt(): Promise<{ error: ResolveError; ms: number }> {
  const t0 = performance.now();
  try {
    await resolveLexUrn(URN, { servers: [server.address], timeoutMs: 200, tries: 2, noHttp: true });
  } catch (e) {
    expect(e).toBeInstanceOf(ResolveError);
    return { error: e as ResolveError, ms: performance.now() - t0 };
  }
  throw new Error('expected a ResolveError');
}

const firstKeyOnly = (ctx: HookContext) =>
  ctx.query.questions?.[0]?.name.toLowerCase().startsWith('lex.urn');

describe('hostile DNS servers', () => {
  it('never answers: DNS_TIMEOUT naming the key, after tries x timeout', async () => {
    mode = () => null;
    const { error, ms } = await attempt();
    expect(error.code).toBe('DNS_TIMEOUT');
    expect(error.message).toContain('lex.urn.arpa.');
    expect(error.trace.steps[0]).toMatchObject({
      kind: 'naptr',
      key: 'lex.urn.arpa.',
      result: 'error',
    });
    expect(ms).toBeLessThan(5000);
  });

  it('answers with a wrong ID: DNS_BAD_RESPONSE', async () => {
    mode = (ctx) => {
      const wire = ctx.encode(ctx.answer());
      wire.writeUInt16BE((ctx.query.id ^ 0x5a5a) & 0xffff, 0);
      return wire;
    };
    const { error, ms } = await attempt();
    expect(error.code).toBe('DNS_BAD_RESPONSE');
    expect(error.message).toMatch(/matches no query/);
    expect(ms).toBeLessThan(5000);
  });

  it('answers another question: DNS_BAD_RESPONSE', async () => {
    mode = (ctx) => ({
      ...ctx.answer(),
      questions: [{ name: 'evil.example', type: 'NAPTR', class: 'IN' }],
    });
    const { error } = await attempt();
    expect(error.code).toBe('DNS_BAD_RESPONSE');
    expect(error.message).toContain("'evil.example'");
  });

  it('sends truncated packets: DNS_BAD_RESPONSE', async () => {
    mode = (ctx) => ctx.encode(ctx.answer()).subarray(0, 30);
    const { error } = await attempt();
    expect(error.code).toBe('DNS_BAD_RESPONSE');
  });

  it('sends a giant RRset (over TCP after TC): DNS_RRSET_TOO_LARGE at the second key', async () => {
    mode = () => undefined;
    const { error, ms } = await attempt();
    expect(error.code).toBe('DNS_RRSET_TOO_LARGE');
    expect(error.trace.steps.map((s) => (s.kind === 'naptr' ? s.key : s.kind))).toEqual([
      'lex.urn.arpa.',
      'lex-nameserver.nic.it.',
    ]);
    expect(ms).toBeLessThan(5000);
  });

  it('answers TC=1 over TCP too: DNS_BAD_RESPONSE, not DNS_NODATA (issue 21 item 10)', async () => {
    // AA + TC, no records: over UDP the client retries over TCP, which must not be truncated.
    mode = (ctx) =>
      firstKeyOnly(ctx) ? { ...ctx.answer(), flags: 0x0600, answers: [] } : undefined;
    const { error, ms } = await attempt();
    expect(error.code).toBe('DNS_BAD_RESPONSE');
    expect(error.message).toMatch(/over TCP answered with TC=1/);
    expect(ms).toBeLessThan(5000);
  });

  it('answers SERVFAIL: DNS_SERVFAIL, distinct from not found', async () => {
    mode = (ctx) => (firstKeyOnly(ctx) ? { ...ctx.answer(), flags: 2, answers: [] } : undefined);
    const { error } = await attempt();
    expect(error.code).toBe('DNS_SERVFAIL');
  });
});
