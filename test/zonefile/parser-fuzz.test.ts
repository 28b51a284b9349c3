/**
 * Bounded fuzz target for the zone parser (issue 21): random zone-like texts
 * and mutations of the sample zones. Whatever the input, the parse ends
 * without throwing, every diagnostic has a ZONE_ code and a position, and a
 * text parsed in random pieces gives exactly what the whole text gives (the
 * carry-over of cut entries is where the linear-time reader could go wrong).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseZoneChunks,
  parseZoneText,
  type ParseResult,
} from '../../src/dns/core/zone/parser.ts';

const ZONES = resolve(import.meta.dirname, '../../zones');
const SAMPLES = readdirSync(ZONES)
  .filter((n) => n.endsWith('.zone'))
  .map((n) => readFileSync(join(ZONES, n), 'utf8'));

const ALPHABET = [
  ...'abcxyz019.-_*@$();"\\ \t\n\r\n\n',
  'IN',
  ' A ',
  ' NAPTR ',
  ' SOA ',
  ' TXT ',
  '$ORIGIN ',
  '$TTL ',
  '$INCLUDE ',
  '\\065',
  '\u00e9',
  '\u{1F600}',
  '\x1b',
  '\0',
];
const zoneLike = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 400 }).map((a) => a.join(''));

/** A sample zone with a few edits: characters deleted, duplicated or replaced. */
const mutated = fc
  .tuple(
    fc.constantFrom(...SAMPLES),
    fc.array(fc.tuple(fc.nat(), fc.nat({ max: 3 }), fc.constantFrom(...ALPHABET)), {
      maxLength: 8,
    }),
  )
  .map(([text, edits]) => {
    let t = text;
    for (const [at, op, s] of edits) {
      const i = at % (t.length + 1);
      if (op === 0) t = t.slice(0, i) + t.slice(i + 1);
      else if (op === 1) t = t.slice(0, i) + s + t.slice(i);
      else if (op === 2) t = t.slice(0, i) + t.slice(i, i + 40) + t.slice(i);
      else t = t.slice(0, i) + s + t.slice(i + 1);
    }
    return t;
  });

function shape(r: ParseResult) {
  return {
    diagnostics: r.diagnostics,
    origin: r.origin,
    expects: r.expects,
    records: r.records.map((x) => [x.owner, x.type, x.class, x.ttl, Array.from(x.rdata)]),
  };
}

function pieces(text: string, cuts: number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let prev = 0;
  for (const c of at) {
    out.push(text.slice(prev, c));
    prev = c;
  }
  out.push(text.slice(prev));
  return out;
}

function checkOne(text: string, cuts: number[], maxEntryChars?: number): void {
  const opts = { origin: 'fuzz.example.', ...(maxEntryChars ? { maxEntryChars } : {}) };
  const whole = parseZoneText(text, opts);
  for (const d of whole.diagnostics) {
    expect(d.code).toMatch(/^ZONE_[A-Z0-9_]+$/);
    if (d.position) expect(d.position.line).toBeGreaterThanOrEqual(1);
  }
  if (maxEntryChars === undefined) {
    expect(shape(parseZoneChunks(pieces(text, cuts), opts))).toEqual(shape(whole));
  }
}

describe('zone parser fuzz (bounded)', () => {
  it('random zone-like text: no throw, coded diagnostics, pieces = whole', () => {
    fc.assert(
      fc.property(zoneLike, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) =>
        checkOne(text, cuts),
      ),
      { numRuns: 300, seed: 21 },
    );
  });
  it('mutated sample zones: no throw, coded diagnostics, pieces = whole', () => {
    fc.assert(
      fc.property(mutated, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) =>
        checkOne(text, cuts),
      ),
      { numRuns: 100, seed: 21 },
    );
  });
  it('the entry limit never throws and always names ZONE_ENTRY_TOO_LONG when it cuts', () => {
    fc.assert(
      fc.property(mutated, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) => {
        const r = parseZoneChunks(pieces(text, cuts), { origin: 'f.', maxEntryChars: 64 });
        if (r.stopped) expect(r.diagnostics.map((d) => d.code)).toContain('ZONE_ENTRY_TOO_LONG');
      }),
      { numRuns: 100, seed: 21 },
    );
  });
});
