/**
 * The client's hand-written response decoder (src/dns/core/wire/response.ts,
 * behind decodeResponse in src/client/wire.ts) on real responses captured
 * from the lexroute server over UDP on 127.0.0.1, and on malformed messages:
 * truncation at every byte, RDLENGTH too short or too long, pointer loops
 * and forward pointers, reserved label types, names over 255 octets. Each
 * bad message gives a WireError with its code and the byte offset of the
 * problem; nothing else is ever thrown.
 *
 * @see RFC 1035 sections 3.1, 4.1.3, 4.1.4
 */
import dgram from 'node:dgram';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as dnsPacket from 'dns-packet';
import type { Answer, Question } from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG, type ServerConfig } from '../../src/config/server.ts';
import { createLogger } from '../../src/authority/log.ts';
import { startServer } from '../../src/authority/server.ts';
import {
  decodeResponseMessage,
  utf8ToString,
  WireError,
  type DecodedResponse,
} from '../../src/dns/core/wire/response.ts';
import { decodeResponse as decodeModel, knownQuestion } from '../../src/client/wire.ts';
import { asDnsPacket } from './helpers/as-dns-packet.ts';
import { buildMessage, type RawName, type RawRR } from './helpers/wire-build.ts';

/** The decoders' record model in dns-packet's shapes (the deprecated adapter), to compare with dns-packet. */
function decode(buf: Buffer, maxRecords = 1000): DecodedResponse<Question, Answer> {
  return asDnsPacket(decodeResponseMessage(buf, maxRecords));
}

function decodeResponse(
  buf: Buffer,
  maxRecords: number,
  known?: ReturnType<typeof knownQuestion>,
): DecodedResponse<Question, Answer> {
  return asDnsPacket(decodeModel(buf, maxRecords, known));
}

function failure(buf: Buffer, maxRecords = 1000): WireError {
  try {
    decode(buf, maxRecords);
  } catch (e) {
    if (e instanceof WireError) return e;
    throw new Error(`not a WireError: ${String(e)}`, { cause: e });
  }
  throw new Error('expected a WireError');
}

const SOA = (o: string) =>
  `@ IN SOA ns.${o}. hostmaster\\.dns.${o}. 2026112001 7200 3600 1209600 300\n@ IN NS ns.${o}.\nns IN A 127.0.0.1\n`;
const ZONES: Record<string, string> = {
  'urn.arpa': `$ORIGIN urn.arpa.\n$TTL 3600\n${SOA('urn.arpa')}lex IN NAPTR 100 10 "" "" "" lex-nameserver.nic.it.\n`,
  'nic.it':
    `$ORIGIN nic.it.\n$TTL 3600\n${SOA('nic.it')}` +
    `lex-nameserver IN NAPTR 100 10 "" "" "!^urn:lex:br[;:].*$!lex.senado.gov.br!i" .\n` +
    `lex-nameserver IN NAPTR 100 10 "" "" "!^urn:lex:it[;:].*$!lex.normattiva.example.it!i" .\n` +
    `lex-nameserver IN NAPTR 100 10 "" "" "!^urn:lex:de[;:].*$!lex.example.de!i" .\n`,
  'lex.senado.gov.br':
    `$ORIGIN lex.senado.gov.br.\n$TTL 3600\n${SOA('lex.senado.gov.br')}` +
    `@ IN NAPTR 100 10 "" "" "!^urn:lex:br;sao\\\\.paulo[;:].*$!lex.sao-paulo.gov.br!i" .\n` +
    `@ IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!https://resolver.senado.example/uri-res/N2L?\\\\1!" .\n` +
    `odd IN NAPTR 100 10 "S" "thttp+N2L" "" Odd\\.Label\\032x\\255.LEX.senado.gov.br.\n` +
    `_http._tcp.resolver IN SRV 10 60 8080 res1.lex.senado.gov.br.\n` +
    `res1 IN A 192.0.2.10\n` +
    `res1 IN AAAA 2001:db8::10\n` +
    `res1 IN AAAA 2001:0:0:1:0:0:0:1\n` +
    `alias IN CNAME res1\n` +
    `mg IN NS ns1.mg\nmg IN NS ns2.mg\nns1.mg IN A 127.0.0.2\nns2.mg IN A 127.0.0.3\nns2.mg IN AAAA ::1\n`,
};

