/**
 * Zone cuts from routing tables (issue 30): a route to a zone below the
 * table's writes NS, glue and DS at the cut when it says `ns:` (and `ds:`),
 * so the parent served alone (NSD, holding no child) answers a referral; a
 * route without `ns` gets TABLE_CUT_NO_NS, and the zone it builds is flagged
 * by `zone check --strict` (NAPTR_DELEGATION_NO_CUT) and by `chain check
 * --zones` (CHAIN_NO_CUT), where NSD holding only that parent answers
 * NXDOMAIN.
 */
import dgram from 'node:dgram';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildZone } from '../../src/routes/core/build.ts';
import { readRoutingTable } from '../../src/routes/table.ts';
import { normalizeLexUrn } from '../../src/urn/core/index.ts';
import { freePortOnAll } from '../../src/dev/ports.ts';
import { run } from '../../src/cli/main.ts';
import { startNsd, type Daemon } from '../e2e/daemons.ts';
import { captureIo } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';

const canonical = (u: string) => {
  const n = normalizeLexUrn(u);
  return n.ok ? n.canonical : u;
};

const DS = '12345 13 2 0DBE2B3D8A4B4F7D9C37C0A6E6BBE5B1C1E8A0D3E4F5A6B7C8D9E0F1A2B3C4D5';

/** The parent table: `pt;acores` to its own zone below, with `cut` (ns/ds lines) or none. */
function parentTable(cut: string): string {
  return `zone: pt.lex.urn.arpa.
soa: { mname: ns1.pt.lex.urn.arpa., rname: hostmaster.pt.lex.urn.arpa., serial: 2026112801 }
ns:
  - { name: ns1.pt.lex.urn.arpa., address: 127.0.0.1 }
routes:
  - prefix: pt;acores
    zone: acores.pt.lex.urn.arpa.
${cut}default:
  url: http://resolver.pt.example/uri-res/{service}?{urn}
  services: [N2L]
`;
}

const WITH_CUT = `    ns:
      - { name: ns1.acores.pt.lex.urn.arpa., address: [192.0.2.53, 2001:db8::53] }
      - ns.elsewhere.example.
    ds: ['${DS}']
`;

const CHILD_TABLE = `zone: acores.pt.lex.urn.arpa.
soa: { serial: 2026112801 }
ns:
  - { name: ns1.acores.pt.lex.urn.arpa., address: 192.0.2.53 }
routes: []
default:
  url: http://resolver.acores.example/uri-res/{service}?{urn}
  services: [N2L]
  example: urn:lex:pt;acores:regional:decreto:2020-01-01;1
`;

/** The first key's zone: `pt` to pt.lex.urn.arpa., with its cut. */
const TOP_TABLE = `zone: lex.urn.arpa.
soa: { serial: 2026112801 }
ns:
  - { name: ns1.lex.urn.arpa., address: 127.0.0.1 }
routes:
  - prefix: pt
    zone: pt.lex.urn.arpa.
    ns: [{ name: ns1.pt.lex.urn.arpa., address: 127.0.0.1 }]
default: none
`;

