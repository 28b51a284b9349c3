/**
 * The list `chain check` reads (one URN or jurisdiction code per line, or
 * LexML's `localidade.csv` with its `about` column), the run, and the
 * coverage report. A code becomes a URN by a fixed tail: routing does not
 * look past the jurisdiction.
 */
import type { ChainCode, ChainOutcome, ChainWalker } from './chain.ts';

export interface ListItem {
  readonly input: string;
  readonly urn: string;
  /** 1-based line in the list. */
  readonly line: number;
}

export const DEFAULT_TAIL = ':authority:act:2000-01-01;1';

/** RFC 4180 fields of one CSV record (quotes doubled inside quoted fields). */
export function csvFields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/** Items of a list (plain or localidade.csv). */
export function readList(text: string, tail: string = DEFAULT_TAIL): ListItem[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = csvFields(lines[0] ?? '');
  const about = header.indexOf('about');
  const csv = about >= 0 && header.length > 1;
  const items: ListItem[] = [];
  for (let i = csv ? 1 : 0; i < lines.length; i++) {
    const raw = csv ? (csvFields(lines[i]!)[about] ?? '') : lines[i]!;
    const input = raw.trim();
    if (input === '' || input.startsWith('#')) continue;
    const urn = /^urn:/i.test(input) ? input : `urn:lex:${input}${tail}`;
    items.push({ input, urn, line: i + 1 });
  }
  return items;
}

/** Run the walker over every item, at most `concurrency` at a time, in list order. */
export async function runChain(
  walker: ChainWalker,
  items: readonly ListItem[],
  options: { concurrency?: number; onProgress?: (done: number, total: number) => void } = {},
): Promise<ChainOutcome[]> {
  const out: ChainOutcome[] = new Array<ChainOutcome>(items.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < items.length) {
      const k = next++;
      const it = items[k]!;
      out[k] = await walker.resolve(it.input, it.urn);
      done++;
      options.onProgress?.(done, items.length);
    }
  };
  const n = Math.max(1, Math.min(options.concurrency ?? 1, items.length));
  await Promise.all(Array.from({ length: n }, worker));
  return out;
}

export interface CoverageGroup {
  /** The longest common start of the inputs, in whole `;`/`:` parts. */
  readonly prefix: string;
  readonly kind: ChainOutcome['kind'];
  /** Resolver identity, or the failure code. */
  readonly outcome: string;
  readonly path: readonly string[];
  readonly count: number;
  readonly examples: readonly string[];
}

export interface CoverageReport {
  readonly total: number;
  readonly resolved: number;
  readonly handoff: number;
  readonly failed: number;
  readonly byResolver: readonly { readonly resolver: string; readonly count: number }[];
  readonly byFailure: readonly {
    readonly code: ChainCode;
    readonly count: number;
    readonly examples: readonly string[];
  }[];
  readonly groups: readonly CoverageGroup[];
}

export function commonPrefix(inputs: readonly string[]): string {
  let p = inputs[0] ?? '';
  for (const s of inputs) {
    let k = 0;
    while (k < p.length && k < s.length && p[k] === s[k]) k++;
    p = p.slice(0, k);
  }
  const whole = inputs.every((s) => s.length === p.length || /[;:]/.test(s[p.length] ?? ''));
  if (whole) return p;
  const cut = Math.max(p.lastIndexOf(';'), p.lastIndexOf(':'));
  return cut < 0 ? '' : p.slice(0, cut);
}

function countBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const t of items) {
    const k = key(t);
    let l = m.get(k);
    if (!l) m.set(k, (l = []));
    l.push(t);
  }
  return m;
}

/** Per position: the key all paths share, or `*.` and the labels they end with. */
export function generalize(paths: readonly (readonly string[])[]): string[] {
  const first = paths[0] ?? [];
  return first.map((key, i) => {
    if (paths.every((p) => p[i] === key)) return key;
    let suffix = key.split('.');
    for (const p of paths) {
      const labels = (p[i] ?? '').split('.');
      let k = 0;
      while (
        k < suffix.length &&
        k < labels.length &&
        suffix[suffix.length - 1 - k] === labels[labels.length - 1 - k]
      )
        k++;
      suffix = suffix.slice(suffix.length - k);
    }
    const tail = suffix.join('.');
    return tail === '' ? '*' : `*.${tail}`.replace(/\.\.$/, '.');
  });
}

/** Totals, counts per resolver and per failure code, and groups by path and outcome. */
export function summarize(outcomes: readonly ChainOutcome[]): CoverageReport {
  const failed = outcomes.filter((o) => o.kind === 'failed');
  const reached = outcomes.filter((o) => o.kind !== 'failed');
  const byResolver = Array.from(
    countBy(reached, (o) => o.resolver!),
    ([resolver, l]) => ({ resolver, count: l.length }),
  ).sort((a, b) => b.count - a.count || a.resolver.localeCompare(b.resolver));
  const byFailure = Array.from(
    countBy(failed, (o) => o.code!),
    ([code, l]) => ({
      code: code as ChainCode,
      count: l.length,
      examples: l.slice(0, 5).map((o) => o.input),
    }),
  ).sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
  // One group per outcome and path length; keys that differ inside a group
  // (a rule that copies a unit into the key: sao.carlos.municipios...,
  // campinas.municipios...) are shown as `*.` and their common suffix.
  const groups = [
    ...countBy(outcomes, (o) => `${o.kind}\u0000${o.resolver ?? o.code}\u0000${o.path.length}`),
  ]
    .map(([, l]) => {
      const o = l[0]!;
      return {
        prefix: commonPrefix(l.map((x) => x.input)),
        kind: o.kind,
        outcome: o.resolver ?? o.code ?? '',
        path: generalize(l.map((x) => x.path)),
        count: l.length,
        examples: l.slice(0, 3).map((x) => x.input),
      };
    })
    .sort((a, b) => b.count - a.count || a.prefix.localeCompare(b.prefix));
  return {
    total: outcomes.length,
    resolved: outcomes.filter((o) => o.kind === 'resolved').length,
    handoff: reached.filter((o) => o.kind === 'handoff').length,
    failed: failed.length,
    byResolver,
    byFailure,
    groups,
  };
}

/** The report for people: totals, then one line per group. */
export function formatReport(r: CoverageReport, source: string): string {
  let out = `${source}: ${r.total} checked: ${r.resolved} reach a resolver, ${r.handoff} handed off, ${r.failed} failed\n\n`;
  const rows = r.groups.map((g) => [
    String(g.count),
    g.prefix === '' ? '(various)' : g.prefix,
    g.kind === 'failed' ? `FAIL ${g.outcome}` : g.outcome,
    g.path.join(' > '),
  ]);
  const head = ['count', 'prefix', 'resolver or failure', 'path'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((x) => x[i]!.length)));
  for (const row of [head, ...rows]) {
    out +=
      row
        .map((c, i) =>
          i === 0 ? c.padStart(widths[0]!) : i === row.length - 1 ? c : c.padEnd(widths[i]!),
        )
        .join('  ') + '\n';
  }
  if (r.byFailure.length > 0) {
    out += '\nfailures by code:\n';
    for (const f of r.byFailure) out += `  ${f.code}: ${f.count} (e.g. ${f.examples.join(', ')})\n`;
  }
  return out;
}
