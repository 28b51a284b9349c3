/**
 * Throughput of parse + normalise over the LexML Brasil corpus, one core,
 * next to a trivial baseline over the same strings in the same run.
 *
 *   node_modules/.bin/node bench/urn.ts [seconds-per-measure]
 *
 * Corpus: every prefix of okfn-brasil-getlex/urn_prefixos.csv and every
 * jurisdiction of okfn-brasil-lexml-vocabulary/localidade.csv made into a
 * full URN (a date and a number appended, as LexML names look), the full
 * URNs of grupo1.csv, and the 410 researcher-written URNs of
 * external-test-data/lex-urn (a third of them invalid: rejection is measured too).
 */
import { readFileSync } from 'node:fs';
import { canonicalizeLexUrn, normalizeLexUrn, parseLexUrn } from '../src/core/urn/index.ts';

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

function measure(name: string, fn: (s: string) => number): number {
  // warm up
  for (let r = 0; r < 3; r++) for (const s of corpus) sink += fn(s);
  let count = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < seconds * 1000) {
    for (const s of corpus) sink += fn(s);
    count += corpus.length;
    elapsed = performance.now() - start;
  }
  const perSecond = (count / elapsed) * 1000;
  console.log(
    `${name.padEnd(34)} ${Math.round(perSecond).toLocaleString('en-US').padStart(12)} URNs/s`,
  );
  return perSecond;
}

const valid = corpus.filter((s) => parseLexUrn(s).ok).length;
console.log(
  `corpus: ${corpus.length} URNs (${valid} valid, ${corpus.length - valid} invalid), ${seconds}s per measure, node ${process.version}`,
);

const baseline = measure('baseline: split on ":" and ";"', (s) => {
  let n = 0;
  for (const part of s.split(':')) n += part.split(';').length;
  return n;
});
const parse = measure('parseLexUrn', (s) => (parseLexUrn(s).ok ? 1 : 0));
// normalizeLexUrn = one parse (validation, tree) + canonicalisation of the tree.
const both = measure('normalizeLexUrn (parse + normalise)', (s) => {
  const n = normalizeLexUrn(s);
  return n.ok ? n.canonical.length : 0;
});
// The same work through the two public steps, keeping the tree.
const steps = measure('parseLexUrn, then canonicalizeLexUrn', (s) => {
  const p = parseLexUrn(s);
  return p.ok ? canonicalizeLexUrn(p.urn).canonical.length : 0;
});
console.log('');
console.log(`ratio parse / baseline:              ${(parse / baseline).toFixed(2)}`);
console.log(`ratio parse+normalise / baseline:    ${(both / baseline).toFixed(2)}`);
console.log(`ratio parse, canonicalise / baseline: ${(steps / baseline).toFixed(2)}`);
console.log(`target 500,000 URNs/s for parse + normalise: ${both >= 500_000 ? 'met' : 'NOT met'}`);
if (sink === 42) console.log('');
