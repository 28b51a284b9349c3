/**
 * An IXFR applied by difference (`zoneFromDifference`, issue 30) gives the
 * zone a whole load of the same version gives: the same zone print, the same
 * nodes (empty non-terminals made and removed), the same lookups; a deletion
 * of a record the zone lacks is a mismatch (the secondary then takes AXFR,
 * XFR_IXFR_MISMATCH); zone cuts added and removed re-mark the names below
 * them as a whole load does; a signed zone is left to the whole load. What the secondary keeps on disk of it: the journal of the
 * differences (appended, read back; cut short, refused) and the patched zone
 * written whole (in slices), which loads as the same zone.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { zoneFromDifference, zoneFromSource } from '../../src/authority/zones/servable.ts';
import type { ResourceRecord, Zone } from '../../src/dns/core/zone/model.ts';
import { writeZone } from '../../src/dns/core/zone/writer.ts';
import { indexZone, lookupInZone, type IndexedZone } from '../../src/authority/core/zone-lookup.ts';
import { nameKey } from '../../src/dns/core/wire/name.ts';
import {
  appendJournal,
  journalOf,
  readJournal,
  writeZoneFile,
} from '../../src/xfr/secondary-journal.ts';
import type { ZoneDiff } from '../../src/xfr/core/diff.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-ixfr-apply-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ORIGIN = 'ixfr.test.';
const head = (serial: number) => `$ORIGIN ${ORIGIN}
$TTL 60
@ SOA ns1 hostmaster ${serial} 60 30 600 60
@ NS ns1
ns1 A 127.0.0.1
`;
const V1 = `${head(1)}a NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://a/\\\\1!" .
x.y.deep A 192.0.2.1
x.y.deep A 192.0.2.2
c CNAME a
sub NS ns.sub
ns.sub A 192.0.2.9
gone.one A 192.0.2.3
`;
const V2 = `${head(2)}a NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://a/\\\\1!" .
x.y.deep A 192.0.2.1
c CNAME a
sub NS ns.sub
ns.sub A 192.0.2.10
new.p.q AAAA 2001:db8::1
b NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://b/\\\\1!" .
`;

let n = 0;
async function load(text: string): Promise<Zone> {
  const file = path.join(dir, `z${n++}.zone`);
  writeFileSync(file, text);
  const r = await zoneFromSource(file, { origin: ORIGIN });
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return r.zone!;
}

/** Every record but the SOA, as plain records. */
function records(z: Zone): ResourceRecord[] {
  const out: ResourceRecord[] = [];
  for (const node of z.nodes.values())
    for (const s of node.rrsets.values())
      if (s.type !== 6)
        for (const r of s.records)
          out.push({ owner: r.owner, type: r.type, class: 1, ttl: r.ttl, rdata: r.rdata });
  return out;
}

const id = (r: ResourceRecord) => `${r.owner} ${r.type} ${Buffer.from(r.rdata).toString('hex')}`;

/** The difference from `a` to `b` as IXFR carries it. */
function difference(a: Zone, b: Zone) {
  const ra = records(a);
  const rb = records(b);
  const ia = new Set(ra.map(id));
  const ib = new Set(rb.map(id));
  return {
    soa: b.soa.records[0]!,
    removed: ra.filter((r) => !ib.has(id(r))),
    added: rb.filter((r) => !ia.has(id(r))),
  };
}

function nodesOf(z: Zone) {
  return [...z.nodes.values()]
    .map((x) => `${x.name} ent=${x.emptyNonTerminal} cut=${x.isDelegation} below=${x.belowCut}`)
    .sort();
}

/** The lookups the server makes give the same kind and answer over the patched index and the loaded zone. */
function expectSameLookups(
  patched: IndexedZone,
  whole: Zone,
  names: readonly string[],
  qtypes: readonly number[],
): void {
  for (const name of names)
    for (const qtype of qtypes) {
      const key = nameKey(`${name}.${ORIGIN}`);
      const got = lookupInZone(patched, key, qtype);
      const want = lookupInZone(indexZone(whole), key, qtype);
      expect([name, qtype, got.kind, got.answer.length]).toEqual([
        name,
        qtype,
        want.kind,
        want.answer.length,
      ]);
    }
}

