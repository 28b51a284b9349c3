/**
 * The pure DDDS walk (src/ddds/core/walk.ts) without sockets: the chain
 * vectors replayed against it from in-memory zones, and a property test over
 * random NAPTR chains (it never asks for more than the step limit, always
 * ends, and ends as the reference loop of dddsStep + DddsLoopGuard and as the
 * client over the same zones).
 */
import { readFileSync } from 'node:fs';
import type { Answer } from 'dns-packet';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DddsLoopGuard, dddsStep, type NaptrRecord } from '../../src/ddds/core/step.ts';
import {
  DddsWalk,
  isIpLiteral,
  type WalkNeed,
  type WalkOptions,
} from '../../src/ddds/core/walk.ts';
import type { LookupMeta } from '../../src/ddds/core/trace.ts';
import { LexClient, ResolveError } from '../../src/client/resolve.ts';
import type { DnsResolver as Resolver } from '../../src/client/stub.ts';
import { toRecordModel, type DnsPacketLookupResult } from '../helpers/dns-packet-shapes.ts';
import { naptrFromPresentation } from './presentation.ts';

type Zones = Record<string, readonly NaptrRecord[]>;
const META: LookupMeta = { server: 'memory', protocol: 'udp', rttMs: 0, ttl: 60, cnames: [] };
const OPTIONS: WalkOptions = { mode: 'stub', servers: [], random: () => 0, noHttp: true };

function recordsAt(zones: Zones, key: string): readonly NaptrRecord[] | undefined {
  const k = DddsLoopGuard.normalize(key);
  return Object.entries(zones).find(([z]) => DddsLoopGuard.normalize(z) === k)?.[1];
}

/** Run the walk over in-memory NAPTR zones until it ends or needs more than NAPTR. */
function walkZones(
  aus: string,
  first: string,
  zones: Zones,
  options: Partial<WalkOptions> = {},
): { end: WalkNeed; naptrLookups: number } {
  const walk = new DddsWalk(
    aus,
    { ...OPTIONS, ...options },
    { aus, firstKey: first, fragment: undefined, partition: undefined },
  );
  let naptrLookups = 0;
  let need = walk.begin();
  while (need.kind === 'naptr') {
    naptrLookups++;
    if (naptrLookups > 1000) throw new Error('the walk does not end');
    const records = recordsAt(zones, need.key);
    need = walk.naptr(
      records === undefined || records.length === 0
        ? { kind: records ? 'nodata' : 'nxdomain', records: [], meta: META, cached: false }
        : { kind: 'answer', records, meta: META, cached: false },
    );
  }
  return { end: need, naptrLookups };
}

// ------------------------------------------------------------------ chain vectors

interface Chain {
  id: string;
  ref: string;
  aus: string;
  first: string;
  zones: 'lex' | Record<string, string[]>;
  service: string;
  limit?: number;
  requires?: 'idna';
  expect: { kind: string; path?: string[]; key?: string; code?: string; at?: string } & Record<
    string,
    unknown
  >;
}
const file = JSON.parse(
  readFileSync(new URL('../vectors/ddds/chains.json', import.meta.url), 'utf8'),
) as { lex: Record<string, string[]>; chains: Chain[] };