function build(text: string): { text: string; warnings: string[] } {
  const r = readRoutingTable(text);
  if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
  const built = buildZone(r.table, canonical);
  expect(built.diagnostics).toEqual([]);
  return { text: built.text, warnings: r.warnings.map((w) => w.code) };
}

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo();
  const code = await run(args, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

/** An answer's data (dns-packet's OPT answers have none). */
const dataOf = (a: dnsPacket.Answer): unknown => (a as { data?: unknown }).data;

/** One UDP query (no recursion desired), decoded. */
async function ask(port: number, name: string, type: dnsPacket.RecordType) {
  const sock = dgram.createSocket('udp4');
  try {
    return await new Promise<dnsPacket.Packet & { rcode?: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer for ${name} ${type}`)), 3000);
      sock.on('message', (m) => {
        clearTimeout(timer);
        resolve(dnsPacket.decode(m) as dnsPacket.Packet & { rcode?: string });
      });
      sock.send(
        dnsPacket.encode({ id: 7, type: 'query', questions: [{ name, type }] }),
        port,
        '127.0.0.1',
      );
    });
  } finally {
    sock.close();
  }
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lexroute-zone-cut-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a route to a zone below the table', () => {
  it('with ns and ds: NS, glue and DS at the cut, no warning', () => {
    const { text, warnings } = build(parentTable(WITH_CUT));
    expect(warnings).toEqual([]);
    expect(text).toContain('acores.pt.lex.urn.arpa. IN NS ns1.acores.pt.lex.urn.arpa.');
    expect(text).toContain('acores.pt.lex.urn.arpa. IN NS ns.elsewhere.example.');
    expect(text).toContain(`acores.pt.lex.urn.arpa. IN DS ${DS}`);
    expect(text).toContain('ns1.acores.pt.lex.urn.arpa. IN A 192.0.2.53');
    expect(text).toContain('ns1.acores.pt.lex.urn.arpa. IN AAAA 2001:db8::53');
    // No address is written for a name server outside the zone.
    expect(text).not.toMatch(/ns\.elsewhere\.example\. IN A/);
  });

  it('without ns: TABLE_CUT_NO_NS, a warning', () => {
    expect(build(parentTable('')).warnings).toEqual(['TABLE_CUT_NO_NS']);
  });

  it('refuses ns to a zone that is not below, ds without ns, and a malformed ds', () => {
    const codes = (text: string) => {
      const r = readRoutingTable(text);
      return r.ok ? [] : r.diagnostics.map((d) => [d.code, d.position.line]);
    };
    const sibling = parentTable(WITH_CUT).replace(
      'zone: acores.pt.lex.urn.arpa.',
      'zone: lex.acores.example.',
    );
    expect(codes(sibling)).toEqual([['TABLE_CUT_OUTSIDE', 6]]);
    expect(codes(parentTable(`    ds: ['${DS}']\n`))).toEqual([['TABLE_DS_WITHOUT_NS', 8]]);
    expect(codes(parentTable(WITH_CUT.replace(DS, '1 2 3 nothex')))).toEqual([
      ['TABLE_BAD_DS', 11],
    ]);
    expect(
      codes(
        parentTable(WITH_CUT).replace(
          'prefix: pt;acores\n    zone: acores.pt.lex.urn.arpa.',
          'prefix: pt;acores\n    url: http://x.example/{urn}',
        ),
      ),
    ).toEqual([['TABLE_KEY_NOT_HERE', 8]]);
  });

  it('zone check --strict and chain check --zones flag the zone built without ns', async () => {
    const zones = join(dir, 'no-cut');
    mkdirSync(zones);
    writeFileSync(join(zones, 'pt.lex.urn.arpa.zone'), build(parentTable('')).text);
    writeFileSync(join(zones, 'acores.pt.lex.urn.arpa.zone'), build(CHILD_TABLE).text);
    writeFileSync(join(zones, 'lex.urn.arpa.zone'), build(TOP_TABLE).text);
    const check = await cli(['zone', 'check', '--strict', join(zones, 'pt.lex.urn.arpa.zone')]);
    expect(check.code).toBe(1);
    expect(check.out + check.err).toMatch(/NAPTR_DELEGATION_NO_CUT/);
    const list = join(dir, 'list.txt');
    writeFileSync(list, 'pt;acores\npt;lisboa\n');
    const chain = await cli(['chain', 'check', '--zones', zones, list]);
    expect(chain.code).toBe(1);
    expect(chain.out).toMatch(/2 checked: 1 reach a resolver, 0 handed off, 1 failed/);
    expect(chain.out).toMatch(/CHAIN_NO_CUT: 1 \(e\.g\. pt;acores\)/);

    const cut = join(dir, 'cut');
    mkdirSync(cut);
    writeFileSync(join(cut, 'pt.lex.urn.arpa.zone'), build(parentTable(WITH_CUT)).text);
    writeFileSync(join(cut, 'acores.pt.lex.urn.arpa.zone'), build(CHILD_TABLE).text);
    writeFileSync(join(cut, 'lex.urn.arpa.zone'), build(TOP_TABLE).text);
    const clean = await cli(['zone', 'check', '--strict', join(cut, 'pt.lex.urn.arpa.zone')]);
    expect(clean.out + clean.err).not.toMatch(/NAPTR_DELEGATION_NO_CUT/);
    expect(clean.code).toBe(0);
    const ok = await cli(['chain', 'check', '--zones', cut, list]);
    expect(ok.out).toMatch(/2 checked: 2 reach a resolver/);
    expect(ok.code).toBe(0);
  });
});

const nsd = toolOrSkip('nsd');
describe.skipIf(nsd.path === undefined)(
  `the parent served by NSD alone${nsd.skipReason ? ` (${nsd.skipReason})` : ''}`,
  () => {
    let server: Daemon | undefined;
    let port = 0;
    afterAll(async () => server?.close());

    async function serve(table: string): Promise<void> {
      await server?.close();
      const file = join(dir, `parent-${Math.random().toString(36).slice(2)}.zone`);
      writeFileSync(file, build(table).text);
      port = await freePortOnAll(['127.0.0.1']);
      server = await startNsd(nsd.path!, '127.0.0.1', port, [{ origin: 'pt.lex.urn.arpa.', file }]);
    }

    it('answers a referral at the cut: NS in authority, glue in additional, DS from the parent', async () => {
      await serve(parentTable(WITH_CUT));
      const r = await ask(port, 'acores.pt.lex.urn.arpa', 'NAPTR');
      expect(r.rcode).toBe('NOERROR');
      expect(r.flags! & dnsPacket.AUTHORITATIVE_ANSWER).toBe(0);
      expect(r.answers).toEqual([]);
      expect(
        r
          .authorities!.filter((a) => a.type === 'NS')
          .map(dataOf)
          .sort(),
      ).toEqual(['ns.elsewhere.example', 'ns1.acores.pt.lex.urn.arpa']);
      const glue = r.additionals!.filter((a) => a.type === 'A' || a.type === 'AAAA');
      expect(glue.map((a) => [a.name, dataOf(a)]).sort()).toEqual([
        ['ns1.acores.pt.lex.urn.arpa', '192.0.2.53'],
        ['ns1.acores.pt.lex.urn.arpa', '2001:db8::53'],
      ]);
      const ds = await ask(port, 'acores.pt.lex.urn.arpa', 'DS');
      expect(ds.rcode).toBe('NOERROR');
      expect(ds.answers!.map((a) => a.type)).toEqual(['DS']);
      expect((dataOf(ds.answers![0]!) as { keyTag: number }).keyTag).toBe(12345);
    });

    it('without ns, the same name is NXDOMAIN', async () => {
      await serve(parentTable(''));
      const r = await ask(port, 'acores.pt.lex.urn.arpa', 'NAPTR');
      expect(r.rcode).toBe('NXDOMAIN');
    });
  },
);
