/**
 * The coverage report as one self-contained HTML file (no script, no external
 * resource): totals, the delegation tree as inline SVG, the groups table.
 */
import { commonPrefix, type CoverageGroup, type CoverageReport } from './coverage.ts';

interface TreeNode {
  label: string;
  /** Keys above this one that every URN through it passed (a chain without branches). */
  above: string[];
  kind: 'key' | 'resolver' | 'handoff' | 'failed' | 'more';
  count: number;
  /** The prefixes of the groups that pass through (their common start labels the box). */
  prefixes: string[];
  children: Map<string, TreeNode>;
}

/** Most children drawn under one node; the rest are folded into one "n more" box. */
const MAX_CHILDREN = 40;

function node(label: string, kind: TreeNode['kind']): TreeNode {
  return { label, kind, above: [], count: 0, prefixes: [], children: new Map() };
}

function child(parent: TreeNode, label: string, kind: TreeNode['kind']): TreeNode {
  const id = `${kind}\u0000${label}`;
  let c = parent.children.get(id);
  if (!c) parent.children.set(id, (c = node(label, kind)));
  return c;
}

/** The tree of paths: every group adds its keys, then its resolver or failure code. */
export function delegationTree(groups: readonly CoverageGroup[]): TreeNode {
  const root = node('(start)', 'key');
  for (const g of groups) {
    root.count += g.count;
    let at = root;
    for (const k of g.path) {
      at = child(at, k, 'key');
      at.count += g.count;
      at.prefixes.push(g.prefix);
    }
    const kind = g.kind === 'failed' ? 'failed' : g.kind === 'handoff' ? 'handoff' : 'resolver';
    child(at, g.outcome, kind).count += g.count;
  }
  return squeeze(collapse(root));
}

/** Keys that lead on to a single key with every URN are drawn as one box (the start is dropped). */
function squeeze(n: TreeNode): TreeNode {
  let top = n;
  const only = (x: TreeNode) => (x.children.size === 1 ? [...x.children.values()][0]! : undefined);
  for (let c = only(top); c && c.kind === 'key' && c.count === top.count; c = only(top)) {
    c.above = top.label === '(start)' ? [...top.above] : [...top.above, top.label];
    top = c;
  }
  for (const [id, c] of top.children) top.children.set(id, squeeze(c));
  return top;
}

/** Merge the subtree `from` into `into` (labels matched by kind and text). */
function merge(into: TreeNode, from: TreeNode): void {
  into.count += from.count;
  into.prefixes.push(...from.prefixes);
  for (const [id, c] of from.children) {
    const mine = into.children.get(id);
    if (mine) merge(mine, c);
    else into.children.set(id, c);
  }
}