describe('chain vectors (test/vectors/ddds/chains.json) replayed against the walk', () => {
  for (const c of file.chains) {
    it(`${c.id} (${c.ref})`, () => {
      const text = c.zones === 'lex' ? file.lex : c.zones;
      const zones: Zones = Object.fromEntries(
        Object.entries(text).map(([k, rr]) => [k, rr.map(naptrFromPresentation)]),
      );
      const { end } = walkZones(c.aus, c.first, zones, {
        service: c.service as 'N2L',
        maxSteps: c.limit,
      });
      const trace =
        end.kind === 'done' ? end.result.trace : end.kind === 'failed' ? end.trace : undefined;
      const naptr = (trace?.steps ?? []).flatMap((s) => (s.kind === 'naptr' ? [s] : []));
      const { path, key, code, at, kind, ...fields } = c.expect;
      if (path) expect(naptr.map((s) => s.key)).toEqual(path);
      if (kind === 'not-found') {
        expect(end).toMatchObject({ kind: 'failed', code: 'DNS_NXDOMAIN' });
        expect(naptr.at(-1)?.key).toBe(key);
        return;
      }
      if (kind === 'failure') {
        expect(end).toMatchObject({ kind: 'failed', code });
        if (code === 'DDDS_LOOP' || code === 'DDDS_STEP_LIMIT') {
          expect(end.kind === 'failed' && end.message).toContain('->');
        }
        if (at !== undefined) expect(naptr.at(-1)?.key).toBe(at);
        return;
      }
      // terminal or handoff: the last rule set's outcome; a U rule ends at its URL (no HTTP).
      const outcome = naptr.at(-1)?.outcome;
      expect(outcome?.kind).toBe(kind);
      expect(outcome).toMatchObject(fields);
      if (at !== undefined) expect(naptr.at(-1)?.key).toBe(at);
      if (outcome?.kind === 'terminal' && outcome.flag === 'U') {
        expect(end).toMatchObject({ kind: 'done', result: { resolverUrl: outcome.output } });
      } else if (outcome?.kind === 'terminal') {
        expect(end.kind).toBe(outcome.flag === 'S' ? 'srv' : 'address');
      } else {
        expect(end).toMatchObject({ kind: 'done', result: { kind: 'handoff' } });
      }
    });
  }
});

describe('the walk as a state machine', () => {
  it('an invalid URN fails before any lookup, with the URN code and a position', () => {
    const walk = new DddsWalk('urn:lex:', OPTIONS);
    const end = walk.begin();
    expect(end).toMatchObject({ kind: 'failed', code: 'URN_EMPTY_NSS' });
    // One-based column, as every command reports positions ("urn:lex:" ends at column 9).
    expect(end.kind === 'failed' && end.message).toMatch(/^not a valid LEX URN: .* at column 9$/);
  });

  it('refuses a result it did not ask for', () => {
    const walk = new DddsWalk('urn:lex:it:stato:legge:2000;1', OPTIONS);
    expect(walk.begin()).toEqual({ kind: 'naptr', key: 'lex.urn.arpa.' });
    expect(() => walk.http({ kind: 'urls', exchanges: [], urls: [] })).toThrow(/waiting for naptr/);
  });

  it('S rule: SRV, then A then AAAA per target; a target without an address is skipped', () => {
    const walk = new DddsWalk('urn:lex:zz:stato:legge:2000-01-01;1', { ...OPTIONS, noHttp: false });
    walk.begin();
    let need = walk.naptr({
      kind: 'answer',
      records: [
        {
          order: 1,
          preference: 1,
          flags: 's',
          services: 'http+N2L',
          regexp: '',
          replacement: '_http._tcp.r.example.',
        },
      ],
      meta: META,
      cached: false,
    });
    expect(need).toEqual({ kind: 'srv', name: '_http._tcp.r.example.' });
    need = walk.srv({
      kind: 'answer',
      records: [
        { priority: 1, weight: 0, port: 8080, target: 'a.example' },
        { priority: 2, weight: 0, port: 8081, target: 'b.example' },
      ],
      meta: META,
      cached: true,
    });
    expect(need).toEqual({ kind: 'address', name: 'a.example', qtype: 'A' });
    need = walk.address({ kind: 'nodata', records: [], meta: META, cached: false });
    expect(need).toEqual({ kind: 'address', name: 'a.example', qtype: 'AAAA' });
    need = walk.address({ kind: 'nxdomain', records: [], meta: META, cached: false });
    expect(need).toEqual({ kind: 'address', name: 'b.example', qtype: 'A' });
    need = walk.address({ kind: 'answer', records: ['192.0.2.7'], meta: META, cached: false });
    expect(need).toEqual({
      kind: 'http',
      url: 'http://b.example:8081/uri-res/N2L?urn:lex:zz:stato:legge:2000-01-01;1',
      service: 'N2L',
      pins: [{ host: 'b.example', address: '192.0.2.7' }],
    });
    need = walk.http({ kind: 'error', code: 'HTTP_NETWORK', message: 'refused' });
    expect(need).toMatchObject({ kind: 'failed', code: 'HTTP_NETWORK' });
    const steps = walk.trace.steps.map((s) => `${s.kind}${'qtype' in s ? ` ${s.qtype}` : ''}`);
    expect(steps).toEqual(['naptr', 'srv SRV', 'address A', 'address AAAA', 'address A', 'http']);
  });

  it('isIpLiteral', () => {
    expect(['127.0.0.1', '::1', '2001:db8::7', '255.255.255.255'].every(isIpLiteral)).toBe(true);
    expect(['256.0.0.1', 'a.example', '1.2.3', 'example.com.', ''].some(isIpLiteral)).toBe(false);
  });
});

