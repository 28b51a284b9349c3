/**
 * Answers encoded ahead in the zone-load worker (issue 20): the names the
 * server was being asked before a reload (its hot set) come back from the
 * worker with their response bodies encoded in the new version, so the
 * answering thread only swaps; a first query after the swap reads them. The
 * responses are byte for byte those the engine encodes itself, a chain into
 * another served zone is left to the engine, and a body encoded beside other
 * zones than those served is not used.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BackgroundZoneLoader } from '../../src/authority/zones/background.ts';
import { Engine, TRANSPORT_UDP } from '../../src/authority/engine.ts';
import type { IndexedZone } from '../../src/authority/core/zone-lookup.ts';
import { buildQuery } from './harness.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-ahead-'));
const bg = new BackgroundZoneLoader();
afterAll(async () => {
  await bg.close();
  rmSync(dir, { recursive: true, force: true });
});

const head = (serial: number) =>
  `$TTL 300\n@ IN SOA ns host ${serial} 3600 600 86400 300\n@ IN NS ns\nns IN A 192.0.2.1\n`;
const A = (serial: number) =>
  head(serial) +
  `www IN A 192.0.2.${serial}\nwww IN AAAA 2001:db8::${serial}\n` +
  `lex IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://r${serial}.example/N2L?\\\\1!" .\n` +
  `alias IN CNAME www\nout IN CNAME www.b.test.\nsrv IN NAPTR 100 10 "s" "http+N2L" "" _http._tcp.srv\n` +
  `_http._tcp.srv IN SRV 0 0 80 www\n`;
const B = head(1) + 'www IN A 198.51.100.1\n';

async function load(name: string, text: string): Promise<IndexedZone> {
  const file = path.join(dir, `${name}.zone`);
  writeFileSync(file, text);
  const r = await bg.load(file, name);
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return r.indexed!;
}

const QUESTIONS: [string, string][] = [
  ['www.a.test', 'A'],
  ['www.a.test', 'AAAA'],
  ['www.a.test', 'TXT'],
  ['lex.a.test', 'NAPTR'],
  ['alias.a.test', 'A'],
  ['out.a.test', 'A'],
  ['srv.a.test', 'NAPTR'],
  ['a.test', 'SOA'],
];

const ask = (e: Engine) =>
  QUESTIONS.map(([n, t], i) => e.respond(buildQuery(n, t, { id: i }), TRANSPORT_UDP)!);

describe('answers encoded ahead by the load worker', () => {
  it('the hot names of the old version come encoded in the new one; responses are identical', async () => {
    const b = await load('b.test.', B);
    const old = new Engine([await load('a.test.', A(1)), b]);
    ask(old);
    const hot = old.hotNames();
    expect(hot.count).toBeGreaterThanOrEqual(6);
    bg.hot = () => hot;
    const ahead = await load('a.test.', A(2));
    bg.hot = undefined;
    expect(ahead.answers?.names).toBeGreaterThanOrEqual(5);
    const plain = await load('a.test.', A(2));
    expect(plain.answers).toBeUndefined();

    const withAhead = new Engine([ahead, b]);
    const without = new Engine([plain, b]);
    const got = ask(withAhead);
    expect(got.map((r) => r.toString('hex'))).toEqual(ask(without).map((r) => r.toString('hex')));
    expect(withAhead.answersAhead).toBeGreaterThanOrEqual(5);
    expect(without.answersAhead).toBe(0);
    // The new version is served (serial 2's address), from the bodies encoded ahead.
    expect(got[0]!.includes(Buffer.from([192, 0, 2, 2]))).toBe(true);
  });

  it('bodies are read in place: the next hot set keeps their names, truncation is the same', async () => {
    // A TXT RRset of about 1,600 octets: truncated over UDP without EDNS (512) and with it (1232).
    const big = (serial: number) =>
      A(serial) +
      Array.from({ length: 8 }, (_, i) => `big IN TXT "${String(i).repeat(200)}"\n`).join('');
    const b = await load('b.test.', B);
    const QS = [
      buildQuery('big.a.test', 'TXT'),
      buildQuery('big.a.test', 'TXT', { edns: true }),
      buildQuery('www.a.test', 'A'),
      buildQuery('lex.a.test', 'NAPTR', { edns: true }),
    ];
    const askAll = (e: Engine) => QS.map((q) => e.respond(q, TRANSPORT_UDP)!.toString('hex'));
    const old = new Engine([await load('a.test.', big(1)), b]);
    askAll(old);
    bg.hot = () => old.hotNames();
    const first = await load('a.test.', big(2));
    const plain = await (async () => {
      bg.hot = undefined;
      return load('a.test.', big(2));
    })();
    const ahead = new Engine([first, b]);
    const got = askAll(ahead);
    expect(got).toEqual(askAll(new Engine([plain, b])));
    expect(ahead.answersAhead).toBe(3); // big, www, lex: counted once per name
    expect(Buffer.from(got[0]!, 'hex')[2]! & 0x02).toBe(0x02); // TC
    // Answered in place, the names still make the next hot set, with their types.
    const hot = ahead.hotNames();
    const keys = hot.keys;
    for (const name of ['big', 'www', 'lex']) expect(keys).toContain(`${name}\u0001a\u0004test`);
    bg.hot = () => hot;
    const again = await load('a.test.', big(3));
    bg.hot = undefined;
    expect(again.answers?.names).toBe(3);
  });

  it('the hot set listed in slices is the one listed at once, and lets other work run between', async () => {
    const b = await load('b.test.', B);
    const engine = new Engine([await load('a.test.', A(1)), b]);
    ask(engine);
    const whole = engine.hotNames();
    expect(whole.count).toBeGreaterThanOrEqual(6);
    // Work queued before the listing runs before it ends (between its slices of two names).
    let ranBetween = false;
    setImmediate(() => void (ranBetween = true));
    const sliced = await engine.hotNamesInSlices(2);
    expect(ranBetween).toBe(true);
    expect(sliced).toEqual(whole);
    // As the loader's source of hot names (a promise), the answers come encoded ahead.
    bg.hot = () => engine.hotNamesInSlices(2);
    const ahead = await load('a.test.', A(4));
    bg.hot = undefined;
    expect(ahead.answers?.names).toBeGreaterThanOrEqual(5);
  });

  it('the hot set of one zone being reloaded lists the names of that zone only, and they come encoded ahead', async () => {
    const b = await load('b.test.', B);
    const engine = new Engine([await load('a.test.', A(1)), b]);
    ask(engine);
    engine.respond(buildQuery('www.b.test', 'A'), TRANSPORT_UDP);
    const whole = engine.hotNames();
    const ofB = await engine.hotNamesInSlices(2, 'b.test.');
    const ofA = await engine.hotNamesInSlices(2, 'a.test.');
    expect(ofB.count).toBe(1);
    expect(ofA.count + ofB.count).toBe(whole.count);
    // The worker is given the zone and those below it alone (the bodies depend on no other).
    expect(ofA.origins).toEqual(['\u0001a\u0004test\u0000']);
    expect(whole.origins).toHaveLength(2);
    bg.hot = () => ofA;
    const ahead = await load('a.test.', A(5));
    bg.hot = undefined;
    expect(ahead.answers?.names).toBeGreaterThanOrEqual(5);
  });

  it('a chain into another served zone is left to the engine; another zone below served: not used', async () => {
    const b = await load('b.test.', B);
    const old = new Engine([await load('a.test.', A(1)), b]);
    ask(old);
    bg.hot = () => old.hotNames();
    const ahead = await load('a.test.', A(3));
    bg.hot = undefined;
    // out.a.test CNAME www.b.test.: its answer depends on b.test., so it is not encoded ahead.
    const alone = new Engine([ahead, b]);
    alone.respond(buildQuery('out.a.test', 'A'), TRANSPORT_UDP);
    expect(alone.answersAhead).toBe(0);
    // Served without b.test. (a zone beside it): the bodies hold, and are used.
    const beside = new Engine([ahead]);
    const got = ask(beside).map((r) => r.toString('hex'));
    expect(beside.answersAhead).toBeGreaterThanOrEqual(5);
    expect(got).toEqual(
      ask(new Engine([await load('a.test.', A(3))])).map((r) => r.toString('hex')),
    );
    // Served with a zone below a.test. (not what the worker assumed): nothing encoded ahead is used.
    const sub = await load('www.a.test.', head(1) + '@ IN A 203.0.113.9\n');
    const other = new Engine([ahead, sub]);
    ask(other);
    expect(other.answersAhead).toBe(0);
  });

  it("replaceZone serves one zone's new version as a fresh engine does, keeping the other zones' answers", async () => {
    const b = await load('b.test.', B);
    const engine = new Engine([await load('a.test.', A(1)), b]);
    const hex = (rs: readonly Buffer[]) => rs.map((r) => r.toString('hex'));
    ask(engine);
    const bQuery = buildQuery('www.b.test', 'A');
    const bBody = engine.query(bQuery, TRANSPORT_UDP)!.body;
    // Reloaded alone (`ctl reload a.test`): its hot names come encoded ahead, read in place.
    bg.hot = () => engine.hotNamesInSlices(2, 'a.test.');
    const a2 = await load('a.test.', A(2));
    bg.hot = undefined;
    expect(a2.answers?.names).toBeGreaterThanOrEqual(5);
    expect(engine.replaceZone(a2)).toBe(true);
    expect(hex(ask(engine))).toEqual(hex(ask(new Engine([await load('a.test.', A(2)), b]))));
    expect(engine.answersAhead).toBeGreaterThanOrEqual(5);
    expect(engine.query(bQuery, TRANSPORT_UDP)!.body).toBe(bBody);
    // Again, without bodies encoded ahead (the zone leaves the list of those read in place).
    expect(engine.replaceZone(await load('a.test.', A(3)))).toBe(true);
    expect(hex(ask(engine))).toEqual(hex(ask(new Engine([await load('a.test.', A(3)), b]))));
    expect(engine.query(bQuery, TRANSPORT_UDP)!.body).toBe(bBody);
    expect(engine.zones.map((z) => z.origin)).toEqual(['a.test.', 'b.test.']);
    // A zone not served is not added by it.
    expect(engine.replaceZone(await load('c.test.', B))).toBe(false);
    expect(engine.zones).toHaveLength(2);
  });

  it('replaceZone of the only zone served answers as a fresh engine does, with and without bodies ahead', async () => {
    const engine = new Engine([await load('a.test.', A(1))]);
    const hex = (rs: readonly Buffer[]) => rs.map((r) => r.toString('hex'));
    ask(engine);
    bg.hot = () => engine.hotNamesInSlices(2, 'a.test.');
    const a2 = await load('a.test.', A(2));
    bg.hot = undefined;
    expect(engine.replaceZone(a2)).toBe(true);
    expect(hex(ask(engine))).toEqual(hex(ask(new Engine([await load('a.test.', A(2))]))));
    expect(engine.answersAhead).toBeGreaterThanOrEqual(5);
    expect(engine.replaceZone(await load('a.test.', A(3)))).toBe(true);
    expect(hex(ask(engine))).toEqual(hex(ask(new Engine([await load('a.test.', A(3))]))));
    expect(engine.hotNames().keys.length).toBeGreaterThan(0);
    expect(engine.zones.map((z) => z.origin)).toEqual(['a.test.']);
    expect(engine.replaceZone(await load('c.test.', B))).toBe(false);
  });

  it('a swap keeps the answers of the zones served unchanged, and only theirs', async () => {
    const b = await load('b.test.', B);
    const engine = new Engine([await load('a.test.', A(1)), b]);
    const www = (zone: string) => buildQuery(`www.${zone}`, 'A');
    engine.respond(www('a.test'), TRANSPORT_UDP);
    const bOld = engine.respond(www('b.test'), TRANSPORT_UDP)!.toString('hex');
    const keyOf = (zone: string) => `\u0003www${zone}\u0000`;
    const A_KEY = keyOf('\u0001a\u0004test');
    const B_KEY = keyOf('\u0001b\u0004test');
    expect(engine.hotNames().keys).toContain(A_KEY);
    expect(engine.hotNames().keys).toContain(B_KEY);
    // a.test reloaded: b.test's answer is kept, a.test's made again from its new version.
    engine.setZones([await load('a.test.', A(2)), b]);
    const keys = engine.hotNames().keys;
    expect(keys).toContain(B_KEY);
    expect(keys).not.toContain(A_KEY);
    expect(
      engine.respond(www('a.test'), TRANSPORT_UDP)!.includes(Buffer.from([192, 0, 2, 2])),
    ).toBe(true);
    expect(engine.respond(www('b.test'), TRANSPORT_UDP)!.toString('hex')).toBe(bOld);
    // A zone added below b.test takes its names: b.test's answer for them is not kept.
    const sub = await load('www.b.test.', head(1) + '@ IN A 203.0.113.9\n');
    engine.setZones([await load('a.test.', A(2)), b, sub]);
    expect(engine.hotNames().keys).not.toContain(B_KEY);
    expect(
      engine.respond(www('b.test'), TRANSPORT_UDP)!.includes(Buffer.from([203, 0, 113, 9])),
    ).toBe(true);
  });
});
