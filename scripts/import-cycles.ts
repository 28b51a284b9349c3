/**
 * Import cycles among the modules of src: a small scan of the relative
 * imports and re-exports of every .ts file (type-only imports are left out
 * unless asked: they vanish at run time), then Tarjan's strongly connected
 * components. test/import-cycles.test.ts runs it over src.
 *
 * Usage: node scripts/import-cycles.ts [DIR=src] [--types]   (exit 1 on a cycle)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export function importGraph(root: string, withTypes: boolean): Map<string, string[]> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) files.push(p);
    }
  };
  walk(root);
  const graph = new Map<string, string[]>();
  const re = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    const deps: string[] = [];
    for (const m of text.matchAll(re)) {
      if (m[2] && !withTypes) continue;
      deps.push(
        relative(root, resolve(dirname(f), m[3]!))
          .split('\\')
          .join('/'),
      );
    }
    graph.set(relative(root, f).split('\\').join('/'), deps);
  }
  return graph;
}

/** The cycles: each strongly connected component of more than one module (or a self-import). */
export function importCycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const cycles = importCycles(importGraph(process.argv[2] ?? 'src', process.argv[3] === '--types'));
  for (const c of cycles) process.stdout.write(`cycle among: ${c.join(', ')}\n`);
  process.exit(cycles.length > 0 ? 1 : 0);
}