// ------------------------------------------------------------------ random chains

const KEYS = ['lex.urn.arpa.', 'b.ex.', 'c.ex.', 'd.ex.', 'e.ex.', 'f.ex.', 'g.ex.'];
const AUS = 'urn:lex:zz:stato:legge:2000-01-01;1';

const arbRecord: fc.Arbitrary<NaptrRecord> = fc
  .record({
    order: fc.integer({ min: 0, max: 3 }),
    preference: fc.integer({ min: 0, max: 3 }),
    flags: fc.constantFrom('', '', '', 'u', 's', 'a', 'p', 'x', 'us'),
    services: fc.constantFrom('', 'http+N2L', 'https+N2L+N2C', 'x-other+N2C', 'E2U+sip'),
    regexp: fc.constantFrom(
      '',
      '',
      '!^urn:lex:zz:.*$!http://r.example/N2L?x!',
      '!^urn:lex:yy.*$!b.ex!',
    ),
    next: fc.constantFrom(...KEYS, '.'),
  })
  .map(({ next, ...r }) => ({ ...r, replacement: r.regexp === '' ? next : '.' }));

const arbZones: fc.Arbitrary<Zones> = fc.dictionary(
  fc.constantFrom(...KEYS),
  fc.array(arbRecord, { minLength: 0, maxLength: 4 }),
  { maxKeys: KEYS.length },
);

type Outcome = { kind: string; code?: string; url?: string; key?: string };

/** The reference: the client's loop before the walk (dddsStep + DddsLoopGuard, no fallback). */
function reference(zones: Zones, limit: number): Outcome {
  const guard = new DddsLoopGuard(limit);
  let key = 'lex.urn.arpa.';
  for (;;) {
    const visit = guard.visit(key);
    if (!visit.ok) return { kind: 'failed', code: visit.error.code };
    const records = recordsAt(zones, key);
    if (records === undefined) return { kind: 'failed', code: 'DNS_NXDOMAIN' };
    if (records.length === 0) return { kind: 'failed', code: 'DNS_NODATA' };
    const o = dddsStep({ aus: AUS, key, records, service: 'N2L' }).outcome;
    if (o.kind === 'next') key = o.key;
    else if (o.kind === 'failure') return { kind: 'failed', code: o.code };
    else if (o.kind === 'handoff') return { kind: 'handoff', key };
    else if (o.flag === 'U') return { kind: 'resolved', url: o.output };
    else return { kind: o.flag === 'S' ? 'srv' : 'address' };
  }
}

function outcomeOf(end: WalkNeed): Outcome {
  if (end.kind === 'failed') return { kind: 'failed', code: end.code };
  if (end.kind === 'done') {
    return end.result.kind === 'handoff'
      ? { kind: 'handoff', key: end.result.handoff.key }
      : { kind: 'resolved', url: end.result.resolverUrl };
  }
  return { kind: end.kind };
}

