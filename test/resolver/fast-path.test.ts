/**
 * The resolver's plain-HTTP/1.1 fast path (`src/resolver/http/fast.ts`)
 * against node:http: the same raw requests, over real sockets, to a server
 * with the fast path and one without, must get the same bytes back (the
 * Date header aside) and leave the same request log and counters, for
 * requests the fast path answers, requests it hands to node:http, and
 * connections that mix both.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqliteCatalogue } from '../../src/resolver/catalogue/store.ts';
import type { ResolverApp } from '../../src/resolver/http/app.ts';
import { takeRequest } from '../../src/resolver/http/fast.ts';
import { requestAt } from '../../src/kit/http1.ts';
import {
  startResolverServer,
  type LogEntry,
  type RunningResolver,
} from '../../src/resolver/http/server.ts';
import { ResolverStats } from '../../src/resolver/http/stats.ts';
import { sampleApp, sampleCatalogue } from '../helpers/sample-catalogue.ts';

const dir = mkdtempSync(join(tmpdir(), 'lexroute-fast-'));
let store: SqliteCatalogue;

interface Served {
  readonly running: RunningResolver;
  readonly logs: LogEntry[];
  readonly stats: ResolverStats;
}
let fast: Served;
let plain: Served;

async function serve(app: ResolverApp, fastPath: boolean): Promise<Served> {
  const logs: LogEntry[] = [];
  const stats = new ResolverStats();
  const running = await startResolverServer({
    app,
    host: '127.0.0.1',
    port: 0,
    log: (e) => logs.push(e),
    stats,
    fastPath,
  });
  return { running, logs, stats };
}

beforeAll(async () => {
  store = await sampleCatalogue(dir);
  // An async app as well as a sync one: a PostgreSQL catalogue answers through promises.
  const app = sampleApp(store);
  const asyncApp: ResolverApp = { ...app, respond: async (req) => app.respond(req) };
  fast = await serve(asyncApp, true);
  plain = await serve(app, false);
});
afterAll(async () => {
  await fast?.running.close();
  await plain?.running.close();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Write `chunks` (one write each, 20 ms apart), read until the server closes. */
function exchange(port: number, chunks: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (answer += d));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(5_000, () => {
      socket.destroy();
      reject(new Error(`no close: ${answer}`));
    });
    socket.on('connect', async () => {
      for (const c of chunks) {
        socket.write(c);
        await new Promise((r) => setTimeout(r, 20));
      }
    });
  });
}

const masked = (s: string) => s.replace(/\r\nDate: [^\r]+\r\n/g, '\r\nDate: X\r\n');
const GET = (target: string, extra = '') => `GET ${target} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
const CLOSE = GET('/health', 'Connection: close\r\n');
const N2L = '/uri-res/N2L?urn:lex:br:federal:lei:2002-01-10;10406';

const CASES: Record<string, string[]> = {
  'N2L, then a closing request': [GET(N2L), CLOSE],
  'HEAD and the other services with Accept': [
    `HEAD ${N2L} HTTP/1.1\r\nHost: x\r\n\r\n`,
    GET(N2L.replace('N2L', 'N2Ls'), 'Accept: application/json\r\nAccept-Language: pt\r\n'),
    GET(N2L.replace('N2L', 'N2C'), 'accept: text/html\r\n'),
    GET(N2L.replace('N2L', 'N2Ns')),
    CLOSE,
  ],
  'problems: no such work, bad URN, unknown service, no route': [
    GET('/uri-res/N2L?urn:lex:br:federal:lei:2002-01-10;99999'),
    GET('/uri-res/N2L?urn:lex:'),
    GET('/uri-res/X2Y?urn:lex:br'),
    GET('/nothing/here'),
    GET('/urn:lex:br:federal:lei:2002-01-10;10406'),
    CLOSE,
  ],
  'two requests pipelined in one write': [GET(N2L) + GET('/health') + CLOSE],
  'a request split over two writes (handed to node:http)': [
    GET(N2L),
    'GET /health HTTP/1.1\r\nHo',
    'st: x\r\n\r\n',
    CLOSE,
  ],
  'a body mid-connection (handed to node:http)': [
    GET(N2L),
    `GET ${N2L} HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello`,
    GET('/health'),
    CLOSE,
  ],
  'OPTIONS, then GET on the same connection': [
    'OPTIONS * HTTP/1.1\r\nHost: x\r\nOrigin: https://a.example\r\n\r\n',
    GET(N2L),
    CLOSE,
  ],
  'HTTP/1.0': ['GET /uri-res/N2L?urn:lex:br:federal:lei:2002-01-10;10406|x HTTP/1.0\r\n\r\n'],
  'no Host': ['GET /health HTTP/1.1\r\n\r\n'],
  'malformed after a good request': [GET(N2L), 'BAD REQUEST\r\n\r\n'],
  'a percent-encoded URN and a non-ASCII byte in a header': [
    GET('/uri-res/N2L?urn%3Alex%3Abr%3Afederal%3Alei%3A2002-01-10%3B10406'),
    GET(N2L, 'Accept-Language: pt\xe9\r\n'),
    CLOSE,
  ],
  'POST (handed to node:http)': [
    `POST ${N2L} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
  ],
};

