import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockAgent } from 'undici';
import { thttpRequest } from '../../src/client/http-step.ts';
import { parseUriList, splitHttpUrl, thttpUrl } from '../../src/client/thttp-url.ts';
import { HttpStepError } from '../../src/client/errors.ts';

const URN = 'urn:lex:br;sao.paulo:governo:decreto:2008-03-05;52789~art1';
const ODD = "urn:lex:it:stato:legge:2000-01-01;1(a)'b=c%C3%A0";
const BASE = 'http://resolver.test';

let agent: MockAgent;

beforeAll(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});
afterAll(async () => {
  await agent.close();
});

async function failure(p: Promise<unknown>): Promise<HttpStepError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(HttpStepError);
    return e as HttpStepError;
  }
  throw new Error('expected an HttpStepError');
}

describe('THTTP N2L (RFC 2169 section 3.1)', () => {
  it('reads the 303 Location without following it', async () => {
    const pool = agent.get(BASE);
    pool
      .intercept({ path: `/uri-res/N2L?${URN}`, method: 'GET' })
      .reply(303, '', { headers: { location: 'https://docs.test/decreto/52789' } });
    // If the client followed the redirect, this would be requested and fail (no interceptor).
    const r = await thttpRequest(`${BASE}/uri-res/N2L?${URN}`, 'N2L', { dispatcher: agent });
    expect(r.urls).toEqual(['https://docs.test/decreto/52789']);
    expect(r.exchanges).toHaveLength(1);
    expect(r.exchanges[0]).toMatchObject({ status: 303, url: `${BASE}/uri-res/N2L?${URN}` });
  });

  it("sends the URN after '?' unchanged (quotes, parentheses, %-escapes)", async () => {
    agent
      .get(BASE)
      .intercept({ path: `/uri-res/N2L?${ODD}`, method: 'GET' })
      .reply(302, '', { headers: { location: '/doc/1' } });
    const r = await thttpRequest(`${BASE}/uri-res/N2L?${ODD}`, 'N2L', { dispatcher: agent });
    // A relative Location is resolved against the request URL.
    expect(r.urls).toEqual([`${BASE}/doc/1`]);
  });

  it('maps 404 to HTTP_NOT_FOUND, other 4xx and 5xx to their codes', async () => {
    const pool = agent.get(BASE);
    pool.intercept({ path: '/uri-res/N2L?urn:lex:x:404', method: 'GET' }).reply(404, 'unknown URN');
    pool.intercept({ path: '/uri-res/N2L?urn:lex:x:403', method: 'GET' }).reply(403, 'no');
    pool.intercept({ path: '/uri-res/N2L?urn:lex:x:503', method: 'GET' }).reply(503, 'down');
    let e = await failure(
      thttpRequest(`${BASE}/uri-res/N2L?urn:lex:x:404`, 'N2L', { dispatcher: agent }),
    );
    expect(e.code).toBe('HTTP_NOT_FOUND');
    expect(e.status).toBe(404);
    expect(e.message).toContain('unknown URN');
    e = await failure(
      thttpRequest(`${BASE}/uri-res/N2L?urn:lex:x:403`, 'N2L', { dispatcher: agent }),
    );
    expect(e.code).toBe('HTTP_CLIENT_ERROR');
    e = await failure(
      thttpRequest(`${BASE}/uri-res/N2L?urn:lex:x:503`, 'N2L', { dispatcher: agent }),
    );
    expect(e.code).toBe('HTTP_SERVER_ERROR');
  });

  it('gives HTTP_NO_LOCATION for a 200 or 302 without Location', async () => {
    const pool = agent.get(BASE);
    pool.intercept({ path: '/uri-res/N2L?urn:lex:x:200', method: 'GET' }).reply(200, 'hello');
    pool.intercept({ path: '/uri-res/N2L?urn:lex:x:302', method: 'GET' }).reply(302, '');
    expect(
      (
        await failure(
          thttpRequest(`${BASE}/uri-res/N2L?urn:lex:x:200`, 'N2L', { dispatcher: agent }),
        )
      ).code,
    ).toBe('HTTP_NO_LOCATION');
    expect(
      (
        await failure(
          thttpRequest(`${BASE}/uri-res/N2L?urn:lex:x:302`, 'N2L', { dispatcher: agent }),
        )
      ).code,
    ).toBe('HTTP_NO_LOCATION');
  });

  it('gives HTTP_NETWORK when the resolver cannot be reached', async () => {
    agent
      .get(BASE)
      .intercept({ path: '/uri-res/N2L?urn:lex:x:net', method: 'GET' })
      .replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const e = await failure(
      thttpRequest(`${BASE}/uri-res/N2L?urn:lex:x:net`, 'N2L', { dispatcher: agent }),
    );
    expect(e.code).toBe('HTTP_NETWORK');
  });

  it('refuses non-HTTP resolver URLs with HTTP_UNSUPPORTED_SCHEME', async () => {
    const e = await failure(thttpRequest('ftp://resolver.test/x', 'N2L', { dispatcher: agent }));
    expect(e.code).toBe('HTTP_UNSUPPORTED_SCHEME');
  });
});

