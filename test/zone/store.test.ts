/**
 * The zone's column storage (src/dns/core/zone/store.ts) and its views: canonical
 * order by the tree walk against the key-based reference sort, RDATA and
 * names across arena blocks, the name table under growth, duplicates in big
 * RRsets, records and names made on access.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildZone, sortCanonical } from '../../src/dns/core/zone/build.ts';
import type { ResourceRecord } from '../../src/dns/core/zone/model.ts';
import { compareNames, nameToText } from '../../src/dns/core/zone/names.ts';
import { parseZoneText } from '../../src/dns/core/zone/parser.ts';
import { loadZoneText } from '../../src/authority/zones/load.ts';
import type { StoreZone } from '../../src/dns/core/zone/views.ts';
import { REC_DUPLICATE, ZoneStore } from '../../src/dns/core/zone/store.ts';
import { packZone, sharePacked, unpackZone } from '../../src/authority/zones/transfer.ts';

const SOA = Uint8Array.from([0, 0, ...new Array<number>(20).fill(0)]);
const NS = Uint8Array.from([3, 110, 115, 49, 7, ...Buffer.from('example'), 0]);
const A = Uint8Array.from([192, 0, 2, 1]);

function rr(owner: string, type: number, rdata: Uint8Array, ttl = 300): ResourceRecord {
  return { owner, type, class: 1, ttl, rdata };
}

function apexRecords(): ResourceRecord[] {
  return [rr('example.', 6, SOA), rr('example.', 2, NS), rr('ns1.example.', 1, A)];
}

/** A label of any octets, in the model's spelling (\DDD for non-LDH). */
const label = fc
  .uint8Array({ minLength: 1, maxLength: 6 })
  .map((b) => b.map((c) => (c >= 0x41 && c <= 0x5a ? c + 32 : c)))
  .chain((b) => fc.constantFrom(b, Uint8Array.from(b.map((c) => 0x61 + (c % 3)))));
const name = fc
  .array(label, { minLength: 1, maxLength: 4 })
  .map((ls) =>
    nameToText(
      Uint8Array.from([...ls.flatMap((l) => [l.length, ...l]), 7, ...Buffer.from('example'), 0]),
    ),
  );

describe('canonical order (RFC 4034 section 6.1)', () => {
  it('the tree walk gives the order of the key-based sort, ENTs included', () => {
    fc.assert(
      fc.property(fc.uniqueArray(name, { maxLength: 40 }), (names) => {
        const records = [...apexRecords(), ...names.map((n) => rr(n, 1, A))];
        const { zone, diagnostics } = buildZone(records, { origin: 'example.' });
        expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        const got = zone!.names;
        expect(got).toEqual(sortCanonical([...got]));
        expect(new Set(got).size).toBe(got.length);
        expect(got[0]).toBe('example.');
        for (let i = 1; i < got.length; i++) expect(compareNames(got[i - 1]!, got[i]!)).toBe(-1);
        // Every owner and every name between an owner and the apex is there.
        for (const n of names) expect(zone!.nodes.has(n)).toBe(true);
        expect(zone!.nodes.size).toBe(got.length);
      }),
      { numRuns: 300 },
    );
  });

  it('orders escaped labels by their octets (the RFC 4034 example)', () => {
    const owners = [
      'a.example.',
      'yljkjljk.a.example.',
      'z.a.example.',
      'zabc.a.example.',
      'z.example.',
      '\\001.z.example.',
      '*.z.example.',
      '\\200.z.example.',
    ];
    const records = [...apexRecords(), ...[...owners].reverse().map((n) => rr(n, 1, A))];
    const { zone } = buildZone(records, { origin: 'example.' });
    expect(zone!.names).toEqual([
      'example.',
      'a.example.',
      'yljkjljk.a.example.',
      'z.a.example.',
      'zabc.a.example.',
      'ns1.example.',
      'z.example.',
      '\\001.z.example.',
      '*.z.example.',
      '\\200.z.example.',
    ]);
  });
});

