/** No import cycle among the modules of src (value imports; issue 19). */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph } from '../scripts/import-cycles.ts';

const src = fileURLToPath(new URL('../src', import.meta.url));

describe('import graph of src', () => {
  it('has no cycle', () => {
    const graph = importGraph(src, false);
    expect(graph.size).toBeGreaterThan(100);
    const cycles = importCycles(graph).map((c) => `cycle among: ${c.join(', ')}`);
    expect(
      cycles,
      'modules that import each other: move what they share into a module both import',
    ).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});
