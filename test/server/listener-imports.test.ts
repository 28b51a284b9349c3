/**
 * The listeners only frame, apply back-pressure and send (issue 29, one
 * query pipeline): UDP, TCP and DoH hand every message to the query
 * pipeline (src/authority/pipeline.ts) and import nothing of transfers,
 * NOTIFY, TSIG or response-rate limiting, type-only imports included. And
 * the engine answers with a value: no `last*` side-channel fields.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph } from '../../scripts/import-cycles.ts';
import { Engine } from '../../src/authority/engine.ts';

const src = fileURLToPath(new URL('../../src', import.meta.url));

const LISTENERS = [
  'authority/udp.ts',
  'authority/tcp.ts',
  'authority/tcp-frames.ts',
  'authority/doh.ts',
];

/** What a listener must not import: transfers, NOTIFY, TSIG (all in src/xfr), RRL. */
const FORBIDDEN = [/^xfr\//, /(^|\/)rrl[^/]*\.ts$/, /tsig/, /notify/, /secondar/];

/** The imports of `files` (paths relative to src) that match a forbidden pattern. */
function forbiddenImports(graph: Map<string, string[]>, files: readonly string[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    const deps = graph.get(f);
    if (deps === undefined) {
      out.push(`${f}: not found`);
      continue;
    }
    for (const d of deps) if (FORBIDDEN.some((re) => re.test(d))) out.push(`${f} imports ${d}`);
  }
  return out;
}

describe('listeners and the query pipeline', () => {
  it('no listener imports transfers, NOTIFY, TSIG or RRL; each goes through the pipeline', () => {
    const graph = importGraph(src, true);
    expect(forbiddenImports(graph, LISTENERS)).toEqual([]);
    for (const f of ['authority/udp.ts', 'authority/tcp.ts', 'authority/doh.ts']) {
      expect(graph.get(f), f).toContain('authority/pipeline.ts');
    }
    // The pipeline is where they are used.
    expect(graph.get('authority/pipeline.ts')).toEqual(
      expect.arrayContaining(['authority/rrl.ts', 'xfr/out.ts']),
    );
  });

  it('finds a forbidden import when there is one', () => {
    const graph = new Map([
      ['authority/udp.ts', ['authority/pipeline.ts', 'authority/rrl.ts']],
      ['authority/tcp.ts', ['xfr/out.ts']],
    ]);
    expect(forbiddenImports(graph, ['authority/udp.ts', 'authority/tcp.ts'])).toEqual([
      'authority/udp.ts imports authority/rrl.ts',
      'authority/tcp.ts imports xfr/out.ts',
    ]);
  });

  it('the engine keeps no side-channel fields about the last answer', () => {
    const fields = Object.keys(new Engine());
    expect(fields.length).toBeGreaterThan(3);
    expect(fields.filter((k) => k.startsWith('last'))).toEqual([]);
  });
});
