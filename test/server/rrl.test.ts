/**
 * Response-rate limiting (issue 16): a burst of identical UDP queries from one
 * source is limited to the configured rate with the configured slip, while
 * other sources and TCP are answered; the counts (sent, truncated, dropped)
 * are compared with BIND 9 and Knot DNS configured the same way in the same
 * test (Knot's differences in the algorithm are stated where it is). Unit
 * tests of the accounting (prefixes, identities, window, exempt, log-only)
 * use the limiter with a given clock.
 */
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RRL_CONFIG, type RrlConfig } from '../../src/config/server.ts';
import { Engine, TRANSPORT_UDP } from '../../src/authority/engine.ts';
import { Rrl, RRL_DROP, RRL_SEND, RRL_SLIP } from '../../src/authority/rrl.ts';
import { loadZoneFile } from '../../src/authority/zones/load.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { freePort, startNamed, type RunningNamed } from './named.ts';
import { startKnot, type Daemon } from '../e2e/daemons.ts';
import {
  buildQuery,
  decode,
  REPO,
  startTestServer,
  tcpRaw,
  TEST_ZONES,
  udpRaw,
  type Harness,
} from './harness.ts';

const ZONE = path.join(TEST_ZONES, 'example.test.zone');
const RATE = 5;
const SLIP = 2;
const BURST = 100;

interface Counts {
  sent: number;
  truncated: number;
  dropped: number;
}

/** Send `n` queries from one socket without waiting; count full, truncated and missing answers. */
async function burst(port: number, names: (i: number) => string, n = BURST): Promise<Counts> {
  const s = dgram.createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const seen = new Map<number, boolean>();
  s.on('message', (m) => seen.set(m.readUInt16BE(0), (m[2]! & 0x02) !== 0));
  // Start just after a second boundary: both servers count in whole seconds.
  while (Date.now() % 1000 > 50) await new Promise((r) => setTimeout(r, 5));
  for (let i = 0; i < n; i++) s.send(buildQuery(names(i), 'A', { id: i }), port, '127.0.0.1');
  await new Promise((r) => setTimeout(r, 400));
  s.close();
  const truncated = [...seen.values()].filter((tc) => tc).length;
  return { sent: seen.size - truncated, truncated, dropped: n - seen.size };
}

/**
 * Limited to the rate with slip 2. The burst starts just after a second
 * boundary and normally ends within that second (then exactly RATE are sent,
 * and of the rest the first and every second one is truncated); on a loaded
 * machine the server may reach the next second and credit RATE more, and a
 * datagram or two of the burst may be lost on the loopback (counted as
 * dropped, so the truncated half of the rest can be off by up to 2: seen in
 * a full CI run at load 8, 46 truncated of 95 limited).
 */
function expectLimited(c: Counts, n: number): void {
  expect(c.sent + c.truncated + c.dropped).toBe(n);
  expect(c.sent).toBeGreaterThanOrEqual(RATE);
  expect(c.sent).toBeLessThanOrEqual(2 * RATE);
  expect(Math.abs(c.truncated - (n - c.sent) / SLIP)).toBeLessThanOrEqual(2);
}

/** The same counts as BIND's, up to one second's credit if one of the bursts crossed a second. */
function expectClose(ours: Counts, theirs: Counts): void {
  const tolerance = ours.sent === theirs.sent ? 1 : RATE;
  expect(Math.abs(theirs.sent - ours.sent)).toBeLessThanOrEqual(tolerance);
  expect(Math.abs(theirs.truncated - ours.truncated)).toBeLessThanOrEqual(tolerance);
  expect(Math.abs(theirs.dropped - ours.dropped)).toBeLessThanOrEqual(tolerance);
}

let h: Harness;
const named = toolOrSkip('named');
const knotd = toolOrSkip('knotd');
let bind: RunningNamed | undefined;
let knot: Daemon | undefined;
beforeAll(async () => {
  h = await startTestServer([ZONE], {
    rrl: { ...DEFAULT_RRL_CONFIG, responsesPerSecond: RATE, slip: SLIP, window: 15 },
  });
  if (named.path) {
    bind = await startNamed(
      named.path,
      [{ origin: 'example.test', file: ZONE }],
      `rate-limit { responses-per-second ${RATE}; slip ${SLIP}; window 15; ipv4-prefix-length 24; };`,
    );
  }
  if (knotd.path) {
    knot = await startKnot(
      knotd.path,
      '127.0.0.1',
      await freePort(),
      [{ origin: 'example.test', file: ZONE }],
      { rrl: { rate: RATE, slip: SLIP } },
    );
  }
});
afterAll(async () => {
  await h?.close();
  await bind?.close();
  await knot?.close();
});

