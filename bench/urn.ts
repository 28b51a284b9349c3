/**
 * Throughput of parse + normalise over the LexML Brasil corpus, one core,
 * next to a trivial baseline over the same strings in the same run.
 *
 *   node_modules/.bin/node bench/urn.ts [seconds-per-variant]
 *
 * Corpus: every prefix of okfn-brasil-getlex/urn_prefixos.csv and every
 * jurisdiction of okfn-brasil-lexml-vocabulary/localidade.csv made into a
 * full URN (a date and a number appended, as LexML names look), the full
 * URNs of grupo1.csv, and the 410 researcher-written URNs of
 * external-test-data/lex-urn (a third of them invalid: rejection is measured too).
 */
import { readFileSync } from 'node:fs';
import { canonicalizeLexUrn, normalizeLexUrn, parseLexUrn } from '../src/urn/core/index.ts';

const SHARED = new URL('../../shared/', import.meta.url).pathname;
const seconds = Number(process.argv[2] ?? 2);

function csvColumn(path: string, column: number): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.split(',')[column] ?? '')
    .filter((s) => s.length > 0);
}

const prefixes = csvColumn(`${SHARED}data/anchors-ddds/okfn-brasil-getlex/urn_prefixos.csv`, 1);
const places = csvColumn(
  `${SHARED}data/anchors-ddds/okfn-brasil-lexml-vocabulary/localidade.csv`,
  1,
);
const grupo = csvColumn(`${SHARED}data/anchors-ddds/okfn-brasil-getlex/grupo1.csv`, 2);
const wild = readFileSync(`${SHARED}external-test-data/lex-urn/lexml-br-urns-oab-exams.txt`, 'utf8')
  .split('\n')
  .filter(Boolean);

const corpus: string[] = [
  ...prefixes.map((p, i) => `urn:lex:${p}:${1990 + (i % 30)}-0${1 + (i % 9)}-1${i % 9};${i + 1}`),
  ...places.map((p, i) => `urn:lex:${p}:prefeitura:lei:2001-12-2${i % 9};${i}`),
  ...grupo,
  ...wild,
];

let sink = 0;

/**
 * The machine may be shared: each variant is measured in several short rounds,
 * interleaved with the others, on CPU time of this process (user + system,
 * so time spent descheduled does not count), and the best round is reported
 * next to the median. Wall-clock throughput of the best round is shown too.
 */
interface Variant {
  readonly name: string;
  readonly fn: (s: string) => number;
  readonly cpu: number[];
  readonly wall: number[];
}

function round(v: Variant, budgetMs: number): void {
  let count = 0;
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  let wall = 0;
  while (wall < budgetMs) {
    for (const s of corpus) sink += v.fn(s);
    count += corpus.length;
    wall = performance.now() - w0;
  }
  const c = process.cpuUsage(c0);
  const cpuMs = (c.user + c.system) / 1000;
  v.cpu.push((count / cpuMs) * 1000);
  v.wall.push((count / wall) * 1000);
}

const variants: Variant[] = [
  [
    'baseline: split on ":" and ";"',
    (s: string) => {
      let n = 0;
      for (const part of s.split(':')) n += part.split(';').length;
      return n;
    },
  ],
  ['parseLexUrn', (s: string) => (parseLexUrn(s).ok ? 1 : 0)],
  // normalizeLexUrn = one parse (validation, tree) + canonicalisation of the tree.
  [
    'normalizeLexUrn (parse + normalise)',
    (s: string) => {
      const n = normalizeLexUrn(s);
      return n.ok ? n.canonical.length : 0;
    },
  ],
  // The same work through the two public steps, keeping the tree.
  [
    'parseLexUrn, then canonicalizeLexUrn',
    (s: string) => {
      const p = parseLexUrn(s);
      return p.ok ? canonicalizeLexUrn(p.value).canonical.length : 0;
    },
  ],
].map(([name, fn]) => ({ name, fn, cpu: [], wall: [] }) as Variant);

const valid = corpus.filter((s) => parseLexUrn(s).ok).length;
const ROUNDS = 7;
console.log(
  `corpus: ${corpus.length} URNs (${valid} valid, ${corpus.length - valid} invalid); ` +
    `${ROUNDS} interleaved rounds of ${((seconds * 1000) / ROUNDS).toFixed(0)} ms per variant; node ${process.version}`,
);
for (const v of variants) for (let r = 0; r < 3; r++) for (const s of corpus) sink += v.fn(s); // warm up
for (let r = 0; r < ROUNDS; r++) for (const v of variants) round(v, (seconds * 1000) / ROUNDS);

const best = (xs: number[]): number => Math.max(...xs);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const fmt = (x: number): string => Math.round(x).toLocaleString('en-US').padStart(11);
console.log(
  `${''.padEnd(38)} ${'best (CPU)'.padStart(11)} ${'median'.padStart(11)} ${'best (wall)'.padStart(11)}   URNs/s`,
);
for (const v of variants)
  console.log(
    `${v.name.padEnd(38)} ${fmt(best(v.cpu))} ${fmt(median(v.cpu))} ${fmt(best(v.wall))}`,
  );
const [baseline, parse, both, steps] = variants.map((v) => best(v.cpu)) as [
  number,
  number,
  number,
  number,
];
console.log('');
console.log(`ratio parse / baseline:                 ${(parse / baseline).toFixed(2)}`);
console.log(`ratio parse + normalise / baseline:     ${(both / baseline).toFixed(2)}`);
console.log(`ratio parse, canonicalise / baseline:   ${(steps / baseline).toFixed(2)}`);
console.log(
  `target 500,000 URNs/s for parse + normalise (best CPU round): ${both >= 500_000 ? 'met' : 'NOT met'}`,
);
if (sink === 42) console.log('');
