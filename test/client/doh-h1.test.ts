/**
 * The DoH transport's HTTP/1.1 client in Node (src/client/doh-h1.ts)
 * against scripted servers on real loopback sockets: kept-alive connections
 * reused, Content-Length, chunked and until-close bodies, 1xx answers,
 * responses split into single bytes, Connection: close, a kept-alive
 * connection the server closed meanwhile (sent again on a new one), aborts,
 * and what is not HTTP/1.x; and through the DoH transport, a body cut short
 * is DNS_NETWORK.
 */
import net from 'node:net';
import dnsPacket from 'dns-packet';
import { afterEach, describe, expect, it } from 'vitest';
import { DohTransport } from '../../src/client/doh.ts';
import { Http1Error, Http1Pool, http1DohFetch, parseResponse } from '../../src/client/doh-h1.ts';
import { toDnsPacketAnswer } from '../helpers/dns-packet-shapes.ts';

interface Script {
  /** What the server sends for the n-th request on a connection (n from 0), after reading its head. */
  answer(request: string, n: number, socket: net.Socket): void;
}

const servers: net.Server[] = [];
const pools: Http1Pool[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) p.close();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server that reads request heads and answers each by the script; counts connections. */
async function scripted(
  script: Script,
): Promise<{ url: string; connections: () => number; requests: string[] }> {
  let connections = 0;
  const requests: string[] = [];
  const server = net.createServer((socket) => {
    connections++;
    let buf = '';
    let n = 0;
    socket.on('data', (d) => {
      buf += d.toString('latin1');
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length < end + 4 + length) return;
        const request = buf.slice(0, end + 4 + length);
        buf = buf.slice(end + 4 + length);
        requests.push(request);
        script.answer(request, n++, socket);
      }
    });
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}/dns-query`, connections: () => connections, requests };
}

const pool = () => {
  const p = new Http1Pool();
  pools.push(p);
  return p;
};
const init = (signal = new AbortController().signal) => ({
  method: 'GET' as const,
  headers: { accept: 'application/dns-message' },
  signal,
});
const ok = (body: string, extra = '') =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/dns-message\r\ncontent-length: ${body.length}\r\n${extra}\r\n${body}`;

