/**
 * One bench script of two checkouts, before and after, in one session: the
 * script of each tree runs against that tree's own sources (a bench names
 * its files by path, and paths move), in alternating order round after
 * round (base first, then this tree first, ...), and the figures of every
 * output line the two share are printed side by side with the ratio
 * after/before of each round and their median. Lines are paired by their
 * text with the numbers taken out (`UDP 12,345` and `UDP 11,002` are one
 * line); a line whose text changed between the trees is not compared.
 *
 *   node_modules/.bin/node bench/trees.ts --base DIR [--rounds R] [--match RE] [--out DIR] -- BENCH.ts [ARGS...]
 *
 * DIR is the other checkout (a `git worktree add`, with node_modules), run
 * with its own node_modules/.bin/node; --match keeps the lines the regular
 * expression finds; --out keeps each run's output (base-1.txt, this-1.txt,
 * ...). The load average is printed before each run: on a shared machine a
 * ratio only means something beside it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './stats.ts';

const { values, positionals } = parseArgs({
  options: {
    base: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    match: { type: 'string' },
    out: { type: 'string' },
  },
  allowPositionals: true,
});
const [script, ...args] = positionals;
if (values.base === undefined || script === undefined) {
  console.error(
    'usage: bench/trees.ts --base DIR [--rounds R] [--match RE] [--out DIR] -- BENCH.ts [ARGS...]',
  );
  process.exit(2);
}
const TREES = { base: resolve(values.base), this: resolve(import.meta.dirname, '..') };
const ROUNDS = Number(values.rounds);
const MATCH = values.match === undefined ? undefined : new RegExp(values.match);
const NUMBER = /-?\d[\d,]*(?:\.\d+)?/g;

/** The figures of one run: numbers by line text (numbers taken out; repeated texts numbered). */
function figures(output: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const line of output.split('\n')) {
    if (MATCH !== undefined && !MATCH.test(line)) continue;
    const numbers = (line.match(NUMBER) ?? []).map((n) => Number(n.replaceAll(',', '')));
    if (numbers.length === 0) continue;
    const text = line.replace(NUMBER, '#').replace(/\s+/g, ' ').trim();
    let key = text;
    for (let i = 2; out.has(key); i++) key = `${text} (${i})`;
    out.set(key, numbers);
  }
  return out;
}

function run(tree: keyof typeof TREES, round: number): Map<string, number[]> {
  const root = TREES[tree];
  const load = loadavg().map((l) => l.toFixed(2));
  console.error(`round ${round}: ${tree} (${root}), load ${load.join(' ')}`);
  const r = spawnSync(
    join(root, 'node_modules/.bin/node'),
    [join(root, 'bench', script as string), ...args],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const text = `${r.stdout}${r.status === 0 ? '' : `\n[exit ${r.status ?? r.signal}]\n${r.stderr}`}`;
  if (values.out !== undefined) {
    mkdirSync(values.out, { recursive: true });
    writeFileSync(join(values.out, `${tree}-${round}.txt`), `load ${load.join(' ')}\n${text}`);
  }
  if (r.status !== 0)
    console.error(`  ${tree} exited ${r.status ?? r.signal}: ${r.stderr.slice(-500)}`);
  return figures(r.stdout);
}

const rounds: { base: Map<string, number[]>; this: Map<string, number[]> }[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const order: (keyof typeof TREES)[] = round % 2 === 1 ? ['base', 'this'] : ['this', 'base'];
  const got = {} as Record<keyof typeof TREES, Map<string, number[]>>;
  for (const tree of order) got[tree] = run(tree, round);
  rounds.push(got);
}

const fmt = (x: number) =>
  Math.abs(x) >= 100 ? Math.round(x).toLocaleString('en') : String(Number(x.toPrecision(3)));
console.log(`${script} ${args.join(' ')}: ${ROUNDS} alternating rounds`);
console.log(`  before: ${TREES.base}\n  after:  ${TREES.this}`);
console.log('figures before -> after (medians of the rounds); after/before per round, median\n');
for (const [key, first] of rounds[0]?.base ?? []) {
  const pairs = rounds.map((r) => [r.base.get(key), r.this.get(key)] as const);
  if (pairs.some(([b, t]) => b?.length !== first.length || t?.length !== first.length)) continue;
  const cells: string[] = [];
  first.forEach((_, i) => {
    const b = pairs.map(([x]) => (x as number[])[i] as number);
    const t = pairs.map(([, x]) => (x as number[])[i] as number);
    if (b.every((v, j) => v === t[j])) return; // a parameter (the same in both), not a figure
    const ratios = b.map((v, j) => (t[j] as number) / v);
    cells.push(
      `${fmt(median(b))} -> ${fmt(median(t))} [${ratios.map((x) => x.toFixed(2)).join(' ')}; ${median(ratios).toFixed(2)}x]`,
    );
  });
  if (cells.length > 0) console.log(`${key}\n    ${cells.join('\n    ')}`);
}