function collapse(n: TreeNode): TreeNode {
  const kids = [...n.children.values()].sort(
    (a, b) => b.count - a.count || a.label.localeCompare(b.label),
  );
  if (kids.length > MAX_CHILDREN) {
    const keep = kids.slice(0, MAX_CHILDREN - 1);
    const rest = kids.slice(MAX_CHILDREN - 1);
    const more = node(`${rest.length} more`, 'more');
    for (const r of rest) {
      // Keys below the folded ones are merged by what they lead to.
      if (r.children.size > 0) merge(more, r);
      else {
        more.count += r.count;
        more.children.set(`${r.kind}\u0000${r.label}`, r);
      }
    }
    n.children = new Map([
      ...keep.map((k) => [`${k.kind}\u0000${k.label}`, k] as const),
      ['more', more],
    ]);
  }
  for (const c of n.children.values()) collapse(c);
  return n;
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const GAP = 30;
const ROW = 30;
const LINE = 15;
/** Vertical space between two boxes of one column. */
const SPACE = 8;
const CHAR = 7.3;
const COLOURS: Record<TreeNode['kind'], string> = {
  key: '#e8f0fe',
  resolver: '#e6f4ea',
  handoff: '#fef7e0',
  failed: '#fce8e6',
  more: '#f1f3f4',
};

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`;
}

function boxLines(n: TreeNode): string[] {
  const prefix = n.kind === 'key' && n.prefixes.length > 0 ? commonPrefix(n.prefixes) : '';
  const last = `${n.count}  ${prefix !== '' ? `${prefix} \u2192 ` : ''}${n.kind === 'failed' ? 'FAIL ' : ''}${n.label}`;
  return [...n.above, last].map((l) => clip(l, 64));
}

/** Column widths: each depth as wide as its longest label. */
function widths(root: TreeNode): number[] {
  const w: number[] = [];
  const walk = (n: TreeNode, d: number) => {
    const chars = Math.max(...boxLines(n).map((l) => l.length));
    w[d] = Math.max(w[d] ?? 0, Math.ceil(chars * CHAR) + 14);
    for (const c of n.children.values()) walk(c, d + 1);
  };
  walk(root, 0);
  return w;
}

/**
 * Inline SVG of the tree: depth left to right, parents centred on their
 * children where they fit; each column's `floor` keeps boxes from overlapping.
 */
export function treeSvg(root: TreeNode): string {
  const parts: string[] = [];
  const w = widths(root);
  const xs = w.map((_, d) => w.slice(0, d).reduce((a, b) => a + b + GAP, 10));
  const floor: number[] = w.map(() => 10 - SPACE);
  let next = 10;
  const place = (n: TreeNode, depth: number): number => {
    const lines = boxLines(n);
    const h = lines.length * LINE + 7;
    const kids = [...n.children.values()].sort(
      (a, b) => b.count - a.count || a.label.localeCompare(b.label),
    );
    next = Math.max(next, floor[depth]! + SPACE);
    let mid: number;
    if (kids.length === 0) {
      mid = next + h / 2;
    } else {
      const ys = kids.map((k) => place(k, depth + 1));
      mid = Math.max((ys[0]! + ys[ys.length - 1]!) / 2, floor[depth]! + SPACE + h / 2);
      const x1 = xs[depth]! + w[depth]!;
      const x2 = xs[depth + 1]!;
      for (const cy of ys) {
        parts.push(
          `<path d="M${x1} ${mid} C${x1 + 15} ${mid} ${x2 - 15} ${cy} ${x2} ${cy}" fill="none" stroke="#9aa0a6"/>`,
        );
      }
    }
    const x = xs[depth]!;
    const y = mid - h / 2;
    floor[depth] = y + h;
    next = Math.max(next, kids.length === 0 ? y + Math.max(ROW, h + SPACE) : y + h + SPACE);
    const text = lines
      .map(
        (l, i) =>
          `<text x="${x + 6}" y="${y + LINE * (i + 1)}" font-size="12" font-family="monospace">${escapeXml(l)}</text>`,
      )
      .join('');
    parts.push(
      `<g><title>${escapeXml(`${[...n.above, n.label].join(' > ')} (${n.count})`)}</title><rect x="${x}" y="${y}" width="${w[depth]}" height="${h}" rx="4" fill="${COLOURS[n.kind]}" stroke="#5f6368"/>${text}</g>`,
    );
    return mid;
  };
  place(root, 0);
  const width = xs[xs.length - 1]! + w[w.length - 1]! + 10;
  const height = Math.max(next, ...floor) + 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" id="tree" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="delegation tree">${parts.join('')}</svg>`;
}

/** What names a group: its common prefix, else its URNs' jurisdictions. */
export function groupLabel(g: Pick<CoverageGroup, 'prefix' | 'examples'>): string {
  if (g.prefix !== '') return g.prefix;
  const seen = new Set<string>();
  for (const e of g.examples) {
    const m = /^urn:lex:([^:]+)/i.exec(e);
    seen.add(m ? m[1]!.toLowerCase() : e);
  }
  return seen.size > 0 ? [...seen].join(', ') : '(various)';
}

/** The whole page. */
export function reportHtml(report: CoverageReport, title: string): string {
  const rows = report.groups
    .map(
      (g) =>
        `<tr class="${g.kind}"><td class="n">${g.count}</td><td>${escapeXml(groupLabel(g))}</td><td>${escapeXml(g.kind === 'failed' ? `FAIL ${g.outcome}` : g.outcome)}</td><td>${escapeXml(g.path.join(' \u203a '))}</td><td>${escapeXml(g.examples.join(', '))}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em;color:#202124}
.totals span{display:inline-block;margin-right:1.5em;font-size:1.2em}
.ok{color:#137333}.bad{color:#c5221f}
.tree{overflow:auto;border:1px solid #dadce0;padding:.5em;margin:1em 0}
table{border-collapse:collapse;font-size:.9em;width:100%;table-layout:fixed}td,th{border:1px solid #dadce0;padding:.2em .5em;text-align:left;overflow-wrap:anywhere}
th:first-child{width:4em}
td.n{text-align:right}tr.failed td{background:#fce8e6}
</style></head><body>
<h1>${escapeXml(title)}</h1>
<p class="totals"><span id="total">${report.total} checked</span><span class="ok" id="resolved">${report.resolved} reach a resolver</span><span id="handoff">${report.handoff} handed off</span><span class="bad" id="failed">${report.failed} failed</span></p>
<h2>Delegation tree</h2>
<div class="tree">${treeSvg(delegationTree(report.groups))}</div>
<h2>By prefix</h2>
<table id="groups"><thead><tr><th>count</th><th>prefix</th><th>resolver or failure</th><th>path</th><th>examples</th></tr></thead><tbody>
${rows}
</tbody></table>
</body></html>
`;
}
