/**
 * The pure part of transfers in (`core/xfr/read.ts`, `TsigStreamVerifier`):
 * answer streams read message by message into a zone, IXFR steps or
 * "current"; RDATA names decompressed; the errors of a bad stream; and the
 * RFC 8945 rules for a signed multi-message answer (first and last signed,
 * at most 99 unsigned in a row).
 */
import * as dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { TYPE_AXFR, TYPE_IXFR } from '../../src/dns/core/rr/types.ts';
import { applyIxfr, transferRequest, XfrReader, type XfrRr } from '../../src/xfr/core/read.ts';
import { readTsig, TsigSigner, TsigStreamVerifier, type TsigKey } from '../../src/xfr/core/tsig.ts';
import { nameKey } from '../../src/dns/core/wire/name.ts';
import { nodeHmac } from '../../src/xfr/tsig.ts';

const ORIGIN = 'x.test.';
const KEY: TsigKey = {
  name: 'k.',
  algorithm: 'hmac-sha256',
  secret: new Uint8Array(32).fill(1),
};

const soa = (serial: number): dnsPacket.Answer =>
  ({
    type: 'SOA',
    name: ORIGIN,
    ttl: 60,
    data: {
      mname: `ns.${ORIGIN}`,
      rname: `h.${ORIGIN}`,
      serial,
      refresh: 1,
      retry: 1,
      expire: 9,
      minimum: 1,
    },
  }) as dnsPacket.Answer;
const a = (name: string, ip: string): dnsPacket.Answer => ({
  type: 'A',
  name: `${name}.${ORIGIN}`,
  ttl: 60,
  data: ip,
});
const mx = (name: string): dnsPacket.Answer => ({
  type: 'MX',
  name: `${name}.${ORIGIN}`,
  ttl: 60,
  data: { preference: 10, exchange: `mail.${ORIGIN}` },
});

const msg = (answers: dnsPacket.Answer[], id = 7, rcode = 0) => {
  const m = dnsPacket.encode({
    type: 'response',
    id,
    flags: dnsPacket.AUTHORITATIVE_ANSWER,
    answers,
  });
  m[3] = (m[3]! & 0xf0) | rcode;
  return new Uint8Array(m);
};

const read = (qtype: number, messages: Uint8Array[], clientSerial?: number) => {
  const r = new XfrReader(nameKey(ORIGIN), 7, qtype, clientSerial);
  for (const m of messages) if (r.push(m)) break;
  return r.result();
};

const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
};

describe('XfrReader', () => {
  it('reads an AXFR over several messages, names in RDATA decompressed', () => {
    const m1 = msg([soa(5), a('a', '192.0.2.1')]);
    // A hand-made message: an MX at b.x.test. whose exchange is mail + a pointer to x.test. in its owner.
    const owner = [1, 0x62, 1, 0x78, 4, 0x74, 0x65, 0x73, 0x74, 0];
    const rdata = [0, 10, 4, 0x6d, 0x61, 0x69, 0x6c, 0xc0, 14];
    const m2 = Uint8Array.from([
      ...[0, 7, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0],
      ...owner,
      ...[0, 15, 0, 1, 0, 0, 0, 60, 0, rdata.length],
      ...rdata,
    ]);
    const m3 = msg([mx('c'), soa(5)]);
    const r = read(TYPE_AXFR, [m1, m2, m3]);
    expect(r.kind).toBe('full');
    if (r.kind !== 'full') return;
    expect(r.records.map((x) => x.type)).toEqual([6, 1, 15, 15]);
    const exchange = r.records[2]!.rdata.subarray(2);
    expect(Buffer.from(exchange).toString('latin1')).toBe('\u0004mail\u0001x\u0004test\u0000');
  });

  it('reads IXFR steps and applies them', () => {
    const whole = read(TYPE_AXFR, [
      msg([soa(1), a('a', '192.0.2.1'), a('b', '192.0.2.2'), soa(1)]),
    ]);
    const held: XfrRr[] = whole.kind === 'full' ? [...whole.records] : [];
    const r = read(
      TYPE_IXFR,
      [
        msg([soa(3), soa(1), a('a', '192.0.2.1'), soa(2), a('c', '192.0.2.3')]),
        msg([soa(2), soa(3), a('d', '192.0.2.4'), soa(3)]),
      ],
      1,
    );
    expect(r.kind).toBe('incremental');
    if (r.kind !== 'incremental') return;
    expect(r.steps).toHaveLength(2);
    const next = applyIxfr(held, r.steps);
    expect(next.map((x) => [x.type, x.key.slice(1, 2)])).toEqual([
      [6, 'x'],
      [1, 'b'],
      [1, 'c'],
      [1, 'd'],
    ]);
    // A deletion of a record the zone does not hold breaks the chain.
    const bad = read(TYPE_IXFR, [msg([soa(2), soa(1), a('zz', '192.0.2.9'), soa(2), soa(2)])], 1);
    expect(bad.kind).toBe('incremental');
    const steps = bad.kind === 'incremental' ? bad.steps : [];
    expect(codeOf(() => applyIxfr(held, steps))).toBe('XFR_IXFR_SEQUENCE');
  });

  it('a single SOA at or below our serial is "current"; an AXFR-style IXFR answer is a whole zone', () => {
    expect(read(TYPE_IXFR, [msg([soa(4)])], 4).kind).toBe('current');
    expect(read(TYPE_IXFR, [msg([soa(5), a('a', '192.0.2.1'), soa(5)])], 4).kind).toBe('full');
  });

  it.each([
    [
      'a closing SOA that differs',
      [msg([soa(5), a('a', '192.0.2.1'), soa(6)])],
      'XFR_SOA_MISMATCH',
    ],
    ['no SOA first', [msg([a('a', '192.0.2.1')])], 'XFR_NO_SOA'],
    [
      'records after the closing SOA',
      [msg([soa(5), soa(5), a('a', '192.0.2.1')])],
      'XFR_TRAILING_DATA',
    ],
    ['an error rcode', [msg([], 7, 5)], 'XFR_RCODE'],
    ['another ID', [msg([soa(5)], 8)], 'XFR_BAD_ANSWER'],
    ['a short message', [new Uint8Array(5)], 'XFR_BAD_MESSAGE'],
    [
      'a forward pointer',
      [Uint8Array.from([0, 7, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xc0, 12])],
      'XFR_BAD_MESSAGE',
    ],
    ['a stream that ends early', [msg([soa(5), a('a', '192.0.2.1')])], 'XFR_CUT_SHORT'],
  ])('%s: %s', (_what, messages, code) => {
    expect(codeOf(() => read(TYPE_AXFR, messages))).toBe(code);
  });

  it('an IXFR request carries our SOA in the authority section', () => {
    const held = read(TYPE_AXFR, [msg([soa(9), soa(9)])]) as { soa: XfrRr };
    const req = dnsPacket.decode(
      Buffer.from(transferRequest(nameKey(ORIGIN), TYPE_IXFR, 3, held.soa)),
    );
    expect(req.questions![0]).toMatchObject({ name: 'x.test', type: 'IXFR' });
    const auth = req.authorities![0] as { data?: { serial: number } };
    expect(auth.data?.serial).toBe(9);
  });
});

