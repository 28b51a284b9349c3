/**
 * The resolver over real sockets: the node:http adapter, raw HTTP/1.0 with a
 * raw `|` in the URN, malformed HTTP, the DDDS client's THTTP step against
 * it, and `lexroute resolver` creating its catalogue on first start and
 * stopping cleanly on the abort signal.
 */
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqliteCatalogue } from '../../src/resolver/catalogue/store.ts';
import {
  startResolverServer,
  type LogEntry,
  type RunningResolver,
} from '../../src/resolver/http/server.ts';
import { thttpRequest } from '../../src/client/http-step.ts';
import { resolverCommand } from '../../src/cli/commands/resolver.ts';
import { captureIo } from '../helpers/io.ts';
import { sampleApp, sampleCatalogue } from '../helpers/sample-catalogue.ts';

const dir = mkdtempSync(join(tmpdir(), 'lexroute-socket-'));
let store: SqliteCatalogue;
let running: RunningResolver;
const logs: LogEntry[] = [];

beforeAll(async () => {
  store = await sampleCatalogue(dir);
  running = await startResolverServer({
    app: sampleApp(store),
    host: '127.0.0.1',
    port: 0,
    log: (e) => logs.push(e),
  });
});
afterAll(async () => {
  await running?.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Send raw bytes, collect the whole answer (the server closes HTTP/1.0 connections). */
function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(running.port, '127.0.0.1');
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (data += d));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
    socket.write(request);
  });
}

