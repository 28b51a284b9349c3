/**
 * The example NAPTR records of RFC 3403 sections 6.1-6.2, RFC 3404 sections
 * 5.1-5.3, RFC 3405 section 4 and RFC 9676 section 12 (corrected per the
 * digest) load, lint as expected, and their `; expect` directives hold.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  checkExpectations,
  lintNaptrRecords,
  naptrFields,
} from '../../src/ddds/core/lint/naptr-lint.ts';
import { loadZoneText } from '../../src/authority/zones/load.ts';

const FILE = new URL('../vectors/zonefile/rfc-naptr-examples.txt', import.meta.url).pathname;
const r = loadZoneText(readFileSync(FILE, 'utf8'), FILE, { origin: '.' });

describe('RFC 3403/3404/3405/9676 example NAPTRs', () => {
  it('load as a zone without errors', () => {
    expect(r.diagnostics).toEqual([]);
    expect(r.zone?.size).toBe(19);
  });

  it('keep single backslashes on the wire (RFC 3403 section 6.1 as the client sees it)', () => {
    const cid = r.records.find((x) => x.owner === 'cid.urn.arpa.')!;
    expect(naptrFields(cid.rdata)).toEqual({
      order: 100,
      preference: 10,
      flags: '',
      services: '',
      regexp: '!^urn:cid:.+@([^\\.]+\\.)(.*)$!\\2!i',
      replacement: '.',
    });
  });

  it('lint: only the RFC 3405 \\2 example is refused', () => {
    const lint = lintNaptrRecords(r.records);
    expect(lint.map((d) => [d.code, d.position?.line])).toEqual([
      ['NAPTR_SUBST_BACKREF_RANGE', 42],
    ]);
  });

  it('every expect directive holds (DDDS step of the client)', () => {
    expect(r.expects.length).toBe(7);
    expect(checkExpectations(r.expects, r.records)).toEqual([]);
  });

  it('a wrong expectation is reported with its line', () => {
    const wrong = r.expects.map((e) => ({
      ...e,
      text: e.text.replace(/-> .*$/, '-> nowhere.example.'),
    }));
    const found = checkExpectations(wrong, r.records);
    expect(found.length).toBe(7);
    expect(found.every((d) => d.code === 'NAPTR_EXPECT_MISMATCH' && d.severity === 'error')).toBe(
      true,
    );
    expect(found.map((d) => d.position?.line)).toEqual(r.expects.map((e) => e.position.line));
  });
});
