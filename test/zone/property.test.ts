/**
 * Property tests: write-then-parse is the identity on generated zones (any
 * octet in labels and strings), and for every type dns-packet also encodes,
 * our RDATA bytes equal dns-packet's (the reference codec).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildZone } from '../../src/dns/core/zone/build.ts';
import type { ResourceRecord } from '../../src/dns/core/zone/model.ts';
import { nameToText } from '../../src/dns/core/zone/names.ts';
import { decodeRdata, encodeRdata } from '../../src/dns/core/zone/packet.ts';
import { parseZoneChunks, parseZoneText } from '../../src/dns/core/zone/parser.ts';
import { readFileSync } from 'node:fs';
import { rrToPresentation, writeZone } from '../../src/dns/core/zone/writer.ts';

const APEX = [7, ...Buffer.from('example'), 0];
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const key = (r: ResourceRecord) => `${r.owner} ${r.type} ${r.ttl} ${hex(r.rdata)}`;

const u16 = fc.integer({ min: 0, max: 65535 }).map((v) => [v >> 8, v & 255]);
const label = (lower: boolean) =>
  fc
    .uint8Array({ minLength: 1, maxLength: 12 })
    .map((b) => (lower ? b.map((c) => (c >= 0x41 && c <= 0x5a ? c + 32 : c)) : b))
    .map((b) => [b.length, ...b]);
/** A wire name under example. (any octet in labels). */
const wireName = (lower: boolean) =>
  fc.array(label(lower), { minLength: 0, maxLength: 3 }).map((ls) => [...ls.flat(), ...APEX]);
const cstr = fc.uint8Array({ maxLength: 40 }).map((b) => [b.length, ...b]);

const rdataFor: Record<number, fc.Arbitrary<number[]>> = {
  1: fc.uint8Array({ minLength: 4, maxLength: 4 }).map((b) => [...b]),
  28: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => [...b]),
  2: wireName(false),
  5: wireName(false),
  12: wireName(false),
  39: wireName(false),
  13: fc.tuple(cstr, cstr).map(([a, b]) => [...a, ...b]),
  15: fc.tuple(u16, wireName(false)).map(([a, b]) => [...a, ...b]),
  16: fc.array(cstr, { minLength: 1, maxLength: 3 }).map((s) => s.flat()),
  33: fc.tuple(u16, u16, u16, wireName(false)).map((p) => p.flat()),
  35: fc.tuple(u16, u16, cstr, cstr, cstr, wireName(false)).map((p) => p.flat()),
  257: fc
    .tuple(
      fc.integer({ min: 0, max: 255 }),
      fc.stringMatching(/^[a-z0-9]{1,15}$/),
      fc.uint8Array({ maxLength: 30 }),
    )
    .map(([f, tag, v]) => [f, tag.length, ...Buffer.from(tag), ...v]),
  65280: fc.uint8Array({ maxLength: 30 }).map((b) => [...b]),
};

const record = fc
  .tuple(
    wireName(true),
    fc.constantFrom(...Object.keys(rdataFor).map(Number)),
    fc.integer({ min: 0, max: 2147483647 }),
  )
  .chain(([owner, type, ttl]) =>
    rdataFor[type]!.map((rdata): ResourceRecord => ({
      owner: nameToText(Uint8Array.from(owner), 0, true),
      type,
      class: 1,
      ttl,
      rdata: Uint8Array.from(rdata),
    })),
  );

const SOA = parseZoneText(
  'example. 60 IN SOA ns.example. h.example. 1 2 3 4 5\nexample. 60 IN NS ns.example.\nns.example. 60 IN A 192.0.2.1\n',
  {},
).records;

describe('write then parse is the identity', () => {
  it('on generated record lists (any octet in names and strings)', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 25 }), (records) => {
        const text = writeZone(records);
        const back = parseZoneText(text, { file: 'written' });
        expect(back.diagnostics).toEqual([]);
        expect(back.records.map(key).sort()).toEqual(records.map(key).sort());
      }),
      { numRuns: 300 },
    );
  });

  it('on generated zones (buildZone, then writeZone of the snapshot)', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 25 }), (generated) => {
        // One TTL per RRset and no duplicates, so the snapshot keeps every record as is.
        const seen = new Set<string>();
        const ttl = new Map<string, number>();
        // CNAME/DNAME exclusivity, delegations and glue are tested elsewhere.
        const records = [
          ...SOA,
          ...generated.filter((r) => r.type !== 5 && r.type !== 39 && r.type !== 2),
        ]
          .map((r) => {
            const k = `${r.owner} ${r.type}`;
            if (!ttl.has(k)) ttl.set(k, r.ttl);
            return {
              owner: r.owner,
              type: r.type,
              class: r.class,
              ttl: ttl.get(k)!,
              rdata: r.rdata,
            };
          })
          .filter((r) => {
            const k = key(r);
            if (seen.has(k)) return false;
            seen.add(k);
            return true;
          });
        const built = buildZone(records, { origin: 'example.' });
        expect(built.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        const back = parseZoneText(writeZone(built.zone!), { file: 'written' });
        expect(back.diagnostics).toEqual([]);
        expect(back.records.map(key).sort()).toEqual(records.map(key).sort());
      }),
      { numRuns: 200 },
    );
  });
});

