/**
 * build -> explain gives back the table: for tables fast-check makes and for
 * the sample tables in zones/tables/. Every built zone loads without a
 * warning in lexroute zone check (NAPTR lint and its "; expect" lines), and
 * in BIND (named-checkzone), Knot (kzonecheck) and NSD (nsd-checkzone).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildZone } from '../../src/routes/core/build.ts';
import { explainRules, type ExplainedRoute } from '../../src/routes/core/explain.ts';
import {
  defaultOrder,
  routeOrder,
  type Route,
  type RoutingTable,
} from '../../src/routes/core/model.ts';
import { normalizeLexUrn } from '../../src/urn/core/index.ts';
import { checkExpectations, lintNaptrRecords } from '../../src/ddds/core/lint/naptr-lint.ts';
import { naptrInputs } from '../../src/cli/commands/zone-routes.ts';
import { readRoutingTable } from '../../src/routes/table.ts';
import { loadZoneFile, loadZoneText } from '../../src/authority/zones/load.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { ROOT } from './brazil.ts';

const canonical = (u: string) => {
  const n = normalizeLexUrn(u);
  return n.ok ? n.canonical : u;
};

function read(text: string): RoutingTable {
  const r = readRoutingTable(text);
  if (!r.ok) throw new Error(JSON.stringify(r.diagnostics));
  return r.table;
}

/** What explain says about a table route, in the table's terms. */
function tableView(r: Route) {
  const t = r.target;
  return {
    prefix: r.prefix?.text ?? null,
    target:
      t.kind === 'zone'
        ? { kind: 'zone', name: t.name }
        : t.kind === 'U'
          ? {
              kind: 'U',
              urls: t.services.map((s) => t.template.replaceAll('{service}', s)),
              services: t.services,
              protocol: t.protocol,
            }
          : t.kind === 'P'
            ? { kind: 'P', output: t.output, services: t.services, protocol: t.protocol }
            : { kind: t.kind, name: t.name, services: t.services, protocol: t.protocol },
  };
}

function explainedView(r: ExplainedRoute) {
  const t = r.target;
  const m = r.match;
  return {
    prefix: m.kind === 'prefix' ? m.prefix : m.kind === 'any' ? null : `(${m.kind})`,
    target:
      t.kind === 'U'
        ? {
            kind: 'U',
            urls: t.services.map((s) => t.template.replaceAll('{service}', s)),
            services: t.services,
            protocol: t.protocol,
          }
        : t.kind === 'P'
          ? { kind: 'P', output: t.output, services: t.services, protocol: t.protocol }
          : t.kind === 'zone'
            ? { kind: 'zone', name: t.name }
            : t.kind === 'S' || t.kind === 'A'
              ? { kind: t.kind, name: t.name, services: t.services, protocol: t.protocol }
              : { kind: t.kind },
  };
}

/** Build, load, lint, check expectations, explain; assert the round trip. */
function roundTrip(table: RoutingTable, file: string): string {
  const built = buildZone(table, canonical);
  expect(built.diagnostics).toEqual([]);
  // BIND's validator refuses a bracket expression ending in '-' ([0-9-]); none starts with '[:'.
  expect(built.text).not.toMatch(/-\]/);
  expect(built.text).not.toMatch(/\[:/);
  const loaded = loadZoneText(built.text, file, { origin: table.zone });
  expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  expect(lintNaptrRecords(loaded.records)).toEqual([]);
  expect(loaded.expects.length).toBe(
    table.routes.length + (table.default || table.routes.length > 0 ? 1 : 0),
  );
  expect(checkExpectations(loaded.expects, loaded.records)).toEqual([]);
  const ex = explainRules(naptrInputs(loaded.records));
  expect(ex.findings).toEqual([]);
  const all = table.default ? [...table.routes, table.default] : table.routes;
  expect(ex.routes.map(explainedView)).toEqual(all.map(tableView));
  expect(ex.routes.map((r) => r.order)).toEqual([
    ...table.routes.map((_, i) => routeOrder(i)),
    ...(table.default ? [defaultOrder(table.routes.length)] : []),
  ]);
  return built.text;
}

// ---------------------------------------------------------------- generated tables

const label = fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/);
const unit = fc.oneof(
  { weight: 4, arbitrary: fc.array(label, { minLength: 1, maxLength: 3 }).map((l) => l.join('.')) },
  { weight: 1, arbitrary: fc.constantFrom('münchen', 'são.paulo', 'москва', 'zürich.nord') },
);
const prefix = fc
  .record({
    code: fc.constantFrom('br', 'de', 'it', 'un.org', 'eec.lex.arpa'),
    units: fc.array(unit, { maxLength: 3 }),
    authority: fc.option(label, { nil: undefined }),
  })
  .map(({ code, units, authority }) =>
    [[code, ...units].join(';'), authority].filter(Boolean).join(':'),
  );
