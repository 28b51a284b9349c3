/**
 * The server's one failure-to-rcode table (src/server/rcodes.ts, issue 19):
 * every code of the query parser and every refusal of the engine has its
 * rcode, the code tables say the same rcode, and the engine answers with it.
 */
import { describe, expect, it } from 'vitest';
import { QUERY_REFUSAL_CODES, WIRE_CODES } from '../../src/core/wire/codes.ts';
import { Engine, TRANSPORT_UDP } from '../../src/server/engine.ts';
import { RCODE_NAMES, RCODE_OF, type DnsFailureCode } from '../../src/server/rcodes.ts';

/** The codes of the presentation-name encoder (name.ts), which no query answer carries. */
const NAME_CODES = ['EMPTY_LABEL', 'LABEL_TOO_LONG', 'NAME_TOO_LONG', 'BAD_ESCAPE'];

/** A query: header (id 0x1234, opcode, RD), one question, optional OPT with a version. */
function query(o: {
  name?: string;
  qtype?: number;
  qclass?: number;
  opcode?: number;
  ednsVersion?: number;
  qdcount?: number;
}): Buffer {
  const labels = (o.name ?? 'example.test').split('.').filter((l) => l !== '');
  const qname = Buffer.concat([
    ...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')])),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(12);
  head.writeUInt16BE(0x1234, 0);
  head.writeUInt16BE(((o.opcode ?? 0) << 11) | 0x0100, 2);
  head.writeUInt16BE(o.qdcount ?? 1, 4);
  head.writeUInt16BE(o.ednsVersion === undefined ? 0 : 1, 10);
  const q = Buffer.alloc(4);
  q.writeUInt16BE(o.qtype ?? 1, 0);
  q.writeUInt16BE(o.qclass ?? 1, 2);
  const opt =
    o.ednsVersion === undefined
      ? Buffer.alloc(0)
      : Buffer.from([0, 0, 41, 0x04, 0xd0, 0, o.ednsVersion, 0, 0, 0, 0]);
  return Buffer.concat([head, qname, q, opt]);
}

/** The full rcode (extended with the OPT TTL's high bits) of a response. */
function rcodeOf(res: Buffer | undefined): string {
  expect(res).toBeDefined();
  const r = res!;
  let rcode = r[3]! & 0x0f;
  const arcount = r.readUInt16BE(10);
  if (arcount > 0) {
    // The OPT record is last: root owner (0), type 41, class, TTL (ext rcode first).
    const at = r.lastIndexOf(Buffer.from([0, 0, 41]));
    if (at > 0) rcode |= r[at + 5]! << 4;
  }
  return RCODE_NAMES[rcode] ?? String(rcode);
}

describe('failure to rcode (server/rcodes.ts)', () => {
  it('every query parser code and every refusal code has an rcode, and only those', () => {
    const parser = Object.keys(WIRE_CODES).filter((c) => !NAME_CODES.includes(c));
    const expected = [...parser, ...Object.keys(QUERY_REFUSAL_CODES)].sort();
    expect(Object.keys(RCODE_OF).sort()).toEqual(expected);
  });

  it('the rcode a refusal code documents in docs/codes.md is the table’s', () => {
    for (const [code, meaning] of Object.entries(QUERY_REFUSAL_CODES)) {
      const named = /\b(NOERROR|FORMERR|SERVFAIL|NXDOMAIN|NOTIMP|REFUSED|BADVERS)\b/.exec(meaning);
      expect(named, `${code}: its meaning names its rcode`).not.toBeNull();
      expect(RCODE_NAMES[RCODE_OF[code as DnsFailureCode]], code).toBe(named![1]);
    }
    for (const code of Object.keys(WIRE_CODES).filter((c) => !NAME_CODES.includes(c)))
      expect(RCODE_NAMES[RCODE_OF[code as DnsFailureCode]], code).toBe('FORMERR');
  });

  it('the engine answers each refusal with the table’s rcode', () => {
    const engine = new Engine([]);
    const ask = (q: Buffer) => rcodeOf(engine.respond(q, TRANSPORT_UDP));
    const name = (code: DnsFailureCode) => RCODE_NAMES[RCODE_OF[code]];
    expect(ask(query({ opcode: 2 }))).toBe(name('QUERY_OPCODE_NOT_IMPLEMENTED'));
    expect(ask(query({ ednsVersion: 1 }))).toBe(name('QUERY_EDNS_VERSION'));
    expect(ask(query({ qclass: 4 }))).toBe(name('QUERY_CLASS_REFUSED'));
    expect(ask(query({ qclass: 3, name: 'nothing.bind' }))).toBe(name('QUERY_CLASS_REFUSED'));
    expect(ask(query({ qtype: 41 }))).toBe(name('QUERY_TYPE_OPT'));
    expect(ask(query({ qtype: 252 }))).toBe(name('QUERY_TRANSFER_REFUSED'));
    expect(ask(query({ qtype: 251 }))).toBe(name('QUERY_TRANSFER_REFUSED'));
    expect(ask(query({ qtype: 250 }))).toBe(name('QUERY_TYPE_NOT_IMPLEMENTED'));
    expect(ask(query({}))).toBe(name('QUERY_NOT_AUTHORITATIVE'));
    expect(ask(query({ qdcount: 0 }).subarray(0, 12))).toBe(name('NO_QUESTION'));
    expect(ask(query({}).subarray(0, 20))).toBe(name('QUESTION_TRUNCATED'));
    expect(ask(Buffer.concat([query({}), Buffer.from([1, 2, 3])]))).toBe(name('TRAILING_DATA'));
  });
});
