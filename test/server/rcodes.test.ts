/**
 * The server's one failure-to-rcode table (src/authority/rcodes.ts, issue 19):
 * every code of the query parser and every refusal of the engine has its
 * rcode, the code tables say the same rcode, and the engine answers with it.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { QUERY_REFUSAL_CODES, WIRE_CODES } from '../../src/dns/core/wire/codes.ts';
import { TSIG_CODES, XFR_IN_CODES, type TsigRequestCode } from '../../src/xfr/core/codes.ts';
import {
  appendTsig,
  nameWireKey,
  readTsig,
  stripTsig,
  TSIG_ERROR_OF,
  TsigSigner,
  type TsigKey,
  type TsigRecord,
} from '../../src/xfr/core/tsig.ts';
import { Engine, TRANSPORT_UDP } from '../../src/authority/engine.ts';
import { createLogger } from '../../src/authority/log.ts';
import { createLogSummary } from '../../src/authority/log-summary.ts';
import { QueryPipeline } from '../../src/authority/pipeline.ts';
import { Transfers } from '../../src/xfr/out.ts';
import { RCODE_NAMES, RCODE_OF, type DnsFailureCode } from '../../src/authority/rcodes.ts';
import { Secondaries } from '../../src/xfr/secondary.ts';
import { nodeHmac, nowSeconds } from '../../src/xfr/tsig.ts';

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
    // And the NOTIFY refusals and the TSIG failures of a signed request.
    const notify = ['NOTIFY_REFUSED', 'NOTIFY_TSIG', 'NOTIFY_MALFORMED'];
    const tsig = [
      'TSIG_BAD_KEY',
      'TSIG_BAD_SIG',
      'TSIG_BAD_TRUNC',
      'TSIG_BAD_TIME',
      'TSIG_MALFORMED',
    ];
    const expected = [...parser, ...Object.keys(QUERY_REFUSAL_CODES), ...notify, ...tsig].sort();
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

describe('NOTIFY and TSIG answers (server/secondary.ts, server/tsig.ts)', () => {
  const KEY: TsigKey = {
    name: 'k.test.',
    algorithm: 'hmac-sha256',
    secret: new Uint8Array(32).fill(3),
  };
  /** A key the server holds that is not the keyed zone's primary's. */
  const OTHER: TsigKey = { ...KEY, name: 'other-key.', secret: new Uint8Array(32).fill(5) };
  const PRIMARY = '127.0.0.1';
  const lines: Record<string, unknown>[] = [];
  const log = createLogger(
    (l) => lines.push(JSON.parse(l) as Record<string, unknown>),
    'info',
    'json',
  );
  const secondaries = new Secondaries(
    {
      zones: [
        { origin: 'plain.test.', primaries: [{ host: PRIMARY, port: 53 }] },
        { origin: 'keyed.test.', primaries: [{ host: PRIMARY, port: 53, key: KEY.name }] },
      ],
      stateDir: '/nonexistent',
      keys: new Map([[nameWireKey(KEY.name), KEY]]),
      onNotify: () => undefined,
    },
    {
      install: () => Promise.resolve(false),
      setExpired: () => Promise.resolve(),
      zoneOfFile: () => undefined,
    },
    log,
  );
  // NOTIFY comes in through the query pipeline, which verifies its TSIG first (RFC 8945 section 5.2).
  const summary = createLogSummary(log, 60_000);
  const pipeline = new QueryPipeline({
    engine: () => new Engine([]),
    summary,
    transfers: new Transfers(
      {
        allow: [],
        maxConcurrent: 1,
        keys: new Map([KEY, OTHER].map((k) => [nameWireKey(k.name), k])),
      },
      log,
    ),
    notify: (m, s, k) => secondaries.notify(m, s, k),
  });
  const flush = () => {
    secondaries.flushLog();
    summary.flush();
  };
  afterAll(() => {
    summary.close();
    return secondaries.close();
  });

  /** A NOTIFY for `zone` (SOA question, AA), with `qdcount` questions announced. */
  const notify = (zone: string, qdcount = 1): Uint8Array => {
    const q = query({ name: zone, qtype: 6, opcode: 4, qdcount });
    q[2] = (4 << 3) | 0x04;
    return new Uint8Array(q);
  };
  const now = nowSeconds();
  const answer = (msg: Uint8Array, from = PRIMARY) => {
    const out = pipeline.handle(Buffer.from(msg), TRANSPORT_UDP, from);
    if (out.kind !== 'notify' && out.kind !== 'answer') throw new Error(`no answer: ${out.kind}`);
    return { rcode: RCODE_NAMES[out.bytes[3]! & 0x0f], tsig: readTsig(out.bytes) };
  };
  const tsigError = (t: ReturnType<typeof readTsig>) =>
    t === undefined || t === 'FORMERR' ? undefined : t.error;
  const name = (code: DnsFailureCode) => RCODE_NAMES[RCODE_OF[code]];

  it('every NOTIFY refusal and TSIG failure code documents the table’s rcode', () => {
    const docs = readFileSync(new URL('../../docs/codes.md', import.meta.url), 'utf8');
    const codes: [DnsFailureCode, string][] = [
      ...(['NOTIFY_REFUSED', 'NOTIFY_TSIG', 'NOTIFY_MALFORMED'] as const).map(
        (c): [DnsFailureCode, string] => [c, XFR_IN_CODES[c]],
      ),
      ...(
        [
          'TSIG_BAD_KEY',
          'TSIG_BAD_SIG',
          'TSIG_BAD_TRUNC',
          'TSIG_BAD_TIME',
          'TSIG_MALFORMED',
        ] as const
      ).map((c): [DnsFailureCode, string] => [c, TSIG_CODES[c]]),
    ];
    for (const [code, meaning] of codes) {
      const named = /\b(FORMERR|SERVFAIL|NOTIMP|REFUSED|NOTAUTH)\b/.exec(meaning);
      expect(named, `${code}: its meaning names its rcode`).not.toBeNull();
      expect(name(code), code).toBe(named![1]);
      expect(docs, code).toContain(`\`${code}\``);
    }
  });

  it('a secondary answers each NOTIFY refusal with the table’s rcode', () => {
    expect(answer(notify('plain.test', 2)).rcode).toBe(name('NOTIFY_MALFORMED'));
    expect(answer(notify('plain.test'), '127.0.0.2').rcode).toBe(name('NOTIFY_REFUSED'));
    expect(answer(notify('other.test')).rcode).toBe(name('NOTIFY_REFUSED'));
    expect(answer(notify('keyed.test')).rcode).toBe(name('NOTIFY_TSIG'));
    expect(answer(notify('plain.test')).rcode).toBe('NOERROR');
  });

  it('a signed NOTIFY whose TSIG fails gets the table’s rcode and the code’s TSIG error', () => {
    const sign = (key: TsigKey, at = now) =>
      new TsigSigner(key, nodeHmac, at, undefined).sign(notify('keyed.test'));
    const truncated = (() => {
      const m = sign(KEY);
      const t = readTsig(m) as TsigRecord;
      return appendTsig(
        stripTsig(m, t),
        { ...t, keyKey: nameWireKey(KEY.name), error: 0 },
        t.mac.subarray(0, 8),
      );
    })();
    const cases: [Uint8Array, TsigRequestCode][] = [
      [sign({ ...KEY, name: 'unknown.test.' }), 'TSIG_BAD_KEY'],
      [sign({ ...KEY, secret: new Uint8Array(32).fill(4) }), 'TSIG_BAD_SIG'],
      [truncated, 'TSIG_BAD_TRUNC'],
      [sign(KEY, now - 1000), 'TSIG_BAD_TIME'],
    ];
    flush();
    lines.length = 0;
    for (const [msg, code] of cases) {
      const a = answer(msg);
      expect(a.rcode, code).toBe(name(code));
      expect(tsigError(a.tsig), code).toBe(TSIG_ERROR_OF[code]);
    }
    // Counted per reason by the pipeline, one summary line (failures can come once per packet).
    flush();
    expect(lines.map((l) => [l.event, l.reasons])).toEqual([
      ['xfr_tsig_failed', { BADKEY: 1, BADSIG: 1, BADTRUNC: 1, BADTIME: 1 }],
    ]);
    const good = answer(sign(KEY));
    expect(good.rcode).toBe('NOERROR');
    // The answer is signed with the request's key (RFC 8945 section 5.3).
    expect(typeof good.tsig === 'object' && good.tsig.error).toBe(0);
    // Signed with a key the server holds that is not the primary's: refused.
    expect(answer(sign(OTHER)).rcode).toBe(name('NOTIFY_TSIG'));
  });

  it('a NOTIFY whose TSIG record is not the last record gets the table’s rcode, unsigned', () => {
    const m = new TsigSigner(KEY, nodeHmac, now, undefined).sign(notify('keyed.test'));
    const extra = Uint8Array.of(0, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1);
    const bad = new Uint8Array(m.length + extra.length);
    bad.set(m);
    bad.set(extra, m.length);
    bad[11] = bad[11]! + 1;
    flush();
    lines.length = 0;
    const a = answer(bad);
    expect(a.rcode).toBe(name('TSIG_MALFORMED'));
    expect(a.rcode).toBe('FORMERR');
    expect(a.tsig).toBeUndefined();
    flush();
    expect(lines.map((l) => [l.event, l.reasons])).toEqual([
      ['xfr_tsig_failed', { TSIG_MALFORMED: 1 }],
    ]);
  });
});
