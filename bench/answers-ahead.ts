/**
 * The first queries after a reload on the answering thread (issue 20), with
 * and without the answers the load worker encodes ahead for the hot set: a
 * zone of N NAPTR records (200,000 by default) is loaded by the zone-load
 * worker twice, once with the hot set of an engine that answered H distinct
 * names (10,000 by default, bench/reload.ts's query file) and once without;
 * then, on this thread, a fresh engine over each answers those H names'
 * first queries. Prints the time per first query of each (best of R rounds)
 * and their ratio, measured in the same run, and the worker's load time with
 * and without the encoding.
 *
 *   node_modules/.bin/node bench/answers-ahead.ts [--records N] [--hot H] [--rounds R]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BackgroundZoneLoader } from '../src/authority/zones/background.ts';
import { Engine, TRANSPORT_UDP } from '../src/authority/engine.ts';
import { buildQuery } from '../test/server/harness.ts';
import { naptrZoneText } from './harness.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '200000' },
    hot: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '5' },
  },
});
const N = Number(values.records);
const H = Number(values.hot);
const ROUNDS = Number(values.rounds);
const ORIGIN = 'lex.ahead.bench.';

const dir = mkdtempSync(join(tmpdir(), 'lexroute-ahead-bench-'));
const bg = new BackgroundZoneLoader();
try {
  const file = join(dir, `${ORIGIN}zone`);
  writeFileSync(file, naptrZoneText(N, 1));
  const queries: Buffer[] = [];
  for (let i = 0; i < H; i++) queries.push(buildQuery(`j${(i * 7919) % N}.${ORIGIN}`, 'NAPTR'));

  const first = await bg.load(file, ORIGIN);
  const old = new Engine([first.indexed!]);
  for (const q of queries) old.respond(q, TRANSPORT_UDP);
  const hot = old.hotNames();

  const t0 = performance.now();
  const plain = await bg.load(file, ORIGIN);
  const plainMs = performance.now() - t0;
  bg.hot = () => hot;
  const t1 = performance.now();
  const ahead = await bg.load(file, ORIGIN);
  const aheadMs = performance.now() - t1;

  const firstQueries = (z: typeof plain) => {
    let best = Infinity;
    for (let r = 0; r < ROUNDS; r++) {
      const e = new Engine([z.indexed!]);
      const s = performance.now();
      for (const q of queries) e.respond(q, TRANSPORT_UDP);
      best = Math.min(best, performance.now() - s);
    }
    return best;
  };
  const lazy = firstQueries(plain);
  const pre = firstQueries(ahead);
  const us = (ms: number) => ((ms * 1000) / H).toFixed(2);
  console.log(
    `${N.toLocaleString('en')} NAPTR records, ${H.toLocaleString('en')} hot names (${ahead.indexed!.answers?.names ?? 0} encoded ahead), best of ${ROUNDS}`,
  );
  console.log(
    `first queries on the answering thread: encoded there ${lazy.toFixed(1)} ms (${us(lazy)} us/query), encoded ahead ${pre.toFixed(1)} ms (${us(pre)} us/query): ${(pre / lazy).toFixed(2)}x`,
  );
  console.log(
    `load in the worker: ${plainMs.toFixed(0)} ms without, ${aheadMs.toFixed(0)} ms with the encoding ahead (${(aheadMs / plainMs).toFixed(2)}x)`,
  );
} finally {
  await bg.close();
  rmSync(dir, { recursive: true, force: true });
}
