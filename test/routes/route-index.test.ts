/**
 * Route indexes (issue 30): a state that routes each of its municipalities
 * (Minas Gerais: 853 in LexML's localidade.csv) writes one NAPTR record per
 * route at its apex, an answer of about 85,000 octets that no DNS message
 * holds. `zone build` refuses it (TABLE_RRSET_TOO_LARGE); with `index: true`
 * it spreads the routes over owners below `lex-route-index.<owner>`, each
 * answer under 1,232 octets. Shown here: every `; expect` line holds (`zone
 * check --strict`), NSD serving the zone answers every owner over UDP
 * without truncation, and `chain check --server` against NSD takes every
 * municipality to its own resolver and an unlisted one to the default.
 */
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildZone } from '../../src/routes/core/build.ts';
import { distinguish, planIndex, runPattern } from '../../src/routes/core/route-index.ts';
import { quoteEre } from '../../src/ddds/core/ere.ts';
import { readRoutingTable } from '../../src/routes/table.ts';
import { normalizeLexUrn } from '../../src/urn/core/index.ts';
import { freePortOnAll } from '../../src/dev/ports.ts';
import { run } from '../../src/cli/main.ts';
import { startNsd, type Daemon } from '../e2e/daemons.ts';
import { captureIo } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { readLocalidade, withLocalidade, LOCALIDADE_CORPUS } from './brazil.ts';
import type { RoutingTable } from '../../src/routes/core/model.ts';

const canonical = (u: string) => {
  const n = normalizeLexUrn(u);
  return n.ok ? n.canonical : u;
};
const q = (s: string) => quoteEre(s);

describe('distinguish: the starts that tell a run of sorted units from its neighbours', () => {
  it('takes the shortest start neither neighbour shares, and drops starts a shorter one covers', () => {
    expect(distinguish(['cabo', 'caete', 'campina'], 'buritis', 'carmo')).toEqual({
      starts: ['cab', 'cae', 'cam'],
      exact: [],
    });
    expect(distinguish(['abadia', 'abaete', 'belo'], undefined, 'betim')).toEqual({
      starts: ['a', 'bel'],
      exact: [],
    });
  });

  it('keeps a unit that starts its neighbour whole, closed by the end of the unit', () => {
    const d = distinguish(['sao', 'sao.jose'], 'santa', 'sao.pedro');
    expect(d).toEqual({ starts: ['sao.j'], exact: ['sao'] });
    expect(runPattern(d, q)).toBe(String.raw`(sao\.j[^;:]*|sao)[;:]`);
  });
});

const MG_ZONE = 'lex.mg.gov.br.';
const cityUrl = (unit: string) =>
  `http://${unit.replaceAll('.', '-')}.mg.example/uri-res/{service}?{urn}`;
const DEFAULT_URL = 'http://estado.mg.example/uri-res/{service}?{urn}';

function stateTable(units: readonly string[], index: boolean): string {
  const routes = units
    .map((u) => `  - prefix: br;minas.gerais;${u}\n    url: ${cityUrl(u)}\n    services: [N2L]\n`)
    .join('');
  return `zone: ${MG_ZONE}
soa: { serial: 2026112801 }
ns:
  - { name: ns1.${MG_ZONE}, address: 127.0.0.1 }
${index ? 'index: true\n' : ''}routes:
${routes}default:
  url: ${DEFAULT_URL}
  services: [N2L]
`;
}

const ROOT_TABLE = `zone: lex.urn.arpa.
soa: { serial: 2026112801 }
ns:
  - { name: ns1.lex.urn.arpa., address: 127.0.0.1 }
routes:
  - prefix: br;minas.gerais
    zone: ${MG_ZONE}
default: none
`;

function table(text: string): RoutingTable {
  const t = readRoutingTable(text);
  if (!t.ok) throw new Error(JSON.stringify(t.diagnostics));
  return t.table;
}

