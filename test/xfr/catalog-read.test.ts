/**
 * A catalog zone read by its consumer (RFC 9432 version 2): the members a
 * version lists, the coded problems of broken catalogs (no version, a
 * version other than "2", a member node without exactly one PTR or whose
 * PTR names something that cannot be a member here, a member listed twice)
 * and the plan from one version to the next (added, removed, reset when a
 * member's ID changes; broken entries keep their member as it was).
 */
import { describe, expect, it } from 'vitest';
import { nameKey, nameToWire } from '../../src/dns/core/wire/name.ts';
import { planCatalog, readCatalog, type CatalogRecord } from '../../src/xfr/core/catalog-read.ts';

const CAT = 'cat.example.';

const txt = (owner: string, ...strings: string[]): CatalogRecord => ({
  key: nameKey(owner),
  type: 16,
  rdata: Uint8Array.from(strings.flatMap((s) => [s.length, ...Buffer.from(s)])),
});
const ptr = (id: string, target: string | Uint8Array): CatalogRecord => ({
  key: nameKey(`${id}.zones.${CAT}`),
  type: 12,
  rdata: typeof target === 'string' ? nameToWire(target) : target,
});
const VERSION = txt(`version.${CAT}`, '2');

const codes = (rs: CatalogRecord[]) => readCatalog(CAT, rs).problems.map((p) => p.code);

describe('readCatalog', () => {
  it('lists the members by name with their IDs, their group and coo properties; others are counted', () => {
    const r = readCatalog(CAT, [
      { key: nameKey(CAT), type: 6, rdata: new Uint8Array(22) },
      VERSION,
      ptr('a1', 'one.example.'),
      ptr('b2', 'Two.Example.'),
      txt(`group.a1.zones.${CAT}`, 'blue'),
      { key: nameKey(`coo.b2.zones.${CAT}`), type: 12, rdata: nameToWire('other.cat.') },
      txt(`ext.${CAT}`, 'x'),
    ]);
    expect(r.problems).toEqual([]);
    expect([...r.members!]).toEqual([
      ['one.example.', 'a1'],
      ['two.example.', 'b2'],
    ]);
    expect(r.ignored).toEqual({ ext: 1 });
    expect(Object.fromEntries(r.groups)).toEqual({ 'one.example.': ['blue'] });
    expect(Object.fromEntries(r.coo)).toEqual({ 'two.example.': 'other.cat.' });
  });

  it('reads every group of a member, each TXT record one value (RFC 9432 section 5.2)', () => {
    const r = readCatalog(CAT, [
      VERSION,
      ptr('a1', 'one.example.'),
      txt(`group.a1.zones.${CAT}`, 'operator-x-', 'nsec3'),
      txt(`group.a1.zones.${CAT}`, 'operator-y-nsec3'),
      txt(`group.gone.zones.${CAT}`, 'no member'),
      txt(`ext.a1.zones.${CAT}`, 'custom'),
    ]);
    expect(r.problems).toEqual([]);
    expect(r.groups.get('one.example.')).toEqual(['operator-x-nsec3', 'operator-y-nsec3']);
    expect(r.groups.size).toBe(1);
    expect(r.ignored).toEqual({ ext: 1 });
  });

  it('refuses the version for a coo that is not one PTR naming a catalog (CATALOG_BAD_COO)', () => {
    const coo = (target: string | Uint8Array): CatalogRecord => ({
      key: nameKey(`coo.a1.zones.${CAT}`),
      type: 12,
      rdata: typeof target === 'string' ? nameToWire(target) : target,
    });
    const base = [VERSION, ptr('a1', 'one.example.')];
    for (const bad of [
      [coo('new1.cat.'), coo('new2.cat.')],
      [coo(Uint8Array.from([3, 0x61, 0x62]))],
      [coo('.')],
    ]) {
      const r = readCatalog(CAT, [...base, ...bad]);
      expect(r.members).toBeUndefined();
      expect(r.problems).toMatchObject([{ code: 'CATALOG_BAD_COO', owner: `coo.a1.zones.${CAT}` }]);
    }
    expect(readCatalog(CAT, [...base, coo('New.Cat.')]).coo.get('one.example.')).toBe('new.cat.');
  });

  it('refuses a catalog without version, or with another version or two TXT records', () => {
    const members = [ptr('a1', 'one.example.')];
    expect(readCatalog(CAT, members)).toMatchObject({
      members: undefined,
      problems: [{ code: 'CATALOG_NO_VERSION', owner: `version.${CAT}` }],
    });
    expect(codes([txt(`version.${CAT}`, '1'), ...members])).toEqual(['CATALOG_VERSION']);
    expect(codes([VERSION, txt(`version.${CAT}`, '3'), ...members])).toEqual(['CATALOG_VERSION']);
    expect(codes([txt(`version.${CAT}`, '2', '2'), ...members])).toEqual(['CATALOG_VERSION']);
    expect(readCatalog(CAT, [txt(`version.${CAT}`, '1')]).problems[0]!.message).toContain('"1"');
  });

  it('names member nodes without exactly one usable PTR (CATALOG_BAD_PTR) and keeps them', () => {
    const r = readCatalog(CAT, [
      VERSION,
      ptr('two', 'x.example.'),
      ptr('two', 'y.example.'),
      ptr('slash', Uint8Array.from([3, 0x61, 0x2f, 0x62, 0])),
      ptr('inside', `sub.${CAT}`),
      ptr('root', '.'),
      ptr('short', Uint8Array.from([5, 0x61, 0x62])),
      ptr('good', 'ok.example.'),
      { key: nameKey(`none.zones.${CAT}`), type: 16, rdata: Uint8Array.of(1, 0x61) },
    ]);
    expect([...r.members!]).toEqual([['ok.example.', 'good']]);
    const byOwner = Object.fromEntries(r.problems.map((p) => [p.owner, p.code]));
    expect(byOwner).toEqual({
      [`two.zones.${CAT}`]: 'CATALOG_BAD_PTR',
      [`slash.zones.${CAT}`]: 'CATALOG_BAD_PTR',
      [`inside.zones.${CAT}`]: 'CATALOG_BAD_PTR',
      [`root.zones.${CAT}`]: 'CATALOG_BAD_PTR',
      [`short.zones.${CAT}`]: 'CATALOG_BAD_PTR',
      [`none.zones.${CAT}`]: 'CATALOG_BAD_PTR',
    });
    expect(r.problems.find((p) => p.owner.startsWith('two.'))!.message).toContain('2 PTR');
    expect([...r.keepIds].sort()).toEqual(['inside', 'none', 'root', 'short', 'slash', 'two']);
    expect([...r.keepNames].sort()).toEqual(['x.example.', 'y.example.']);
  });

  it('names a member listed twice (CATALOG_DUPLICATE_MEMBER) and lists it under neither ID', () => {
    const r = readCatalog(CAT, [VERSION, ptr('a', 'dup.example.'), ptr('b', 'DUP.example.')]);
    expect(r.problems).toMatchObject([
      { code: 'CATALOG_DUPLICATE_MEMBER', owner: `b.zones.${CAT}` },
    ]);
    expect(r.members!.size).toBe(0);
    expect([...r.keepNames]).toEqual(['dup.example.']);
  });
});