describe('the DoH HTTP/1.1 client', () => {
  it('reuses a kept-alive connection and sends host, method, target and headers', async () => {
    const s = await scripted({ answer: (_r, n, socket) => socket.write(ok(`answer${n}`)) });
    const p = pool();
    const a = await p.request(`${s.url}?dns=AAAA`, init());
    const b = await p.request(`${s.url}?dns=BBBB`, init());
    expect([Buffer.from(a.body).toString(), Buffer.from(b.body).toString()]).toEqual([
      'answer0',
      'answer1',
    ]);
    expect(s.connections()).toBe(1);
    const port = new URL(s.url).port;
    expect(s.requests[0]).toBe(
      `GET /dns-query?dns=AAAA HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\naccept: application/dns-message\r\n\r\n`,
    );
    const body = new Uint8Array([1, 2, 3]);
    await p.request(s.url, {
      ...init(),
      method: 'POST',
      headers: { 'content-type': 'application/dns-message' },
      body,
    });
    expect(s.requests[2]).toBe(
      `POST /dns-query HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/dns-message\r\ncontent-length: 3\r\n\r\n\x01\x02\x03`,
    );
  });

  it('reads chunked bodies (extensions, trailers), 1xx answers first, and a response sent byte by byte', async () => {
    const chunked =
      'HTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n' +
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-type: application/dns-message\r\n\r\n' +
      '3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nx-trailer: 1\r\n\r\n';
    const s = await scripted({
      answer: (_r, n, socket) => {
        if (n === 0) socket.write(chunked);
        else for (const ch of ok('bytewise')) socket.write(ch);
      },
    });
    const p = pool();
    const a = await p.request(s.url, init());
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toBe('application/dns-message');
    expect(Buffer.from(a.body).toString()).toBe('abcde');
    const b = await p.request(s.url, init());
    expect(Buffer.from(b.body).toString()).toBe('bytewise');
    expect(s.connections()).toBe(1);
  });

  it('a body without length ends with the connection; Connection: close is not reused', async () => {
    const s = await scripted({
      answer: (_r, n, socket) => {
        if (n > 0) throw new Error('a closed connection was reused');
        if (s.connections() === 1)
          socket.end('HTTP/1.0 200 OK\r\ncontent-type: x\r\n\r\nuntil close');
        else socket.write(ok('closing', 'connection: close\r\n'));
      },
    });
    const p = pool();
    expect(Buffer.from((await p.request(s.url, init())).body).toString()).toBe('until close');
    expect(Buffer.from((await p.request(s.url, init())).body).toString()).toBe('closing');
    await p.request(s.url, init()).catch(() => undefined);
    expect(s.connections()).toBe(3);
  });

  it('a kept-alive connection the server closed meanwhile: the request goes again on a new one', async () => {
    const s = await scripted({
      answer: (_r, n, socket) => {
        socket.write(ok(`fresh${n}`));
        // Closed after the first answer, without saying so.
        socket.end();
      },
    });
    const p = pool();
    expect(Buffer.from((await p.request(s.url, init())).body).toString()).toBe('fresh0');
    await new Promise((r) => setTimeout(r, 50));
    expect(Buffer.from((await p.request(s.url, init())).body).toString()).toBe('fresh0');
    expect(s.connections()).toBe(2);
  });

  it('an abort ends the wait at once; what is not HTTP/1.x is an Http1Error', async () => {
    const silent = await scripted({ answer: () => undefined });
    const ac = new AbortController();
    const pending = pool().request(silent.url, init(ac.signal));
    setTimeout(() => ac.abort(new Error('stop')), 20);
    await expect(pending).rejects.toThrow('stop');
    const cases: [string, RegExp][] = [
      ['SSH-2.0-OpenSSH\r\n\r\n', /not an HTTP\/1.x status line/],
      [
        'HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nab',
        /two different Content-Length/,
      ],
      [`HTTP/1.1 200 OK\r\nx: ${'a'.repeat(17_000)}\r\n\r\n`, /head over 16 KiB/],
      ['HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n', /gzip is not read/],
      ['HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort', /closed in the response body/],
    ];
    for (const [text, message] of cases) {
      const s = await scripted({ answer: (_r, _n, socket) => socket.end(text) });
      const e = await pool()
        .request(s.url, init())
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(Http1Error);
      expect((e as Error).message).toMatch(message);
    }
    expect(parseResponse(Buffer.from('HTTP/1.1 204 No Content\r\n\r\n'), false)).toMatchObject({
      done: true,
      parsed: { status: 204, keepAlive: true },
    });
  });

  it('through the DoH transport: an answer, and a body cut short as DNS_NETWORK', async () => {
    const answer = (q: Buffer) =>
      dnsPacket.encode({
        type: 'response',
        id: 0,
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
        questions: dnsPacket.decode(q).questions,
        answers: [{ type: 'A', name: 'a.example', ttl: 60, data: '192.0.2.1' }],
      });
    const s = await scripted({
      answer: (request, n, socket) => {
        const dns = /dns=([^ ]+)/.exec(request)![1]!;
        const body = answer(Buffer.from(dns, 'base64url'));
        const head = `HTTP/1.1 200 OK\r\ncontent-type: application/dns-message\r\ncontent-length: ${body.length}\r\n\r\n`;
        if (n === 0) socket.write(Buffer.concat([Buffer.from(head), body]));
        else socket.end(Buffer.concat([Buffer.from(head), body.subarray(0, 5)]));
      },
    });
    const t = new DohTransport({ urls: [s.url], fetch: http1DohFetch(pool()), tries: 1 });
    const ex = await t.query('a.example', 'A', { servers: [] });
    expect(
      ex.message.answers.map((a) => (toDnsPacketAnswer(a) as { data?: unknown }).data),
    ).toEqual(['192.0.2.1']);
    expect(ex.via).toBe(s.url);
    await expect(t.query('a.example', 'A', { servers: [] })).rejects.toMatchObject({
      code: 'DNS_NETWORK',
    });
  });
});
