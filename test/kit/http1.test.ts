/**
 * The one HTTP/1.1 fast path (src/kit/http1.ts) on its own, over real
 * sockets: the head parser's plain shape, the cap on unsent bytes (a client
 * that does not read answers bigger than the socket's buffers is closed),
 * and a request that never completes (the headers timeout, absolute, not
 * reset by each byte).
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRequestHead } from '../../src/kit/core/http1.ts';
import {
  Http1Connections,
  responseBytes,
  serveHttp1,
  type Http1Service,
} from '../../src/kit/http1.ts';

const servers: net.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function serve(service: Http1Service<string>): Promise<number> {
  const connections = new Http1Connections();
  const server = net.createServer((socket) =>
    serveHttp1(socket, Buffer.alloc(0), service, connections),
  );
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

function service(body: string, o: Partial<Http1Service<string>> = {}): Http1Service<string> {
  return {
    take: (head, _buf, bodyStart) => ({
      request: head.target,
      length: bodyStart,
      close: head.close,
    }),
    answer: (_target, close) =>
      responseBytes(200, { 'content-type': 'text/plain' }, body, {
        head: false,
        close,
        keepAliveMs: 5000,
      }) as Buffer,
    handOver: (socket) => socket.destroy(),
    headersMs: 10_000,
    onHeadersTimeout: (socket) => socket.end('HTTP/1.1 408 Request Timeout\r\n\r\n'),
    keepAliveMs: 5000,
    ...o,
  };
}

describe('parseRequestHead: the plain shape', () => {
  it('reads the request line and the headers', () => {
    const h = parseRequestHead('GET /a?b HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-A:  1 ');
    expect(h).toMatchObject({ method: 'GET', target: '/a?b', close: true });
    expect(h?.headers.get('x-a')).toBe('1');
  });
  it('leaves everything else to node:http', () => {
    for (const head of [
      'GET / HTTP/1.0\r\nHost: x',
      'GET / HTTP/1.1',
      'GET / HTTP/1.1\r\nHost: x\r\nHost: y',
      'GET / HTTP/1.1\r\nHost: x\r\nConnection: upgrade',
      'GET / HTTP/1.1\r\nHost : x',
      'get / HTTP/1.1\r\nHost: x',
      'GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked',
    ]) {
      expect(parseRequestHead(head), head).toBeUndefined();
    }
  });
});

describe('back-pressure and limits of the connection', () => {
  it('closes a client that pipelines and does not read, past the cap on unsent bytes', async () => {
    // Each answer is 4 MiB, over the cap: once the kernel's buffers are full, one unsent answer passes it.
    const port = await serve(service('x'.repeat(4 * 1024 * 1024), { maxUnsent: 1024 * 1024 }));
    const size = 4 * 1024 * 1024;
    const received = await new Promise<number>((resolve) => {
      const socket = net.connect({ port, host: '127.0.0.1' });
      let bytes = 0;
      socket.pause(); // read nothing for a second, then see what the server left
      socket.on('connect', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(200)));
      setTimeout(() => {
        socket.on('data', (d: Buffer) => (bytes += d.length));
        socket.resume();
      }, 1000);
      socket.on('close', () => resolve(bytes));
      socket.on('error', () => undefined);
      setTimeout(() => {
        socket.destroy();
        resolve(-1);
      }, 8000);
    });
    // Closed by the server (not by the 8 s guard), long before 200 answers.
    expect(received).toBeGreaterThanOrEqual(0);
    expect(received).toBeLessThan(10 * size);
  });

  it('a client that reads gets every pipelined answer, in order', async () => {
    const port = await serve({
      ...service(''),
      answer: (target, close) =>
        responseBytes(200, {}, target, { head: false, close, keepAliveMs: 5000 }) as Buffer,
    });
    const n = 2000;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = net.connect({ port, host: '127.0.0.1' });
      let got = '';
      socket.setEncoding('latin1');
      socket.on('data', (d: string) => (got += d));
      socket.on('end', () => resolve(got));
      socket.on('error', reject);
      const all = Array.from({ length: n }, (_, i) => `GET /${i} HTTP/1.1\r\nHost: x\r\n\r\n`);
      socket.write(all.join('') + 'GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    });
    const bodies = [...text.matchAll(/\r\n\r\n(\/[0-9a-z]+)/g)].map((m) => m[1]);
    expect(bodies).toEqual([...Array.from({ length: n }, (_, i) => `/${i}`), '/last']);
  });

  it('a request dripped byte by byte is cut at the headers timeout', async () => {
    const port = await serve(service('ok', { headersMs: 300 }));
    const answer = await new Promise<string>((resolve) => {
      const socket = net.connect({ port, host: '127.0.0.1' });
      let got = '';
      const drip = setInterval(() => socket.write('X'), 50);
      socket.on('connect', () => socket.write('GET / HTTP/1.1\r\nX-Slow: '));
      socket.on('data', (d) => (got += d.toString('latin1')));
      socket.on('close', () => {
        clearInterval(drip);
        resolve(got);
      });
      socket.on('error', () => undefined);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });
});