describe('TsigStreamVerifier (RFC 8945 section 5.3.1)', () => {
  const now = 1_800_000_000;
  const request = new TsigSigner(KEY, nodeHmac, now, undefined).sign(
    transferRequest(nameKey(ORIGIN), TYPE_AXFR, 7),
  );
  const requestMac = (readTsig(request) as { mac: Uint8Array }).mac;

  /** `n` messages, signed where `signed(i)`: the signer goes over the unsigned ones as RFC 8945 says. */
  function stream(n: number, signed: (i: number) => boolean): Uint8Array[] {
    const out: Uint8Array[] = [];
    let pending: Uint8Array[] = [];
    let prior = requestMac;
    for (let i = 0; i < n; i++) {
      const m = msg([a(`n${i}`, '192.0.2.1')]);
      if (!signed(i)) {
        out.push(m);
        pending.push(m);
        continue;
      }
      // Sign the concatenation of the unsigned messages and this one, then keep only this one's TSIG.
      const cat = new Uint8Array(pending.reduce((s, p) => s + p.length, 0) + m.length);
      let o = 0;
      for (const p of pending) {
        cat.set(p, o);
        o += p.length;
      }
      cat.set(m, o);
      const s = new TsigSigner(KEY, nodeHmac, now, prior);
      if (i > 0) (s as unknown as { first: boolean }).first = false;
      const signedCat = s.sign(cat);
      const tsig = signedCat.subarray(cat.length);
      const withTsig = new Uint8Array(m.length + tsig.length);
      withTsig.set(m);
      withTsig.set(tsig, m.length);
      withTsig[11] = m[11]! + 1;
      out.push(withTsig);
      prior = (readTsig(withTsig) as { mac: Uint8Array }).mac;
      pending = [];
    }
    return out;
  }

  const verify = (messages: Uint8Array[]) => {
    const v = new TsigStreamVerifier(KEY, nodeHmac, requestMac, now);
    for (let i = 0; i < messages.length; i++) {
      const f = v.check(messages[i]!, i);
      if (f) return f.code;
    }
    return v.finish()?.code;
  };

  it('accepts every message signed, and 99 unsigned in a row between signed ones', () => {
    expect(verify(stream(4, () => true))).toBeUndefined();
    expect(verify(stream(101, (i) => i === 0 || i === 100))).toBeUndefined();
  });

  it('refuses 100 unsigned in a row, an unsigned first or last message, and a broken MAC', () => {
    expect(verify(stream(102, (i) => i === 0 || i === 101))).toBe('XFR_TSIG_MISSING');
    expect(verify(stream(3, (i) => i > 0))).toBe('XFR_TSIG_MISSING');
    expect(verify(stream(3, (i) => i < 2))).toBe('XFR_TSIG_MISSING');
    const s = stream(4, () => true);
    s[2]![s[2]!.length - 7]! ^= 1;
    expect(verify(s)).toBe('XFR_TSIG_BAD');
  });
});
