/**
 * The NAPTR lint at zone scale. `lintNaptrRecords` reads each distinct
 * combination of fields once (cache by octets, substitution templates) and
 * checks the PREFERENCE rule per run of one owner; none of that may change
 * what it reports. Checked two ways:
 * - property: on generated record lists (owners interleaved, rules that share
 *   templates, malformed RDATA), the result equals a plain reference: each
 *   record linted alone (fresh caches), then NAPTR_PREFERENCE_AS_ORDER by a
 *   pairwise walk over each owner's records;
 * - a generated zone of 30,000 NAPTR records (per-jurisdiction rules, as
 *   bench/zone-load.ts) with known faults at known lines, loaded by the real
 *   loader: exactly those findings, and its `; expect` directives checked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ResourceRecord, ZoneDiagnostic } from '../../src/dns/core/zone/model.ts';
import {
  checkExpectations,
  lintNaptrRecords,
  naptrFields,
} from '../../src/ddds/core/lint/naptr-lint.ts';
import { loadZoneFile } from '../../src/authority/zones/load.ts';

const enc = new TextEncoder();

function charString(s: string | Uint8Array): number[] {
  const b = typeof s === 'string' ? [...enc.encode(s)] : [...s];
  return [b.length, ...b];
}

function wireName(name: string): number[] {
  if (name === '.') return [0];
  const out: number[] = [];
  for (const label of name.replace(/\.$/, '').split('.')) out.push(...charString(label));
  out.push(0);
  return out;
}

interface Spec {
  owner: string;
  order: number;
  preference: number;
  flags: string | Uint8Array;
  services: string;
  regexp: string | Uint8Array;
  replacement: string;
  line: number;
  short?: boolean;
}

function record(s: Spec): ResourceRecord {
  const rdata = s.short
    ? new Uint8Array([0, 1, 0, 2, 0])
    : new Uint8Array([
        s.order >> 8,
        s.order & 255,
        s.preference >> 8,
        s.preference & 255,
        ...charString(s.flags),
        ...charString(s.services),
        ...charString(s.regexp),
        ...wireName(s.replacement),
      ]);
  return {
    owner: s.owner,
    type: 35,
    class: 1,
    ttl: 300,
    rdata,
    ...(s.line % 5 === 0 ? {} : { source: { file: 'gen.zone', line: s.line, column: 1 } }),
  };
}

/** The reference: every record alone, then the PREFERENCE rule pairwise per owner. */
function reference(records: readonly ResourceRecord[]): ZoneDiagnostic[] {
  const out: ZoneDiagnostic[] = [];
  for (const rr of records) out.push(...lintNaptrRecords([rr]));
  const byOwner = new Map<string, ResourceRecord[]>();
  for (const rr of records) {
    if (rr.type !== 35 || naptrFields(rr.rdata) === undefined) continue;
    const list = byOwner.get(rr.owner) ?? [];
    list.push(rr);
    byOwner.set(rr.owner, list);
  }
  for (const list of byOwner.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const a = naptrFields(list[i]!.rdata)!;
        const b = naptrFields(list[j]!.rdata)!;
        if (a.order !== b.order || a.preference === b.preference) continue;
        if (a.flags.toLowerCase() !== b.flags.toLowerCase()) continue;
        if (a.services.toLowerCase() !== b.services.toLowerCase()) continue;
        if (a.regexp === b.regexp && a.replacement === b.replacement) continue;
        const later = a.preference > b.preference ? list[i]! : list[j]!;
        const lf = a.preference > b.preference ? a : b;
        out.push({
          code: 'NAPTR_PREFERENCE_AS_ORDER',
          severity: 'warning',
          message: `records with ORDER ${a.order}, the same flags and services but different rules are told apart only by PREFERENCE (${a.preference}, ${b.preference}); a client MAY pick either (RFC 3403 section 4.1): use different ORDER values for "more specific first"`,
          ...(later.source ? { position: later.source } : {}),
          token: String(lf.preference),
        });
      }
    }
  }
  return out;
}

