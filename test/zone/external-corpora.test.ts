/**
 * Re-print corpora (dnspython, ldns, NSD rr-test): a zone and another
 * implementation's canonical re-print of it must give the same record set
 * (owner, type, TTL, RDATA bytes) for every type we read in presentation
 * form, and our own writer must round-trip it. NSD's fuzzer crashers must be
 * rejected with diagnostics, not crash or hang.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ResourceRecord } from '../../src/dns/core/zone/model.ts';
import { parseZoneText } from '../../src/dns/core/zone/parser.ts';
import { writeZone } from '../../src/dns/core/zone/writer.ts';
import { loadZoneText } from '../../src/authority/zones/load.ts';
import { corpusOrSkip, titled, toolOrSkip } from '../helpers/tools.ts';

const corpus = corpusOrSkip('external-test-data/');
const D = corpus.path;
const key = (r: ResourceRecord) =>
  `${r.owner} ${r.type} ${r.ttl} ${Buffer.from(r.rdata).toString('hex')}`;

/**
 * Diagnostics we expect on these corpora, and why:
 * - ZONE_UNSUPPORTED_TYPE_SYNTAX: types read only in RFC 3597 form (RRSIG, NSEC*, KEY, ...);
 * - ZONE_UNKNOWN_TYPE: IPN and CLA (NSD HEAD's newest types) are unknown mnemonics;
 * - ZONE_BAD_GENERIC_RDATA: ldns line 3882 `A \# 0`, an A record without its 4
 *   octets, which ldns accepts and re-prints; RFC 1035 section 3.4.1 A RDATA is 4 octets.
 * - ZONE_BAD_BASE32: dnspython's nsec303 `NSEC3 1 1 1 abcd alkmaao A`, a
 *   4-octet hash for algorithm 1 (SHA-1 hashes are 20 octets, RFC 5155
 *   section 3.3); BIND refuses it too ("out of range"), dnspython prints it.
 */
const ALLOWED = new Set([
  'ZONE_UNSUPPORTED_TYPE_SYNTAX',
  'ZONE_UNKNOWN_TYPE',
  'ZONE_BAD_GENERIC_RDATA',
  'ZONE_BAD_BASE32',
]);

const PAIRS: { input: string; reprint: string; origin: string; onlyInInput?: string[] }[] = [
  { input: 'dnspython/example', reprint: 'dnspython/example1.good', origin: 'example.' },
  { input: 'dnspython/example', reprint: 'dnspython/example2.good', origin: 'example.' },
  { input: 'dnspython/example', reprint: 'dnspython/example3.good', origin: 'example.' },
  { input: 'dnspython/example', reprint: 'dnspython/example4.good', origin: 'example.' },
  {
    input: 'ldns/zonereader/08-zonereader.inputzone',
    reprint: 'ldns/zonereader/08-zonereader.outputzone',
    // The input writes its LOC in RFC 3597 form; ldns re-prints it as LOC
    // presentation: both read to the same octets.
    origin: '.',
  },
  {
    input: 'nsd/rr-test/rr-test.zone',
    reprint: 'nsd/rr-test/rr-test.cmp_zone',
    origin: 'blaat.nl.',
  },
];

describe.skipIf(corpus.skipReason !== undefined)(
  titled('re-print corpora compare equal as record sets', corpus),
  () => {
    for (const p of PAIRS) {
      it(`${p.input} vs ${p.reprint}`, () => {
        const a = parseZoneText(readFileSync(D + p.input, 'utf8'), {
          origin: p.origin,
          file: p.input,
        });
        const b = parseZoneText(readFileSync(D + p.reprint, 'utf8'), {
          origin: p.origin,
          file: p.reprint,
        });
        for (const d of [...a.diagnostics, ...b.diagnostics])
          expect(ALLOWED, `${d.code} ${d.message}`).toContain(d.code);
        const sa = new Set(a.records.map(key));
        const sb = new Set(b.records.map(key));
        for (const k of p.onlyInInput ?? []) {
          expect(sa.has(k)).toBe(true);
          sa.delete(k);
        }
        expect([...sa].sort()).toEqual([...sb].sort());
        expect(sa.size).toBeGreaterThan(30);
        // dnspython and NSD's zones hold NAPTR records (2 each).
        if (!p.input.startsWith('ldns'))
          expect(a.records.filter((r) => r.type === 35).length).toBe(2);
        // Our own canonical form round-trips the same set.
        const again = parseZoneText(writeZone(a.records), { file: 'written' });
        expect(again.diagnostics).toEqual([]);
        expect(again.records.map(key).sort()).toEqual(a.records.map(key).sort());
      });
    }
  },
);

describe.skipIf(corpus.skipReason !== undefined)(titled('NSD parsezone crashers', corpus), () => {
  const dir = `${D}nsd/parsezone-crashers/`;
  const named = toolOrSkip('named-checkzone');
  it('parsezone.zone loads (origin example.com)', () => {
    const r = loadZoneText(readFileSync(`${dir}parsezone.zone`, 'utf8'), 'parsezone.zone', {
      origin: 'example.com.',
    });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.zone?.size).toBe(4);
  });
  const crashers = corpus.skipReason ? [] : readdirSync(dir).filter((f) => f !== 'parsezone.zone');
  it('has the 8 crashers', () => expect(crashers.length).toBe(8));
  for (const f of crashers) {
    it(`${f} is rejected with positioned diagnostics (BIND rejects it too)`, () => {
      const text = readFileSync(dir + f, 'latin1');
      const r = loadZoneText(text, f, { origin: 'example.com.', allowInclude: false });
      const errors = r.diagnostics.filter((d) => d.severity === 'error');
      expect(errors.length).toBeGreaterThan(0);
      expect(r.zone).toBeUndefined();
      for (const d of errors) {
        expect(d.code).toMatch(/^ZONE_[A-Z0-9_]+$/);
        expect(d.message.length).toBeGreaterThan(5);
      }
      if (named.path)
        expect(spawnSync(named.path, ['-q', 'example.com.', dir + f]).status).not.toBe(0);
    });
  }
});