/** Queries whose responses are captured: [name, type]. */
const QUERIES: [string, string][] = [
  ['lex.urn.arpa', 'NAPTR'],
  ['lex-nameserver.nic.it', 'NAPTR'],
  ['lex.senado.gov.br', 'NAPTR'],
  ['odd.lex.senado.gov.br', 'NAPTR'],
  ['_http._tcp.resolver.lex.senado.gov.br', 'SRV'],
  ['res1.lex.senado.gov.br', 'A'],
  ['res1.lex.senado.gov.br', 'AAAA'],
  ['alias.lex.senado.gov.br', 'A'],
  ['x.mg.lex.senado.gov.br', 'NAPTR'],
  ['missing.lex.senado.gov.br', 'NAPTR'],
  ['res1.lex.senado.gov.br', 'NAPTR'],
  ['lex.senado.gov.br', 'SOA'],
  ['lex.senado.gov.br', 'NS'],
];

let dir: string;
let close: (() => Promise<void>) | undefined;
const captured: { query: Buffer; response: Buffer; label: string }[] = [];

async function ask(port: number, query: Buffer): Promise<Buffer> {
  const socket = dgram.createSocket('udp4');
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no response in 2 s')), 2000);
      socket.once('message', (msg) => {
        clearTimeout(timer);
        resolve(msg);
      });
      socket.send(query, port, '127.0.0.1');
    });
  } finally {
    socket.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'lexroute-wire-decode-'));
  for (const [origin, text] of Object.entries(ZONES)) {
    await writeFile(path.join(dir, `${origin}.zone`), text);
  }
  const logs: string[] = [];
  const config: ServerConfig = {
    ...DEFAULT_SERVER_CONFIG,
    listen: [{ host: '127.0.0.1', port: 0 }],
    zones: Object.keys(ZONES).map((o) => path.join(dir, `${o}.zone`)),
  };
  const server = await startServer({
    config,
    log: createLogger((l) => void logs.push(l), 'warn', 'json'),
    cwd: dir,
  });
  close = () => server.close();
  const port = server.udp[0]?.port;
  if (port === undefined) throw new Error(`server did not listen: ${logs.join('\n')}`);
  let id = 1;
  for (const [name, type] of QUERIES) {
    // As the client asks: EDNS(0) with a 1232-byte buffer.
    const query = dnsPacket.encode({
      type: 'query',
      id: id++,
      questions: [{ name, type: type as 'A' }],
      additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232 } as dnsPacket.Answer],
    });
    captured.push({ query, response: await ask(port, query), label: `${name} ${type}` });
  }
});