// Values dns-packet can represent (its names split on "." and its strings are UTF-8 text).
const ldh = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
const plainName = fc.array(ldh, { minLength: 1, maxLength: 4 }).map((ls) => ls.join('.'));
const plainText = fc.stringMatching(/^[ -!#-[\]-~]{0,40}$/); // printable ASCII without " and \

describe('our RDATA bytes equal dns-packet (the reference codec)', () => {
  const cases: [string, fc.Arbitrary<{ text: string; data: unknown }>][] = [
    [
      'NAPTR',
      fc
        .tuple(
          fc.nat(65535),
          fc.nat(65535),
          fc.stringMatching(/^[A-Za-z0-9]{0,2}$/),
          fc.stringMatching(/^[A-Za-z0-9+]{0,20}$/),
          plainText,
          plainName,
        )
        .map(([order, preference, flags, services, regexp, replacement]) => ({
          text: `${order} ${preference} "${flags}" "${services}" "${regexp}" ${replacement}.`,
          data: { order, preference, flags, services, regexp, replacement },
        })),
    ],
    [
      'SRV',
      fc
        .tuple(fc.nat(65535), fc.nat(65535), fc.nat(65535), plainName)
        .map(([priority, weight, port, target]) => ({
          text: `${priority} ${weight} ${port} ${target}.`,
          data: { priority, weight, port, target },
        })),
    ],
    [
      'MX',
      fc.tuple(fc.nat(65535), plainName).map(([preference, exchange]) => ({
        text: `${preference} ${exchange}.`,
        data: { preference, exchange },
      })),
    ],
    [
      'SOA',
      fc
        .tuple(plainName, plainName, fc.nat(), fc.nat(), fc.nat(), fc.nat(), fc.nat())
        .map(([mname, rname, serial, refresh, retry, expire, minimum]) => ({
          text: `${mname}. ${rname}. ${serial} ${refresh} ${retry} ${expire} ${minimum}`,
          data: { mname, rname, serial, refresh, retry, expire, minimum },
        })),
    ],
    [
      'TXT',
      fc.array(plainText, { minLength: 1, maxLength: 4 }).map((ss) => ({
        text: ss.map((s) => `"${s}"`).join(' '),
        data: ss,
      })),
    ],
    [
      'CAA',
      fc
        .tuple(fc.constantFrom(0, 128), fc.stringMatching(/^[a-z0-9]{1,15}$/), plainText)
        .map(([flags, tag, value]) => ({
          text: `${flags} ${tag} "${value}"`,
          data: { flags, tag, value },
        })),
    ],
    ['A', fc.ipV4().map((a) => ({ text: a, data: a }))],
    // dns-packet's address codec misreads some uncompressed forms ("::0:0:0:0:0:0:10"
    // gives ::), so it gets the URL parser's normalised spelling of the same address.
    [
      'AAAA',
      fc.ipV6().map((a) => ({ text: a, data: new URL(`http://[${a}]/`).hostname.slice(1, -1) })),
    ],
    ['NS', plainName.map((n) => ({ text: `${n}.`, data: n }))],
    ['CNAME', plainName.map((n) => ({ text: `${n}.`, data: n }))],
    ['PTR', plainName.map((n) => ({ text: `${n}.`, data: n }))],
    ['DNAME', plainName.map((n) => ({ text: `${n}.`, data: n }))],
  ];
  const CODES: Record<string, number> = {
    NAPTR: 35,
    SRV: 33,
    MX: 15,
    SOA: 6,
    TXT: 16,
    CAA: 257,
    A: 1,
    AAAA: 28,
    NS: 2,
    CNAME: 5,
    PTR: 12,
    DNAME: 39,
  };
  for (const [type, arb] of cases) {
    it(type, () => {
      fc.assert(
        fc.property(arb, ({ text, data }) => {
          const r = parseZoneText(`x.example. 60 IN ${type} ${text}\n`, {});
          expect(r.diagnostics).toEqual([]);
          const ours = r.records[0]!.rdata;
          expect(hex(ours)).toBe(hex(encodeRdata(CODES[type]!, data)));
          // And dns-packet decodes our bytes; our presentation parses back to them.
          expect(() => decodeRdata(CODES[type]!, ours)).not.toThrow();
          const again = parseZoneText(rrToPresentation(r.records[0]!) + '\n', {});
          expect(hex(again.records[0]!.rdata)).toBe(hex(ours));
        }),
        { numRuns: 200 },
      );
    });
  }
});

describe('parsing a text given in pieces', () => {
  const texts = [
    readFileSync(new URL('../vectors/zonefile/zones/example.zone', import.meta.url), 'utf8'),
    readFileSync(new URL('../vectors/zonefile/zones/bad.example.zone', import.meta.url), 'utf8'),
    ...(
      JSON.parse(
        readFileSync(new URL('../vectors/zonefile/syntax.json', import.meta.url), 'utf8'),
      ) as { zone: string }[]
    ).map((v) => v.zone),
  ];
  const view = (r: ReturnType<typeof parseZoneText>) => ({
    records: r.records.map((x) => `${key(x)} ${x.source?.line}`),
    diagnostics: r.diagnostics.map(
      (d) => `${d.code} ${d.position?.line}:${d.position?.column} ${d.token}`,
    ),
    expects: r.expects.map((e) => `${e.owner} ${e.position.line} ${e.text}`),
    origin: r.origin,
  });
  it('cut anywhere, gives the same records, diagnostics (with positions) and expects', () => {
    fc.assert(
      fc.property(fc.constantFrom(...texts), fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const pieces: string[] = [];
        let last = 0;
        for (const p of points) {
          pieces.push(text.slice(last, p));
          last = p;
        }
        pieces.push(text.slice(last));
        const opts = { file: 'f', origin: 'example.' };
        expect(view(parseZoneChunks(pieces, opts))).toEqual(view(parseZoneText(text, opts)));
      }),
      { numRuns: 400 },
    );
  });
});