describe('RRL against a burst', () => {
  it('one source: limited to the rate, every second limited answer truncated; like BIND', async () => {
    const ours = await burst(h.port, () => 'www.example.test');
    // Other sources and TCP are answered while that source is limited.
    const other = dgram.createSocket('udp4');
    await new Promise<void>((r) => other.bind(0, '127.0.1.2', () => r()));
    const fromOther = await new Promise<Buffer | undefined>((resolve) => {
      const t = setTimeout(() => resolve(undefined), 1000);
      other.once('message', (m) => (clearTimeout(t), resolve(m)));
      other.send(buildQuery('www.example.test', 'A', { id: 4242 }), h.port, '127.0.0.1');
    });
    other.close();
    expect(decode(fromOther!).answer).toHaveLength(1);
    const overTcp = await tcpRaw(h.port, [buildQuery('www.example.test', 'A', { id: 77 })]);
    expect(decode(overTcp[0]!).answer).toHaveLength(1);

    expect(ours.sent + ours.truncated + ours.dropped).toBe(BURST);
    expectLimited(ours, BURST);
    console.log(`RRL ${RATE}/s slip ${SLIP}, ${BURST} queries: lexroute`, ours);
    if (bind) {
      const theirs = await burst(bind.port, () => 'www.example.test');
      console.log(`RRL ${RATE}/s slip ${SLIP}, ${BURST} queries: BIND`, theirs);
      expectLimited(theirs, BURST);
      expectClose(ours, theirs);
    }
  });

  /*
   * Knot DNS 3.2's mod-rrl configured the same way (rate-limit 5, slip 2; its
   * prefixes are /24 and /56 as ours) differs from BIND and lexroute in three
   * documented details of the algorithm (knot's modules/rrl/functions.c):
   * - a new bucket starts with RRL_CAPACITY = 4 seconds of credit, so the
   *   first burst gets 4 x rate answers (BIND and lexroute start at one
   *   second's: rate);
   * - no debt: BIND and lexroute let the balance go down to -window x rate,
   *   so a source that kept exceeding stays limited for up to `window`
   *   seconds; Knot refills `rate` every second whatever was asked before;
   * - slip is random in Knot (each limited answer truncated with probability
   *   1/slip), every slip-th in BIND and lexroute.
   * Compared, with these tolerances: the first burst's full answers, less
   * Knot's 3 extra seconds of credit, agree with ours within one second's
   * credit (rate) should a burst cross a second; the truncated share of the
   * limited answers agrees within 4 standard deviations of Knot's binomial
   * draw; a second burst a second later gets `rate` full answers from Knot
   * and none from lexroute (the debt), again within one second's credit.
   */
  it('like Knot (mod-rrl) configured the same way, up to its documented differences', async (ctx) => {
    if (!knot) return ctx.skip();
    const name = () => 'mail.example.test';
    const ours = [await burst(h.port, name), await burst(h.port, name)];
    const theirs = [await burst(knot.port, name), await burst(knot.port, name)];
    console.log(`RRL ${RATE}/s slip ${SLIP}, two bursts of ${BURST} queries a second apart:`);
    console.log('  lexroute', ours[0], ours[1]);
    console.log('  Knot    ', theirs[0], theirs[1]);
    const KNOT_CAPACITY = 4;
    for (const c of [...ours, ...theirs]) expect(c.sent + c.truncated + c.dropped).toBe(BURST);
    // First burst: full answers, Knot's initial credit set aside.
    expectLimited(ours[0]!, BURST);
    const knotFirst = theirs[0]!.sent - (KNOT_CAPACITY - 1) * RATE;
    expect(Math.abs(knotFirst - ours[0]!.sent)).toBeLessThanOrEqual(RATE);
    // Second burst: Knot refilled one second's credit; lexroute still owes its debt.
    expect(theirs[1]!.sent).toBeGreaterThanOrEqual(RATE);
    expect(theirs[1]!.sent).toBeLessThanOrEqual(2 * RATE);
    expect(ours[1]!.sent).toBe(0);
    // Slip: the truncated share of the limited answers.
    for (const i of [0, 1]) {
      const limited = (c: Counts) => c.truncated + c.dropped;
      const k = theirs[i]!;
      const sigma = Math.sqrt(limited(k) * (1 / SLIP) * (1 - 1 / SLIP));
      expect(Math.abs(k.truncated - limited(k) / SLIP)).toBeLessThanOrEqual(4 * sigma);
      expect(Math.abs(ours[i]!.truncated - limited(ours[i]!) / SLIP)).toBeLessThanOrEqual(1);
    }
  });

  it('NXDOMAIN answers for different names share one bucket per zone; like BIND', async () => {
    const ours = await burst(h.port, (i) => `nx${i}.example.test`, 40);
    expectLimited(ours, 40);
    if (bind) {
      const theirs = await burst(bind.port, (i) => `nx${i}.example.test`, 40);
      console.log('NXDOMAIN, 40 distinct names: lexroute', ours, 'BIND', theirs);
      expectClose(ours, theirs);
    }
  });

  it('wildcard answers share one bucket per wildcard owner; like BIND', async () => {
    const ours = await burst(h.port, (i) => `w${i}.wild.example.test`, 40);
    expectLimited(ours, 40);
    if (bind) {
      const theirs = await burst(bind.port, (i) => `w${i}.wild.example.test`, 40);
      console.log('wildcard, 40 distinct names: lexroute', ours, 'BIND', theirs);
      expectClose(ours, theirs);
    }
  });

  it('limited responses are summarised in one log line', async () => {
    h.server.summary.flush();
    const before = h.logs.length;
    const c = await burst(h.port, () => 'mail.example.test', 30);
    h.server.summary.flush();
    const lines = h.logs.slice(before).map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    const limited = 30 - c.sent;
    expect(lines[0]).toMatchObject({
      event: 'rrl_limited',
      count: limited,
      reasons: { drop: c.dropped, slip: c.truncated },
      top: [{ source: '127.0.0', count: limited }],
    });
  });
});