describe('arenas and the name table', () => {
  it('RDATA across 1 MiB arena blocks keeps every octet', () => {
    // 40 TXT records of 60,000 octets: 2.4 MB of RDATA over three blocks.
    const records = apexRecords();
    const want: Uint8Array[] = [];
    for (let i = 0; i < 40; i++) {
      const rd = new Uint8Array(60_000);
      for (let k = 0; k < rd.length; k++) rd[k] = k % 256 === 0 ? 255 : (i * 7 + k) & 0xff;
      want.push(rd);
      records.push(rr(`t${i}.example.`, 65280, rd));
    }
    const { zone } = buildZone(records, { origin: 'example.' });
    for (let i = 0; i < 40; i++) {
      const got = zone!.nodes.get(`t${i}.example.`)!.rrsets.get(65280)!.records[0]!.rdata;
      expect(Buffer.from(got).equals(Buffer.from(want[i]!))).toBe(true);
    }
  });

  it('names across name-arena blocks, the table grown many times, absent names absent', () => {
    // 30,000 owners of about 45 characters: more than 1 MiB of name text.
    const records = apexRecords();
    for (let i = 0; i < 30_000; i++)
      records.push(rr(`host-${i}.unit-${i % 97}.a-fairly-long-label.example.`, 1, A));
    const { zone } = buildZone(records, { origin: 'example.' });
    // 30,000 hosts, 97 units, one ENT above them, the apex and ns1.
    expect(zone!.nodes.size).toBe(30_000 + 97 + 1 + 2);
    for (let i = 0; i < 30_000; i += 7) {
      const n = `host-${i}.unit-${i % 97}.a-fairly-long-label.example.`;
      const node = zone!.nodes.get(n)!;
      expect(node.name).toBe(n);
      expect(node.rrsets.get(1)!.owner).toBe(n);
    }
    expect(zone!.nodes.get('unit-5.a-fairly-long-label.example.')!.emptyNonTerminal).toBe(true);
    expect(zone!.nodes.has('host-30000.unit-27.a-fairly-long-label.example.')).toBe(false);
    expect(zone!.nodes.has('example')).toBe(false);
    expect(zone!.names.length).toBe(zone!.nodes.size);
  });
});

describe('buildZone on records made by hand', () => {
  it('refuses RDATA over 65535 octets and owners outside the model spelling, with codes', () => {
    const long = buildZone([...apexRecords(), rr('a.example.', 16, new Uint8Array(70_000))], {
      origin: 'example.',
    });
    expect(long.zone).toBeUndefined();
    expect(long.diagnostics.map((d) => [d.code, d.severity, d.token])).toEqual([
      ['ZONE_RDATA_TOO_LONG', 'error', 'a.example.'],
    ]);
    for (const owner of ['\u00e9.example.', 'a example.', 'a.example']) {
      const bad = buildZone([...apexRecords(), rr(owner, 1, A)], { origin: 'example.' });
      expect(bad.zone).toBeUndefined();
      expect(bad.diagnostics.map((d) => d.code)).toEqual(['ZONE_BAD_NAME']);
    }
  });
});

