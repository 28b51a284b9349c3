/**
 * The query pipeline's order (issue 29), on a real engine, zone file and
 * transfer service, without sockets: a signed request's TSIG is verified
 * before anything else (a bad one never reaches the engine: RFC 8945
 * section 5.2), the answer to a good one is signed (section 5.3); AXFR
 * becomes a transfer to stream over TCP only; NOTIFY goes to the secondary
 * service over UDP and TCP, not DoH; RRL drops or slips over UDP only; a
 * response is dropped; a failure is dropped and summarised, never thrown.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCidr, type Cidr } from '../../src/config/cidr.ts';
import { DEFAULT_RRL_CONFIG } from '../../src/config/server.ts';
import { Engine } from '../../src/authority/engine.ts';
import { createLogger } from '../../src/authority/log.ts';
import { createLogSummary } from '../../src/authority/log-summary.ts';
import {
  QueryPipeline,
  TRANSPORT_DOH,
  TRANSPORT_TCP,
  TRANSPORT_UDP,
  type Outcome,
  type PipelineOptions,
} from '../../src/authority/pipeline.ts';
import { Rrl } from '../../src/authority/rrl.ts';
import { loadZoneFile } from '../../src/authority/zones/load.ts';
import {
  nameWireKey,
  readTsig,
  TsigSigner,
  TsigStreamVerifier,
  type TsigKey,
} from '../../src/xfr/core/tsig.ts';
import { Transfers } from '../../src/xfr/out.ts';
import { nodeHmac, nowSeconds } from '../../src/xfr/tsig.ts';
import { buildQuery, TEST_ZONES } from './harness.ts';

const KEY: TsigKey = {
  name: 'pipe-key.',
  algorithm: 'hmac-sha256',
  secret: new Uint8Array(32).fill(9),
};
const logs: string[] = [];
const log = createLogger((l) => void logs.push(l), 'debug', 'json');
let engine: Engine;

beforeAll(async () => {
  const z = await loadZoneFile(path.join(TEST_ZONES, 'example.test.zone'), {
    origin: 'example.test.',
  });
  engine = new Engine([z.zone!]);
});

function pipeline(o: Partial<PipelineOptions> = {}): QueryPipeline {
  const transfers = new Transfers(
    {
      allow: [parseCidr('127.0.0.1/32') as Cidr],
      maxConcurrent: 2,
      keys: new Map([[nameWireKey(KEY.name), KEY]]),
    },
    log,
  );
  const summary = createLogSummary(log, 60_000);
  return new QueryPipeline({ engine: () => engine, summary, transfers, ...o });
}

const sign = (msg: Uint8Array, key = KEY, at = nowSeconds()) =>
  Buffer.from(new TsigSigner(key, nodeHmac, at, undefined).sign(msg));

function bytesOf(o: Outcome): Buffer {
  if (o.kind !== 'answer' && o.kind !== 'notify') throw new Error(`no bytes: ${o.kind}`);
  return o.bytes;
}
const rcode = (b: Buffer) => b[3]! & 0x0f;

describe('the query pipeline', () => {
  it('a signed query is verified, answered and its answer signed with the key', () => {
    const p = pipeline();
    const q = sign(buildQuery('example.test', 'SOA'));
    const out = bytesOf(p.handle(q, TRANSPORT_UDP, '127.0.0.1'));
    expect(rcode(out)).toBe(0);
    expect(out.readUInt16BE(6)).toBe(1);
    const t = readTsig(q);
    if (t === undefined || t === 'FORMERR') throw new Error('no TSIG on the query');
    const v = new TsigStreamVerifier(KEY, nodeHmac, t.mac, nowSeconds());
    expect(v.check(out, 0)).toBeUndefined();
    // An unsigned query gets an unsigned answer.
    const plain = bytesOf(p.handle(buildQuery('example.test', 'SOA'), TRANSPORT_UDP, '127.0.0.1'));
    expect(readTsig(plain)).toBeUndefined();
  });

  it('a bad TSIG is answered NOTAUTH before the engine sees the query, on every transport', () => {
    const p = pipeline();
    const cases: [Buffer, number][] = [
      [sign(buildQuery('example.test', 'SOA'), { ...KEY, secret: new Uint8Array(32) }), 16],
      [sign(buildQuery('example.test', 'SOA'), { ...KEY, name: 'nobody.' }), 17],
      [sign(buildQuery('example.test', 'SOA'), KEY, nowSeconds() - 3600), 18],
    ];
    for (const transport of [TRANSPORT_UDP, TRANSPORT_TCP, TRANSPORT_DOH]) {
      for (const [q, tsigError] of cases) {
        const before = engine.counters.queries;
        const out = bytesOf(p.handle(q, transport, '127.0.0.1'));
        expect(engine.counters.queries).toBe(before);
        expect(rcode(out)).toBe(9);
        expect(out.readUInt16BE(6)).toBe(0);
        const t = readTsig(out);
        expect(t !== undefined && t !== 'FORMERR' && t.error).toBe(tsigError);
      }
    }
  });

  it('a TSIG that is not the last record: FORMERR, unsigned', () => {
    const good = sign(buildQuery('example.test', 'SOA'));
    const extra = Uint8Array.of(0, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1);
    const bad = Buffer.concat([good, extra]);
    bad[11] = bad[11]! + 1;
    const out = bytesOf(pipeline().handle(bad, TRANSPORT_UDP, '127.0.0.1'));
    expect(rcode(out)).toBe(1);
    expect(readTsig(out)).toBeUndefined();
  });

  it('AXFR: a transfer to stream over TCP for an allowed peer; REFUSED over UDP, DoH and to others', () => {
    const p = pipeline();
    const axfr = buildQuery('example.test', 'AXFR');
    const o = p.handle(axfr, TRANSPORT_TCP, '127.0.0.1');
    if (o.kind !== 'transfer') throw new Error(`not a transfer: ${o.kind}`);
    const messages: Uint8Array[] = [];
    for (let m = o.transfer.next(); m !== undefined; m = o.transfer.next()) messages.push(m);
    o.transfer.end(messages.length);
    expect(messages.length).toBeGreaterThan(0);
    expect(rcode(Buffer.from(messages[0]!))).toBe(0);
    expect(Buffer.from(messages[0]!).readUInt16BE(6)).toBeGreaterThan(2);
    for (const [transport, source] of [
      [TRANSPORT_UDP, '127.0.0.1'],
      [TRANSPORT_DOH, '127.0.0.1'],
      [TRANSPORT_TCP, '127.0.0.2'],
    ] as const) {
      expect(rcode(bytesOf(p.handle(axfr, transport, source))), `${transport} ${source}`).toBe(5);
    }
  });

  it('NOTIFY goes to the secondary service over UDP and TCP; over DoH it is not implemented', () => {
    const seen: string[] = [];
    const p = pipeline({
      notify: (msg, source) => {
        seen.push(source);
        const out = Buffer.from(msg);
        out[2] = out[2]! | 0x80;
        return out;
      },
    });
    const notify = buildQuery('example.test', 'SOA', { opcode: 4 });
    expect(p.handle(notify, TRANSPORT_UDP, '127.0.0.9').kind).toBe('notify');
    expect(p.handle(notify, TRANSPORT_TCP, '127.0.0.9').kind).toBe('notify');
    expect(rcode(bytesOf(p.handle(notify, TRANSPORT_DOH, '127.0.0.9')))).toBe(4);
    expect(seen).toEqual(['127.0.0.9', '127.0.0.9']);
  });

  it('RRL over UDP only: sent, then slipped (TC, no records) and dropped; TCP always answered', () => {
    const rrl = new Rrl({ ...DEFAULT_RRL_CONFIG, responsesPerSecond: 1, slip: 2 });
    const p = pipeline({ rrl });
    const q = buildQuery('example.test', 'SOA');
    const kinds = [1, 2, 3].map(() => p.handle(q, TRANSPORT_UDP, '192.0.2.7'));
    expect(kinds[0]!.kind).toBe('answer');
    expect(bytesOf(kinds[0]!).readUInt16BE(6)).toBe(1);
    const slip = bytesOf(kinds[1]!);
    expect(slip[2]! & 0x02).toBe(2);
    expect(slip.readUInt16BE(6)).toBe(0);
    expect(kinds[2]).toEqual({ kind: 'drop', why: 'limited' });
    expect(rcode(bytesOf(p.handle(q, TRANSPORT_TCP, '192.0.2.7')))).toBe(0);
    expect(p.counters.truncated).toBe(0);
  });

  it('a response is dropped as not a query; a failure is dropped and summarised, not thrown', () => {
    const response = buildQuery('example.test', 'SOA');
    response[2] = response[2]! | 0x80;
    expect(pipeline().handle(response, TRANSPORT_UDP, '127.0.0.1')).toEqual({
      kind: 'drop',
      why: 'not-a-query',
    });
    const summary = createLogSummary(log, 60_000);
    const broken = new QueryPipeline({
      engine: () => {
        throw new Error('engine gone');
      },
      summary,
    });
    logs.length = 0;
    const o = broken.handle(buildQuery('example.test', 'SOA'), TRANSPORT_TCP, '127.0.0.1');
    expect(o).toEqual({ kind: 'drop', why: 'failed' });
    summary.flush();
    const lines = logs.map((l) => JSON.parse(l) as { event: string; reasons: object });
    expect(lines).toEqual([expect.objectContaining({ event: 'query_failed' })]);
  });
});
