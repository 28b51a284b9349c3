/**
 * The plain-HTTP/1.1 fast path of the DoH endpoint (src/authority/doh.ts),
 * over raw sockets to `lexroute serve --doh` on loopback: it answers what
 * node:http answers (same status, body and headers but Date), pipelined and
 * byte-by-byte requests, a query that is not one, Connection: close; and
 * every request outside its shape goes to node:http on the same connection
 * (HTTP/1.0, chunked bodies, a missing or percent-encoded dns parameter),
 * including after requests the fast path answered; a request node:http
 * cannot read gets a 4xx problem with a stable code.
 */
import net from 'node:net';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64UrlEncode } from '../../src/dns/core/wire/doh.ts';
import { SAMPLE_ZONES, startTestServer, type Harness } from './harness.ts';

let h: Harness;
let port: number;

beforeAll(async () => {
  h = await startTestServer([SAMPLE_ZONES], { doh: { listen: [{ host: '127.0.0.1', port: 0 }] } });
  port = h.server.doh[0]!.port;
});
afterAll(async () => {
  await h?.close();
});

const query = (name: string, type: 'NAPTR' | 'A' = 'NAPTR', flags = 0) =>
  dnsPacket.encode({ type: 'query', id: 0, flags, questions: [{ type, name, class: 'IN' }] });
const get = (q: Buffer, extra = '', version = '1.1') =>
  `GET /dns-query?dns=${base64UrlEncode(q)} HTTP/${version}\r\nhost: x\r\naccept: application/dns-message\r\n${extra}\r\n`;
const post = (q: Buffer, extra = '') =>
  Buffer.concat([
    Buffer.from(
      `POST /dns-query HTTP/1.1\r\nhost: x\r\ncontent-type: application/dns-message\r\ncontent-length: ${q.length}\r\n${extra}\r\n`,
    ),
    q,
  ]);

/** A response's header fields, lowercase names in order. */
class Fields {
  readonly list: readonly [string, string][];
  constructor(list: readonly [string, string][]) {
    this.list = list;
  }
  get(name: string): string | undefined {
    return this.list.find(([k]) => k === name)?.[1];
  }
}

interface Answer {
  status: number;
  headers: Fields;
  body: Buffer;
  keepAlive: boolean;
}

/**
 * The response at the start of `buf` and where the next starts, or
 * undefined when more bytes are needed (the server's responses have a
 * Content-Length, no body (204, 304), or end with the connection).
 */
function parseResponse(buf: Buffer, closed: boolean): { answer: Answer; rest: number } | undefined {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [line, ...lines] = buf.toString('latin1', 0, end).split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(line!);
  if (status === null) throw new Error(`not a status line: ${line}`);
  const headers = new Fields(
    lines.map((l) => {
      const colon = l.indexOf(':');
      return [l.slice(0, colon).toLowerCase(), l.slice(colon + 1).trim()];
    }),
  );
  const code = Number(status[1]);
  const length = code === 204 || code === 304 ? '0' : headers.get('content-length');
  const stop = length === undefined ? (closed ? buf.length : -1) : end + 4 + Number(length);
  if (stop < 0 || buf.length < stop) return undefined;
  const keepAlive = length !== undefined && headers.get('connection') !== 'close';
  return {
    answer: { status: code, headers, body: buf.subarray(end + 4, stop), keepAlive },
    rest: stop,
  };
}

/** Write `parts` (one write each, `gapMs` apart) and read `count` responses. */
async function exchange(parts: (string | Buffer)[], count: number, gapMs = 0): Promise<Answer[]> {
  const socket = net.connect({ port, host: '127.0.0.1' });
  const out: Answer[] = [];
  let buf = Buffer.alloc(0);
  let closed = false;
  const done = new Promise<void>((resolve, reject) => {
    const step = () => {
      while (out.length < count) {
        const s = parseResponse(buf, closed);
        if (s === undefined) return;
        out.push({ ...s.answer, body: Buffer.from(s.answer.body) });
        buf = buf.subarray(s.rest);
      }
      resolve();
    };
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      try {
        step();
      } catch (e) {
        reject(e as Error);
      }
    });
    socket.on('close', () => {
      closed = true;
      try {
        step();
      } catch (e) {
        reject(e as Error);
      }
      if (out.length < count) reject(new Error(`closed after ${out.length} responses`));
    });
    socket.on('error', reject);
  });
  for (const p of parts) {
    socket.write(p);
    if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
  }
  await done;
  socket.destroy();
  return out;
}

const question = (a: Answer) => dnsPacket.decode(a.body).questions?.[0]?.name;
const without = (h: Fields, ...names: string[]) =>
  Object.fromEntries(h.list.filter(([k]) => !names.includes(k)));