const CODES = ['br', 'br;sao.paulo', 'br;sao\\.paulo', 'it', 'un.org', 'de;by', 'x', 'BR'];
const regexp = fc.oneof(
  // Rules of one shape that differ in literals (shared templates), some with faults.
  fc
    .tuple(
      fc.constantFrom(...CODES),
      fc.constantFrom('[;:].*$', '', ';([^:;]+)[;:].*$', '(.*)$'),
      fc.constantFrom('lex.example', '\\1.lex.example', '\\2.x', 'https://r.example/\\1', ''),
      fc.constantFrom('', 'i', 'x'),
    )
    .map(([code, tail, repl, flags]) => `!^urn:lex:${code}${tail}!${repl}!${flags}`),
  fc.constantFrom(
    '!^(.*)$!https://h.example/uri-res/N2L?\\1!',
    '!^(.*)$!/relative/\\1!',
    '!urn:lex:br!x!',
    '!^a{2}$!x!',
    '!^((a{10}){10}){11}$!x!',
    '!\\d!x!',
    '/^http:\\/\\/([^\\/:]+)/\\1/i',
    '!a!b',
    '',
    'i^aibi',
  ),
  fc.constant(new Uint8Array([0x21, 0xc3, 0x28, 0x21, 0x78, 0x21])), // not UTF-8
);
const spec = fc.record({
  owner: fc.constantFrom('a.example.', 'b.example.', 'c.example.', 'd.example.'),
  order: fc.constantFrom(100, 200),
  preference: fc.constantFrom(10, 20, 30),
  flags: fc.constantFrom('', 'u', 'U', 's', 'a', 'p', 'us', 'x'),
  services: fc.constantFrom('', 'http+N2L', 'http+N2Ls', 'E2U+sip', '+x'),
  regexp,
  replacement: fc.constantFrom('.', '.', '.', 'next.example.'),
  short: fc.integer({ min: 0, max: 30 }).map((x) => x === 0),
});

describe('lintNaptrRecords equals the per-record reference', () => {
  it('on generated record lists (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(spec, { maxLength: 40 }), fc.boolean(), (specs, grouped) => {
        // Grouped: owners' records consecutive (the usual zone); otherwise interleaved.
        const ordered = grouped ? [...specs].sort((x, y) => x.owner.localeCompare(y.owner)) : specs;
        const records = ordered.map((s, i) => record({ ...s, line: i + 1 }));
        // A record of another type between them changes nothing.
        records.splice(Math.floor(records.length / 2), 0, {
          owner: 'a.example.',
          type: 1,
          class: 1,
          ttl: 1,
          rdata: new Uint8Array([192, 0, 2, 1]),
        });
        expect(lintNaptrRecords(records)).toEqual(reference(records));
      }),
      { numRuns: 600, seed: 3403 },
    );
  });
});

describe('more distinct fields than the lint keeps', () => {
  it('the cache starts over and a rule seen before the restart is checked again', () => {
    // 45,000 distinct rules of about 100 octets (more than the 1 MiB the cache keeps),
    // and one faulty rule every 997 records (a repeat hits or misses the cache).
    const records: ResourceRecord[] = [];
    const want: [string, number][] = [];
    for (let k = 0; k < 45_000; k++) {
      const faulty = k % 997 === 0;
      const regexp = faulty
        ? '!urn:lex:br.*$!lex.example!'
        : `!^urn:lex:br;unit-${k}-${'x'.repeat(50)}[;:].*$!host-${k}.example!i`;
      records.push(
        record({
          owner: `o${k}.example.`,
          order: 100,
          preference: 10,
          flags: '',
          services: '',
          regexp,
          replacement: '.',
          line: 10 * k + 1,
        }),
      );
      if (faulty)
        want.push(['NAPTR_UNANCHORED', 10 * k + 1], ['NAPTR_JURISDICTION_UNBOUNDED', 10 * k + 1]);
    }
    const lint = lintNaptrRecords(records);
    expect(lint.map((d) => [d.code, d.position?.line])).toEqual(want);
  });
});

