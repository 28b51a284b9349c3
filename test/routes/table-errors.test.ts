/**
 * Bad routing tables: every problem is reported with a stable code at the
 * table's line and column (of the offending key or value).
 */
import { describe, expect, it } from 'vitest';
import { readRoutingTable } from '../../src/routes/table.ts';
import { run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const HEAD = `zone: lex.example.br.
ns:
  - { name: ns1.lex.example.br., address: 192.0.2.1 }
`;

function errorsOf(text: string) {
  const r = readRoutingTable(text);
  expect(r.ok).toBe(false);
  return r.ok
    ? []
    : r.diagnostics.map((d) => ({ code: d.code, ...d.position, message: d.message }));
}

describe('bad routing tables give errors at the line and column', () => {
  const cases: { name: string; text: string; code: string; line: number; column: number }[] = [
    {
      name: 'a route shadowed by a less specific one listed before it',
      text: `${HEAD}routes:
  - prefix: br;sao.paulo
    zone: lex.sp.gov.br.
  - prefix: br;sao.paulo;campinas
    zone: lex.campinas.sp.gov.br.
default: none
`,
      code: 'TABLE_ROUTE_SHADOWED',
      line: 7,
      column: 5,
    },
    {
      name: 'the same prefix twice (case and urn:lex: do not make it different)',
      text: `${HEAD}routes:
  - prefix: br;sao.paulo
    zone: lex.sp.gov.br.
  - prefix: URN:LEX:BR;SAO.PAULO
    zone: lex.sp2.gov.br.
default: none
`,
      code: 'TABLE_ROUTE_DUPLICATE',
      line: 7,
      column: 5,
    },
    {
      name: 'an unknown flag',
      text: `${HEAD}routes:
  - prefix: br
    flag: X
    url: http://r.example/{urn}
default: none
`,
      code: 'TABLE_UNKNOWN_FLAG',
      line: 6,
      column: 11,
    },
    {
      name: 'an unknown service',
      text: `${HEAD}routes:
  - prefix: br
    url: http://r.example/uri-res/{service}?{urn}
    services: [N2L, N2X]
default: none
`,
      code: 'TABLE_UNKNOWN_SERVICE',
      line: 7,
      column: 21,
    },
    {
      name: 'a URL template without the URN',
      text: `${HEAD}routes: []
default:
  url: http://r.example/uri-res/N2L
`,
      code: 'TABLE_URL_NO_URN',
      line: 6,
      column: 8,
    },
    {
      name: 'a target that is not a domain name',
      text: `${HEAD}routes:
  - prefix: br;sao.paulo
    zone: "lex sp gov br"
default: none
`,
      code: 'TABLE_BAD_NAME',
      line: 6,
      column: 11,
    },
    {
      name: 'an unknown key',
      text: `${HEAD}routes:
  - prefix: br
    zone: lex.br.
    colour: blue
default: none
`,
      code: 'TABLE_UNKNOWN_KEY',
      line: 7,
      column: 5,
    },
    {
      name: 'a prefix that is not LEX (the column points into the value)',
      text: `${HEAD}routes:
  - prefix: br;sao paulo
    zone: lex.sp.gov.br.
default: none
`,
      code: 'ROUTE_PREFIX_SYNTAX',
      line: 5,
      column: 19,
    },
    {
      name: 'no default (it must be given, or none)',
      text: `${HEAD}routes: []
`,
      code: 'TABLE_NO_DEFAULT',
      line: 1,
      column: 1,
    },
    {
      name: 'a YAML syntax error',
      text: `${HEAD}routes: [ { prefix: br, zone: lex.br. }
default: none
`,
      code: 'TABLE_YAML_BAD_INDENT',
      line: 5,
      column: 1,
    },
    {
      name: 'a JSON table with an example another route takes',
      text: `{"zone": "lex.example.br.", "ns": ["ns1.example.net."],
 "routes": [
  {"prefix": "br;sao.paulo", "zone": "lex.sp.gov.br."},
  {"prefix": "br;minas.gerais", "zone": "lex.mg.gov.br.", "example": "urn:lex:br;sao.paulo:a:b:2000-01-01;1"}
 ],
 "default": "none"}
`,
      code: 'TABLE_EXAMPLE_ELSEWHERE',
      line: 4,
      column: 3,
    },
    {
      name: 'a name server inside the zone without its address',
      text: `zone: lex.example.br.
ns:
  - ns2.other.example.
  - ns1.lex.example.br.
routes: []
default: none
`,
      code: 'TABLE_NO_GLUE',
      line: 4,
      column: 5,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const errors = errorsOf(c.text);
      expect(errors[0]).toMatchObject({ code: c.code, line: c.line, column: c.column });
      expect(errors[0]!.message.length).toBeGreaterThan(10);
    });
  }

  it('lexroute zone build prints TABLE:line:col: CODE and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lexroute-table-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, cases[3]!.text);
    const io = captureIo();
    expect(await run(['zone', 'build', file], io)).toBe(1);
    expect(io.stderr()).toMatch(
      new RegExp(`^${file}:7:21: TABLE_UNKNOWN_SERVICE unknown resolution service "N2X"`),
    );
    expect(io.stdout()).toBe('');
  });
});
