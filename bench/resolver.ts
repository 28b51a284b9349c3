/**
 * Jurisdiction resolver benchmark, in one run:
 *
 * 1. Build a generated catalogue of W works (default 1,000,000), each with two
 *    versions (original, and an amended one with an in-force date) in two
 *    manifestations (HTML, PDF), and an alias on every 10th work: a JSON Lines
 *    file of 2W rows in a temp dir. Time `importFile` (what
 *    `lexroute catalogue import` runs) into a fresh SQLite file.
 *    Target: < 60 s for 1,000,000 works.
 * 2. Start `lexroute resolver` on that catalogue (a child process, default
 *    configuration: request logs on, answer cache of 10,000 entries) and a
 *    bare `node:http` server that always answers the same 303 (the Node
 *    ceiling), and drive N2L on both with autocannon for a fixed time each:
 *    requests/s, p50/p99 latency and the ratio, for two request sets:
 *    100,000 distinct works cycled (every request misses the answer cache:
 *    URN parse + SQLite lookup + matching) and 1,000 distinct works (a hot
 *    set served from the cache). Target: >= 0.7x the bare server.
 * 3. A fixed-rate pass on each at half of lexroute's measured maximum
 *    (cache-miss set). Target: p99 < 5 ms.
 * 4. (Information) lexroute on heuristic references (year-only, no number),
 *    which go through partial matching.
 *
 * Usage: node bench/resolver.ts [works=1000000] [seconds=10] [connections=10]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { analyseLexUrn } from '../src/core/catalogue/from-urn.ts';
import { importFile } from '../src/catalogue/import.ts';
import { SqliteCatalogue } from '../src/catalogue/store.ts';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
// autocannon ships no type declarations.
const autocannon = ((await import('autocannon' as string)) as { default: Autocannon }).default;

const WORKS = Number(process.argv[2] ?? 1_000_000);
const SECONDS = Number(process.argv[3] ?? 10);
const CONNECTIONS = Number(process.argv[4] ?? 10);
// autocannon's fixed-rate mode warns about negative timeouts when it falls behind; the figures say so anyway.
process.removeAllListeners('warning');
const REPO = path.resolve(import.meta.dirname, '..');
const NODE = process.execPath;

const JURISDICTIONS = ['br', 'br;sao.paulo', 'br;sao.paulo;campinas', 'it', 'de', 'eu'];
const MEASURES = ['lei', 'decreto', 'legge', 'gesetz', 'directive'];

function work(n: number): { urn: string; alias: string; date: string } {
  const j = JURISDICTIONS[n % JURISDICTIONS.length] as string;
  const m = MEASURES[n % MEASURES.length] as string;
  const date = `${1900 + (n % 125)}-${String(1 + (n % 12)).padStart(2, '0')}-${String(1 + (n % 28)).padStart(2, '0')}`;
  return {
    urn: `urn:lex:${j}:stato:${m}:${date};${n}`,
    alias: `urn:lex:${j}:parlamento:${m}:${date};${n}`,
    date,
  };
}

async function generate(file: string): Promise<number> {
  const out = createWriteStream(file);
  let chunk = '';
  let rows = 0;
  for (let n = 0; n < WORKS; n++) {
    const w = work(n);
    const first: Record<string, unknown> = {
      urn: `${w.urn}@original:pt$gazette.example:text-html`,
      url: `https://gazette.example/${n}/original.html`,
      title: `Act ${n}`,
    };
    if (n % 10 === 0) first.aliases = [w.alias];
    chunk += `${JSON.stringify(first)}\n`;
    chunk += `${JSON.stringify({ urn: `${w.urn}@2020-01-01:pt$gazette.example:application-pdf`, url: `https://gazette.example/${n}/2020.pdf`, inForce: '2020-02-01' })}\n`;
    rows += 2;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  return rows;
}

async function waitForUrl(child: ChildProcess, pattern: RegExp): Promise<string> {
  let seen = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not start: ${seen.slice(-2000)}`)),
      120_000,
    );
    const onData = (d: Buffer) => {
      seen += d.toString();
      const m = pattern.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`server exited (${code}): ${seen.slice(-2000)}`)),
    );
  });
}

interface Pass {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly total: number;
}

async function drive(
  url: string,
  paths: readonly string[],
  overallRate?: number,
  seconds = SECONDS,
): Promise<Pass> {
  let next = 0;
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    // One request template whose path cycles through the list: autocannon's
    // own handling of a long `requests` array breaks its fixed-rate mode.
    requests: [
      {
        method: 'GET',
        setupRequest: (req: Record<string, unknown>) => ({
          ...req,
          path: paths[next++ % paths.length],
        }),
      },
    ],
    ...(overallRate ? { overallRate } : {}),
  });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    total: r.requests.total,
  };
}

function row(name: string, p: Pass): string {
  return `${name.padEnd(44)} ${Math.round(p.rps).toLocaleString('en').padStart(9)} req/s   p50 ${p.p50.toFixed(2).padStart(6)} ms   p99 ${p.p99.toFixed(2).padStart(6)} ms   (${p.total.toLocaleString('en')} requests, ${p.errors} errors)`;
}

const dir = await mkdtemp(path.join(tmpdir(), 'lexroute-bench-resolver-'));
const children: ChildProcess[] = [];
try {
  console.log(
    `machine: ${cpus().length} CPUs, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; node ${process.version}`,
  );
  console.log(
    `catalogue: ${WORKS.toLocaleString('en')} works x 2 versions x 1 manifestation each, alias on every 10th`,
  );

  // 1. Generate and import.
  const file = path.join(dir, 'catalogue.jsonl');
  let t = performance.now();
  const rows = await generate(file);
  console.log(
    `generated ${rows.toLocaleString('en')} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  const dbFile = path.join(dir, 'catalogue.sqlite');
  const store = new SqliteCatalogue(dbFile);
  t = performance.now();
  let rejected = 0;
  const summary = await importFile(store, file, {
    analyse: analyseLexUrn,
    onError: () => rejected++,
  });
  const importSeconds = (performance.now() - t) / 1000;
  const counts = store.counts();
  store.close();
  console.log(
    `import: ${summary.imported.toLocaleString('en')} rows (${rejected} rejected) in ${importSeconds.toFixed(1)} s` +
      ` = ${Math.round(summary.imported / importSeconds).toLocaleString('en')} rows/s;` +
      ` ${counts.works.toLocaleString('en')} works, ${counts.aliases.toLocaleString('en')} aliases, ${counts.expressions.toLocaleString('en')} expressions, ${counts.items.toLocaleString('en')} items` +
      `   target < 60 s: ${importSeconds < 60 ? 'met' : 'NOT met'}`,
  );

  // 2. Servers.
  const lexroute = spawn(
    NODE,
    [
      path.join(REPO, 'bin/lexroute.js'),
      'resolver',
      '--listen',
      '127.0.0.1:0',
      '--catalogue',
      dbFile,
      '--config',
      path.join(REPO, 'config/resolver.json'),
    ],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(lexroute);
  const lexUrl = await waitForUrl(lexroute, /"msg":"listening","url":"([^"]+)"/);
  // After startup, drain its request log (as a deployment would to a file).
  lexroute.stderr?.removeAllListeners('data');
  lexroute.stderr?.resume();
  const bare = spawn(
    NODE,
    [
      '-e',
      `const s = require('node:http').createServer((q, r) => { r.writeHead(303, { location: 'https://gazette.example/1/2020.pdf', 'content-type': 'text/plain; charset=utf-8' }); r.end('See Other\\n'); });
       s.listen(0, '127.0.0.1', () => console.log('bare ' + s.address().port));`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(bare);
  const barePort = await waitForUrl(bare, /bare (\d+)/);
  const bareUrl = `http://127.0.0.1:${barePort}`;

  // Exact N2L lookups of works spread over the catalogue.
  const spread = (count: number) =>
    Array.from(
      { length: count },
      (_, i) => `/uri-res/N2L?${work(Math.floor((i * WORKS) / count) + (i % 7)).urn}`,
    );
  const cold = spread(Math.min(100_000, WORKS));
  const hot = spread(1000);
  // Heuristic references (year-only dates) and partitions, all distinct (cache misses).
  const heuristic = Array.from({ length: cold.length }, (_, i) => {
    const n = Math.floor((i * WORKS) / cold.length) + (i % 7);
    const w = work(n);
    return i % 2 === 0
      ? `/uri-res/N2L?${w.urn.replace(w.date, w.date.slice(0, 4))}`
      : `/uri-res/N2L?${w.urn}~art${i}`;
  });

  // Warm both (JIT, SQLite page cache) before measuring.
  await autocannon({
    url: lexUrl,
    connections: CONNECTIONS,
    duration: 2,
    requests: hot.map((p) => ({ method: 'GET', path: p })),
  });
  await autocannon({ url: bareUrl, connections: CONNECTIONS, duration: 2 });

  console.log(`\nN2L at full load: ${CONNECTIONS} connections, ${SECONDS} s per pass (autocannon)`);
  const bareMax = await drive(bareUrl, cold);
  const lexCold = await drive(lexUrl, cold);
  const lexHot = await drive(lexUrl, hot);
  console.log(row('bare node:http, constant 303', bareMax));
  console.log(
    row(`lexroute, ${cold.length.toLocaleString('en')} distinct works (cache misses)`, lexCold),
  );
  console.log(row('lexroute, 1,000 distinct works (cache hits)', lexHot));
  for (const [name, p] of [
    ['cache misses', lexCold],
    ['cache hits', lexHot],
  ] as const) {
    const ratio = p.rps / bareMax.rps;
    console.log(
      `ratio lexroute / bare, ${name}: ${ratio.toFixed(2)}x   target >= 0.70x: ${ratio >= 0.7 ? 'met' : 'NOT met'}`,
    );
  }

  const rate = Math.max(1, Math.round(lexCold.rps / 2));
  console.log(
    `\nfixed rate: ${rate.toLocaleString('en')} req/s (half of lexroute's cache-miss maximum)`,
  );
  const bareHalf = await drive(bareUrl, cold, rate);
  const lexHalf = await drive(lexUrl, cold, rate);
  console.log(row('bare node:http', bareHalf));
  console.log(row('lexroute, cache misses', lexHalf));
  console.log(
    `p99 at half load: ${lexHalf.p99.toFixed(2)} ms   target < 5 ms: ${lexHalf.p99 < 5 ? 'met' : 'NOT met'}`,
  );

  console.log('\ninformation: heuristic references (year-only dates, partitions)');
  const lexHeur = await drive(lexUrl, heuristic);
  console.log(row('lexroute resolver, year-only / ~partition', lexHeur));
} finally {
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode === null ? once(c, 'exit') : undefined)));
  await rm(dir, { recursive: true, force: true });
}