describe('planCatalog', () => {
  const before = new Map([
    ['keep.example.', 'k'],
    ['gone.example.', 'g'],
    ['moved.example.', 'm1'],
    ['dup.example.', 'd'],
    ['broken.example.', 'br'],
  ]);

  it('adds, removes, resets a member whose ID changed; broken entries keep their member', () => {
    const read = readCatalog(CAT, [
      VERSION,
      ptr('k', 'keep.example.'),
      ptr('m2', 'moved.example.'),
      ptr('n', 'new.example.'),
      ptr('d', 'dup.example.'),
      ptr('d2', 'dup.example.'),
      ptr('br', 'a.example.'),
      ptr('br', 'b.example.'),
    ]);
    const plan = planCatalog(before, read);
    expect(plan.add).toEqual(['new.example.']);
    expect(plan.remove).toEqual(['gone.example.']);
    expect(plan.reset).toEqual(['moved.example.']);
    expect(Object.fromEntries(plan.next)).toEqual({
      'keep.example.': 'k',
      'moved.example.': 'm2',
      'new.example.': 'n',
      'dup.example.': 'd',
      'broken.example.': 'br',
    });
  });

  it('changes nothing for a version that is not applied', () => {
    const plan = planCatalog(before, readCatalog(CAT, [ptr('n', 'new.example.')]));
    expect(plan).toMatchObject({ add: [], remove: [], reset: [] });
    expect(plan.next).toBe(before);
  });
});
