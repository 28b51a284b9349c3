/**
 * Limits of one resolution (issue 21 items 7 and 8), through `LexClient` with
 * an in-memory resolver as its transport and undici's MockAgent for the HTTP
 * step (no sockets): the overall deadline (RESOLVE_DEADLINE) and the URL
 * schemes accepted from a resolver (DDDS_URL_SCHEME).
 */
import type { Answer, RecordType } from 'dns-packet';
import { MockAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsError } from '../../src/client/errors.ts';
import type { DnsLookupResult, DnsResolver as Resolver } from '../../src/client/stub.ts';
import { toRecordModel } from '../helpers/dns-packet-shapes.ts';
import { LexClient, ResolveError, resolveLexUrn } from '../../src/client/resolve.ts';

const URN = 'urn:lex:br:federal:lei:2002-01-10;10406';
const RESOLVER = 'http://resolver.test';

function naptrAt(qname: string, flags: string, regexp: string, replacement: string): Answer {
  const data = {
    order: 100,
    preference: 10,
    flags,
    services: flags ? 'http+N2L' : '',
    regexp,
    replacement,
  };
  return { name: qname, type: 'NAPTR', ttl: 60, data } as unknown as Answer;
}

// written in dns-packet's record shapes, converted to the record model.
function result(qname: string, qtype: RecordType, records: Answer[]): DnsLookupResult {
  return toRecordModel({
    kind: records.length > 0 ? 'answer' : 'nxdomain',
    qname,
    qtype,
    name: qname,
    records,
    cnames: [],
    ttl: 60,
    server: 'memory',
    protocol: 'udp',
    rttMs: 0,
    ignored: 0,
    additionals: [],
  });
}

/** lex.urn.arpa. -> lex.example. -> U rule to the mock resolver; `stall` names a key that never answers. */
function memory(stall?: string): Resolver {
  return {
    lookup(qname, qtype, signal) {
      const name = qname.toLowerCase().replace(/\.?$/, '.');
      if (name === stall) {
        return new Promise((_, reject) => {
          signal?.addEventListener('abort', () =>
            reject(new DnsError('DNS_ABORTED', `query for ${qname} ${qtype} was aborted`)),
          );
        });
      }
      if (name === 'lex.urn.arpa.') {
        return Promise.resolve(result(qname, qtype, [naptrAt(qname, '', '', 'lex.example')]));
      }
      if (name === 'lex.example.') {
        const u = naptrAt(qname, 'u', `!^(.*)$!${RESOLVER}/uri-res/N2L?\\1!`, '');
        return Promise.resolve(result(qname, qtype, [u]));
      }
      return Promise.resolve(result(qname, qtype, []));
    },
  };
}

let agent: MockAgent;
beforeAll(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});
afterAll(async () => agent.close());

async function failure(p: Promise<unknown>): Promise<ResolveError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ResolveError);
  return e as ResolveError;
}

describe('the overall deadline (issue 21 item 7)', () => {
  it('a lookup that never ends fails with RESOLVE_DEADLINE, naming the key, in the trace', async () => {
    const e = await failure(
      resolveLexUrn(URN, { resolver: memory('lex.example.'), deadlineMs: 50, noHttp: true }),
    );
    expect(e.code).toBe('RESOLVE_DEADLINE');
    expect(e.message).toBe(
      "NAPTR lookup of lex.example. failed: the resolution's deadline of 50 ms passed",
    );
    expect(
      e.trace.steps.map((s) => (s.kind === 'naptr' ? `${s.key} ${s.result}` : s.kind)),
    ).toEqual(['lex.urn.arpa. answer', 'lex.example. error']);
  });

  it('the caller aborting is not the deadline: DNS_ABORTED', async () => {
    const controller = new AbortController();
    const p = resolveLexUrn(URN, {
      resolver: memory('lex.example.'),
      signal: controller.signal,
      noHttp: true,
    });
    setTimeout(() => controller.abort(), 10);
    expect((await failure(p)).code).toBe('DNS_ABORTED');
  });
});

describe('URL schemes accepted from a resolver (issue 21 item 8)', () => {
  const answer = (location: string) =>
    agent
      .get(RESOLVER)
      .intercept({ path: `/uri-res/N2L?${URN}`, method: 'GET' })
      .reply(303, '', { headers: { location } });

  it('a javascript: Location is DDDS_URL_SCHEME, not a result', async () => {
    answer('javascript:alert(1)');
    const client = new LexClient({ resolver: memory(), dispatcher: agent });
    const e = await failure(client.resolve(URN));
    expect(e.code).toBe('DDDS_URL_SCHEME');
    expect(e.message).toBe(
      'the resolver answered "javascript:alert(1)", with the scheme javascript:; accepted: http:, https:',
    );
    expect(e.trace.steps.at(-1)).toMatchObject({ kind: 'http' });
    await client.close();
  });

  it('other schemes only when configured: ftp: refused by default, accepted with urlSchemes', async () => {
    const client = new LexClient({ resolver: memory(), dispatcher: agent });
    answer('ftp://files.example/lei.pdf');
    expect((await failure(client.resolve(URN))).code).toBe('DDDS_URL_SCHEME');
    answer('ftp://files.example/lei.pdf');
    const r = await client.resolve(URN, { urlSchemes: ['http', 'https', 'FTP'] });
    expect(r.urls).toEqual(['ftp://files.example/lei.pdf']);
    answer('HTTPS://docs.example/lei');
    expect((await client.resolve(URN)).urls).toEqual(['https://docs.example/lei']);
    await client.close();
  });
});
