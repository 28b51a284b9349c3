/**
 * The accelerators of the resolver's request path must never change an
 * answer. The exact-name fast path (src/resolver/core/exact.ts: a request
 * naming a catalogued work exactly skips the URN parser): every name of the
 * sample catalogue (canonical and aliases), with each service, HTTP version
 * and Accept header, and near misses (not catalogued, upper case,
 * partition, version, q-component, incomplete references), plus random
 * plain texts, get the same status, headers and body with the fast path as
 * without it. The answer cache (src/resolver/http/answer-cache.ts): the
 * same requests, asked once and again (then answered from the cache), get
 * the answers of the app without one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyseReference } from '../../src/resolver/core/from-urn.ts';
import { exactLookup } from '../../src/resolver/core/exact.ts';
import type { CatalogueReader, CatalogueWork } from '../../src/resolver/core/model.ts';
import { ensureCatalogue } from '../../src/resolver/catalogue/open.ts';
import type { SqliteCatalogue } from '../../src/resolver/catalogue/store.ts';
import { DEFAULT_RESOLVER_CONFIG } from '../../src/config/resolver.ts';
import {
  createResolverApp,
  type AppResponse,
  type ResolverApp,
} from '../../src/resolver/http/app.ts';

const dir = mkdtempSync(join(tmpdir(), 'lexroute-fast-path-'));
let store: SqliteCatalogue;
let fast: ResolverApp;
let slow: ResolverApp;
/** With the answer cache (the other accelerator of the request path), keeping every answer. */
let cached: ResolverApp;
const names: string[] = [];

beforeAll(async () => {
  store = (
    await ensureCatalogue(
      join(dir, 'catalogue.sqlite'),
      'data/sample-catalogue.jsonl',
      process.cwd(),
    )
  ).store;
  for (const id of store.workIds()) {
    for (const n of (store.work(id) as CatalogueWork).names) names.push(n.urn);
  }
  const make = (exactFastPath: boolean) =>
    createResolverApp({
      reader: store,
      analyse: analyseReference,
      config: DEFAULT_RESOLVER_CONFIG,
      exactFastPath,
    });
  fast = make(true);
  slow = make(false);
  cached = createResolverApp({
    reader: store,
    analyse: analyseReference,
    config: DEFAULT_RESOLVER_CONFIG,
    cache: {
      entries: 100_000,
      checkMs: 0,
      version: () => store.dataVersion(),
      admission: 'first-request',
    },
  });
});
afterAll(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

function ask(
  app: ResolverApp,
  target: string,
  headers: Record<string, string>,
  v: string,
): AppResponse {
  return app.handle({ method: 'GET', target, header: (h) => headers[h], httpVersion: v });
}

const SERVICES = ['N2L', 'N2Ls', 'N2C', 'N2Ns'];
const HEADERS: Record<string, string>[] = [
  {},
  { accept: 'application/json' },
  { accept: 'application/pdf', 'accept-language': 'en, de;q=0.5' },
  { accept: 'text/html', 'accept-language': 'pt-BR' },
];

function variants(urn: string): string[] {
  return [
    urn,
    urn.toUpperCase(),
    `${urn}~art1`,
    `${urn}~art1;par2`,
    `${urn}@original`,
    `${urn}?=at=2000-01-01`,
    `${urn}0`,
    urn.replace(/;[^;:]*$/, ''),
    urn.replace(/(\d{4})-\d{2}-\d{2}/, '$1'),
  ];
}

describe('the exact-name fast path gives the answers of the full analysis', () => {
  it('for every catalogued name and near misses, each service, version and Accept', () => {
    expect(names.length).toBeGreaterThan(50);
    let plainHits = 0;
    for (const name of names) {
      if (exactLookup(name, store)?.query) plainHits++;
      for (const text of variants(name)) {
        for (const service of SERVICES) {
          for (const headers of HEADERS) {
            for (const v of ['1.1', '1.0']) {
              const target = `/uri-res/${service}?${text}`;
              expect(ask(fast, target, headers, v), target).toEqual(ask(slow, target, headers, v));
            }
          }
        }
      }
    }
    // The fast path did answer: every catalogued name written in lowercase ASCII.
    expect(plainHits).toBe(names.filter((n) => /^urn:lex:[a-z0-9.;:,+_-]+$/.test(n)).length);
    expect(plainHits).toBeGreaterThan(40);
  });

  it('for random plain texts (property)', () => {
    const plain = fc
      .array(fc.constantFrom(...'abclei0123456789.;:,-'.split('')), { minLength: 1, maxLength: 40 })
      .map((cs) => `urn:lex:br:${cs.join('')}`);
    fc.assert(
      fc.property(plain, (text) => {
        const target = `/uri-res/N2L?${text}`;
        expect(ask(fast, target, {}, '1.1')).toEqual(ask(slow, target, {}, '1.1'));
      }),
      { numRuns: 300 },
    );
  });

  it('the answer cache gives them too, asked first and asked again (from the cache)', () => {
    for (const name of names) {
      for (const text of variants(name)) {
        for (const service of SERVICES) {
          for (const headers of HEADERS) {
            const target = `/uri-res/${service}?${text}`;
            const plain = ask(slow, target, headers, '1.1');
            expect(ask(cached, target, headers, '1.1'), target).toEqual(plain);
            expect(ask(cached, target, headers, '1.1'), target).toEqual(plain);
          }
        }
      }
    }
    expect(cached.cacheStats().hits).toBeGreaterThan(names.length * 9 * SERVICES.length);
  });

  it('reads the catalogue once for an exact name, and once for a plain name it lacks', () => {
    let reads = 0;
    const counting: CatalogueReader = {
      byName: (u) => (reads++, store.byName(u)),
      candidates: (q) => (reads++, store.candidates(q)),
      work: (id) => (reads++, store.work(id)),
    };
    const app = createResolverApp({
      reader: counting,
      analyse: analyseReference,
      config: DEFAULT_RESOLVER_CONFIG,
    });
    const name = names.find((n) => /^urn:lex:br:federal:lei:/.test(n)) as string;
    expect(ask(app, `/uri-res/N2L?${name}`, {}, '1.1').status).toBe(303);
    expect(reads).toBe(1);
    reads = 0;
    expect(
      ask(app, '/uri-res/N2L?urn:lex:br:federal:lei:1900-01-01;999999', {}, '1.1').status,
    ).toBe(404);
    // The exact lookup (absent, remembered) and then the partial search by number.
    const exactReads = reads;
    reads = 0;
    const slowApp = createResolverApp({
      reader: counting,
      analyse: analyseReference,
      config: DEFAULT_RESOLVER_CONFIG,
      exactFastPath: false,
    });
    ask(slowApp, '/uri-res/N2L?urn:lex:br:federal:lei:1900-01-01;999999', {}, '1.1');
    expect(exactReads).toBe(reads);
  });
});
