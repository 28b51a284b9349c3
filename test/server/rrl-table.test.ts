/**
 * The RRL's typed-array table (`src/authority/rrl-table.ts`): keys found again
 * after the table grows and after rebuilds, exact keys (no two keys share a
 * bucket), the oldest dropped first when full, stale entries swept, and the
 * IPv4 prefix parser against the text forms it must refuse.
 */
import { describe, expect, it } from 'vitest';
import { RrlTable, v4PrefixInt } from '../../src/authority/rrl-table.ts';

function put(t: RrlTable, p: number, id: number, tag: number, balance: number, second: number) {
  t.key(p, id, tag);
  const f = t.find();
  expect(f).toBeLessThan(0);
  return t.insert(-1 - f, balance, second);
}

function get(t: RrlTable, p: number, id: number, tag: number): number | undefined {
  t.key(p, id, tag);
  const i = t.find();
  return i < 0 ? undefined : t.balance(i);
}

describe('RrlTable', () => {
  it('finds every key again while growing, and keeps keys that differ in one part apart', () => {
    const t = new RrlTable();
    for (let n = 0; n < 5000; n++) put(t, n % 7, n, n % 3, n, 1);
    expect(t.size).toBe(5000);
    for (let n = 0; n < 5000; n++) expect(get(t, n % 7, n, n % 3)).toBe(n);
    // The same id under another prefix or tag is another entry.
    expect(get(t, 99, 10, 10 % 3)).toBeUndefined();
    expect(get(t, 10 % 7, 10, (10 % 3) + 1)).toBeUndefined();
    // Prefixes above 2^31 (IPv4 192.0.2.0) are stored as int32 and found again.
    put(t, 0xc0000200, 1, 0, 42, 1);
    expect(get(t, 0xc0000200, 1, 0)).toBe(42);
  });

  it('dropOldest removes the oldest by insertion; dropStale those not touched recently', () => {
    const t = new RrlTable();
    for (let n = 0; n < 100; n++) put(t, 1, n, 0, n, n < 50 ? 10 : 20);
    t.dropOldest(10);
    expect(t.size).toBe(90);
    expect(get(t, 1, 9, 0)).toBeUndefined();
    expect(get(t, 1, 10, 0)).toBe(10);
    t.dropStale(30, 15); // touched at 10: stale; at 20: kept
    expect(t.size).toBe(50);
    expect(get(t, 1, 49, 0)).toBeUndefined();
    expect(get(t, 1, 50, 0)).toBe(50);
    t.dropStale(100, 15);
    expect(t.size).toBe(0);
  });

  it('set and slip update one entry', () => {
    const t = new RrlTable();
    const i = put(t, 5, 5, 5, 3, 7);
    t.set(i, -2, 8);
    t.setSlip(i, 1);
    t.key(5, 5, 5);
    const j = t.find();
    expect([t.balance(j), t.second(j), t.slip(j)]).toEqual([-2, 8, 1]);
  });
});

describe('v4PrefixInt', () => {
  it('masks dotted quads and IPv4-mapped IPv6 addresses', () => {
    expect(v4PrefixInt('10.1.2.3', 24)).toBe(0x0a010200);
    expect(v4PrefixInt('10.1.2.3', 32)).toBe(0x0a010203);
    expect(v4PrefixInt('10.1.2.3', 16)).toBe(0x0a010000);
    expect(v4PrefixInt('255.255.255.255', 24)).toBe(0xffffff00);
    expect(v4PrefixInt('::ffff:10.1.2.3', 24)).toBe(0x0a010200);
    expect(v4PrefixInt('1.2.3.4', 0)).toBe(0);
  });
  it('is -1 for IPv6 and for text that is not a dotted quad', () => {
    for (const bad of [
      '::1',
      '2001:db8::1',
      '1.2.3',
      '1.2.3.4.5',
      '1.2.3.256',
      '1..2.3',
      '1.2.3.',
      'a.b.c.d',
      '1.2.3.0004',
      '::ffff:1:2',
    ]) {
      expect(v4PrefixInt(bad, 24), bad).toBe(-1);
    }
  });
});