describe('the DoH fast path (plain HTTP/1.1)', () => {
  it('answers GET and POST as node:http does: same status, body and headers (but Date)', async () => {
    const q = query('lex.urn.arpa');
    // OPTIONS is outside the fast shape: the connection goes to node:http, which answers the GET after it.
    const [, slow] = await exchange(
      [`OPTIONS /dns-query HTTP/1.1\r\nhost: x\r\n\r\n`, get(q)],
      2,
      20,
    );
    const [fastGet, fastPost] = await exchange([get(q), post(q)], 2);
    for (const fast of [fastGet!, fastPost!]) {
      expect(fast.status).toBe(200);
      expect(fast.body).toEqual(slow!.body);
      expect(without(fast.headers, 'date')).toEqual(without(slow!.headers, 'date'));
      expect(fast.headers.get('cache-control')).toMatch(/^max-age=\d+$/);
      expect(fast.headers.get('access-control-allow-origin')).toBe('*');
      expect(new Date(fast.headers.get('date')!).getTime()).not.toBeNaN();
    }
    expect(question(fastGet!)).toBe('lex.urn.arpa');
  });

  it('answers pipelined requests in order, and a request sent byte by byte', async () => {
    const names = ['lex.urn.arpa', 'council.lex.europa.eu', 'nx.lex.urn.arpa'];
    const answers = await exchange(
      [
        Buffer.concat([
          Buffer.from(get(query(names[0]!))),
          post(query(names[1]!)),
          Buffer.from(get(query(names[2]!))),
        ]),
      ],
      3,
    );
    expect(answers.map(question)).toEqual(names);
    expect(answers.map((a) => (dnsPacket.decode(a.body) as { rcode?: string }).rcode)).toEqual([
      'NOERROR',
      'NOERROR',
      'NXDOMAIN',
    ]);
    const bytes = post(query('lex.urn.arpa'));
    const [one] = await exchange(
      [...bytes].map((b) => Buffer.from([b])),
      1,
      1,
    );
    expect(one!.status).toBe(200);
    expect(question(one!)).toBe('lex.urn.arpa');
  });

  it('a DNS response in place of a query gets 400 DOH_NOT_A_QUERY; Connection: close ends the connection', async () => {
    const response = dnsPacket.encode({
      type: 'response',
      id: 0,
      questions: [{ type: 'A', name: 'a.b', class: 'IN' }],
    });
    const [bad] = await exchange([post(response)], 1);
    expect(bad!.status).toBe(400);
    expect(bad!.headers.get('content-type')).toBe('application/problem+json');
    expect(JSON.parse(bad!.body.toString()).code).toBe('DOH_NOT_A_QUERY');
    const [closing] = await exchange([get(query('lex.urn.arpa'), 'connection: close\r\n')], 1);
    expect(closing!.headers.get('connection')).toBe('close');
    expect(closing!.keepAlive).toBe(false);
  });

  it('hands the connection to node:http at the first request outside its shape, answered bytes not repeated', async () => {
    const q = query('lex.urn.arpa');
    const chunked = Buffer.concat([
      Buffer.from(
        `POST /dns-query HTTP/1.1\r\nhost: x\r\ncontent-type: application/dns-message\r\ntransfer-encoding: chunked\r\n\r\n${q.length.toString(16)}\r\n`,
      ),
      q,
      Buffer.from('\r\n0\r\n\r\n'),
    ]);
    const answers = await exchange(
      [
        get(q),
        `GET /dns-query HTTP/1.1\r\nhost: x\r\n\r\n`,
        // The same query with its first character percent-encoded: node:http decodes it.
        `GET /dns-query?dns=%${base64UrlEncode(q).charCodeAt(0).toString(16)}${base64UrlEncode(q).slice(1)} HTTP/1.1\r\nhost: x\r\n\r\n`,
        chunked,
        get(q),
      ],
      5,
      10,
    );
    expect(answers.map((a) => a.status)).toEqual([200, 400, 200, 200, 200]);
    expect(answers[2]!.body).toEqual(answers[0]!.body);
    expect(JSON.parse(answers[1]!.body.toString()).code).toBe('DOH_NO_DNS_PARAMETER');
    expect(question(answers[3]!)).toBe('lex.urn.arpa');
    expect(answers[4]!.body).toEqual(answers[0]!.body);
    const [http10] = await exchange([get(q, '', '1.0')], 1);
    expect(http10!.status).toBe(200);
    expect(http10!.body).toEqual(answers[0]!.body);
  });

  it('a request node:http cannot read gets a 4xx problem+json with a stable code, then the connection closes', async () => {
    const [malformed] = await exchange(['GET /dns-query HTTP/1.1\r\nhost x\r\n\r\n'], 1);
    expect(malformed!.status).toBe(400);
    expect(malformed!.headers.get('content-type')).toBe('application/problem+json');
    expect(JSON.parse(malformed!.body.toString()).code).toBe('DOH_BAD_REQUEST');
    expect(malformed!.keepAlive).toBe(false);
    const [huge] = await exchange(
      [`GET /dns-query HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`],
      1,
    );
    expect(huge!.status).toBe(431);
    expect(JSON.parse(huge!.body.toString()).code).toBe('DOH_HEAD_TOO_LARGE');
  });
});
