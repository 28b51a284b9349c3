/**
 * Integration over real sockets: resolveLexUrn against the real lexroute
 * server on 127.0.0.1 serving a 3-level chain (CNR root table, jurisdiction,
 * sub-jurisdiction), ending at the real `lexroute resolver` app. The same
 * chain served by NSD and by Knot must give the same results.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  resolveLexUrn,
  LexClient,
  ResolveError,
  type ResolveResult,
} from '../../src/client/resolve.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import {
  CATALOGUE,
  serveWithKnot,
  serveWithLexroute,
  serveWithNsd,
  startResolverAndZones,
  type Chain,
} from './helpers/chain.ts';

const FEDERAL = 'urn:lex:br:federal:lei:2002-01-10;10406';
const SP = 'urn:lex:br;sao.paulo:governo:decreto:2008-03-05;52789';
const MUNICH = 'urn:lex:de;m%C3%BCnchen:stadt:rundschreiben:2020-01-01;1';

let chain: Chain;
let dns: string;

beforeAll(async () => {
  chain = await startResolverAndZones();
  dns = await serveWithLexroute(chain);
});

afterAll(async () => {
  await chain?.close();
});

async function failure(p: Promise<unknown>): Promise<ResolveError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ResolveError);
    return e as ResolveError;
  }
  throw new Error('expected a ResolveError');
}

const keysOf = (r: { trace: ResolveResult['trace'] }) =>
  r.trace.steps.flatMap((s) => (s.kind === 'naptr' ? [s.key] : []));

describe('resolveLexUrn through the lexroute server and the lexroute resolver', () => {
  it('federal URN: root -> CNR table -> jurisdiction U rule -> N2L Location', async () => {
    const r = await resolveLexUrn(FEDERAL, { servers: [dns] });
    expect(r.urls).toEqual([CATALOGUE[0]?.url]);
    expect(r.resolverUrl).toBe(`http://127.0.0.1:${chain.httpPort}/uri-res/N2L?${FEDERAL}`);
    expect(keysOf(r)).toEqual(['lex.urn.arpa.', 'lex-nameserver.nic.it.', 'lex.senado.gov.br.']);
    const jurisdiction = r.trace.steps[2];
    expect(jurisdiction?.kind === 'naptr' && jurisdiction.records.map((f) => f.fate)).toContain(
      'used',
    );
    const http = r.trace.steps.find((s) => s.kind === 'http');
    expect(http?.kind === 'http' && http.exchanges[0]?.status).toBe(303);
  });

  it('sub-jurisdiction: S rule -> SRV -> A -> THTTP on the SRV port, partition as fragment', async () => {
    const r = await resolveLexUrn(`${SP}~art1`, { servers: [dns] });
    expect(r.urls).toEqual([`${CATALOGUE[1]?.url}#art1`]);
    expect(r.resolverUrl).toBe(
      `http://res1.lex.sao-paulo.gov.br:${chain.httpPort}/uri-res/N2L?${SP}~art1`,
    );
    expect(keysOf(r)).toEqual([
      'lex.urn.arpa.',
      'lex-nameserver.nic.it.',
      'lex.senado.gov.br.',
      'lex.sao-paulo.gov.br.',
    ]);
    const srv = r.trace.steps.find((s) => s.kind === 'srv');
    expect(srv?.kind === 'srv' && srv.selected).toEqual([
      `res1.lex.sao-paulo.gov.br:${chain.httpPort}`,
    ]);
  });

  it('an explicit #f-component wins over the partition', async () => {
    const r = await resolveLexUrn(`${SP}~art1#par2`, { servers: [dns] });
    expect(r.urls).toEqual([`${CATALOGUE[1]?.url}#par2`]);
  });

  it('percent-encoded UTF-8 key -> Punycode A-label (RFC 9676 section 10.1)', async () => {
    const r = await resolveLexUrn(MUNICH, { servers: [dns] });
    expect(r.urls).toEqual([CATALOGUE[2]?.url]);
    const step = r.trace.steps.find((s) => s.kind === 'naptr' && s.punycode);
    expect(step?.kind === 'naptr' && step.punycode).toEqual({
      from: 'm%C3%BCnchen.lex.example.de',
      to: 'xn--mnchen-3ya.lex.example.de.',
    });
  });

  it('N2Ls gives the text/uri-list of the resolver', async () => {
    const r = await resolveLexUrn(FEDERAL, { servers: [dns], service: 'N2Ls' });
    expect(r.urls).toContain(CATALOGUE[0]?.url);
    expect(r.resolverUrl).toContain('/uri-res/N2Ls?');
  });

  it('N2C returns the description with its content type', async () => {
    const r = await resolveLexUrn(FEDERAL, { servers: [dns], service: 'N2C' });
    expect(r.description?.contentType).toMatch(/json/);
    expect(r.description?.body).toContain('10406');
  });

  it("'A' rule with --no-http: the resolver URL on the protocol's default port", async () => {
    const r = await resolveLexUrn(MUNICH, { servers: [dns], service: 'N2Ls', noHttp: true });
    expect(r.urls).toEqual([]);
    expect(r.resolverUrl).toBe(`http://www.muenchen.lex.example.de/uri-res/N2Ls?${MUNICH}`);
    const addr = r.trace.steps.find((s) => s.kind === 'address');
    expect(addr?.kind === 'address' && addr.records).toEqual(['127.0.0.1']);
  });

  it('NXDOMAIN at a key is "not found" naming the key (DNS_NXDOMAIN)', async () => {
    const e = await failure(resolveLexUrn('urn:lex:zz:a:b:2000-01-01;1', { servers: [dns] }));
    expect(e.code).toBe('DNS_NXDOMAIN');
    expect(e.message).toContain('lex.missing.nic.it.');
    expect(e.trace.steps.length).toBe(3);
  });

  it('no matching rule is DDDS_NO_VALID_OUTPUT with every record and its reason', async () => {
    const e = await failure(
      resolveLexUrn('urn:lex:fr:etat:loi:2004-05-15;106', { servers: [dns] }),
    );
    expect(e.code).toBe('DDDS_NO_VALID_OUTPUT');
    const last = e.trace.steps.at(-1);
    expect(last?.kind === 'naptr' && last.records.length).toBe(6);
  });

  it('a NAPTR loop across zones stops with DDDS_LOOP in bounded time', async () => {
    const t0 = performance.now();
    const e = await failure(resolveLexUrn('urn:lex:xx:a:b:2000-01-01;1', { servers: [dns] }));
    expect(e.code).toBe('DDDS_LOOP');
    expect(e.message).toContain('lex.loop-a.nic.it.');
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('a broken delegation is reported (RFC 3403 section 8); --fallback tries the next rule', async () => {
    const urn = 'urn:lex:yy:a:b:2000-01-01;1';
    const e = await failure(resolveLexUrn(urn, { servers: [dns], noHttp: true }));
    expect(e.code).toBe('DNS_NXDOMAIN');
    const r = await resolveLexUrn(urn, { servers: [dns], noHttp: true, fallback: true });
    expect(r.resolverUrl).toBe(`http://127.0.0.1:${chain.httpPort}/uri-res/N2L?${urn}`);
    const fb = r.trace.steps.find((s) => s.kind === 'fallback');
    expect(fb).toMatchObject({ from: 'lex.missing.nic.it.', to: 'lex-nameserver.nic.it.' });
    expect(keysOf(r)).toEqual([
      'lex.urn.arpa.',
      'lex-nameserver.nic.it.',
      'lex.missing.nic.it.',
      'lex-nameserver.nic.it.',
      'lex.senado.gov.br.',
    ]);
  });

  it('a URN the resolver does not know is HTTP_NOT_FOUND', async () => {
    const e = await failure(
      resolveLexUrn('urn:lex:br:federal:lei:1999-01-01;1', { servers: [dns] }),
    );
    expect(e.code).toBe('HTTP_NOT_FOUND');
  });

  it('invalid input is a coded error with its position, before any query', async () => {
    const e = await failure(resolveLexUrn('urn:lex:', { servers: [dns] }));
    expect(e.code).toMatch(/^(URN|LEX)_/);
    expect(e.trace.steps).toHaveLength(0);
  });

  it('a reused client answers the second resolution from its cache', async () => {
    const client = new LexClient({ servers: [dns] });
    try {
      await client.resolve(FEDERAL, { noHttp: true });
      const r = await client.resolve(FEDERAL, { noHttp: true });
      const naptr = r.trace.steps.filter((s) => s.kind === 'naptr');
      expect(naptr.every((s) => s.kind === 'naptr' && s.cached)).toBe(true);
    } finally {
      await client.close();
    }
  });
});

/** The client must not depend on our server's quirks: NSD and Knot give the same answers. */
describe.each([
  ['nsd', serveWithNsd],
  ['knotd', serveWithKnot],
] as const)('the same chain served by %s', (tool, serve) => {
  const found = toolOrSkip(tool);
  let other: Chain;
  let address: string;
  beforeAll(async () => {
    if (!found.path) return;
    other = await startResolverAndZones();
    address = await serve(other, found.path);
  });
  afterAll(async () => {
    await other?.close();
  });

  it.skipIf(!found.path)('gives the same URLs and the same key path', async () => {
    for (const urn of [FEDERAL, `${SP}~art1`, MUNICH]) {
      const ours = await resolveLexUrn(urn, { servers: [dns] });
      const theirs = await resolveLexUrn(urn, { servers: [address] });
      expect(theirs.urls).toEqual(ours.urls);
      expect(keysOf(theirs)).toEqual(keysOf(ours));
      expect(theirs.resolverUrl.replace(String(other.httpPort), 'P')).toBe(
        ours.resolverUrl.replace(String(chain.httpPort), 'P'),
      );
    }
    const e = await failure(resolveLexUrn('urn:lex:zz:a:b:2000-01-01;1', { servers: [address] }));
    expect(e.code).toBe('DNS_NXDOMAIN');
  });
});
