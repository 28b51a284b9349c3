/**
 * What `serve` loads at start (issue 30: the fixed memory of a server of
 * small zones): the secondary service, the DoH listener, and what only they
 * or the zone-load thread use (zone file parser, NAPTR lint, URN parsing,
 * inline signing) are imported when configured (`await import()`), not by
 * the modules every server loads. Value imports only: a type-only import
 * loads nothing.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph } from '../../scripts/import-cycles.ts';

const src = fileURLToPath(new URL('../../src', import.meta.url));

/** Every module `start` imports, directly or not (static value imports). */
function closure(graph: Map<string, string[]>, start: string): Set<string> {
  const seen = new Set<string>();
  const stack = [start];
  while (stack.length > 0) {
    const m = stack.pop()!;
    if (seen.has(m)) continue;
    seen.add(m);
    for (const d of graph.get(m) ?? []) stack.push(d);
  }
  return seen;
}

describe('serve start-up imports', () => {
  it('leave out the secondary service, DoH, the zone parser, the NAPTR lint and signing', () => {
    const loaded = closure(importGraph(src, false), 'cli/commands/serve.ts');
    expect(loaded.has('authority/server.ts')).toBe(true);
    const lazy = [
      'xfr/secondary.ts',
      'authority/doh.ts',
      'dns/core/zone/parser.ts',
      'ddds/core/lint/naptr-lint.ts',
      'urn/core/lex-parser.ts',
      'dnssec/inline.ts',
    ];
    expect(lazy.filter((m) => loaded.has(m))).toEqual([]);
  });
});