describe('an IXFR applied by difference', () => {
  it('gives the zone of a whole load of the same version, and again from the patched zone', async () => {
    const [z1, z2] = [await load(V1), await load(V2)];
    const r = zoneFromDifference(z1, difference(z1, z2));
    if (r.kind !== 'patched') throw new Error(JSON.stringify(r));
    expect(writeZone(r.zone)).toBe(writeZone(z2));
    expect(nodesOf(r.zone)).toEqual(nodesOf(z2));
    expect(r.zone.size).toBe(z2.size);
    expect(r.zone.names).toEqual(z2.names);
    // The lookups the server makes, over the patched index and the loaded one.
    const names = [
      'a',
      'b',
      'c',
      'x.y.deep',
      'y.deep',
      'deep',
      'gone.one',
      'one',
      'new.p.q',
      'p.q',
      'q',
      'w.sub',
      'nope',
    ];
    expectSameLookups(r.indexed, z2, names, [1, 28, 35, 5, 2]);
    // Back to version 1 (serial 3), from the patched zone.
    const z3 = await load(V1.replace(' 1 60 30', ' 3 60 30'));
    const back = zoneFromDifference(r.zone, difference(r.zone, z3));
    if (back.kind !== 'patched') throw new Error(JSON.stringify(back));
    expect(writeZone(back.zone)).toBe(writeZone(z3));
    expect(nodesOf(back.zone)).toEqual(nodesOf(z3));
  });

  it('is a mismatch when it deletes a record the zone does not hold', async () => {
    const z1 = await load(V1);
    const z2 = await load(V2);
    const d = difference(z1, z2);
    const absent = { ...d.removed[0]!, rdata: new Uint8Array([198, 51, 100, 7]) };
    const r = zoneFromDifference(z1, { ...d, removed: [absent] });
    expect(r.kind).toBe('mismatch');
  });

  it('refuses a CNAME beside other data; reports data at a new cut', async () => {
    const z1 = await load(V1);
    const soa = (await load(V2)).soa.records[0]!;
    const cnameA = {
      owner: `a.${ORIGIN}`,
      type: 5,
      class: 1,
      ttl: 60,
      rdata: new Uint8Array([1, 99, 0]),
    };
    const r = zoneFromDifference(z1, { soa, removed: [], added: [cnameA] });
    expect(r.kind === 'refused' && r.diagnostics.map((x) => x.code)).toContain(
      'ZONE_CNAME_AND_OTHER',
    );
    const ns = {
      owner: `a.${ORIGIN}`,
      type: 2,
      class: 1,
      ttl: 60,
      rdata: new Uint8Array([1, 120, 0]),
    };
    // A cut at a name with a NAPTR: applied, the NAPTR reported as zone check reports it.
    const cut = zoneFromDifference(z1, { soa, removed: [], added: [ns] });
    expect(cut.kind === 'patched' && cut.diagnostics.map((x) => x.code)).toEqual(['ZONE_OCCLUDED']);
  });

  it('adds and removes zone cuts as a whole load of the same version does', async () => {
    const z1 = await load(V1);
    // A cut added at deep (x.y.deep is now its glue), the one at sub removed (ns.sub authoritative).
    const V3 = V1.replace(' 1 60 30', ' 3 60 30')
      .replace('sub NS ns.sub\n', '')
      .concat('deep NS x.y.deep.ixfr.test.\n');
    const z3 = await load(V3);
    const r = zoneFromDifference(z1, difference(z1, z3));
    if (r.kind !== 'patched') throw new Error(JSON.stringify(r));
    expect(r.diagnostics).toEqual([]);
    expect(writeZone(r.zone)).toBe(writeZone(z3));
    expect(nodesOf(r.zone)).toEqual(nodesOf(z3));
    expect([...r.zone.cuts]).toEqual([...z3.cuts]);
    expectSameLookups(r.indexed, z3, ['x.y.deep', 'y.deep', 'deep', 'ns.sub', 'sub'], [1, 2, 35]);
    // And back: the cut at sub again, the one at deep gone.
    const z4 = await load(V1.replace(' 1 60 30', ' 4 60 30'));
    const back = zoneFromDifference(r.zone, difference(r.zone, z4));
    if (back.kind !== 'patched') throw new Error(JSON.stringify(back));
    expect(nodesOf(back.zone)).toEqual(nodesOf(z4));
    expect([...back.zone.cuts]).toEqual([...z4.cuts]);
  });

  it('keeps its differences in an appended journal, and writes the patched zone whole as it loads', async () => {
    const [z1, z2] = [await load(V1), await load(V2)];
    const r = zoneFromDifference(z1, difference(z1, z2));
    if (r.kind !== 'patched') throw new Error(JSON.stringify(r));
    const plain = (rr: ResourceRecord) => ({
      key: nameKey(rr.owner),
      type: rr.type,
      ttl: rr.ttl,
      rdata: rr.rdata,
    });
    const d = difference(z1, z2);
    const step: ZoneDiff = {
      fromSoa: plain(z1.soa.records[0]!),
      toSoa: plain(d.soa),
      removed: d.removed.map(plain),
      added: d.added.map(plain),
    };
    const back: ZoneDiff = {
      ...step,
      fromSoa: step.toSoa,
      removed: step.added,
      added: step.removed,
    };
    const file = path.join(dir, 'secondary.zone');
    expect(await readJournal(file)).toEqual([]);
    await appendJournal(file, 0, [step]);
    await appendJournal(file, 1, [back]);
    expect(await readJournal(file)).toEqual([step, back]);
    // Cut short (a crash while appending): refused whole, never half used.
    const bytes = readFileSync(journalOf(file));
    writeFileSync(journalOf(file), bytes.subarray(0, bytes.length - 3));
    await expect(readJournal(file)).rejects.toMatchObject({ code: 'JOURNAL_CORRUPT' });
    // The patched zone written whole (no sort, in slices) loads as the zone of version 2.
    await writeZoneFile(file, r.zone);
    const again = await zoneFromSource(file, { origin: ORIGIN });
    expect(again.diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
    expect(writeZone(again.zone!)).toBe(writeZone(z2));
  });
});