const services = fc.uniqueArray(fc.constantFrom('N2L', 'N2Ls', 'N2C', 'I2L', 'N2R'), {
  minLength: 1,
  maxLength: 3,
});
const host = fc.array(label, { minLength: 2, maxLength: 4 }).map((l) => `${l.join('.')}.`);
const target = fc.oneof(
  host.map((h) => ({ zone: h })),
  fc.record({
    url: host.map((h) => `https://${h.slice(0, -1)}:8443/uri-res/{service}?{urn}`),
    services,
  }),
  fc.record({
    srv: host.map((h) => `_http._tcp.${h}`),
    services,
    protocol: fc.constantFrom('thttp', 'https'),
  }),
  fc.record({ host, services, protocol: fc.constantFrom('thttp', 'http') }),
  fc.record({ handoff: host, services, protocol: fc.constantFrom('z3950', 'ldap') }),
);
const tableArb = fc
  .record({
    routes: fc.array(fc.record({ prefix, target }), { maxLength: 12 }),
    dflt: fc.option(target, { nil: undefined }),
  })
  .map(({ routes, dflt }) => {
    // Keep routes that no earlier route takes (the others are table errors, tested elsewhere).
    const kept: { prefix: string }[] = [];
    for (const r of routes) {
      const p = r.prefix.toLowerCase();
      if (
        kept.some(
          (k) =>
            p === k.prefix.toLowerCase() ||
            p.startsWith(`${k.prefix.toLowerCase()};`) ||
            p.startsWith(`${k.prefix.toLowerCase()}:`),
        )
      )
        continue;
      kept.push({ prefix: r.prefix, ...r.target });
    }
    return stringify({
      zone: 'lex.test.example.',
      ns: [{ name: 'ns1.lex.test.example.', address: '192.0.2.53' }],
      routes: kept,
      default: dflt ?? 'none',
    });
  });

describe('build -> explain round trip', () => {
  it('gives back generated tables (fast-check), with clean lint and expectations', () => {
    fc.assert(
      fc.property(tableArb, (text) => {
        roundTrip(read(text), 'generated.zone');
      }),
      { numRuns: 150 },
    );
  });

  it('writes the same bytes for the same table', () => {
    fc.assert(
      fc.property(tableArb, (text) => {
        const a = buildZone(read(text), canonical).text;
        const b = buildZone(read(text), canonical).text;
        expect(a).toBe(b);
      }),
      { numRuns: 30 },
    );
  });

  const tables = readdirSync(join(ROOT, 'zones/tables')).filter((f) => f.endsWith('.yaml'));
  it.each(tables)(
    'sample table %s: round trip, and the same routes as the hand-written zone',
    async (name) => {
      const table = read(readFileSync(join(ROOT, 'zones/tables', name), 'utf8'));
      const text = roundTrip(table, name);
      const built = explainRules(
        naptrInputs(loadZoneText(text, 'built.zone', { origin: table.zone }).records),
      );
      const hand = await loadZoneFile(join(ROOT, 'zones', name.replace(/\.yaml$/, '.zone')));
      const handRoutes = explainRules(naptrInputs(hand.records)).routes;
      const strip = (r: ExplainedRoute) => ({ ...r, positions: [] });
      expect(built.routes.map(strip)).toEqual(handRoutes.map(strip));
    },
  );
});

// ---------------------------------------------------------------- reference loaders

const named = toolOrSkip('named-checkzone');
const knot = toolOrSkip('kzonecheck');
const nsd = toolOrSkip('nsd-checkzone');

describe('built zones load in BIND, Knot and NSD unchanged', () => {
  const samples = fc.sample(tableArb, { numRuns: 8, seed: 18 });
  const dir = mkdtempSync(join(tmpdir(), 'lexroute-build-'));
  const files = samples.map((text, i) => {
    const file = join(dir, `gen${i}.zone`);
    writeFileSync(file, buildZone(read(text), canonical).text);
    return file;
  });
  for (const name of readdirSync(join(ROOT, 'zones/tables')).filter((f) => f.endsWith('.yaml'))) {
    const table = read(readFileSync(join(ROOT, 'zones/tables', name), 'utf8'));
    const file = join(dir, name.replace(/\.yaml$/, '.zone'));
    writeFileSync(file, buildZone(table, canonical).text);
    files.push(file);
  }
  const origin = (f: string) =>
    f.includes('gen') ? 'lex.test.example.' : f.slice(f.lastIndexOf('/') + 1, -'zone'.length);

  it.skipIf(named.path === undefined)('named-checkzone', () => {
    for (const f of files)
      expect(execFileSync(named.path!, [origin(f), f], { encoding: 'utf8' })).toMatch(/OK/);
  });
  it.skipIf(knot.path === undefined)('kzonecheck', () => {
    for (const f of files) execFileSync(knot.path!, ['-o', origin(f), f], { encoding: 'utf8' });
    expect(files.length).toBeGreaterThan(8);
  });
  it.skipIf(nsd.path === undefined)('nsd-checkzone', () => {
    for (const f of files)
      expect(execFileSync(nsd.path!, [origin(f), f], { encoding: 'utf8' })).toMatch(/is ok/);
  });
});
