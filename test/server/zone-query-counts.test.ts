/**
 * Per-zone query counts (`lexroute_dns_zone_queries_total`) as the engine
 * keeps them since issue 30: a name's entry holds its zone's counter and
 * answers that come from no entry (NXDOMAIN, NODATA below an existing name)
 * count through the zone's slot. Each zone is listed from its first query,
 * and a reload (of one zone, or of none) keeps adding to the same counts.
 */
import { describe, expect, it } from 'vitest';
import { Engine, TRANSPORT_UDP } from '../../src/authority/engine.ts';
import { loadZoneText } from '../../src/authority/zones/load.ts';
import type { Zone } from '../../src/dns/core/zone/model.ts';
import { buildQuery } from './harness.ts';

const zone = (origin: string, serial: number, extra = ''): Zone => {
  const text =
    `$TTL 300\n@ IN SOA ns host ${serial} 3600 600 86400 300\n@ IN NS ns\nns IN A 192.0.2.1\n` +
    `www IN A 192.0.2.${serial}\n${extra}`;
  const r = loadZoneText(text, `${origin}zone`, { origin });
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return r.zone!;
};

/** Zone name -> responses counted for it. */
const counts = (e: Engine) =>
  Object.fromEntries(
    [...e.stats.byZone].map(([k, c]) => [e.stats.zoneNames.get(k) ?? k, c.n] as const),
  );

const ask = (e: Engine, name: string, type: string, times = 1) => {
  for (let i = 0; i < times; i++)
    expect(e.respond(buildQuery(name, type), TRANSPORT_UDP)).toBeDefined();
};

describe('per-zone query counts', () => {
  it('count answers from names, negative answers and other zones apart, from the first query of each zone, across reloads', () => {
    const b = zone('b.test.', 1);
    const e = new Engine([zone('a.test.', 1, 'out IN CNAME www.b.test.\n'), b]);
    expect(counts(e)).toEqual({});
    ask(e, 'www.a.test', 'A', 3); // a name's entry
    ask(e, 'www.a.test', 'TXT'); // NODATA from the entry
    ask(e, 'nx.a.test', 'A', 2); // NXDOMAIN: no entry, the zone's slot
    ask(e, 'nx.below.www.a.test', 'A'); // NXDOMAIN below an existing name
    ask(e, 'out.a.test', 'A'); // a chain into b.test: counted for the zone asked
    ask(e, 'www.c.test', 'A'); // no zone: REFUSED, counted for none
    expect(counts(e)).toEqual({ 'a.test.': 8 });
    ask(e, 'nx.b.test', 'A');
    expect(counts(e)).toEqual({ 'a.test.': 8, 'b.test.': 1 });

    // a.test. reloaded (new content), b.test. kept as it was: the counts go on.
    e.setZones([zone('a.test.', 2), b]);
    ask(e, 'www.a.test', 'A');
    ask(e, 'nx.a.test', 'A');
    ask(e, 'www.b.test', 'A', 2);
    ask(e, 'nx.b.test', 'A');
    expect(counts(e)).toEqual({ 'a.test.': 10, 'b.test.': 4 });
  });
});
