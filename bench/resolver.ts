/**
 * Jurisdiction resolver benchmark, in one run:
 *
 * 1. Build a generated catalogue of W works (default 1,000,000), each with two
 *    versions (original, and an amended one with an in-force date) in two
 *    manifestations (HTML, PDF), and an alias on every 10th work: a JSON Lines
 *    file of 2W rows in a temp dir. Time `lexroute catalogue import` (a child
 *    process, as an operator runs it) into a fresh SQLite file.
 *    Target: < 60 s for 1,000,000 works.
 * 2. Start `lexroute resolver` on that catalogue (a child process, default
 *    configuration: request logs on, written to a file as a deployment would,
 *    answer cache of 10,000 entries) and a
 *    bare `node:http` server that always answers the same 303 (the Node
 *    ceiling), and drive N2L on both with autocannon: requests/s, p50/p99
 *    latency and the ratio, for two request sets: 100,000 distinct works
 *    cycled (every request misses the answer cache: URN parse + SQLite
 *    lookup + matching) and 1,000 distinct works (a hot set served from the
 *    cache). Target: >= 0.7x the bare server.
 * 3. A fixed-rate pass on each at half of lexroute's measured maximum
 *    (cache-miss set). Target: p99 < 5 ms.
 * 4. (Information) lexroute on heuristic references (year-only, no number),
 *    which go through partial matching.
 * 5. PostgreSQL (when the `postgresql` package is installed: a server of our
 *    own, initdb in the temp dir, Unix socket, durability off as in the tests,
 *    shared_buffers 1 GB to hold the catalogue as SQLite's mmap does):
 *    the same catalogue imported with `lexroute catalogue import --catalogue
 *    postgres://...` (target < 60 s), then N2L at full load and at half load
 *    against the bare server in the same interleaved rounds. Target: >= 0.5x
 *    the bare server, p99 < 10 ms at half load. The PostgreSQL rows add the
 *    database server's CPU per request (all its processes: it shares the
 *    two cores).
 *    Connections: at the default 10, the PostgreSQL path is bound by its
 *    round trips, not by CPU (a batch holds at most 10 names, and the
 *    database and the resolver mostly take turns on it), so it is not at full
 *    load; with 32 connections both servers are: the issue 17 figures give
 *    both (`node bench/resolver.ts 1000000 3 32 3`).
 * 6. `--workers 1` and `--workers 2` on each store: requests/s and CPU per
 *    request (the primary and its workers together). The load generator
 *    (this process) shares the two cores with them: on 2 cores two workers
 *    and autocannon compete, so the figures show the cost per request more
 *    than a gain in requests/s.
 *
 * This process only generates load: the import runs in its own process and
 * the resolver's log goes to a file, so neither takes CPU from autocannon
 * (on a 2-core machine the load generator is the bare server's bottleneck).
 *
 * The machine may be shared: passes run in interleaved rounds (bare, misses,
 * hits; then bare, misses at the fixed rate), and the figures are the median
 * of the rounds (ratios: the median of each round's ratio). Each pass also
 * reports the server's CPU time per request (from /proc), which other load
 * disturbs less than requests/s.
 *
 * Usage: node bench/resolver.ts [works=1000000] [seconds=4] [connections=10] [rounds=5]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, createWriteStream, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { postgresBin, startPostgres, type TestPostgres } from '../test/helpers/postgres.ts';
import { processCpuUs } from './harness.ts';
import { median } from './stats.ts';

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

/**
 * The work a 2,000,000-row COPY leaves PostgreSQL (autovacuum of the fresh
 * tables, a checkpoint), done before anything is measured: left to run
 * during the passes it took CPU from the bare server and the resolver
 * alike (one run measured the bare server at a third of its speed).
 */