describe('the fast path answers exactly as node:http', () => {
  for (const [name, chunks] of Object.entries(CASES)) {
    it(name, async () => {
      const [a, b] = await Promise.all([
        exchange(fast.running.port, chunks),
        exchange(plain.running.port, chunks),
      ]);
      expect(a).not.toBe('');
      expect(masked(a)).toBe(masked(b));
    });
  }

  it('the request logs and counters are the same on both servers', async () => {
    const strip = (logs: LogEntry[]) =>
      logs
        .filter((l) => l.msg === 'request')
        .map(({ time: _t, ms: _m, ...rest }) => rest)
        .sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
    await new Promise((r) => setTimeout(r, 50));
    expect(strip(fast.logs).length).toBeGreaterThan(20);
    expect(strip(fast.logs)).toEqual(strip(plain.logs));
    expect([...fast.stats.requests].sort()).toEqual([...plain.stats.requests].sort());
  });
});

describe('takeRequest: what the fast path takes', () => {
  const take = (s: string) => {
    const at = requestAt(Buffer.from(s, 'latin1'));
    if (typeof at === 'string') return at;
    const t = takeRequest(at.head);
    return t === 'other' ? t : { ...t.request, length: at.bodyStart };
  };
  it('takes a plain GET and reads its headers', () => {
    const t = take(`GET ${N2L} HTTP/1.1\r\nHost: x\r\nAccept:  text/html \r\n\r\nGET`);
    expect(t).toMatchObject({ method: 'GET', target: N2L, close: false });
    if (typeof t === 'string') throw new Error(t);
    expect(t.length).toBe(`GET ${N2L} HTTP/1.1\r\nHost: x\r\nAccept:  text/html \r\n\r\n`.length);
    expect(t.headers.get('accept')).toBe('text/html');
    expect(take('GET / HTTP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\n')).toMatchObject({
      close: true,
    });
  });
  it('waits for the rest of a head, and leaves the rest to node:http', () => {
    expect(take('GET / HTTP/1.1\r\nHost: x\r\n')).toBe('more');
    for (const other of [
      'GET / HTTP/1.0\r\nHost: x\r\n\r\n',
      'PUT / HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET / HTTP/1.1\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc',
      'GET / HTTP/1.1\r\nHost: x\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: \xe9\r\n\r\n',
      `GET /${'a'.repeat(9000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ]) {
      expect(take(other), other).toBe('other');
    }
  });
});

describe('back-pressure on the fast path', () => {
  it('a client that pipelines 20,000 requests and reads late gets every answer, in order', async () => {
    // The first requests are answered on the fast path; the first one split
    // between two reads hands the connection to node:http, which answers the
    // rest: the answers come in order, none lost, none twice.
    const n = 20_000;
    const one = (i: number) => {
      const r = GET(`/health?i=${String(i).padStart(6, '0')}`);
      return r.replace('Host: x', `Host: ${'x'.repeat(64 - r.length + 1)}`);
    };
    expect(one(0)).toHaveLength(64);
    const requests = Array.from({ length: n }, (_, i) => one(i)).join('') + CLOSE;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(fast.running.port, '127.0.0.1');
      let answer = '';
      socket.setEncoding('latin1');
      socket.pause(); // read nothing for a while: the server's writes back up
      socket.on('connect', () => {
        socket.write(requests);
        setTimeout(() => {
          socket.on('data', (d: string) => (answer += d));
          socket.resume();
        }, 300);
      });
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
      socket.setTimeout(20_000, () => {
        socket.destroy();
        reject(new Error(`no close after ${answer.length} bytes`));
      });
    });
    expect(text.match(/^HTTP\/1\.1 200 OK\r\n/gm)).toHaveLength(n + 1);
    expect(text.trimEnd().endsWith('}')).toBe(true);
  });
});