describe('RRL accounting', () => {
  let engine: Engine;
  beforeAll(async () => {
    const z = await loadZoneFile(ZONE, { origin: 'example.test.' });
    engine = new Engine([z.zone!]);
  });
  const ask = (rrl: Rrl, address: string, name: string, second: number, type = 'A') => {
    const answer = engine.query(buildQuery(name, type), TRANSPORT_UDP)!;
    return rrl.check(address, answer, second);
  };
  const config = (c: Partial<RrlConfig>): RrlConfig => ({
    ...DEFAULT_RRL_CONFIG,
    responsesPerSecond: 2,
    slip: 0,
    ...c,
  });

  it('per client prefix: /24 shared, another /24 separate; IPv6 /56', () => {
    const rrl = new Rrl(config({}));
    expect([1, 2, 3].map((i) => ask(rrl, `10.0.0.${i}`, 'www.example.test', 100))).toEqual([
      RRL_SEND,
      RRL_SEND,
      RRL_DROP,
    ]);
    expect(ask(rrl, '10.0.1.1', 'www.example.test', 100)).toBe(RRL_SEND);
    expect(ask(rrl, '2001:db8:0:ff::1', 'www.example.test', 100)).toBe(RRL_SEND);
    expect(ask(rrl, '2001:db8:0:1::2', 'www.example.test', 100)).toBe(RRL_SEND);
    expect(ask(rrl, '2001:db8:0:2::3', 'www.example.test', 100)).toBe(RRL_DROP);
    expect(ask(rrl, '2001:db8:0:100::1', 'www.example.test', 100)).toBe(RRL_SEND);
    // An IPv4-mapped IPv6 source is its IPv4 address.
    expect(rrl.prefix('::ffff:10.0.0.9')).toBe(rrl.prefix('10.0.0.1'));
    expect(ask(rrl, '::ffff:10.0.0.9', 'www.example.test', 100)).toBe(RRL_DROP);
  });

  it('per response identity: another name or type is another bucket', () => {
    const rrl = new Rrl(config({}));
    ask(rrl, '10.0.0.1', 'www.example.test', 100);
    ask(rrl, '10.0.0.1', 'www.example.test', 100);
    expect(ask(rrl, '10.0.0.1', 'www.example.test', 100)).toBe(RRL_DROP);
    expect(ask(rrl, '10.0.0.1', 'www.example.test', 100, 'TXT')).toBe(RRL_SEND);
    expect(ask(rrl, '10.0.0.1', 'mail.example.test', 100)).toBe(RRL_SEND);
  });

  it('errors: REFUSED names outside the zones share one bucket; nxdomain and error rates apply', () => {
    const rrl = new Rrl(config({ errorsPerSecond: 1, nxdomainsPerSecond: 3 }));
    expect(ask(rrl, '10.0.0.1', 'a.example.org', 100)).toBe(RRL_SEND);
    expect(ask(rrl, '10.0.0.1', 'b.example.net', 100)).toBe(RRL_DROP);
    expect([1, 2, 3, 4].map((i) => ask(rrl, '10.0.0.1', `nx${i}.example.test`, 100))).toEqual([
      RRL_SEND,
      RRL_SEND,
      RRL_SEND,
      RRL_DROP,
    ]);
  });

  it('window: a source that kept exceeding stays limited until its debt is repaid', () => {
    const rrl = new Rrl(config({ window: 3 }));
    for (let i = 0; i < 20; i++) ask(rrl, '10.0.0.1', 'www.example.test', 100);
    // Balance floor: -window * rate = -6; +2 per second: still limited 2 s later.
    expect(ask(rrl, '10.0.0.1', 'www.example.test', 102)).toBe(RRL_DROP);
    expect(ask(rrl, '10.0.0.1', 'www.example.test', 106)).toBe(RRL_SEND);
  });

  it('slip: every slip-th limited response is truncated', () => {
    const rrl = new Rrl(config({ slip: 3 }));
    const got = Array.from({ length: 8 }, () => ask(rrl, '10.0.0.1', 'www.example.test', 100));
    expect(got).toEqual([
      RRL_SEND,
      RRL_SEND,
      RRL_SLIP,
      RRL_DROP,
      RRL_DROP,
      RRL_SLIP,
      RRL_DROP,
      RRL_DROP,
    ]);
  });

  it('exempt prefixes and log-only mode send everything and count it', () => {
    const exempt = new Rrl(config({ exempt: ['10.0.0.0/8', '2001:db8::/32'] }));
    const only = new Rrl(config({ logOnly: true }));
    for (let i = 0; i < 5; i++) {
      expect(ask(exempt, '10.9.9.9', 'www.example.test', 100)).toBe(RRL_SEND);
      expect(ask(exempt, '2001:db8::1', 'www.example.test', 100)).toBe(RRL_SEND);
      expect(ask(only, '192.0.2.1', 'www.example.test', 100)).toBe(RRL_SEND);
    }
    expect(ask(exempt, '192.0.2.1', 'www.example.test', 100)).toBe(RRL_SEND);
    expect(exempt.counters.wouldLimit).toBe(6);
    expect(only.counters.wouldLimit).toBe(3);
  });

  it('the table is bounded and swept', () => {
    const rrl = new Rrl(config({ maxTableSize: 50 }));
    for (let i = 0; i < 200; i++) ask(rrl, `10.${i}.0.1`, 'www.example.test', 100);
    expect(rrl.size).toBeLessThanOrEqual(50);
    rrl.sweep(200);
    expect(rrl.size).toBe(0);
  });
});

