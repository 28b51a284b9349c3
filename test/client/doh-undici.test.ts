/**
 * The DoH transport's HTTP in Node (src/client/doh-undici.ts, undici's
 * dispatch with a handler of its own) against scripted servers on real
 * loopback sockets: kept-alive connections reused, Content-Length, chunked
 * and until-close bodies, 1xx answers, responses split into single bytes,
 * Connection: close, a kept-alive connection the server closed meanwhile,
 * aborts, a body over 1 MiB, an unread body cancelled; and through the DoH
 * transport, what is not an HTTP/1.x answer or is cut short is DNS_NETWORK.
 */
import net from 'node:net';
import dnsPacket from 'dns-packet';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { DohTransport, type DohFetch } from '../../src/client/doh.ts';
import { undiciDohFetch } from '../../src/client/doh-undici.ts';
import { toDnsPacketAnswer } from '../helpers/dns-packet-shapes.ts';

interface Script {
  /** What the server sends for the n-th request on a connection (n from 0), after reading its head. */
  answer(request: string, n: number, socket: net.Socket): void;
}

const servers: net.Server[] = [];
const agents: Agent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.destroy()));
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

/** A DoH fetch on an agent of its own (closed after the test). */
const fetcher = (): DohFetch => {
  const a = new Agent();
  agents.push(a);
  return undiciDohFetch(a);
};
/** The status, a header and the body of one exchange. */
async function request(f: DohFetch, url: string, i: Parameters<DohFetch>[1]) {
  const res = await f(url, i);
  const body = Buffer.from(await res.arrayBuffer()).toString('latin1');
  return { status: res.status, type: res.headers.get('content-type'), body };
}
const init = (signal = new AbortController().signal) => ({
  method: 'GET' as const,
  headers: { accept: 'application/dns-message' },
  signal,
});
const DNS_TYPE = 'content-type: application/dns-message\r\n';
const ok = (body: string, extra = '') =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/dns-message\r\ncontent-length: ${body.length}\r\n${extra}\r\n${body}`;

describe('the DoH client on undici', () => {
  it('reuses a kept-alive connection and sends host, method, target, headers and body', async () => {
    const s = await scripted({ answer: (_r, n, socket) => socket.write(ok(`answer${n}`)) });
    const f = fetcher();
    const a = await request(f, `${s.url}?dns=AAAA`, init());
    const b = await request(f, `${s.url}?dns=BBBB`, init());
    expect([a.body, b.body]).toEqual(['answer0', 'answer1']);
    expect(a).toMatchObject({ status: 200, type: 'application/dns-message' });
    expect(s.connections()).toBe(1);
    const port = new URL(s.url).port;
    expect(s.requests[0]).toMatch(/^GET \/dns-query\?dns=AAAA HTTP\/1\.1\r\n/);
    expect(s.requests[0]).toMatch(new RegExp(`\r\nhost: 127\\.0\\.0\\.1:${port}\r\n`, 'i'));
    expect(s.requests[0]).toMatch(/\r\naccept: application\/dns-message\r\n/i);
    await request(f, s.url, {
      ...init(),
      method: 'POST',
      headers: { 'content-type': 'application/dns-message' },
      body: new Uint8Array([1, 2, 3]),
    });
    expect(s.requests[2]).toMatch(/^POST \/dns-query HTTP\/1\.1\r\n/);
    expect(s.requests[2]).toMatch(/\r\ncontent-length: 3\r\n/i);
    expect(s.requests[2]!.endsWith('\r\n\r\n\x01\x02\x03')).toBe(true);
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
    const f = fetcher();
    expect(await request(f, s.url, init())).toEqual({
      status: 200,
      type: 'application/dns-message',
      body: 'abcde',
    });
    expect((await request(f, s.url, init())).body).toBe('bytewise');
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
    const f = fetcher();
    expect((await request(f, s.url, init())).body).toBe('until close');
    expect((await request(f, s.url, init())).body).toBe('closing');
    await request(f, s.url, init()).catch(() => undefined);
    expect(s.connections()).toBe(3);
  });

  it('a kept-alive connection the server closed meanwhile: the next request goes on a new one', async () => {
    const s = await scripted({
      answer: (_r, n, socket) => {
        socket.write(ok(`fresh${n}`));
        // Closed after the first answer, without saying so.
        socket.end();
      },
    });
    const f = fetcher();
    expect((await request(f, s.url, init())).body).toBe('fresh0');
    await new Promise((r) => setTimeout(r, 50));
    expect((await request(f, s.url, init())).body).toBe('fresh0');
    expect(s.connections()).toBe(2);
  });

  it('an abort ends the wait at once, before or after the head; a body over 1 MiB is an error', async () => {
    const silent = await scripted({ answer: () => undefined });
    const ac = new AbortController();
    const pending = fetcher()(silent.url, init(ac.signal));
    setTimeout(() => ac.abort(new Error('stop')), 20);
    await expect(pending).rejects.toThrow('stop');
    const headOnly = await scripted({
      answer: (_r, _n, socket) =>
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: x\r\ncontent-length: 10\r\n\r\nab'),
    });
    const ac2 = new AbortController();
    const res = await fetcher()(headOnly.url, init(ac2.signal));
    setTimeout(() => ac2.abort(new Error('stop body')), 20);
    await expect(res.arrayBuffer()).rejects.toThrow('stop body');
    const big = 'x'.repeat(1024 * 1024 + 1);
    const huge = await scripted({ answer: (_r, _n, socket) => socket.write(ok(big)) });
    const res2 = await fetcher()(huge.url, init());
    await expect(res2.arrayBuffer()).rejects.toThrow(/over 1 MiB/);
  });

  it('an unread body is cancelled: the connection is not reused for the next answer', async () => {
    let asked = 0;
    const s = await scripted({
      answer: (_r, n, socket) => {
        if (asked++ === 0) socket.write('HTTP/1.1 500 x\r\ncontent-length: 100\r\n\r\nstart');
        else socket.write(ok(`second${n}`));
      },
    });
    const f = fetcher();
    const first = await f(s.url, init());
    expect(first.status).toBe(500);
    await first.body?.cancel();
    expect((await request(f, s.url, init())).body).toBe('second0');
    expect(s.connections()).toBe(2);
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
    const t = new DohTransport({ urls: [s.url], fetch: fetcher(), tries: 1 });
    const ex = await t.query('a.example', 'A', { servers: [] });
    expect(
      ex.message.answers.map((a) => (toDnsPacketAnswer(a) as { data?: unknown }).data),
    ).toEqual(['192.0.2.1']);
    expect(ex.via).toBe(s.url);
    await expect(t.query('a.example', 'A', { servers: [] })).rejects.toMatchObject({
      code: 'DNS_NETWORK',
    });
  });

  it('what is not an HTTP/1.x answer is DNS_NETWORK through the DoH transport', async () => {
    const cases = [
      'SSH-2.0-OpenSSH\r\n\r\n',
      `HTTP/1.1 200 OK\r\n${DNS_TYPE}content-length: 1\r\ncontent-length: 2\r\n\r\nab`,
      `HTTP/1.1 200 OK\r\n${DNS_TYPE}content-length: 10\r\n\r\nshort`,
      `HTTP/1.1 200 OK\r\n${DNS_TYPE}transfer-encoding: chunked\r\n\r\nzz\r\n`,
    ];
    for (const text of cases) {
      const s = await scripted({ answer: (_r, _n, socket) => socket.end(text) });
      const t = new DohTransport({ urls: [s.url], fetch: fetcher(), tries: 1 });
      await expect(t.query('a.example', 'A', { servers: [] }), text).rejects.toMatchObject({
        code: 'DNS_NETWORK',
      });
    }
  });
});
