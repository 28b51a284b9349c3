import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DddsLoopGuard, dddsStep, type StepOutcome } from '../../src/ddds/core/step.ts';
import { naptrFromPresentation } from './presentation.ts';

type Zones = Record<string, string[]>;
interface Chain {
  id: string;
  ref: string;
  aus: string;
  first: string;
  zones: 'lex' | Zones;
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
) as { lex: Zones; chains: Chain[] };

type DriveResult =
  | { kind: 'outcome'; outcome: StepOutcome; at: string; path: string[] }
  | { kind: 'not-found'; key: string; path: string[] }
  | { kind: 'guard'; code: string; message: string; path: string[] };

/** A minimal driver: what the client does, minus the DNS. */
function drive(
  aus: string,
  first: string,
  zones: Zones,
  service: string,
  limit?: number,
): DriveResult {
  const guard = new DddsLoopGuard(limit);
  let key = first;
  for (;;) {
    const visit = guard.visit(key);
    if (!visit.ok)
      return {
        kind: 'guard',
        code: visit.error.code,
        message: visit.error.message,
        path: [...guard.path],
      };
    const rdata = Object.entries(zones).find(
      ([k]) => DddsLoopGuard.normalize(k) === DddsLoopGuard.normalize(key),
    )?.[1];
    if (rdata === undefined) return { kind: 'not-found', key, path: [...guard.path] };
    const r = dddsStep({ aus, key, records: rdata.map(naptrFromPresentation), service });
    if (r.outcome.kind === 'next') {
      key = r.outcome.key;
      continue;
    }
    return { kind: 'outcome', outcome: r.outcome, at: key, path: [...guard.path] };
  }
}

describe('DDDS chains (dddsStep + DddsLoopGuard)', () => {
  for (const c of file.chains) {
    it(`${c.id} (${c.ref})`, () => {
      const zones = c.zones === 'lex' ? file.lex : c.zones;
      const r = drive(c.aus, c.first, zones, c.service, c.limit);
      const { path, key, code, at, kind, ...fields } = c.expect;
      if (path) expect(r.path).toEqual(path);
      if (kind === 'not-found') {
        expect(r).toMatchObject({ kind: 'not-found', key });
      } else if (kind === 'failure' && (code === 'DDDS_LOOP' || code === 'DDDS_STEP_LIMIT')) {
        expect(r.kind).toBe('guard');
        if (r.kind === 'guard') {
          expect(r.code).toBe(code);
          expect(r.message).toContain('->');
        }
      } else {
        expect(r.kind).toBe('outcome');
        if (r.kind !== 'outcome') return;
        expect(r.outcome.kind).toBe(kind);
        if (code !== undefined) expect(r.outcome).toMatchObject({ code });
        if (at !== undefined) expect(r.at).toBe(at);
        expect(r.outcome).toMatchObject(fields);
      }
    });
  }
});

describe('DddsLoopGuard', () => {
  it('compares keys case-insensitively with the trailing dot normalised', () => {
    const g = new DddsLoopGuard();
    expect(g.visit('Lex.URN.arpa')).toEqual({ ok: true, value: 1 });
    const again = g.visit('lex.urn.arpa.');
    expect(again).toMatchObject({ ok: false, error: { code: 'DDDS_LOOP' } });
    expect(g.steps).toBe(1);
  });

  it('defaults to 10 steps', () => {
    const g = new DddsLoopGuard();
    for (let i = 0; i < 10; i++) expect(g.visit(`k${i}.example`).ok).toBe(true);
    expect(g.visit('k10.example')).toMatchObject({ ok: false, error: { code: 'DDDS_STEP_LIMIT' } });
  });

  it('property: any sequence is accepted until the first repeat or the limit, and never after', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'A.', 'b', 'b.', 'c', 'd', 'e', 'f'), { maxLength: 12 }),
        fc.integer({ min: 1, max: 6 }),
        (keys, limit) => {
          const g = new DddsLoopGuard(limit);
          const seen = new Set<string>();
          for (const k of keys) {
            const norm = DddsLoopGuard.normalize(k);
            const r = g.visit(k);
            if (seen.has(norm)) {
              expect(r).toMatchObject({ ok: false, error: { code: 'DDDS_LOOP' } });
              return;
            }
            if (seen.size >= limit) {
              expect(r).toMatchObject({ ok: false, error: { code: 'DDDS_STEP_LIMIT' } });
              return;
            }
            expect(r.ok).toBe(true);
            seen.add(norm);
          }
        },
      ),
    );
  });
});