describe.skipIf(LOCALIDADE_CORPUS.skipReason !== undefined)(
  withLocalidade('a state with a route per municipality (Minas Gerais, 853)'),
  () => {
    let units: string[] = [];
    let dir = '';
    beforeAll(() => {
      units = readLocalidade()
        .filter((r) => r.broader === '#br;minas.gerais' && r.about.split(';').length === 3)
        .map((r) => r.about.split(';')[2]!);
      dir = mkdtempSync(join(tmpdir(), 'lexroute-route-index-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('without index: refused, the answer would not fit in a DNS message', () => {
      expect(units.length).toBeGreaterThan(800);
      const built = buildZone(table(stateTable(units, false)), canonical);
      expect(built.diagnostics.map((d) => [d.code, d.severity])).toEqual([
        ['TABLE_RRSET_TOO_LARGE', 'error'],
      ]);
      expect(built.diagnostics[0]!.message).toMatch(/index: true/);
    });

    it('with index: every route in one leaf, every owner under 1,232 octets, zone check --strict passes', async () => {
      const t = table(stateTable(units, true));
      const checks = {
        fits: (rs: readonly unknown[]) => rs.length <= 10,
        fitsRule: () => true,
        fitsIndex: (p: readonly unknown[]) => p.length <= 8,
      };
      const plan = planIndex(t.routes, checks, q);
      const leaves: unknown[] = [];
      const walk = (n: typeof plan) => {
        leaves.push(...n.routes);
        n.children.forEach(walk);
      };
      walk(plan);
      expect(new Set(leaves).size).toBe(units.length);
      expect(leaves.length).toBe(units.length);

      const built = buildZone(t, canonical);
      expect(built.diagnostics).toEqual([]);
      const byOwner = new Map<string, string[]>();
      for (const l of built.text.split('\n')) {
        const m = /^(\S+) IN NAPTR /.exec(l);
        if (m) byOwner.set(m[1]!, [...(byOwner.get(m[1]!) ?? []), l]);
      }
      expect(byOwner.size).toBeGreaterThan(80);
      // Depth: the client's step limit (10 keys) leaves room for the chain above.
      expect(
        Math.max(...[...byOwner.keys()].map((o) => Number(/^d(\d+)-/.exec(o)?.[1] ?? 0))),
      ).toBeLessThanOrEqual(4);
      const file = join(dir, 'lex.mg.gov.br.zone');
      writeFileSync(file, built.text);
      const io = captureIo();
      expect(await run(['zone', 'check', '--strict', file], io), io.stderr() + io.stdout()).toBe(0);
    });

    describe.skipIf(toolOrSkip('nsd').path === undefined)('served by NSD', () => {
      let server: Daemon | undefined;
      let port = 0;
      let owners: string[] = [];
      beforeAll(async () => {
        const mg = join(dir, 'mg.zone');
        const text = buildZone(table(stateTable(units, true)), canonical).text;
        writeFileSync(mg, text);
        owners = [
          ...new Set(
            text
              .split('\n')
              .map((l) => /^(\S+) IN NAPTR /.exec(l)?.[1])
              .filter((o): o is string => o !== undefined),
          ),
        ].map((o) => (o === '@' ? MG_ZONE : o));
        const root = join(dir, 'root.zone');
        writeFileSync(root, buildZone(table(ROOT_TABLE), canonical).text);
        port = await freePortOnAll(['127.0.0.1']);
        server = await startNsd(toolOrSkip('nsd').path!, '127.0.0.1', port, [
          { origin: MG_ZONE, file: mg },
          { origin: 'lex.urn.arpa.', file: root },
        ]);
      }, 60_000);
      afterAll(async () => server?.close());

      it('answers every owner of the index over UDP (EDNS 1232) without truncation', async () => {
        for (const owner of owners) {
          const r = await ask(port, owner);
          expect((r as { rcode?: string }).rcode, owner).toBe('NOERROR');
          expect(r.flags! & dnsPacket.TRUNCATED_RESPONSE, owner).toBe(0);
          expect(r.answers!.length, owner).toBeGreaterThan(0);
        }
      });

      it('chain check --server: every municipality reaches its own resolver, an unlisted one the default', async () => {
        const list = join(dir, 'list.txt');
        writeFileSync(
          list,
          [
            ...units.map((u) => `br;minas.gerais;${u}`),
            'br;minas.gerais;nowhere',
            'br;minas.gerais;sao',
          ].join('\n'),
        );
        const io = captureIo();
        const code = await run(
          ['chain', 'check', '--server', `127.0.0.1:${port}`, '--json', list],
          io,
        );
        const r = JSON.parse(io.stdout()) as {
          total: number;
          resolved: number;
          byResolver: { resolver: string; count: number }[];
        };
        expect(code, io.stderr()).toBe(0);
        expect(r.total).toBe(units.length + 2);
        expect(r.resolved).toBe(units.length + 2);
        const dflt = r.byResolver.find((x) => x.resolver.includes('estado.mg.example'));
        expect(units).not.toContain('nowhere');
        expect(units).not.toContain('sao');
        expect(dflt?.count).toBe(2);
        expect(r.byResolver.length).toBe(units.length + 1);
      }, 60_000);
    });
  },
);

async function ask(port: number, name: string): Promise<dnsPacket.Packet> {
  const sock = dgram.createSocket('udp4');
  try {
    const query = dnsPacket.encode({
      type: 'query',
      id: 7,
      flags: 0,
      questions: [{ type: 'NAPTR', name: name.replace(/\.$/, '') }],
      additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232 } as dnsPacket.Answer],
    });
    const answer = new Promise<Buffer>((resolve, reject) => {
      sock.once('message', resolve);
      setTimeout(() => reject(new Error(`no answer for ${name}`)), 3000).unref();
    });
    sock.send(query, port, '127.0.0.1');
    return dnsPacket.decode(await answer);
  } finally {
    sock.close();
  }
}