async function settle(url: string): Promise<void> {
  const { default: pgClient } = await import('pg');
  const client = new pgClient.Client({ connectionString: url });
  const t0 = performance.now();
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
  console.log(
    `PostgreSQL settled (VACUUM ANALYZE, CHECKPOINT) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
}

const WORKS = Number(process.argv[2] ?? 1_000_000);
const SECONDS = Number(process.argv[3] ?? 4);
const CONNECTIONS = Number(process.argv[4] ?? 10);
const ROUNDS = Math.max(1, Number(process.argv[5] ?? 5));
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

/** Wait until `file` (a child's log) has a line matching `pattern`; its first group. */
async function waitForLine(child: ChildProcess, file: string, pattern: RegExp): Promise<string> {
  const deadline = performance.now() + 120_000;
  for (;;) {
    const m = pattern.exec(readFileSync(file, 'utf8'));
    if (m) return m[1] as string;
    if (child.exitCode !== null || performance.now() > deadline) {
      throw new Error(`server did not start: ${readFileSync(file, 'utf8').slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Pass {
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly total: number;
  /** Server CPU time (user + system) per request, microseconds; NaN when /proc is not there. */
  readonly cpuUs: number;
  /** The database server's CPU time per request (PostgreSQL: all its processes); NaN for none. */
  readonly dbCpuUs: number;
}

/** The pids of a process and its children (the resolver's workers). */
function treePids(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return [pid, ...(kids === '' ? [] : kids.split(' ').map(Number))];
  } catch {
    return [pid];
  }
}

function treeCpuUs(pids: readonly number[]): number {
  return pids.reduce((s, p) => s + processCpuUs(p), 0);
}

async function drive(
  server: { url: string; pid: number | undefined; db?: number | undefined },
  paths: readonly string[],
  overallRate?: number,
  seconds = SECONDS,
): Promise<Pass> {
  const url = server.url;
  const pids = treePids(server.pid);
  const cpu0 = treeCpuUs(pids);
  // The database's sessions may start during the pass: its processes are listed at each end.
  const dbCpu = () => (server.db === undefined ? Number.NaN : treeCpuUs(treePids(server.db)));
  const db0 = dbCpu();
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
    cpuUs: (treeCpuUs(pids) - cpu0) / Math.max(1, r.requests.total),
    dbCpuUs: (dbCpu() - db0) / Math.max(1, r.requests.total),
  };
}

/** The median of each figure over the rounds (errors and requests summed). */
function medianPass(ps: readonly Pass[]): Pass {
  return {
    rps: median(ps.map((p) => p.rps)),
    p50: median(ps.map((p) => p.p50)),
    p99: median(ps.map((p) => p.p99)),
    non2xx: ps.reduce((s, p) => s + p.non2xx, 0),
    errors: ps.reduce((s, p) => s + p.errors, 0),
    total: ps.reduce((s, p) => s + p.total, 0),
    cpuUs: median(ps.map((p) => p.cpuUs)),
    dbCpuUs: median(ps.map((p) => p.dbCpuUs)),
  };
}

function row(name: string, p: Pass): string {
  let cpu = Number.isNaN(p.cpuUs) ? '' : `   CPU ${p.cpuUs.toFixed(1).padStart(5)} us/req`;
  if (!Number.isNaN(p.dbCpuUs)) cpu += ` + PostgreSQL ${p.dbCpuUs.toFixed(1)} us/req`;
  return `${name.padEnd(44)} ${Math.round(p.rps).toLocaleString('en').padStart(9)} req/s   p50 ${p.p50.toFixed(2).padStart(6)} ms   p99 ${p.p99.toFixed(2).padStart(6)} ms${cpu}   (${p.total.toLocaleString('en')} requests, ${p.errors} errors)`;
}

const dir = await mkdtemp(path.join(tmpdir(), 'lexroute-bench-resolver-'));
const children: ChildProcess[] = [];
let pg: TestPostgres | undefined;

/** `lexroute catalogue import` of `file` into `location` (a child process); seconds. */
async function importInto(file: string, location: string, rows: number): Promise<number> {
  const t = performance.now();
  const child = spawn(
    NODE,
    [path.join(REPO, 'bin/lexroute.js'), 'catalogue', 'import', file, '--catalogue', location],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0)
    throw new Error(`import of ${rows} rows failed (${code}): ${output.slice(-2000)}`);
  for (const line of output.trim().split('\n')) console.log(`  ${line}`);
  return (performance.now() - t) / 1000;
}

/** `lexroute resolver` on a catalogue with `workers` processes, its log in a file. */
async function startLexroute(
  location: string,
  workers: number,
  name: string,
): Promise<{ url: string; pid: number | undefined; child: ChildProcess }> {
  const logFile = path.join(dir, `resolver-${name}.log`);
  const logFd = openSync(logFile, 'w');
  const child = spawn(
    NODE,
    [
      path.join(REPO, 'bin/lexroute.js'),
      'resolver',
      '--listen',
      '127.0.0.1:0',
      '--catalogue',
      location,
      '--workers',
      String(workers),
      '--config',
      path.join(REPO, 'config/resolver.json'),
    ],
    { cwd: REPO, stdio: ['ignore', 'ignore', logFd] },
  );
  closeSync(logFd);
  children.push(child);
  const url = await waitForLine(child, logFile, /"event":"listening","url":"([^"]+)"/);
  // With workers, wait until each has said it listens.
  const deadline = performance.now() + 60_000;
  while (
    (readFileSync(logFile, 'utf8').match(/"event":"listening"/g) ?? []).length < workers &&
    performance.now() < deadline
  ) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, pid: child.pid, child };
}
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
  const t = performance.now();
  const rows = await generate(file);
  console.log(
    `generated ${rows.toLocaleString('en')} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
  const dbFile = path.join(dir, 'catalogue.sqlite');
  const importSeconds = await importInto(file, dbFile, rows);
  console.log(
    `import (lexroute catalogue import, ${rows.toLocaleString('en')} rows): ${importSeconds.toFixed(1)} s` +
      ` = ${Math.round(rows / importSeconds).toLocaleString('en')} rows/s   target < 60 s: ${importSeconds < 60 ? 'met' : 'NOT met'}`,
  );

  // 2. Servers.
  // The request log goes to a file (as in a deployment), not to a pipe this process would have to read.
  const logFile = path.join(dir, 'resolver.log');
  const logFd = openSync(logFile, 'w');
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
    { cwd: REPO, stdio: ['ignore', 'ignore', logFd] },
  );
  closeSync(logFd);
  children.push(lexroute);
  const lexUrl = await waitForLine(lexroute, logFile, /"event":"listening","url":"([^"]+)"/);
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

  const lex = { url: lexUrl, pid: lexroute.pid };
  const bareServer = { url: bareUrl, pid: bare.pid };
  console.log(
    `\nN2L at full load: ${CONNECTIONS} connections, ${SECONDS} s per pass, ${ROUNDS} interleaved rounds (autocannon); median of the rounds`,
  );
  const full: { bare: Pass; cold: Pass; hot: Pass }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    full.push({
      bare: await drive(bareServer, cold),
      cold: await drive(lex, cold),
      hot: await drive(lex, hot),
    });
  }
  const bareMax = medianPass(full.map((r) => r.bare));
  const lexCold = medianPass(full.map((r) => r.cold));
  const lexHot = medianPass(full.map((r) => r.hot));
  console.log(row('bare node:http, constant 303', bareMax));
  console.log(
    row(`lexroute, ${cold.length.toLocaleString('en')} distinct works (cache misses)`, lexCold),
  );
  console.log(row('lexroute, 1,000 distinct works (cache hits)', lexHot));
  for (const [name, key] of [
    ['cache misses', 'cold'],
    ['cache hits', 'hot'],
  ] as const) {
    const ratios = full.map((r) => r[key].rps / r.bare.rps);
    const ratio = median(ratios);
    const cpuRatio = median(full.map((r) => r.bare.cpuUs / r[key].cpuUs));
    console.log(
      `ratio lexroute / bare, ${name}: ${ratio.toFixed(2)}x (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})` +
        `${Number.isNaN(cpuRatio) ? '' : `; bare CPU per request / lexroute's: ${cpuRatio.toFixed(2)}`}` +
        `   target >= 0.70x: ${ratio >= 0.7 ? 'met' : 'NOT met'}`,
    );
  }

  const rate = Math.max(1, Math.round(lexCold.rps / 2));
  console.log(
    `\nfixed rate: ${rate.toLocaleString('en')} req/s (half of lexroute's cache-miss maximum), ${ROUNDS} interleaved rounds`,
  );
  const half: { bare: Pass; lex: Pass }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    half.push({ bare: await drive(bareServer, cold, rate), lex: await drive(lex, cold, rate) });
  }
  const bareHalf = medianPass(half.map((r) => r.bare));
  const lexHalf = medianPass(half.map((r) => r.lex));
  console.log(row('bare node:http', bareHalf));
  console.log(row('lexroute, cache misses', lexHalf));
  console.log(
    `p99 at half load: ${lexHalf.p99.toFixed(2)} ms (rounds ${half.map((r) => r.lex.p99.toFixed(2)).join(', ')}; bare ${half.map((r) => r.bare.p99.toFixed(2)).join(', ')})` +
      `   target < 5 ms: ${lexHalf.p99 < 5 ? 'met' : 'NOT met'}`,
  );

  console.log('\ninformation: heuristic references (year-only dates, partitions)');
  const lexHeur = await drive(lex, heuristic);
  console.log(row('lexroute resolver, year-only / ~partition', lexHeur));
  lexroute.kill('SIGTERM');
  await once(lexroute, 'exit');

  // 5. PostgreSQL.
  const bin = postgresBin();
  let pgUrl: string | undefined;
  if (bin === undefined) {
    console.log('\nPostgreSQL: not installed (Debian package postgresql); skipped');
  } else {
    // shared_buffers sized to hold the catalogue, as SQLite's 1 GB mmap_size
    // does (src/resolver/catalogue/store.ts) and as a production server is sized to
    // its working set; the tests' 32 MB would turn most lookups in a
    // 1,000,000-work catalogue into reads from the OS cache.
    pg = await startPostgres(bin, { shared_buffers: '1GB' });
    pgUrl = await pg.createDatabase('bench');
    const pgImport = await importInto(file, pgUrl, rows);
    console.log(
      `\nPostgreSQL import (${rows.toLocaleString('en')} rows, COPY): ${pgImport.toFixed(1)} s` +
        ` = ${Math.round(rows / pgImport).toLocaleString('en')} rows/s   target < 60 s: ${pgImport < 60 ? 'met' : 'NOT met'}`,
    );
    await settle(pgUrl);
    const pgServer = { ...(await startLexroute(pgUrl, 1, 'pg')), db: pg.pid };
    await autocannon({ url: pgServer.url, connections: CONNECTIONS, duration: 2 });
    const rounds: { bare: Pass; cold: Pass }[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      rounds.push({ bare: await drive(bareServer, cold), cold: await drive(pgServer, cold) });
    }
    const pgCold = medianPass(rounds.map((r) => r.cold));
    console.log(row('bare node:http, constant 303', medianPass(rounds.map((r) => r.bare))));
    console.log(row('lexroute on PostgreSQL, cache misses', pgCold));
    const pgRatio = median(rounds.map((r) => r.cold.rps / r.bare.rps));
    console.log(
      `ratio lexroute on PostgreSQL / bare: ${pgRatio.toFixed(2)}x   target >= 0.50x: ${pgRatio >= 0.5 ? 'met' : 'NOT met'}`,
    );
    const pgRate = Math.max(1, Math.round(pgCold.rps / 2));
    const pgHalf: Pass[] = [];
    for (let i = 0; i < ROUNDS; i++) pgHalf.push(await drive(pgServer, cold, pgRate));
    const pgHalfM = medianPass(pgHalf);
    console.log(row(`lexroute on PostgreSQL at ${pgRate.toLocaleString('en')} req/s`, pgHalfM));
    console.log(
      `p99 at half load on PostgreSQL: ${pgHalfM.p99.toFixed(2)} ms   target < 10 ms: ${pgHalfM.p99 < 10 ? 'met' : 'NOT met'}`,
    );
    pgServer.child.kill('SIGTERM');
    await once(pgServer.child, 'exit');
  }

  // 6. Workers.
  console.log(
    `\n--workers 1 vs 2 (cache misses, ${CONNECTIONS} connections; autocannon runs in this process on the same 2 cores)`,
  );
  for (const [name, location] of [
    ['SQLite', dbFile],
    ['PostgreSQL', pgUrl],
  ] as const) {
    if (location === undefined) continue;
    for (const n of [1, 2]) {
      const srv = {
        ...(await startLexroute(location, n, `${name}-${n}`)),
        db: name === 'PostgreSQL' ? pg?.pid : undefined,
      };
      await autocannon({ url: srv.url, connections: CONNECTIONS, duration: 2 });
      const passes: Pass[] = [];
      for (let i = 0; i < ROUNDS; i++) passes.push(await drive(srv, cold));
      console.log(row(`${name}, --workers ${n}`, medianPass(passes)));
      srv.child.kill('SIGTERM');
      await once(srv.child, 'exit');
    }
  }
  console.log(
    `\nload average at the end: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode === null ? once(c, 'exit') : undefined)));
  await pg?.stop();
  await rm(dir, { recursive: true, force: true });
}
