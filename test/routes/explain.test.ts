/**
 * lexroute zone explain: the routes of hand-written rules, and the rules
 * that never match, are shadowed by a lower ORDER, or claim a prefix another
 * rule of the same ORDER claims.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';
import { LOCALIDADE, LOCALIDADE_CORPUS, ROOT, withLocalidade } from './brazil.ts';

const ZONE = `$ORIGIN lex.example.br.
$TTL 3600
@ IN SOA ns1 hostmaster 1 7200 3600 1209600 600
@ IN NS ns1
ns1 IN A 192.0.2.1
@ IN NAPTR 100 10 "" "" "!^urn:lex:br;sao\\\\.paulo[;:].*$!lex.sp.gov.br!i" .
@ IN NAPTR 100 20 "" "" "!^urn:lex:br;sao\\\\.paulo;campinas[;:].*$!lex.campinas.sp.gov.br!i" .
@ IN NAPTR 110 10 "" "" "!^urn:lex:br;sao\\\\.paulo;santos[;:].*$!lex.santos.sp.gov.br!i" .
@ IN NAPTR 120 10 "" "" "!^urn:lex:BR;RIO[;:].*$!lex.rj.gov.br!" .
@ IN NAPTR 130 10 "x" "" "!^urn:lex:br;acre[;:].*$!lex.ac.gov.br!i" .
@ IN NAPTR 140 10 "" "" "!^urn:nir:.*$!nir.example!i" .
@ IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!http://r.example/uri-res/N2L?\\\\1!" .
@ IN NAPTR 200 20 "u" "http+N2C" "!^(.*)$!http://r.example/uri-res/N2C?\\\\1!" .
`;

async function cli(args: string[]) {
  const io = captureIo();
  const code = await run(args, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('lexroute zone explain', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lexroute-explain-'));
  const file = join(dir, 'lex.example.br.zone');
  writeFileSync(file, ZONE);

  it('flags never-matching, shadowed and doubly-claimed rules with their line', async () => {
    const r = await cli(['zone', 'explain', '--json', file]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as {
      files: {
        routes: { order: number; match: { kind: string } }[];
        findings: { code: string; rule: number; position: { line: number } }[];
      }[];
    };
    const f = j.files[0]!;
    expect(f.routes.map((x) => [x.order, x.match.kind])).toEqual([
      [100, 'prefix'],
      [100, 'prefix'],
      [110, 'prefix'],
      [120, 'never'],
      [130, 'never'],
      [140, 'never'],
      [200, 'any'],
    ]);
    expect(f.findings.map((x) => [x.code, x.position.line])).toEqual([
      ['ROUTE_DOUBLY_CLAIMED', 7],
      ['ROUTE_SHADOWED', 8],
      ['ROUTE_NEVER_MATCHES', 9],
      ['ROUTE_NEVER_MATCHES', 10],
      ['ROUTE_NEVER_MATCHES', 11],
    ]);
  });

  it('prints a table for people: one line per route, a U route with its services merged', async () => {
    const r = await cli(['zone', 'explain', file]);
    expect(r.out).toMatch(
      /^ +1 +100 +10 +urn:lex:br;sao\.paulo +-> zone lex\.sp\.gov\.br\. +line 6$/m,
    );
    expect(r.out).toMatch(
      /^ +7,8 +200 +10,20 +\(any URN\) +-> U http:\/\/r\.example\/uri-res\/\{service\}\?\{urn\} {2}N2L N2C +lines 12,13$/m,
    );
    expect(r.out).toMatch(
      /:8:1: ROUTE_SHADOWED warning: rule 3 .* rule 1 \(ORDER 100, urn:lex:br;sao\.paulo\) takes every URN it takes/,
    );
  });

  it('--table prints a table that zone build turns back into the same routes', async () => {
    const hand = join(ROOT, 'zones/lex.senado.gov.br.zone');
    const t = await cli(['zone', 'explain', '--table', hand]);
    expect(t.code).toBe(0);
    const table = join(dir, 'senado.yaml');
    writeFileSync(
      table,
      t.out.replace(
        'zone: lex.senado.gov.br.\n',
        'zone: lex.senado.gov.br.\nns: [{ name: ns1.lex.senado.gov.br., address: 127.0.0.1 }]\n',
      ),
    );
    const built = join(dir, 'lex.senado.gov.br.zone');
    expect((await cli(['zone', 'build', table, '-o', built])).code).toBe(0);
    const a = JSON.parse((await cli(['zone', 'explain', '--json', built])).out) as {
      files: { routes: { positions: unknown }[] }[];
    };
    const b = JSON.parse((await cli(['zone', 'explain', '--json', hand])).out) as typeof a;
    const strip = (x: typeof a) => x.files[0]!.routes.map((r) => ({ ...r, positions: [] }));
    expect(strip(a)).toEqual(strip(b));
    expect(readFileSync(built, 'utf8')).toMatch(
      /; expect urn:lex:br;sao\.paulo:authority:act:2000-01-01;1 -> lex\.sao-paulo\.gov\.br\./,
    );
  });

  it('--table refuses rules that copy a unit into the key', async () => {
    const r = await cli([
      'zone',
      'explain',
      '--table',
      join(ROOT, 'zones/lex.sao-paulo.gov.br.zone'),
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/ROUTE_NO_TABLE_FORM .*lex\.sao-paulo\.gov\.br\.zone: /);
  });
});

describe.skipIf(LOCALIDADE_CORPUS.skipReason !== undefined)(
  withLocalidade('chain check over the sample zones'),
  () => {
    it('groups the municipalities a copy rule sends to their own keys into one line', async () => {
      const r = await cli(['chain', 'check', '--zones', join(ROOT, 'zones'), '--json', LOCALIDADE]);
      expect(r.code).toBe(0);
      const j = JSON.parse(r.out) as {
        total: number;
        groups: { prefix: string; count: number; path: string[] }[];
      };
      expect(j.total).toBe(5664);
      const sp = j.groups.find((g) => g.path.at(-1) === '*.municipios.lex.sao-paulo.gov.br.');
      // 645 municipalities of São Paulo in the CSV; Campinas has its own zone.
      expect(sp).toMatchObject({ prefix: 'br;sao.paulo', count: 644 });
    });
  },
);
