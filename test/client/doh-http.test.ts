/**
 * The DoH client's HTTP in Node (src/client/doh-undici.ts, one `dispatch`
 * on undici per exchange) gives what the WHATWG `fetch` gives (the
 * transport's default, a page's path), through the DoH transport against
 * `lexroute serve --doh`, GET and POST, answers and failures alike; and a
 * plain `http://` server that speaks HTTP/2 only (prior knowledge, as
 * BIND's and Unbound's plain DoH listeners) is reached without any option,
 * remembered for the next query.
 */
import http2 from 'node:http2';
import type net from 'node:net';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DohTransport } from '../../src/client/doh.ts';
import { NodeDoh } from '../../src/client/doh-undici.ts';
import { base64UrlDecode } from '../../src/dns/core/wire/doh.ts';
import { SAMPLE_ZONES, startTestServer, type Harness } from '../server/harness.ts';

let h: Harness;
let url: string;
const doh = new NodeDoh();

beforeAll(async () => {
  h = await startTestServer([SAMPLE_ZONES], { doh: { listen: [{ host: '127.0.0.1', port: 0 }] } });
  url = `http://127.0.0.1:${h.server.doh[0]!.port}/dns-query`;
});
afterAll(async () => {
  await doh.close();
  await h?.close();
});

type Outcome = { ok: true; answers: unknown; rcode: string } | { ok: false; code: string };

async function outcome(t: DohTransport, name: string, type: 'NAPTR' | 'A'): Promise<Outcome> {
  try {
    const ex = await t.query(name, type, { servers: [] });
    return { ok: true, answers: ex.message.answers, rcode: ex.message.rcode };
  } catch (e) {
    return { ok: false, code: (e as { code: string }).code };
  }
}

describe('the Node DoH client answers as fetch', () => {
  for (const method of ['GET', 'POST'] as const) {
    it(`${method}: the same answers and the same failures`, async () => {
      const transports = (u: string) => [
        new DohTransport({ urls: [u], method, tries: 1, fetch: doh.fetch }),
        new DohTransport({ urls: [u], method, tries: 1 }),
      ];
      const questions: [string, 'NAPTR' | 'A'][] = [
        ['lex.urn.arpa', 'NAPTR'],
        ['council.lex.europa.eu', 'NAPTR'],
        ['nx.lex.urn.arpa', 'NAPTR'],
        ['lex.urn.arpa', 'A'],
        ['not.served.example', 'NAPTR'],
      ];
      const [node, plain] = transports(url);
      const a: Outcome[] = [];
      const b: Outcome[] = [];
      for (const [n, t] of questions) {
        a.push(await outcome(node!, n, t));
        b.push(await outcome(plain!, n, t));
      }
      expect(a.filter((o) => o.ok)).toHaveLength(4);
      expect(a).toEqual(b);
      // A path that is not DoH: an HTTP status, the same code from both.
      const [node404, plain404] = transports(url.replace('/dns-query', '/nothing'));
      expect(await outcome(node404!, 'lex.urn.arpa', 'NAPTR')).toEqual({
        ok: false,
        code: 'DNS_DOH_STATUS',
      });
      expect(await outcome(plain404!, 'lex.urn.arpa', 'NAPTR')).toEqual({
        ok: false,
        code: 'DNS_DOH_STATUS',
      });
    });
  }
});

describe('a plain http:// server that speaks HTTP/2 only', () => {
  it('is reached by prior knowledge (h2c) after HTTP/1.1 fails, with no option', async () => {
    let streams = 0;
    const sessions = new Set<net.Socket>();
    const server = http2.createServer((req, res) => {
      streams++;
      const dns = new URL(req.url, 'http://x').searchParams.get('dns') ?? '';
      const q = dnsPacket.decode(Buffer.from(base64UrlDecode(dns) as Uint8Array));
      const answer = dnsPacket.encode({
        type: 'response',
        id: 0,
        flags: dnsPacket.AUTHORITATIVE_ANSWER,
        questions: q.questions,
        answers: [{ type: 'A', name: q.questions![0]!.name, ttl: 60, data: '192.0.2.7' }],
      });
      res.writeHead(200, { 'content-type': 'application/dns-message' });
      res.end(answer);
    });
    server.on('connection', (s: net.Socket) => sessions.add(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    const h2 = new NodeDoh();
    try {
      const t = new DohTransport({
        urls: [`http://127.0.0.1:${port}/dns-query`],
        fetch: h2.fetch,
        tries: 1,
      });
      for (const name of ['a.example', 'b.example']) {
        const ex = await t.query(name, 'A', { servers: [] });
        expect(ex.message.answers.map((r) => (r.type === 'A' ? r.address : r.type))).toEqual([
          '192.0.2.7',
        ]);
      }
      expect(streams).toBe(2);
      // One connection for the HTTP/1.1 try, one HTTP/2 connection for both queries.
      expect(sessions.size).toBe(2);
    } finally {
      await h2.close();
      for (const s of sessions) s.destroy();
      server.close();
    }
  });
});
