import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DDDS_CODES } from '../../src/ddds/core/codes.ts';

const dir = new URL('../../src/ddds/core/', import.meta.url);

describe('DDDS code table', () => {
  it('every code used in src/ddds/core is in DDDS_CODES, and every entry is used', () => {
    const used = new Set<string>();
    for (const f of readdirSync(dir)) {
      if (!f.endsWith('.ts') || f === 'codes.ts') continue;
      const text = readFileSync(new URL(f, dir), 'utf8');
      for (const m of text.matchAll(/'((?:SUBST|ERE|NAPTR|DDDS)_[A-Z_]+)'/g)) used.add(m[1] ?? '');
    }
    expect(used.size).toBeGreaterThan(30);
    const table = Object.keys(DDDS_CODES);
    expect([...used].filter((c) => !table.includes(c))).toEqual([]);
    expect(table.filter((c) => !used.has(c))).toEqual([]);
  });
});
