/**
 * The performance paths must not change what a resolution says. Over the real
 * chain (lexroute server on 127.0.0.1, real resolver app), every URN below is
 * resolved by a client without cache, then by a caching client three times
 * (fresh lookups, then cache hits that seed the step memo, then memo hits),
 * and once with `memoSteps: false`. The results, the errors and every trace
 * entry must be the same, except the fields that say where an answer came
 * from (server, cached, protocol, rttMs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LexClient, ResolveError, type Trace } from '../../src/client/resolve.ts';
import { serveWithLexroute, startResolverAndZones, type Chain } from './helpers/chain.ts';

const URNS = [
  'urn:lex:br:federal:lei:2002-01-10;10406',
  'urn:lex:br;sao.paulo:governo:decreto:2008-03-05;52789',
  'URN:LEX:BR;Sao.Paulo:governo:decreto:2008-03-05;52789#art1',
  'urn:lex:br;sao.paulo:governo:decreto:2008-03-05;52789~art2',
  'urn:lex:de;m%C3%BCnchen:stadt:rundschreiben:2020-01-01;1',
  'urn:lex:de;münchen:stadt:rundschreiben:2020-01-01;1',
  'urn:lex:xx:loop:lei:2000-01-01;1', // NAPTR loop across zones
  'urn:lex:zz:missing:lei:2000-01-01;1', // delegation to a name that does not exist
  'urn:lex:yy:fallback:lei:2000-01-01;1', // first rule broken
  'urn:lex:it:stato:legge:2000-01-01;1', // no rule for it
  'urn:nbn:de:1234', // not LEX: another NID's first key
  'urn:lex:', // invalid
];

let chain: Chain;
let dns: string;

beforeAll(async () => {
  chain = await startResolverAndZones();
  dns = await serveWithLexroute(chain);
});

afterAll(async () => {
  await chain?.close();
});

/** A trace without the fields that depend on where the answer came from. */
function comparable(trace: Trace): unknown {
  return {
    ...trace,
    steps: trace.steps.map((s) => {
      if (s.kind !== 'naptr' && s.kind !== 'srv' && s.kind !== 'address') return s;
      const { server: _s, cached: _c, ...rest } = s as typeof s & { protocol?: unknown };
      const {
        protocol: _p,
        rttMs: _r,
        ...stable
      } = rest as typeof rest & {
        protocol?: unknown;
        rttMs?: unknown;
      };
      return stable;
    }),
  };
}

/** Messages name the source of a negative answer: the server, or the cache. */
function sourceless(value: unknown): unknown {
  const text = JSON.stringify(value)
    .replaceAll(`from ${dns})`, 'from <source>)')
    .replaceAll('from cache)', 'from <source>)');
  return JSON.parse(text) as unknown;
}

async function outcome(
  client: LexClient,
  urn: string,
  options: { memoSteps?: boolean; fallback?: boolean },
): Promise<unknown> {
  try {
    const r = await client.resolve(urn, { noHttp: true, ...options });
    return sourceless({
      ok: true,
      urls: r.urls,
      resolverUrl: r.resolverUrl,
      trace: comparable(r.trace),
    });
  } catch (e) {
    if (!(e instanceof ResolveError)) throw e;
    return sourceless({ ok: false, code: e.code, message: e.message, trace: comparable(e.trace) });
  }
}

describe('cold, cached, memoised and unmemoised resolutions say the same', () => {
  for (const fallback of [false, true]) {
    it(`every URN${fallback ? ' (with --fallback)' : ''}`, async () => {
      const cold = new LexClient({ servers: [dns], cache: false });
      const warm = new LexClient({ servers: [dns] });
      try {
        let compared = 0;
        for (const urn of URNS) {
          const reference = await outcome(cold, urn, { fallback });
          const runs = [
            await outcome(warm, urn, { fallback }),
            await outcome(warm, urn, { fallback }),
            await outcome(warm, urn, { fallback }),
            await outcome(warm, urn, { fallback, memoSteps: false }),
          ];
          for (const [i, run] of runs.entries()) {
            expect(run, `${urn}, run ${i + 1}`).toEqual(reference);
            compared++;
          }
        }
        expect(compared).toBe(URNS.length * 4);
        // The warm client really answered from its cache.
        expect(warm.cache?.stats.hits).toBeGreaterThan(URNS.length * 2);
      } finally {
        await cold.close();
        await warm.close();
      }
    });
  }
});