describe('RRL configuration', () => {
  it('lexroute serve --rrl RATE limits; a bad RATE is a usage error; a bad exempt prefix is named', async () => {
    const io = captureIo({ cwd: REPO });
    const done = run(
      ['serve', '--zones', ZONE, '--listen', '127.0.0.1:0', '--log-format', 'json', '--rrl', '3'],
      io,
    );
    let port = 0;
    for (let i = 0; i < 100 && port === 0; i++) {
      const ev = io
        .stderr()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .find((e) => e.event === 'listening');
      if (ev) port = ev.port;
      else await new Promise((r) => setTimeout(r, 50));
    }
    const counts = await burst(port, () => 'www.example.test', 20);
    io.abort();
    expect(await done).toBe(0);
    expect(counts.sent).toBeGreaterThanOrEqual(3);
    expect(counts.sent).toBeLessThanOrEqual(6);
    expect(Math.abs(counts.truncated - (20 - counts.sent) / 2)).toBeLessThanOrEqual(1);

    const bad = captureIo();
    expect(await run(['serve', '--rrl', 'fast'], bad)).toBe(2);
    expect(bad.stderr()).toContain('--rrl');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-rrl-'));
    try {
      const file = path.join(dir, 'server.json');
      writeFileSync(
        file,
        JSON.stringify({ rrl: { responsesPerSecond: 5, exempt: ['10.0.0.0/33'] } }),
      );
      const cfg = captureIo();
      expect(await run(['serve', '--config', file], cfg)).toBe(1);
      expect(cfg.stderr()).toContain('CONFIG_BAD_PREFIX');
      expect(cfg.stderr()).toContain('rrl.exempt[0]');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rrl off by default: a burst is answered in full', async () => {
    const plain = await startTestServer([ZONE]);
    try {
      expect(plain.server.rrl).toBeUndefined();
      let answered = 0;
      for (let i = 0; i < 20; i++) {
        if (await udpRaw(plain.port, buildQuery('www.example.test', 'A', { id: i }))) answered++;
      }
      expect(answered).toBe(20);
    } finally {
      await plain.close();
    }
  });
});