afterAll(async () => {
  await close?.();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('real responses of the lexroute server', () => {
  it('decode to exactly what dns-packet decodes, with and without the known question', () => {
    expect(captured).toHaveLength(QUERIES.length);
    for (const { query, response, label } of captured) {
      const ref = dnsPacket.decode(response);
      const mine = decode(response);
      expect(mine.questions, label).toStrictEqual(ref.questions);
      expect(mine.answers, label).toStrictEqual(ref.answers);
      expect(mine.authorities, label).toStrictEqual(ref.authorities);
      expect(mine.additionals, label).toStrictEqual(ref.additionals);
      expect(mine.id).toBe(ref.id);
      expect(mine.rcode).toBe((ref as { rcode?: string }).rcode);
      const viaClient = decodeResponse(response, 1000, knownQuestion(query));
      expect(viaClient.answers, label).toStrictEqual(ref.answers);
      expect(viaClient.authorities, label).toStrictEqual(ref.authorities);
      expect(viaClient.additionals, label).toStrictEqual(ref.additionals);
      expect(viaClient.questions, label).toStrictEqual(ref.questions);
    }
  });

  it('cover the shapes the client reads: NAPTR sets, SRV, A/AAAA, CNAME, referral, NXDOMAIN', () => {
    const by = (label: string) => {
      const c = captured.find((x) => x.label === label);
      if (!c) throw new Error(label);
      return decode(c.response);
    };
    expect(by('lex-nameserver.nic.it NAPTR').answers).toHaveLength(3);
    const odd = by('odd.lex.senado.gov.br NAPTR').answers[0] as { data: { replacement: string } };
    // dns-packet's form: labels joined by "." unescaped, case kept, octet 0xff as U+FFFD.
    expect(odd.data.replacement).toBe('Odd.Label x\ufffd.LEX.senado.gov.br');
    const srv = by('_http._tcp.resolver.lex.senado.gov.br SRV').answers[0];
    expect(srv).toMatchObject({
      type: 'SRV',
      class: 'IN',
      flush: false,
      ttl: 3600,
      data: { priority: 10, weight: 60, port: 8080, target: 'res1.lex.senado.gov.br' },
    });
    const aaaa = by('res1.lex.senado.gov.br AAAA').answers.map((a) => (a as { data: string }).data);
    // ip-codec compresses the first run of zero groups, not the longest.
    expect(aaaa.sort()).toEqual(['2001::1:0:0:0:1', '2001:db8::10']);
    const cname = by('alias.lex.senado.gov.br A').answers.map((a) => a.type);
    expect(cname).toEqual(['CNAME', 'A']);
    const referral = by('x.mg.lex.senado.gov.br NAPTR');
    expect(referral.answers).toHaveLength(0);
    expect(referral.authorities.map((a) => a.type)).toEqual(['NS', 'NS']);
    expect(referral.additionals.map((a) => a.type).sort()).toEqual(['A', 'A', 'AAAA', 'OPT']);
    const nx = by('missing.lex.senado.gov.br NAPTR');
    expect(nx.rcode).toBe('NXDOMAIN');
    const soa = nx.authorities[0] as unknown as { data: Record<string, unknown> };
    expect(soa.data).toEqual({
      mname: 'ns.lex.senado.gov.br',
      // dns-packet's "mail" form of the RNAME: a dot inside the first label is `\.`.
      rname: 'hostmaster\\.dns.lex.senado.gov.br',
      serial: 2026112001,
      refresh: 7200,
      retry: 3600,
      expire: 1209600,
      minimum: 300,
    });
    const opt = nx.additionals.find((a) => a.type === 'OPT');
    expect(opt).toEqual({
      name: '.',
      type: 'OPT',
      udpPayloadSize: expect.any(Number),
      extendedRcode: 0,
      ednsVersion: 0,
      flags: 0,
      flag_do: false,
      options: [],
    });
  });

  it('truncated at every byte: DNS_BAD_RESPONSE with an offset inside the message', () => {
    let cases = 0;
    for (const { response, label } of captured) {
      for (let cut = 0; cut < response.length; cut++) {
        const e = failure(response.subarray(0, cut));
        expect(e.code, `${label} cut at ${cut}`).toBe('DNS_BAD_RESPONSE');
        expect(e.offset).toBeLessThanOrEqual(cut);
        cases++;
      }
    }
    expect(cases).toBeGreaterThan(1000);
  });

  it('any single octet overwritten: a WireError or exactly dns-packet, never another exception', () => {
    let rejected = 0;
    let accepted = 0;
    for (const { response } of captured) {
      for (let at = 12; at < response.length; at++) {
        for (const v of [0x00, 0x01, 0x3f, 0x40, 0x80, 0xc0, 0xff]) {
          const buf = Buffer.from(response);
          buf[at] = v;
          let mine: DecodedResponse<Question, Answer>;
          try {
            mine = decode(buf);
          } catch (e) {
            expect(e).toBeInstanceOf(WireError);
            rejected++;
            continue;
          }
          const ref = dnsPacket.decode(buf);
          expect(mine.answers).toStrictEqual(ref.answers);
          expect(mine.authorities).toStrictEqual(ref.authorities);
          expect(mine.additionals).toStrictEqual(ref.additionals);
          accepted++;
        }
      }
    }
    expect(rejected).toBeGreaterThan(100);
    expect(accepted).toBeGreaterThan(100);
  });
});

// ---------------------------------------------------------------------------
// Hand-made malformed messages.

const ascii = (s: string) => Uint8Array.from(Buffer.from(s, 'latin1'));
const name = (s: string, pointer = -1): RawName => ({
  labels: s === '' ? [] : s.split('.').map(ascii),
  pointer,
});
const naptr = (owner: RawName, replacement: RawName): RawRR => ({
  owner,
  klass: 1,
  ttl: 60,
  rr: {
    kind: 'NAPTR',
    order: 100,
    preference: 10,
    strings: [ascii('u'), ascii('http+N2L'), ascii('!^(.*)$!https://x/\\1!')],
    replacement,
  },
});

/** A response with one question and the given answers. */
function response(answers: RawRR[], qname = 'lex.example'): Buffer {
  return buildMessage({
    id: 7,
    flags: 0x8400,
    question: { name: name(qname), type: 35, klass: 1 },
    sections: [answers, [], []],
  });
}

/** Record offsets: header 12 + question. */
const Q_END = 12 + (1 + 3 + 1 + 7 + 1) + 4;

/** Add `delta` to the RDLENGTH of the record whose RDLENGTH field is at `at`, inserting/removing bytes at its end. */
function withRdlength(buf: Buffer, at: number, delta: number): Buffer {
  const rdlength = buf.readUInt16BE(at);
  const end = at + 2 + rdlength;
  const out =
    delta >= 0
      ? Buffer.concat([buf.subarray(0, end), Buffer.alloc(delta, 0x41), buf.subarray(end)])
      : Buffer.concat([buf.subarray(0, end + delta), buf.subarray(end)]);
  out.writeUInt16BE(rdlength + delta, at);
  return out;
}

/** RDLENGTH of a lone answer whose owner is a 2-byte pointer. */
const RDLEN_AT = Q_END + 2 + 8;

describe('malformed responses', () => {
  it('a message shorter than a header', () => {
    for (let n = 0; n < 12; n++) {
      const e = failure(Buffer.alloc(n));
      expect(e.code).toBe('DNS_BAD_RESPONSE');
      expect(e.message).toBe(`message of ${n} bytes has no header`);
    }
  });

  it('header counts over the limit: DNS_RRSET_TOO_LARGE before anything is decoded', () => {
    const buf = Buffer.alloc(12);
    buf.writeUInt16BE(0x8400, 2);
    buf.writeUInt16BE(40, 6);
    buf.writeUInt16BE(40, 8);
    buf.writeUInt16BE(21, 10);
    const e = failure(buf, 100);
    expect(e.code).toBe('DNS_RRSET_TOO_LARGE');
    expect(e.message).toMatch(/101 records, over the client's limit of 100/);
    // Within the limit, the same header is a message cut short.
    expect(failure(buf, 101).code).toBe('DNS_BAD_RESPONSE');
  });

  it('question cut short', () => {
    const buf = response([]).subarray(0, Q_END - 2);
    const e = failure(buf);
    expect(e.message).toMatch(/question at byte 12 is cut short/);
  });

  it.each([
    ['NAPTR', 1, /NAPTR record at byte 29: RDATA is \d+ bytes but RDLENGTH says/],
    ['NAPTR', -1, /NAPTR record at byte 29: name at byte \d+ runs past RDLENGTH/],
    [
      'NAPTR',
      -3,
      /NAPTR record at byte 29: (label at byte \d+|name at byte \d+) runs past RDLENGTH/,
    ],
  ] as const)('%s with RDLENGTH off by %i', (_t, delta, message) => {
    const buf = withRdlength(response([naptr(name('', 0), name('a.b'))]), RDLEN_AT, delta);
    const e = failure(buf);
    expect(e.code).toBe('DNS_BAD_RESPONSE');
    expect(e.message).toMatch(message);
  });

  it('NAPTR strings running past RDLENGTH (into the next record) are refused', () => {
    // Shrink RDLENGTH so the REGEXP string's length octet says more than is left.
    const good = response([naptr(name('', 0), name('')), naptr(name('', 0), name(''))]);
    const rdlength = good.readUInt16BE(RDLEN_AT);
    const bad = Buffer.from(good);
    bad.writeUInt16BE(rdlength - 10, RDLEN_AT);
    const e = failure(bad);
    expect(e.message).toMatch(
      /NAPTR record at byte 29: character-string at byte \d+ \(\d+ octets\) runs past RDLENGTH/,
    );
    expect(e.offset).toBeGreaterThan(RDLEN_AT);
    // dns-packet alone reads on into the next record without noticing.
    expect(() => dnsPacket.decode(bad)).not.toThrow();
  });

  it.each([
    ['A', { kind: 'A', addr: [192, 0, 2, 1] }, [1, -1]],
    ['AAAA', { kind: 'AAAA', groups: [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1] }, [1, -1]],
    ['NS', { kind: 'NS', target: name('ns.example') }, [1]],
    ['CNAME', { kind: 'CNAME', target: name('x.example') }, [1]],
    ['SRV', { kind: 'SRV', priority: 1, weight: 2, port: 3, target: name('t.example') }, [1]],
    ['MX', { kind: 'MX', preference: 1, exchange: name('mx.example') }, [1]],
    [
      'SOA',
      {
        kind: 'SOA',
        mname: name('ns.example'),
        rname: name('h.example'),
        numbers: [1, 2, 3, 4, 5],
      },
      [1, -1],
    ],
  ] as const)('%s whose RDATA does not fill RDLENGTH exactly', (type, rr, deltas) => {
    for (const delta of deltas) {
      const rec: RawRR = { owner: name('', 0), klass: 1, ttl: 60, rr: rr as RawRR['rr'] };
      const buf = withRdlength(response([rec]), RDLEN_AT, delta);
      const e = failure(buf);
      expect(e.code).toBe('DNS_BAD_RESPONSE');
      expect(e.message).toMatch(new RegExp(`^${type} record at byte 29: `));
    }
  });

  it('RDLENGTH past the end of the message', () => {
    const buf = response([naptr(name('', 0), name(''))]);
    buf.writeUInt16BE(buf.readUInt16BE(RDLEN_AT) + 1, RDLEN_AT);
    const e = failure(buf);
    expect(e.message).toMatch(/record at byte 29: RDLENGTH \d+ runs past the end of the message/);
    expect(e.offset).toBe(RDLEN_AT);
  });

  it('a pointer to itself, a loop of two pointers and a forward pointer end with an error', () => {
    // Owner name of the answer at byte 29 is a pointer to byte 29.
    const self = response([naptr(name('', 0), name(''))]);
    self.writeUInt16BE(0xc000 | 29, 29);
    expect(failure(self).message).toMatch(
      /record at byte 29: compression pointer at byte 29 points to byte 29, not before byte 29/,
    );
    // A pointer to a byte after itself.
    const forward = response([naptr(name('', 0), name(''))]);
    forward.writeUInt16BE(0xc000 | 200, 29);
    const ef = failure(forward);
    expect(ef.message).toMatch(/points to byte 200, not before byte 29/);
    expect(ef.offset).toBe(29);
    // Two names pointing at each other: the second pointer is forward of its segment.
    const loop = buildMessage({
      id: 1,
      flags: 0x8400,
      sections: [
        [
          { owner: name('a'), klass: 1, ttl: 1, rr: { kind: 'A', addr: [1, 2, 3, 4] } },
          { owner: name('b'), klass: 1, ttl: 1, rr: { kind: 'A', addr: [1, 2, 3, 4] } },
        ],
        [],
        [],
      ],
    });
    // First owner "a" at 12 becomes [1 'a' ptr->29] and the second [1 'b' ptr->12] at 29.
    const second = 12 + 3 + 10 + 4;
    loop.writeUInt16BE(0xc000 | second, 14);
    loop.writeUInt16BE(0xc000 | 12, second + 2);
    const el = failure(loop);
    expect(el.message).toMatch(/points to byte 29, not before byte 12/);
    expect(() => dnsPacket.decode(loop)).toThrow(/bad pointer/);
  });

  it.each([
    ['0x40', 0x40],
    ['0x80', 0x80],
  ])('label type %s is refused with its offset', (_label, t) => {
    const buf = response([naptr(name('x', 0), name(''))]);
    buf[29] = t | 1;
    const e = failure(buf);
    expect(e.message).toBe(
      `record at byte 29: bad label type 0x${(t | 1).toString(16)} at byte 29`,
    );
    expect(e.offset).toBe(29);
  });

  it('a pointer cut short at the end of the message', () => {
    const buf = response([naptr(name('', 0), name(''))]).subarray(0, 30);
    expect(failure(buf).message).toMatch(/compression pointer at byte 29 is cut short/);
  });

  it('names of exactly 255 octets pass, 256 fail, also when built from a compressed suffix', () => {
    const label63 = 'a'.repeat(63);
    // 4 labels: 3 x 64 + 1 + 61 + 1 (root) = 255 octets.
    const n255 = `${label63}.${label63}.${label63}.${'b'.repeat(61)}`;
    const n256 = `${label63}.${label63}.${label63}.${'b'.repeat(62)}`;
    const ok = buildMessage({
      id: 1,
      flags: 0x8400,
      sections: [
        [{ owner: name(n255), klass: 1, ttl: 1, rr: { kind: 'A', addr: [1, 1, 1, 1] } }],
        [],
        [],
      ],
    });
    expect((decode(ok).answers[0] as { name: string }).name).toBe(n255);
    expect(dnsPacket.decode(ok).answers?.[0]?.name).toBe(n255);
    const long = buildMessage({
      id: 1,
      flags: 0x8400,
      sections: [
        [{ owner: name(n256), klass: 1, ttl: 1, rr: { kind: 'A', addr: [1, 1, 1, 1] } }],
        [],
        [],
      ],
    });
    expect(failure(long).message).toMatch(/name at byte 12 is longer than 255 octets/);
    expect(() => dnsPacket.decode(long)).toThrow(/name too long/);
    // A 254-octet name decoded first (memoised), then "c" + pointer to it: 256 octets.
    const n254 = `${label63}.${label63}.${label63}.${'b'.repeat(60)}`;
    const viaMemo = buildMessage({
      id: 1,
      flags: 0x8400,
      sections: [
        [
          { owner: name(n254), klass: 1, ttl: 1, rr: { kind: 'A', addr: [1, 1, 1, 1] } },
          { owner: name('', 0), klass: 1, ttl: 1, rr: { kind: 'A', addr: [1, 1, 1, 1] } },
          { owner: name('c', 0), klass: 1, ttl: 1, rr: { kind: 'A', addr: [1, 1, 1, 1] } },
        ],
        [],
        [],
      ],
    });
    const e = failure(viaMemo);
    expect(e.message).toMatch(/record at byte \d+: name at byte \d+ is longer than 255 octets/);
    expect(() => dnsPacket.decode(viaMemo)).toThrow(/name too long/);
  });

  it('a record of a type left to dns-packet that makes dns-packet throw is DNS_BAD_RESPONSE', () => {
    // OPT whose only option header runs past the end of the message.
    const buf = buildMessage({
      id: 1,
      flags: 0x8400,
      sections: [
        [],
        [],
        [
          {
            owner: name(''),
            klass: 1232,
            ttl: 0,
            rr: { kind: 'RAW', type: 41, data: Uint8Array.of(0, 3) },
          },
        ],
      ],
    });
    const e = failure(buf);
    expect(e.message).toMatch(/^OPT record at byte 12: /);
    // A TXT whose string runs past RDLENGTH: dns-packet notices this one itself.
    const txt = buildMessage({
      id: 1,
      flags: 0x8400,
      sections: [
        [
          {
            owner: name('t'),
            klass: 1,
            ttl: 1,
            rr: { kind: 'RAW', type: 16, data: Uint8Array.of(5, 0x41) },
          },
        ],
        [],
        [],
      ],
    });
    expect(failure(txt).message).toMatch(/^TXT record at byte 12: character-string at byte/);
  });

  it('the JavaScript UTF-8 decoder handles runs longer than its scratch', () => {
    const octets = Buffer.from(`${'é'.repeat(300)}😀\u00ff`.repeat(3), 'utf-8');
    octets[5] = 0xff;
    expect(utf8ToString(octets, 0, octets.length)).toBe(octets.toString('utf-8'));
    expect(utf8ToString(octets, 3, 40)).toBe(octets.toString('utf-8', 3, 40));
  });

  it("type and class names are dns-packet's", () => {
    for (const code of [
      0, 1, 2, 5, 6, 12, 15, 16, 28, 33, 35, 39, 41, 64, 65, 99, 255, 257, 32768, 32769, 65535,
    ]) {
      const buf = buildMessage({
        id: 1,
        flags: 0,
        question: { name: name('q'), type: code, klass: code },
        sections: [[], [], []],
      });
      const ref = dnsPacket.decode(buf).questions?.[0];
      const mine = decode(buf).questions[0];
      expect(mine?.type).toBe(ref?.type);
      expect(mine?.class).toBe(ref?.class);
    }
  });
});