describe('RRsets', () => {
  it('duplicates in an RRset of more than 32 records are found and dropped', () => {
    const records = apexRecords();
    for (let i = 0; i < 100; i++)
      records.push(rr('big.example.', 1, Uint8Array.from([10, 0, 0, i])));
    for (let i = 0; i < 100; i += 3)
      records.push(rr('big.example.', 1, Uint8Array.from([10, 0, 0, i])));
    const { zone, diagnostics } = buildZone(records, { origin: 'example.' });
    expect(diagnostics.filter((d) => d.code === 'ZONE_DUPLICATE_RECORD')).toHaveLength(34);
    const set = zone!.nodes.get('big.example.')!.rrsets.get(1)!;
    expect(set.records.map((r) => r.rdata[3])).toEqual([...Array(100).keys()]);
    expect(zone!.size).toBe(3 + 100);
  });

  it('records of an RRset in file order, the RRset TTL the smallest, zero-length RDATA kept', () => {
    const text = `$ORIGIN example.
$TTL 300
@ SOA ns1 h 1 2 3 4 5
@ NS ns1
ns1 A 192.0.2.1
x 600 TYPE65280 \\# 0
y 600 A 192.0.2.9
x 60 TYPE65280 \\# 1 ff
y 30 A 192.0.2.8
`;
    const r = loadZoneText(text, 'example.zone');
    const x = r.zone!.nodes.get('x.example.')!.rrsets.get(65280)!;
    expect(x.ttl).toBe(60);
    expect(x.records.map((q) => [q.rdata.length, q.ttl, q.source?.line])).toEqual([
      [0, 600, 6],
      [1, 60, 8],
    ]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(['ZONE_MIXED_TTL', 'ZONE_MIXED_TTL']);
    // LoadResult.records: every parsed record in file order, made on access.
    expect(r.records.map((q) => `${q.owner} ${q.type}`)).toEqual([
      'example. 6',
      'example. 2',
      'ns1.example. 1',
      'x.example. 65280',
      'y.example. 1',
      'x.example. 65280',
      'y.example. 1',
    ]);
    expect(r.records).toBe(r.records);
    // parseZoneText gives the same records (its own store).
    const p = parseZoneText(text, { origin: 'example.' });
    expect(p.records.map((q) => Buffer.from(q.rdata).toString('hex'))).toEqual(
      r.records.map((q) => Buffer.from(q.rdata).toString('hex')),
    );
  });
});

describe('the store behind methods (issue 19)', () => {
  const TEXT = `$ORIGIN example.
$TTL 300
@ SOA ns1 h 1 2 3 4 5
@ NS ns1
ns1 A 192.0.2.1
www   A 192.0.2.7
      A 192.0.2.7
\tA 192.0.2.8
ttl 60 TXT "a"
    120 TXT "b"
`;

  it('record views are plain objects: spread, keys and JSON give the record and nothing else', () => {
    const r = loadZoneText(TEXT, 'example.zone');
    const rec = r.zone!.nodes.get('www.example.')!.rrsets.get(1)!.records[1]!;
    const plain = { ...rec };
    expect(Object.keys(plain).sort()).toEqual(['class', 'owner', 'rdata', 'source', 'ttl', 'type']);
    expect(plain).toEqual({
      owner: 'www.example.',
      type: 1,
      class: 1,
      ttl: 300,
      rdata: Uint8Array.from([192, 0, 2, 8]),
      source: { file: 'example.zone', line: 8, column: 2 },
    });
    expect(JSON.parse(JSON.stringify(rec))).toEqual(JSON.parse(JSON.stringify(plain)));
    expect(JSON.stringify(rec)).not.toMatch(/store/);
    // A record made by hand has no source, and its view has no `source` key.
    const { zone } = buildZone(apexRecords(), { origin: 'example.' });
    const a = { ...zone!.nodes.get('ns1.example.')!.rrsets.get(1)!.records[0]! };
    expect(a).toEqual(rr('ns1.example.', 1, A));
    expect('source' in a).toBe(false);
    // RRsets serialise with their records; names and RRsets hold no store of their own.
    const set = r.zone!.nodes.get('ttl.example.')!.rrsets.get(16)!;
    expect(JSON.parse(JSON.stringify(set))).toMatchObject({
      owner: 'ttl.example.',
      type: 16,
      ttl: 60,
      records: [{ ttl: 60 }, { ttl: 120 }],
    });
    expect(Object.keys(r.zone!.nodes.get('www.example.')!)).toEqual([
      'name',
      'rrsets',
      'emptyNonTerminal',
      'isDelegation',
      'belowCut',
    ]);
  });

  it('RRset and name views are plain objects: spread, keys and JSON agree', () => {
    const r = loadZoneText(TEXT, 'example.zone');
    const set = r.zone!.nodes.get('ttl.example.')!.rrsets.get(16)!;
    const plain = { ...set };
    expect(Object.keys(plain)).toEqual(['owner', 'type', 'ttl', 'records']);
    expect(Object.keys(set)).toEqual(Object.keys(plain));
    expect(plain.records.map((q) => q.ttl)).toEqual([60, 120]);
    expect(plain.records).toEqual(set.records);
    expect(Object.keys(JSON.parse(JSON.stringify(set)))).toEqual(Object.keys(plain));
    expect(JSON.parse(JSON.stringify(set))).toEqual(JSON.parse(JSON.stringify(plain)));
    expect(JSON.stringify(set)).not.toMatch(/store/);
    // A name: its fields, its RRsets (JSON gives them as a list: a Map has no JSON form).
    const node = r.zone!.nodes.get('www.example.')!;
    const n = { ...node };
    expect(n).toMatchObject({
      name: 'www.example.',
      emptyNonTerminal: false,
      isDelegation: false,
      belowCut: false,
    });
    expect(n.rrsets.get(1)!.records).toHaveLength(2);
    expect(Object.keys(node)).toEqual(Object.keys(n));
    const json = JSON.parse(JSON.stringify(node)) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(Object.keys(n));
    expect(json.rrsets).toEqual([JSON.parse(JSON.stringify(node.rrsets.get(1)))]);
    expect(JSON.stringify(node)).not.toMatch(/store/);
    expect(structuredClone({ ...set, records: set.records.map((q) => ({ ...q })) })).toEqual({
      ...plain,
      records: plain.records.map((q) => ({ ...q })),
    });
  });

  it('stored-record findings carry the line and the column of the record', () => {
    const r = loadZoneText(TEXT, 'example.zone');
    expect(r.diagnostics.map((d) => [d.code, d.position?.line, d.position?.column])).toEqual([
      ['ZONE_DUPLICATE_RECORD', 7, 7],
      ['ZONE_MIXED_TTL', 10, 5],
    ]);
    const sources = r.records.map((q) => `${q.source?.line}:${q.source?.column}`);
    expect(sources).toEqual(['3:1', '4:1', '5:1', '6:1', '7:7', '8:2', '9:1', '10:5']);
    // Out-of-zone data and structural findings read the same column.
    const more = 'other.test. A 192.0.2.1\n   TXT "x"\nmx MX 10 nowhere\n  MX 20 nowhere2\n';
    const o = loadZoneText(TEXT + more, 'example.zone');
    expect(
      o.diagnostics
        .filter((d) => d.code !== 'ZONE_DUPLICATE_RECORD' && d.code !== 'ZONE_MIXED_TTL')
        .map((d) => [d.code, d.position?.line, d.position?.column]),
    ).toEqual([
      ['ZONE_OUT_OF_ZONE', 11, 1],
      ['ZONE_OUT_OF_ZONE', 12, 4],
      ['ZONE_TARGET_NO_ADDRESS', 13, 1],
      ['ZONE_TARGET_NO_ADDRESS', 14, 3],
    ]);
  });

  it('the store travels between threads through toTransfer/fromTransfer, columns intact', () => {
    const r = loadZoneText(TEXT, 'example.zone');
    const before = r
      .zone!.nodes.get('www.example.')!
      .rrsets.get(1)!
      .records.map((q) => ({ ...q, rdata: q.rdata.slice() }));
    const names = [...r.zone!.nodes.keys()];
    const packed = packZone(r.zone!)!;
    // A real structured clone with the buffers moved, as postMessage does.
    const moved = structuredClone(packed.packed, { transfer: packed.transfer });
    for (const p of [moved, sharePacked(moved)]) {
      const zone = unpackZone(p);
      const after = zone.nodes
        .get('www.example.')!
        .rrsets.get(1)!
        .records.map((q) => ({ ...q }));
      expect(after).toEqual(before);
      expect([...zone.nodes.keys()]).toEqual(names);
    }
    // The sending store's buffers were moved: its columns are gone, as documented.
    const sent = (r.zone as StoreZone).store;
    expect(sent.recordCount).toBe(8);
    expect(() => sent.rdata(0)).toThrow();
  });
});

describe('small stores packed into one buffer (issue 30: thousands of small zones)', () => {
  const SMALL = `$ORIGIN z1.lex.bench.
@ 3600 IN SOA ns1 hostmaster 1 7200 3600 1209600 300
@ 3600 IN NS ns1
ns1 3600 IN A 192.0.2.2
@ 3600 IN NAPTR 100 10 "" "" "!^urn:lex:z1;([a-z0-9.-]+)[;:].*$!\\\\1.z1.lex.bench!i" .
@ 3600 IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!https://z1.resolver.example/uri-res/N2L?\\\\1!" .
j1 3600 IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!https://j1.z1.resolver.example/N2L?\\\\1!" .
   60 IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!https://j1.z1.resolver.example/N2L?\\\\1!" .
  600 IN TXT "x"
`;
  const view = (q: ResourceRecord) => ({
    owner: q.owner,
    type: q.type,
    ttl: q.ttl,
    rdata: Buffer.from(q.rdata).toString('hex'),
    line: q.source?.line,
    column: q.source?.column,
  });

  it('a built zone of a few records is one ArrayBuffer of under 1 KB, reading as parsed', () => {
    const r = loadZoneText(SMALL, 'z1.lex.bench.zone');
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const store = (r.zone as StoreZone).store;
    // The parser's own store (not built, so not packed) is the reference.
    const parsed = parseZoneText(SMALL, { origin: 'z1.lex.bench.' });
    expect(r.records.map(view)).toEqual(parsed.records.map(view));
    expect(r.diagnostics.map((d) => d.code)).toEqual(['ZONE_DUPLICATE_RECORD']);
    const j1 = r.zone!.nodes.get('j1.z1.lex.bench.')!;
    expect(j1.rrsets.get(35)!.records).toHaveLength(1);
    expect(j1.rrsets.get(16)!.records[0]!.ttl).toBe(600);
    expect(r.zone!.nodes.get('ns1.z1.lex.bench.')!.rrsets.get(1)!.records[0]!.rdata).toEqual(
      Uint8Array.from([192, 0, 2, 2]),
    );
    expect(r.zone!.nodes.has('j2.z1.lex.bench.')).toBe(false);
    const { buffers } = store.toTransfer();
    expect(buffers).toHaveLength(1);
    expect(buffers[0]!.byteLength).toBeLessThan(1024);
  });

  it('records added after packing grow the columns out of the packed buffer, nothing lost', () => {
    const st = new ZoneStore();
    const rd = (i: number) => Uint8Array.from([10, (i >> 16) & 255, (i >> 8) & 255, i & 255]);
    const add = (owner: string, i: number, ttl = 300) =>
      st.add(owner, 1, 1, ttl, rd(i), 4, i + 1, 'f');
    for (let i = 0; i < 5; i++) add(`h${i % 2}.example.`, i);
    st.compact();
    expect(st.toTransfer().buffers).toHaveLength(1);
    const fresh = new ZoneStore();
    for (let i = 0; i < 5; i++) fresh.add(`h${i % 2}.example.`, 1, 1, 300, rd(i), 4, i + 1, 'f');
    // More names, records, RRsets and an arena past its packed size; a duplicate.
    for (let i = 5; i < 3000; i++) {
      add(`h${i % 700}.example.`, i);
      fresh.add(`h${i % 700}.example.`, 1, 1, 300, rd(i), 4, i + 1, 'f');
    }
    add('h1.example.', 3);
    expect(st.recordCount).toBe(3001);
    expect(st.recordFlags(3000)).toBe(REC_DUPLICATE);
    expect(st.nameCount).toBe(700);
    for (let i = 0; i < 3000; i++) {
      expect(st.rdata(i)).toEqual(rd(i));
      expect(st.recordLine(i)).toBe(i + 1);
      expect(st.findName(`h${i % 700}.example.`)).toBe(fresh.findName(`h${i % 700}.example.`));
    }
    for (let n = 0; n < 700; n++) {
      const records: number[] = [];
      for (let q = st.firstRecord(st.firstRRset(n)); q >= 0; q = st.nextRecord(q)) records.push(q);
      const want: number[] = [];
      for (let q = fresh.firstRecord(fresh.firstRRset(n)); q >= 0; q = fresh.nextRecord(q))
        want.push(q);
      expect(records).toEqual(want);
    }
  });

  it('a zone over the limit keeps its columns apart', () => {
    const records = apexRecords();
    for (let i = 0; i < 5000; i++) records.push(rr(`h${i}.example.`, 1, A));
    const { zone } = buildZone(records, { origin: 'example.' });
    expect((zone as StoreZone).store.toTransfer().buffers.length).toBeGreaterThan(1);
  });
});