describe('THTTP N2Ls (RFC 2169 section 3.2, RFC 2483 section 5)', () => {
  it('parses text/uri-list with comments and mixed line ends', async () => {
    agent
      .get(BASE)
      .intercept({ path: `/uri-res/N2Ls?${URN}`, method: 'GET' })
      .reply(200, `# ${URN}\r\nhttps://a.test/1#art1\nhttps://b.test/2\rhttps://c.test/3\r\n\r\n`, {
        headers: { 'content-type': 'text/uri-list; charset=utf-8' },
      });
    const r = await thttpRequest(`${BASE}/uri-res/N2Ls?${URN}`, 'N2Ls', { dispatcher: agent });
    expect(r.urls).toEqual(['https://a.test/1#art1', 'https://b.test/2', 'https://c.test/3']);
  });

  it('follows redirects for N2Ls up to the limit, then HTTP_REDIRECT_LIMIT', async () => {
    const pool = agent.get(BASE);
    pool
      .intercept({ path: '/uri-res/N2Ls?urn:lex:x:r', method: 'GET' })
      .reply(301, '', { headers: { location: '/moved/N2Ls?urn:lex:x:r' } });
    pool
      .intercept({ path: '/moved/N2Ls?urn:lex:x:r', method: 'GET' })
      .reply(200, 'https://a.test/1\n', { headers: { 'content-type': 'text/uri-list' } });
    const r = await thttpRequest(`${BASE}/uri-res/N2Ls?urn:lex:x:r`, 'N2Ls', { dispatcher: agent });
    expect(r.urls).toEqual(['https://a.test/1']);
    expect(r.exchanges.map((x) => x.status)).toEqual([301, 200]);

    pool
      .intercept({ path: /\/loop\/\d+/, method: 'GET' })
      .reply(302, '', { headers: { location: '/loop/2' } })
      .times(5);
    const e = await failure(
      thttpRequest(`${BASE}/loop/1`, 'N2Ls', { dispatcher: agent, maxRedirects: 3 }),
    );
    expect(e.code).toBe('HTTP_REDIRECT_LIMIT');
  });

  it('rejects a wrong content type, an empty list and a relative line', async () => {
    const pool = agent.get(BASE);
    pool
      .intercept({ path: '/uri-res/N2Ls?urn:lex:x:html', method: 'GET' })
      .reply(200, '<ul></ul>', { headers: { 'content-type': 'text/html' } });
    pool
      .intercept({ path: '/uri-res/N2Ls?urn:lex:x:empty', method: 'GET' })
      .reply(200, '# nothing\r\n', { headers: { 'content-type': 'text/uri-list' } });
    expect(
      (
        await failure(
          thttpRequest(`${BASE}/uri-res/N2Ls?urn:lex:x:html`, 'N2Ls', { dispatcher: agent }),
        )
      ).code,
    ).toBe('HTTP_BAD_CONTENT_TYPE');
    expect(
      (
        await failure(
          thttpRequest(`${BASE}/uri-res/N2Ls?urn:lex:x:empty`, 'N2Ls', { dispatcher: agent }),
        )
      ).code,
    ).toBe('HTTP_EMPTY_LIST');
    expect(() => parseUriList('https://ok.test/\nnot a uri\n')).toThrow(/line 2/);
  });
});

describe('THTTP N2C (RFC 2169 section 3.5)', () => {
  it('returns the description as received, with its content type', async () => {
    const body = '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>';
    agent
      .get(BASE)
      .intercept({ path: `/uri-res/N2C?${URN}`, method: 'GET' })
      .reply(200, body, { headers: { 'content-type': 'application/rdf+xml' } });
    const r = await thttpRequest(`${BASE}/uri-res/N2C?${URN}`, 'N2C', { dispatcher: agent });
    expect(r.service).toBe('N2C');
    if (r.service !== 'N2C') return;
    expect(r.contentType).toBe('application/rdf+xml');
    expect(r.body).toBe(body);
  });
});

describe('URL helpers', () => {
  it('builds THTTP URLs for S/A targets with default ports omitted', () => {
    expect(thttpUrl('http', 'res1.example.', 8080, 'N2L', URN)).toBe(
      `http://res1.example:8080/uri-res/N2L?${URN}`,
    );
    expect(thttpUrl('http', 'www.example', 80, 'N2Ls', URN)).toBe(
      `http://www.example/uri-res/N2Ls?${URN}`,
    );
    expect(thttpUrl('https', '2001:db8::1', 443, 'N2L', 'urn:lex:x')).toBe(
      'https://[2001:db8::1]/uri-res/N2L?urn:lex:x',
    );
  });

  it('splits a URL into origin and raw path without re-encoding', () => {
    expect(splitHttpUrl(`HTTP://Resolver.test:8080/uri-res/N2L?${ODD}#frag`)).toEqual({
      origin: 'http://Resolver.test:8080',
      path: `/uri-res/N2L?${ODD}`,
    });
    expect(splitHttpUrl('https://r.test?x')).toEqual({ origin: 'https://r.test', path: '/?x' });
    expect(() => splitHttpUrl('https://r.test/a b')).toThrow(HttpStepError);
  });
});

describe('a real HTTP server (node:http)', () => {
  let server: http.Server;
  let base: string;
  const seen: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      if (req.url?.startsWith('/slow')) return; // never answers
      res.writeHead(303, {
        location: `https://docs.test/doc?u=${encodeURIComponent(req.url ?? '')}`,
      });
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('sends the raw request line and reads the Location', async () => {
    const r = await thttpRequest(`${base}/uri-res/N2L?${ODD}`, 'N2L');
    expect(seen.at(-1)).toBe(`/uri-res/N2L?${ODD}`);
    expect(r.urls[0]).toMatch(/^https:\/\/docs\.test\/doc\?u=/);
  });

  it('times out with HTTP_TIMEOUT in bounded time', async () => {
    const t0 = performance.now();
    const e = await failure(thttpRequest(`${base}/slow`, 'N2L', { timeoutMs: 300 }));
    expect(e.code).toBe('HTTP_TIMEOUT');
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('reports a refused connection as HTTP_NETWORK', async () => {
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const e = await failure(thttpRequest(`http://127.0.0.1:${port}/uri-res/N2L?urn:lex:x`, 'N2L'));
    expect(e.code).toBe('HTTP_NETWORK');
    expect(e.message).toContain('ECONNREFUSED');
  });
});