describe('resolver over a real socket', () => {
  it('N2L answers 303 to fetch, with the structured request log', async () => {
    const res = await fetch(
      `${running.url}/uri-res/N2L?urn:lex:br:federal:lei:2002-01-10;10406~art1`,
      { redirect: 'manual' },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(
      'https://www.planalto.gov.br/ccivil_03/leis/2002/l10406compilada.htm#art1',
    );
    expect(res.headers.get('content-length')).toBe(String((await res.arrayBuffer()).byteLength));
    const entry = logs.find((l) => l.msg === 'request' && String(l.target).includes('10406~art1'));
    expect(entry).toMatchObject({ level: 'info', method: 'GET', status: 303, remote: '127.0.0.1' });
    expect(typeof entry?.ms).toBe('number');
  });

  it('HTTP/1.0 with a raw "|" in the URN: 302 and the URN unchanged', async () => {
    const answer = await raw(
      'GET /uri-res/N2L?urn:lex:br:federal:lei:2002-01-10|10.01.2002;10406 HTTP/1.0\r\n\r\n',
    );
    // Node answers with its own version (RFC 9110 section 2.5); the status follows the client's.
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 302 Found');
    expect(answer).toMatch(
      /\r\nlocation: https:\/\/www\.planalto\.gov\.br\/ccivil_03\/leis\/2002\/l10406compilada\.htm\r\n/i,
    );
  });

  it('a request with a body does not break the keep-alive connection (the body is discarded)', async () => {
    const body = 'x'.repeat(70_000);
    const answer = await raw(
      `POST /uri-res/N2L?urn:lex:br:federal:lei:2002-01-10;10406 HTTP/1.1\r\nHost: a\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        `GET /uri-res/N2L?urn:lex:br:federal:lei:2002-01-10;10406 HTTP/1.1\r\nHost: a\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello` +
        'GET /uri-res/N2L?urn:lex:br:federal:lei:2002-01-10;10406 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
    );
    const statuses = [...answer.matchAll(/^HTTP\/1\.1 (\d{3}) /gm)].map((m) => m[1]);
    expect(statuses).toEqual(['405', '303', '303']);
  });

  it('HEAD over the socket has headers and no body', async () => {
    const answer = await raw(
      'HEAD /uri-res/N2Ls?urn:lex:br:federal:lei:2002-01-10;10406 HTTP/1.0\r\n\r\n',
    );
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(head).toMatch(/content-type: text\/uri-list/i);
    expect(body).toBe('');
  });

  it('malformed HTTP gets a 400 problem, not a crash', async () => {
    const answer = await raw('GARBAGE\r\n\r\n');
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(answer).toContain('"code":"BAD_HTTP_REQUEST"');
    const health = await fetch(`${running.url}/health`);
    expect(health.status).toBe(200);
  });

  it("the DDDS client's THTTP step works against it (N2L, N2Ls, N2C)", async () => {
    const urn = 'urn:lex:eu:council:directive:2004-12-13;113@original:it';
    const n2l = await thttpRequest(`${running.url}/uri-res/N2L?${urn}`, 'N2L');
    expect(n2l.urls).toEqual([
      'https://eur-lex.europa.eu/legal-content/IT/TXT/HTML/?uri=CELEX:32004L0113',
    ]);
    const n2ls = await thttpRequest(`${running.url}/uri-res/N2Ls?${urn}`, 'N2Ls');
    expect(n2ls.urls).toEqual([
      'https://eur-lex.europa.eu/legal-content/IT/TXT/HTML/?uri=CELEX:32004L0113',
      'https://eur-lex.europa.eu/legal-content/IT/TXT/PDF/?uri=CELEX:32004L0113',
    ]);
    const n2c = await thttpRequest(`${running.url}/uri-res/N2C?${urn}`, 'N2C');
    expect(n2c.service === 'N2C' && JSON.parse(n2c.body).work.urn).toBe(
      'urn:lex:eu:council:directive:2004-12-13;113',
    );
  });
});

describe('lexroute resolver (CLI)', () => {
  it('serves the sample with --sample (a temporary catalogue, nothing created here), and stops on the abort signal', async () => {
    const catalogue = join(dir, 'fresh', 'catalogue.sqlite');
    const io = captureIo({ cwd: process.cwd() });
    const done = resolverCommand.run(['--listen', '127.0.0.1:0', '--sample'], io);
    let url: string | undefined;
    for (let i = 0; i < 200 && !url; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const m = /"event":"listening","url":"([^"]+)"/.exec(io.stderr());
      url = m?.[1];
    }
    expect(url, io.stderr()).toBeDefined();
    expect(existsSync(catalogue)).toBe(false);
    expect(io.stderr()).toContain('"event":"catalogue"');
    const res = await fetch(
      `${url}/uri-res/N2L?urn:lex:un.org:united.nations;general.assembly:resolution:1948-12-10;a-res-217(iii)`,
      {
        redirect: 'manual',
        headers: { 'accept-language': 'fr' },
      },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(
      'https://www.un.org/fr/universal-declaration-human-rights/',
    );
    io.abort();
    expect(await done).toBe(0);
    const lines = io
      .stderr()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.at(-1)?.event).toBe('stopped');
    expect(lines.some((l) => l.event === 'request' && l.status === 303)).toBe(true);
  });

  it('bad options and configuration are reported with codes', async () => {
    await expect(resolverCommand.run(['--listen', 'nowhere'], captureIo())).rejects.toMatchObject({
      code: 'USAGE',
    });
    const io = captureIo({ cwd: dir });
    const cfg = join(dir, 'bad.json');
    (await import('node:fs')).writeFileSync(
      cfg,
      JSON.stringify({
        listen: '127.0.0.1:8080',
        matching: { minScore: 500 },
        colour: 1,
        cache: { admission: 'always' },
      }),
    );
    expect(await resolverCommand.run(['--config', cfg], io)).toBe(1);
    expect(io.stderr()).toContain('CONFIG_BAD_VALUE matching.minScore');
    expect(io.stderr()).toContain(
      'CONFIG_BAD_VALUE cache.admission: cache.admission must be one of "second-request", "first-request", got "always"',
    );
    expect(io.stderr()).toContain('CONFIG_UNKNOWN_KEY colour');
  });

  it('--page-doh fills in the page\'s DoH URL (over config "page.doh"); a non-http(s) URL is a usage error', async () => {
    const io = captureIo({ cwd: dir });
    const cfg = join(dir, 'page.json');
    (await import('node:fs')).writeFileSync(
      cfg,
      JSON.stringify({ page: { doh: 'https://from-config.example/dns-query' } }),
    );
    const doh = 'https://dns.example/dns-query';
    const done = resolverCommand.run(
      ['--listen', '127.0.0.1:0', '--sample', '--config', cfg, '--page-doh', doh],
      io,
    );
    let url: string | undefined;
    for (let i = 0; i < 200 && !url; i++) {
      await new Promise((r) => setTimeout(r, 50));
      url = /"event":"listening","url":"([^"]+)"/.exec(io.stderr())?.[1];
    }
    expect(url, io.stderr()).toBeDefined();
    const page = await (await fetch(`${url}/`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain(`value="${doh}"`);
    expect(page).not.toContain('from-config.example');
    io.abort();
    expect(await done).toBe(0);
    for (const bad of ['dns.example/dns-query', 'ftp://dns.example/dns-query']) {
      await expect(
        resolverCommand.run(['--sample', '--page-doh', bad], captureIo()),
      ).rejects.toMatchObject({ code: 'USAGE', message: expect.stringContaining('--page-doh') });
    }
  });
});
