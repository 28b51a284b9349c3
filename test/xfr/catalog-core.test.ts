/**
 * The pure part of catalog zones (RFC 9432 version 2): member labels,
 * serials, the zone text and reading it back; the text loads as a zone
 * with the zone parser with no error.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CatalogPublisher } from '../../src/xfr/catalog.ts';
import {
  catalogMemberId,
  catalogMembers,
  catalogZoneText,
  nextCatalogSerial,
  readCatalogText,
} from '../../src/xfr/core/catalog.ts';
import { parseZoneText } from '../../src/dns/core/zone/parser.ts';

describe('catalog zone text (RFC 9432 version 2)', () => {
  it('gives each member a stable label of 16 hex digits, the same whatever the case or trailing dot', () => {
    const id = catalogMemberId('Example.LEX.');
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(catalogMemberId('example.lex')).toBe(id);
    expect(catalogMemberId('example2.lex.')).not.toBe(id);
  });

  it('lists members sorted, lowercased, once, without the catalog itself', () => {
    expect(catalogMembers(['b.x.', 'A.x.', 'a.x.', 'cat.invalid.'], 'cat.invalid.')).toEqual([
      'a.x.',
      'b.x.',
    ]);
  });

  it('raises the serial: the clock when ahead, else one past the previous (RFC 1982)', () => {
    expect(nextCatalogSerial(undefined, 1000.7)).toBe(1000);
    expect(nextCatalogSerial(900, 1000)).toBe(1000);
    expect(nextCatalogSerial(1000, 1000)).toBe(1001);
    expect(nextCatalogSerial(5000, 1000)).toBe(5001);
    expect(nextCatalogSerial(0xffffffff, 10)).toBe(10);
  });

  it('writes SOA, NS invalid., version TXT "2" and one PTR per member, and reads it back', () => {
    const text = catalogZoneText({ name: 'cat.invalid.', serial: 7, members: ['a.x.', 'b.x.'] });
    const { records, diagnostics } = parseZoneText(text, { origin: 'cat.invalid.' });
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(records).toHaveLength(5);
    expect(text).toContain('version IN TXT "2"');
    expect(text).toContain(`${catalogMemberId('a.x.')}.zones IN PTR a.x.`);
    expect(readCatalogText(text)).toEqual({ serial: 7, members: ['a.x.', 'b.x.'] });
    expect(readCatalogText('not a catalog')).toBeUndefined();
  });
});

describe('CatalogPublisher (the catalog file in the state folder)', () => {
  const log = { debug() {}, info() {}, warn() {}, error() {} };

  it('writes a version when the set changes, keeps it across a restart, leaves out secondaries', async () => {
    const stateDir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-catalog-state-'));
    try {
      const o = { name: 'cat.invalid.', stateDir, exclude: new Set(['sec.x.']), log };
      const p = await CatalogPublisher.open(o);
      expect(await p.update(['a.x.', 'sec.x.', 'cat.invalid.'])).toBe(true);
      const first = readCatalogText(readFileSync(p.file, 'utf8'))!;
      expect(first.members).toEqual(['a.x.']);
      // A restart with the same members writes nothing: the serial stays.
      const again = await CatalogPublisher.open(o);
      expect(again.listed()).toEqual(['a.x.']);
      expect(await again.update(['a.x.'])).toBe(false);
      expect(await again.update(['a.x.', 'b.x.'])).toBe(true);
      const second = readCatalogText(readFileSync(p.file, 'utf8'))!;
      expect(second.members).toEqual(['a.x.', 'b.x.']);
      expect(second.serial).toBeGreaterThan(first.serial);
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