/** The same zones behind the client (its driver, cache and step memo), no sockets. */
function memoryResolver(zones: Zones): Resolver {
  return {
    lookup(qname, qtype) {
      const records = qtype === 'NAPTR' ? recordsAt(zones, qname) : [];
      const kind = records === undefined ? 'nxdomain' : records.length === 0 ? 'nodata' : 'answer';
      const answers = (records ?? []).map(
        (r) =>
          ({
            name: qname,
            type: 'NAPTR',
            ttl: 60,
            data: { ...r, replacement: r.replacement === '.' ? '' : r.replacement.slice(0, -1) },
          }) as unknown as Answer,
      );
      // written in dns-packet's record shapes, converted to the record model.
      const result: DnsPacketLookupResult = {
        kind,
        qname,
        qtype,
        name: qname,
        records: answers,
        cnames: [],
        ttl: 60,
        server: 'memory',
        protocol: 'udp',
        rttMs: 0,
        ignored: 0,
        additionals: [],
      };
      return Promise.resolve(toRecordModel(result));
    },
  };
}

async function clientOutcome(client: LexClient, limit: number): Promise<Outcome> {
  try {
    const r = await client.resolve(AUS, { noHttp: true, maxSteps: limit });
    return r.kind === 'handoff'
      ? { kind: 'handoff', key: r.handoff.key }
      : { kind: 'resolved', url: r.resolverUrl };
  } catch (e) {
    if (!(e instanceof ResolveError)) throw e;
    // The walk stops at the SRV or address step; the client then gets no record there.
    const last = e.trace.steps.at(-1);
    if (last && last.kind !== 'naptr' && last.kind !== 'fallback') return { kind: last.kind };
    return { kind: 'failed', code: e.code };
  }
}

describe('random NAPTR chains (fast-check)', () => {
  it('never more lookups than the step limit, always ends, same outcome as the reference loop and the client', async () => {
    await fc.assert(
      fc.asyncProperty(arbZones, fc.integer({ min: 1, max: 8 }), async (zones, limit) => {
        const { end, naptrLookups } = walkZones(AUS, 'lex.urn.arpa.', zones, { maxSteps: limit });
        expect(naptrLookups).toBeLessThanOrEqual(limit);
        expect(['done', 'failed', 'srv', 'address']).toContain(end.kind);
        const walked = outcomeOf(end);
        expect(walked).toEqual(reference(zones, limit));
        for (const cache of [undefined, false] as const) {
          const client = new LexClient({
            resolver: memoryResolver(zones),
            ...(cache === false ? { cache } : {}),
          });
          // Twice: the second run is warm (cache, step memo).
          expect(await clientOutcome(client, limit)).toEqual(walked);
          expect(await clientOutcome(client, limit)).toEqual(walked);
          await client.close();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('with fallback: always ends, new keys within the step limit, each revisit after a fallback entry', () => {
    fc.assert(
      fc.property(arbZones, fc.integer({ min: 1, max: 8 }), (zones, limit) => {
        const { end, naptrLookups } = walkZones(AUS, 'lex.urn.arpa.', zones, {
          maxSteps: limit,
          fallback: true,
        });
        expect(['done', 'failed', 'srv', 'address']).toContain(end.kind);
        const trace =
          end.kind === 'done' ? end.result.trace : end.kind === 'failed' ? end.trace : undefined;
        if (trace === undefined) return;
        const fallbacks = trace.steps.filter((s) => s.kind === 'fallback').length;
        const keys = new Set(trace.steps.flatMap((s) => (s.kind === 'naptr' ? [s.key] : [])));
        expect(keys.size).toBeLessThanOrEqual(limit);
        expect(naptrLookups).toBe(trace.steps.filter((s) => s.kind === 'naptr').length);
        expect(naptrLookups - fallbacks).toBeLessThanOrEqual(limit);
        // Without a fallback taken, the walk ends as without fallback.
        if (fallbacks === 0) expect(outcomeOf(end)).toEqual(reference(zones, limit));
      }),
      { numRuns: 500 },
    );
  });
});