describe('one name with a rule per jurisdiction (variant A)', () => {
  it('20,000 rules at one owner: only the pairs told apart by PREFERENCE alone, in record order', () => {
    const records: ResourceRecord[] = [];
    const base = {
      owner: 'lex-nameserver.nic.example.',
      flags: '',
      services: '',
      replacement: '.',
    };
    for (let k = 0; k < 20_000; k++) {
      records.push(
        record({
          ...base,
          order: 100,
          preference: 10,
          regexp: `!^urn:lex:j${k}[;:].*$!lex.j${k}.example!i`,
          line: k + 1,
        }),
      );
    }
    // Two rules at ORDER 200 told apart only by PREFERENCE, and the same rule twice (no pair).
    const tail = [
      { order: 200, preference: 20, regexp: '!^urn:lex:x[;:].*$!a.example!i', line: 20_001 },
      { order: 200, preference: 10, regexp: '!^urn:lex:y[;:].*$!b.example!i', line: 20_002 },
      { order: 300, preference: 10, regexp: '!^urn:lex:z[;:].*$!c.example!i', line: 20_003 },
      { order: 300, preference: 20, regexp: '!^urn:lex:z[;:].*$!c.example!i', line: 20_004 },
    ];
    for (const t of tail) records.push(record({ ...base, ...t }));
    const lint = lintNaptrRecords(records);
    expect(lint.map((d) => [d.code, d.position?.line, d.token])).toEqual([
      ['NAPTR_PREFERENCE_AS_ORDER', 20_001, '20'],
    ]);
    expect(lint).toEqual(
      reference(records.slice(19_990)).filter((d) => d.code === 'NAPTR_PREFERENCE_AS_ORDER'),
    );
  });
});

describe('a generated zone of 30,000 NAPTR records', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lexroute-lint-scale-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'lex.example.zone');
  const lines = [
    '$ORIGIN lex.example.',
    '$TTL 3600',
    '@ IN SOA ns1 hostmaster 1 3600 900 604800 300',
    '@ IN NS ns1',
    'ns1 IN A 192.0.2.1',
  ];
  const faults: [string, number][] = [];
  const expects: number[] = [];
  for (let n = 0; n < 10_000; n++) {
    const unit = `u${n}`;
    const code = n % 2500 === 7 ? `br;un.${unit}` : `br;${unit}`;
    const owner = `${unit}.br`;
    const unbounded = n % 3000 === 11;
    const rule = unbounded
      ? `!^urn:lex:${code}.*$!${owner}.lex.example!i`
      : `!^urn:lex:${code};([^:;@$~]+)[;:].*$!\\\\1.${owner}.lex.example!i`;
    lines.push(`${owner} IN NAPTR 100 10 "" "" "${rule}" .`);
    if (code.includes('un.')) faults.push(['NAPTR_UNESCAPED_DOT', lines.length]);
    if (unbounded) faults.push(['NAPTR_JURISDICTION_UNBOUNDED', lines.length]);
    const pref = n % 4000 === 5 ? '30' : '20';
    const uri = n % 3500 === 3 ? '/uri-res' : `https://r${n % 97}.example/uri-res`;
    lines.push(`${owner} IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!${uri}/N2L?\\\\1!" .`);
    if (uri.startsWith('/')) faults.push(['NAPTR_U_NOT_URI', lines.length]);
    lines.push(
      `${owner} IN NAPTR 200 ${pref} "u" "http+N2L${pref === '30' ? '' : 's'}" "!^(.*)$!https://r${n % 97}.example/uri-res/N2Ls?\\\\1!" .`,
    );
    if (pref === '30') faults.push(['NAPTR_PREFERENCE_AS_ORDER', lines.length]);
    if (n % 1000 === 0) {
      const want = n === 2000 ? 'wrong.example.' : `x.${owner}.lex.example.`;
      lines.push(`; expect urn:lex:br;${unit};x:lei:2020 -> ${want}`);
      expects.push(lines.length);
    }
  }
  writeFileSync(file, `${lines.join('\n')}\n`);

  it('reports exactly the planted faults, at their lines', async () => {
    const r = await loadZoneFile(file);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.records.length).toBe(30_003);
    const lint = lintNaptrRecords(r.records);
    // Per-record findings in record order, then the PREFERENCE ones.
    const order = (code: string) => (code === 'NAPTR_PREFERENCE_AS_ORDER' ? 1 : 0);
    const want = [...faults].sort((a, b) => order(a[0]) - order(b[0]) || a[1] - b[1]);
    expect(lint.map((d) => [d.code, d.position?.line])).toEqual(want);
    expect(lint).toEqual(reference(r.records));
  });

  it('checks its expect directives (one wrong)', async () => {
    const r = await loadZoneFile(file);
    expect(r.expects.map((e) => e.position.line)).toEqual(expects);
    const found = checkExpectations(r.expects, r.records);
    expect(found.map((d) => [d.code, d.position?.line])).toEqual([
      ['NAPTR_EXPECT_MISMATCH', expects[2]],
    ]);
    expect(found[0]?.message).toContain(
      'wanted wrong.example., the rules give x.u2000.br.lex.example',
    );
  });
});
