/**
 * The server's name index as columns (`core/zone/key-index.ts`): the keys it
 * computes from stored presentation names equal `nameKey` (escapes, case,
 * the apex, empty non-terminals), every name is found and nothing else is;
 * and the reload worker hands a zone over with the index already built
 * (issue 20: the answering thread only swaps).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadZoneText } from '../../src/authority/zones/load.ts';
import { nameKey } from '../../src/dns/core/wire/name.ts';
import { indexZone } from '../../src/authority/core/zone-lookup.ts';
import { KeyedNodes } from '../../src/authority/core/key-index.ts';
import { buildZone } from '../../src/dns/core/zone/build.ts';
import type { StoreZone } from '../../src/dns/core/zone/views.ts';
import { BackgroundZoneLoader } from '../../src/authority/zones/background.ts';
import { Engine, TRANSPORT_UDP } from '../../src/authority/engine.ts';
import dnsPacket from 'dns-packet';

const ZONE = `$ORIGIN Key.Test.
$TTL 300
@ IN SOA ns host 1 3600 600 86400 300
@ IN NS ns
ns IN A 192.0.2.1
MiXeD IN A 192.0.2.2
\\065bc IN A 192.0.2.3
a\\.b IN A 192.0.2.4
\\000\\255x IN TXT "octets"
deep.below.ent IN A 192.0.2.5
*.wild IN A 192.0.2.6
sub IN NS ns.elsewhere.example.
glue.sub IN A 192.0.2.7
out.of.zone.example. IN A 192.0.2.8
`;

function load() {
  const r = loadZoneText(ZONE, 'key.test.zone', { origin: 'key.test.' });
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return r.zone!;
}

describe('key index', () => {
  it('has exactly the keys nameKey gives for the zone names, each found', () => {
    const zone = load();
    const indexed = indexZone(zone);
    expect(indexed.nodes).toBeInstanceOf(KeyedNodes);
    const expected = new Map<string, string>();
    for (const node of zone.nodes.values()) expected.set(nameKey(node.name), node.name);
    expect(new Set(indexed.nodes.keys())).toEqual(new Set(expected.keys()));
    expect(indexed.nodes.size).toBe(expected.size);
    for (const [key, name] of expected) expect(indexed.nodes.get(key)?.name).toBe(name);
    // Names with escapes and case: found by the key of any spelling.
    for (const spelled of [
      'MIXED.key.test.',
      'abc.KEY.test.',
      'a\\.b.key.test.',
      'below.ent.key.test.',
    ])
      expect(indexed.nodes.has(nameKey(spelled))).toBe(true);
    for (const absent of ['nothere.key.test.', 'a.b.key.test.', 'out.of.zone.example.', 'test.'])
      expect(indexed.nodes.get(nameKey(absent))).toBeUndefined();
  });

  it('keeps the views of the names it found: the same view again, right after others push it out', () => {
    // Zone of many names, so the 64 kept views are pushed out and made again.
    let text = '$ORIGIN many.test.\n$TTL 300\n@ SOA ns host 1 2 3 4 5\n@ NS ns\nns A 192.0.2.1\n';
    for (let i = 0; i < 300; i++) text += `n${i} A 192.0.2.${i % 250}\nn${i} TXT "t${i}"\n`;
    const zone = loadZoneText(text, 'many.test.zone').zone!;
    const { nodes } = indexZone(zone);
    const key = (n: string) => nameKey(`${n}.many.test.`);
    const plain = (n: string) => JSON.parse(JSON.stringify(zone.nodes.get(`${n}.many.test.`)));
    const first = nodes.get(key('n7'))!;
    expect(nodes.get(key('n7'))).toBe(first);
    // A name's last RRset is kept too; another type gives its own RRset.
    expect(first.rrsets.get(1)).toBe(first.rrsets.get(1));
    expect(first.rrsets.get(16)!.records[0]!.rdata).toEqual(Uint8Array.of(2, 116, 55));
    expect(first.rrsets.get(1)!.records[0]!.rdata).toEqual(Uint8Array.of(192, 0, 2, 7));
    for (let i = 0; i < 300; i++) {
      const v = nodes.get(key(`n${i}`))!;
      expect(JSON.parse(JSON.stringify(v)), `n${i}`).toEqual(plain(`n${i}`));
    }
    expect(JSON.parse(JSON.stringify(nodes.get(key('n7'))))).toEqual(plain('n7'));
    expect(nodes.get(key('nothing'))).toBeUndefined();
  });

  it("searches a parsed zone through the store's own name table (no key columns built)", () => {
    const zone = load();
    expect((zone as StoreZone).store.canonicalNames).toBe(true);
    const nodes = indexZone(zone).nodes as KeyedNodes;
    expect(nodes.columns).toBeUndefined();
    // Every octet value in a label, escaped or not, is found by its key and nothing else is.
    const text = [
      `$ORIGIN oct.test.\n$TTL 300\n@ IN SOA ns host 1 3600 600 86400 300\n@ IN NS ns\nns IN A 192.0.2.1\n`,
    ];
    for (let c = 0; c < 256; c++) text.push(`x\\${String(c).padStart(3, '0')}y IN A 192.0.2.1\n`);
    const r = loadZoneText(text.join(''), 'oct.test.zone', { origin: 'oct.test.' });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const all = indexZone(r.zone!).nodes as KeyedNodes;
    expect(all.columns).toBeUndefined();
    for (let c = 0; c < 256; c++) {
      const lower = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
      const key = `\u0003x${String.fromCharCode(lower)}y\u0003oct\u0004test\u0000`;
      const node = all.get(key);
      expect(node && nameKey(node.name), `octet ${c}`).toBe(key);
      expect(all.keyOf(all.row(key))).toBe(key);
    }
    expect(all.get('\u0003xzz\u0003oct\u0004test\u0000')).toBeUndefined();
    expect(all.size).toBe(r.zone!.nodes.size);
  });

  it('builds key columns for names made by hand in another spelling, with the same answers', () => {
    const parsed = load();
    const records = loadZoneText(ZONE, 'key.test.zone', { origin: 'key.test.' }).records;
    const respelled = records.map((rr) => ({
      ...rr,
      owner: rr.owner.replace(/^mixed\./, 'MiXeD.').replace(/^abc\./, '\\065bc.'),
    }));
    const built = buildZone(respelled, { origin: 'key.test.' });
    expect(built.zone?.store.canonicalNames).toBe(false);
    const nodes = indexZone(built.zone!).nodes as KeyedNodes;
    expect(nodes.columns).toBeDefined();
    const expected = indexZone(parsed).nodes;
    expect(new Set(nodes.keys())).toEqual(new Set(expected.keys()));
    for (const key of expected.keys()) expect(nodes.has(key)).toBe(true);
    expect(nodes.get(nameKey('mixed.key.test.'))?.name).toBe('MiXeD.key.test.');
    expect(nodes.get(nameKey('abc.key.test.'))?.name).toBe('\\065bc.key.test.');
  });

  it('arrives built from the reload worker, and the engine answers from it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lexroute-keyindex-'));
    const bg = new BackgroundZoneLoader();
    try {
      const file = join(dir, 'key.test.zone');
      writeFileSync(file, ZONE);
      const r = await bg.load(file, 'key.test.');
      expect(r.indexed?.nodes).toBeInstanceOf(KeyedNodes);
      expect(r.indexed!.nodes.size).toBe(indexZone(load()).nodes.size);
      const engine = new Engine([r.indexed!]);
      const ask = (name: string, type: 'A' | 'TXT') => {
        const q = dnsPacket.encode({ type: 'query', id: 1, questions: [{ name, type }] });
        const out = engine.respond(q, TRANSPORT_UDP)!;
        return { rcode: out.readUInt16BE(2) & 0xf, answers: dnsPacket.decode(out).answers };
      };
      const mixed = ask('mixed.KEY.test', 'A');
      expect(mixed.rcode).toBe(0);
      expect(mixed.answers?.map((a) => (a as { data: unknown }).data)).toEqual(['192.0.2.2']);
      expect(
        ask('x.wild.key.test', 'A').answers?.map((a) => (a as { data: unknown }).data),
      ).toEqual(['192.0.2.6']);
      expect(ask('nothere.key.test', 'A').rcode).toBe(3);
      expect(ask('ent.key.test', 'A').rcode).toBe(0);
    } finally {
      await bg.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
