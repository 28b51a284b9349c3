/**
 * Reload under load (issue 20): `lexroute serve` on a generated zone of
 * NAPTR records (1,000,000 by default, the size of bench/zone-load.ts)
 * answers dnsperf at a fixed rate while the zone file changes and SIGHUP
 * arrives, then is touched (same content) and SIGHUP arrives again. Prints
 * the queries lost, latency percentiles over the whole run (from dnsperf -v),
 * the reload times, and the reload time against the plain load time of the
 * same file by `loadZoneFile` in a process of its own (bench/zone-load.ts's
 * child, best of two, measured in the same run; target: within 1.2x), and
 * against the server's own initial load.
 *
 *   node_modules/.bin/node bench/reload.ts [--records N] [--rate QPS] [--seconds S] [--workers N]
 *     [--timeline] [--server-flags="--trace-gc ..."] [--load-nice N] [--gc-helper-nice N]
 *
 * --gc-helper-nice N serves with `gcHelperNice` N (V8's GC helper threads'
 * nice value, 10 by default; 0 leaves them at the answering thread's).
 *
 * --load-nice N serves with `zoneFiles.loadNice` N (the load thread's nice
 * value; 0 by default): the reload time against the answers' latency.
 *
 * --timeline prints, for each reload window, its answers in 100 ms steps from
 * the SIGHUP (answers, those over 10 ms, the slowest), beside the server's
 * log events (zone_loaded, zones_compiled): where in the reload the slow
 * answers fall. --server-flags gives the server process Node flags; with
 * --trace-gc its collections of 5 ms or more during the windows are printed
 * on the same time line.
 *
 * --workers N serves with `serve --workers N` (dnsperf with 8 sockets, so
 * SO_REUSEPORT spreads its queries over the workers).
 *
 * Where lost queries were lost (Linux): the drop counters of the server's
 * UDP sockets (its receive buffer, `udp.receiveBuffer`, was full) and of
 * dnsperf's own sockets (dnsperf, starved of CPU, did not read the answers in
 * time; it runs with -b 2048, a 2 MiB buffer), from /proc/net/udp, and the
 * machine's RcvbufErrors (/proc/net/snmp; every process on it counts). The
 * load average is printed at the start and the end: on a shared machine the
 * figures only mean something beside it.
 *
 * The phases: the first 2 s after the server is ready (cold start: each
 * name's answer is encoded on its first query, so those answers queue), 30 s
 * without a reload (the baseline), then 60 s with a changed file reloaded and
 * a touched one; with --timeline the baseline's slow answers are printed in
 * 1 s steps too.
 *
 * Latency during the reloads: the answers dnsperf reported from the SIGHUP to
 * a second after `zones_reloaded` (the first queries after the swap). dnsperf
 * writes to a file, not to a pipe into this process, so that nothing here (a
 * GC of the bench, which holds the generated zone text) can block it; the
 * changed zone file is written before the run and renamed over the served one.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  fstatSync,
  mkdtempSync,
  openSync,
  renameSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { naptrZoneText } from './harness.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    rate: { type: 'string', default: '20000' },
    seconds: { type: 'string', default: '60' },
    workers: { type: 'string', default: '1' },
    timeline: { type: 'boolean', default: false },
    'server-flags': { type: 'string', default: '' },
    'load-nice': { type: 'string' },
    'gc-helper-nice': { type: 'string' },
  },
});
const SERVER_FLAGS = values['server-flags'].split(/\s+/).filter((f) => f !== '');
const RECORDS = Number(values.records);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const WORKERS = Number(values.workers);
const ORIGIN = 'lex.reload.bench.';
const BIN = resolve(import.meta.dirname, '../bin/lexroute.js');

const zoneText = (serial: number, extra: string) => naptrZoneText(RECORDS, serial, extra);

const dir = mkdtempSync(join(tmpdir(), 'lexroute-reload-bench-'));
const file = join(dir, `${ORIGIN}zone`);
const queries = join(dir, 'queries.txt');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Children to kill when the bench ends, even on an error (so the bench never hangs). */
const children: ChildProcess[] = [];

let logs = '';
let serverExit: string | undefined;
/** Wait for a log line (bounded: a reload must finish or fail in bounded time). */
async function waitFor(re: RegExp, from: number, ms = 180_000): Promise<Record<string, unknown>> {
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    const m = re.exec(logs.slice(from));
    if (m) return JSON.parse(m[0]) as Record<string, unknown>;
    if (serverExit !== undefined) throw new Error(`the server exited (${serverExit}) before ${re}`);
    await sleep(50);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${re}`);
}

/** The socket inodes a process holds (Linux; empty elsewhere or when it has ended). */
function socketInodes(pid: number | undefined): Set<string> {
  const out = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) out.add(m[1]!);
    }
  } catch {
    // gone, or not Linux
  }
  return out;
}

/** Datagrams the kernel dropped on these sockets (their receive buffer was full), from /proc/net/udp{,6}. */
function socketDrops(inodes: Set<string>): number {
  let drops = 0;
  for (const table of ['/proc/net/udp', '/proc/net/udp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length >= 13 && inodes.has(f[9]!)) drops += Number(f[12]);
    }
  }
  return drops;
}

/** The machine's UDP RcvbufErrors (/proc/net/snmp), NaN where unknown. */
function rcvbufErrors(): number {
  try {
    const lines = readFileSync('/proc/net/snmp', 'utf8').split('\n');
    const head = lines.find((l) => l.startsWith('Udp: ') && !/\d/.test(l))?.split(' ');
    const vals = lines.find((l) => /^Udp: \d/.test(l))?.split(' ');
    const i = head?.indexOf('RcvbufErrors') ?? -1;
    return i > 0 && vals ? Number(vals[i]) : NaN;
  } catch {
    return NaN;
  }
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 1000;
}

/**
 * One reload window in 100 ms steps from the SIGHUP: answers, those over
 * 10 ms and the slowest (an answer's time is read from dnsperf's output size
 * sampled every 10 ms), with the server's log events and its GC pauses of
 * 5 ms or more (--trace-gc in --server-flags: times since the process
 * started, so within a few ms).
 */
function printTimeline(
  w: { at: number; samples: [number, number][] },
  answers: [number, number][],
  serverStart: number,
  gcOut: string,
  baseline = false,
) {
  const stepMs = baseline ? 1000 : 100;
  // Answers written after the last sample count in the last step.
  const timeOf = (offset: number) =>
    (w.samples.find(([, size]) => size > offset) ?? w.samples.at(-1))?.[0] ?? w.at;
  const steps = new Map<number, { n: number; slow: number; max: number; notes: string[] }>();
  const step = (t: number) => {
    const k = Math.floor((t - w.at) / stepMs);
    let s = steps.get(k);
    if (!s) steps.set(k, (s = { n: 0, slow: 0, max: 0, notes: [] }));
    return s;
  };
  for (const [offset, latency] of answers) {
    const s = step(timeOf(offset));
    s.n++;
    if (latency > 0.01) s.slow++;
    s.max = Math.max(s.max, latency * 1000);
  }
  const end = w.samples.at(-1)?.[0] ?? w.at;
  for (const line of logs.split('\n')) {
    const m = /^\{"time":"([^"]+)","level":"\w+","event":"(\w+)"(?:.*"ms":([0-9.]+))?/.exec(line);
    const t = m ? Date.parse(m[1]!) : NaN;
    if (m && t >= w.at && t <= end) step(t).notes.push(`${m[2]}${m[3] ? ` ${m[3]} ms` : ''}`);
  }
  for (const m of gcOut.matchAll(
    /\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: (\S+)[^,]*, [^,]*, ([0-9.]+) \//g,
  )) {
    const t = serverStart + Number(m[2]);
    if (Number(m[4]) >= 5 && t >= w.at && t <= end)
      step(t).notes.push(`GC ${m[3]} ${m[4]} ms (isolate ${m[1]})`);
  }
  console.log(
    baseline
      ? `timeline of the run without reloads at ${new Date(w.at).toISOString()} (1 s steps; those with an answer over 10 ms or a GC of 5 ms or more):`
      : `timeline of the reload at ${new Date(w.at).toISOString()} (100 ms steps from the SIGHUP):`,
  );
  for (const k of [...steps.keys()].sort((a, b) => a - b)) {
    const s = steps.get(k)!;
    if (baseline && s.slow === 0 && !s.notes.some((n) => n.startsWith('GC'))) continue;
    console.log(
      `  ${String(k * stepMs).padStart(6)} ms  answers ${String(s.n).padStart(5)}  >10 ms ${String(s.slow).padStart(4)}  max ${s.max.toFixed(1).padStart(6)} ms  ${s.notes.join('; ')}`,
    );
  }
}

/**
 * `--config FILE` setting `zoneFiles.loadNice` and `gcHelperNice` when asked
 * (the zones and addresses come from the command line).
 */
function niceConfig(): string[] {
  const load = values['load-nice'];
  const helpers = values['gc-helper-nice'];
  if (load === undefined && helpers === undefined) return [];
  const config = join(dir, 'server.json');
  writeFileSync(
    config,
    JSON.stringify({
      ...(load !== undefined ? { zoneFiles: { loadNice: Number(load) } } : {}),
      ...(helpers !== undefined ? { gcHelperNice: Number(helpers) } : {}),
    }),
  );
  return ['--config', config];
}

try {
  writeFileSync(file, zoneText(1, ''));
  const q: string[] = [];
  for (let i = 0; i < 10_000; i++) q.push(`j${(i * 7919) % RECORDS}.${ORIGIN} NAPTR`);
  writeFileSync(queries, q.join('\n') + '\n');

  // The plain load (bench/zone-load.ts's measure): loadZoneFile in a process of its own.
  const plainRuns: { ms: number; loadCpuMs: number; loadThreadCpuMs: number }[] = [];
  for (let i = 0; i < 2; i++) {
    const r = spawnSync(
      process.execPath,
      [resolve(import.meta.dirname, 'zone-load.ts'), '--child', file],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    plainRuns.push(JSON.parse(r.stdout) as (typeof plainRuns)[number]);
  }
  const plain = plainRuns.reduce((a, b) => (b.ms < a.ms ? b : a));
  const plainMs = plain.ms;

  const t0 = performance.now();
  const serverStart = Date.now();
  const serverOut = join(dir, 'server.out');
  const serverOutFd = openSync(serverOut, 'w');
  const server = spawn(
    process.execPath,
    [
      ...[...SERVER_FLAGS, BIN, 'serve', '--zones', dir, '--listen', '127.0.0.1:0'],
      ...['--log-format', 'json', '--workers', String(WORKERS)],
      ...niceConfig(),
    ],
    { stdio: ['ignore', serverOutFd, 'pipe'] },
  );
  children.push(server);
  server.on('exit', (code, signal) => void (serverExit = `code ${code}, signal ${signal}`));
  server.stderr!.setEncoding('utf8');
  server.stderr!.on('data', (d: string) => void (logs += d));
  const loaded = await waitFor(/\{[^\n]*"event":"zone_loaded"[^\n]*\}/, 0);
  const compiled = await waitFor(/\{[^\n]*"event":"zones_compiled"[^\n]*\}/, 0);
  const listening = await waitFor(/\{[^\n]*"event":"listening"[^\n]*\}/, 0);
  await waitFor(/\{[^\n]*"event":"ready"[^\n]*\}/, 0);
  const startMs = performance.now() - t0;
  const port = Number(listening.port);

  const serverSockets = socketInodes(server.pid);
  /** A reload: from the SIGHUP to a second after zones_reloaded (the first queries after the swap). */
  interface Window {
    from: number;
    to: number;
    /** dnsperf's output file offsets at its start and end: the answers it wrote meanwhile. */
    fromOffset: number;
    toOffset: number;
    serverDrops: number;
    /** [Date.now(), dnsperf's output size] every 10 ms through the window (--timeline). */
    samples: [number, number][];
    /** Date.now() at the SIGHUP. */
    at: number;
  }

  /**
   * dnsperf for `seconds` at RATE while `during` runs; answered latencies, sent and lost.
   * Its output goes to a file, not to this process: a pause here (a GC of the bench) must
   * not block dnsperf's writes, which would delay its reading of the answers.
   */
  let runs = 0;
  const dnsperf = async (
    seconds: number,
    during: (windows: Window[], offset: () => number) => Promise<void>,
  ) => {
    const outFile = join(dir, `dnsperf-${runs++}.out`);
    const fd = openSync(outFile, 'w');
    const perf = spawn(
      'dnsperf',
      [
        ...['-s', '127.0.0.1', '-p', String(port), '-d', queries],
        ...['-l', String(seconds), '-Q', String(RATE), '-t', '1', '-v', '-q', '1000'],
        ...['-c', WORKERS > 1 ? '8' : '1', '-b', '2048'],
      ],
      { stdio: ['ignore', fd, 'ignore'] },
    );
    children.push(perf);
    const serverDrops0 = socketDrops(serverSockets);
    const snmp0 = rcvbufErrors();
    // dnsperf's own sockets: sampled while it runs (they are gone once it exits).
    let perfDrops = 0;
    const sampler = setInterval(() => {
      const inodes = socketInodes(perf.pid);
      if (inodes.size > 0) perfDrops = Math.max(perfDrops, socketDrops(inodes));
    }, 100);
    const done = new Promise((r) => perf.on('exit', r));
    const windows: Window[] = [];
    await during(windows, () => fstatSync(fd).size);
    await done;
    closeSync(fd);
    clearInterval(sampler);
    const drops = {
      server: socketDrops(serverSockets) - serverDrops0,
      dnsperf: perfDrops,
      machine: rcvbufErrors() - snmp0,
    };
    const out = readFileSync(outFile, 'latin1');
    rmSync(outFile);
    const all: number[] = [];
    const inWindows: number[] = [];
    /** Per window: [offset, latency] of its answers (--timeline). */
    const answers: [number, number][][] = windows.map(() => []);
    for (let at = 0; at < out.length;) {
      const end = out.indexOf('\n', at);
      const line = out.slice(at, end < 0 ? out.length : end);
      const m = /^> \S+ \S+ \S+ ([0-9.]+)$/.exec(line);
      if (m) {
        all.push(Number(m[1]));
        const w = windows.findIndex((w) => at >= w.fromOffset && at < w.toOffset);
        if (w >= 0) {
          inWindows.push(Number(m[1]));
          answers[w]!.push([at, Number(m[1])]);
        }
      }
      at = end < 0 ? out.length : end + 1;
    }
    return {
      sorted: Float64Array.from(all).sort(),
      during: Float64Array.from(inWindows).sort(),
      windows,
      answers,
      sent: Number(/Queries sent:\s+(\d+)/.exec(out)?.[1] ?? NaN),
      lost: /Queries lost:\s+(\d+)/.exec(out)?.[1] ?? '?',
      drops,
    };
  };
  /** Mark a reload window: starts now, ends a second after `reloaded` resolves. */
  const reloadWindow = async <T>(
    windows: Window[],
    offset: () => number,
    reloaded: () => Promise<T>,
  ): Promise<T> => {
    const w: Window = {
      from: performance.now(),
      to: Infinity,
      fromOffset: offset(),
      toOffset: Infinity,
      serverDrops: socketDrops(serverSockets),
      samples: [],
      at: Date.now(),
    };
    windows.push(w);
    const sampler = values.timeline
      ? setInterval(() => w.samples.push([Date.now(), offset()]), 10)
      : undefined;
    const r = await reloaded();
    await sleep(1000);
    clearInterval(sampler);
    w.to = performance.now();
    w.toOffset = offset();
    w.serverDrops = socketDrops(serverSockets) - w.serverDrops;
    return r;
  };
  const loadStart = load();
  // Phase 1, the baseline: the same load without any reload.
  // Phase 0, the first 2 s after ready: each of the 10,000 names is encoded
  // on its first query and the answering code is compiled, so the answers
  // queue (up to tens of ms). Printed on its own line; the phases after it
  // compare a warm server with itself.
  const cold = await dnsperf(2, async () => {});
  // With --timeline its answers are one window too (printed in 1 s steps).
  const quiet = await dnsperf(Math.round(SECONDS / 2), async (windows, offset) => {
    if (values.timeline)
      await reloadWindow(windows, offset, () => sleep(Math.round(SECONDS / 2) * 1000 - 1500));
  });
  // Phase 2: a changed file + SIGHUP, then a touched file + SIGHUP.
  let changed: Record<string, unknown> = {};
  let changedLoad: Record<string, unknown> = {};
  let touched: Record<string, unknown> = {};
  let swapMs = NaN;
  // The changed file is written before the run (generating 80 MB here during it would load
  // this process and the machine), and renamed over the served one at the reload.
  const nextFile = join(dir, 'next.zone.tmp');
  writeFileSync(
    nextFile,
    zoneText(2, `new IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://new/\\\\1!" .\n`),
  );
  const busy = await dnsperf(SECONDS, async (windows, offset) => {
    await sleep(5000);
    let from = logs.length;
    changed = await reloadWindow(windows, offset, async () => {
      renameSync(nextFile, file);
      server.kill('SIGHUP');
      return waitFor(/\{[^\n]*"event":"zones_reloaded"[^\n]*\}/, from);
    });
    changedLoad = await waitFor(/\{[^\n]*"event":"zone_loaded"[^\n]*\}/, from);
    swapMs = Number((await waitFor(/\{[^\n]*"event":"zones_compiled"[^\n]*\}/, from)).ms);
    await sleep(2000);
    from = logs.length;
    utimesSync(file, new Date(), new Date(Date.now() + 60_000));
    touched = await reloadWindow(windows, offset, async () => {
      server.kill('SIGHUP');
      return waitFor(/\{[^\n]*"event":"zones_reloaded"[^\n]*\}/, from);
    });
  });
  server.kill('SIGTERM');

  const initial = Number(loaded.ms) + Number(compiled.ms);
  const nice =
    (values['load-nice'] === undefined ? '' : `, zoneFiles.loadNice ${values['load-nice']}`) +
    (values['gc-helper-nice'] === undefined ? '' : `, gcHelperNice ${values['gc-helper-nice']}`);
  console.log(
    `lexroute serve --workers ${WORKERS}${nice}, ${RECORDS.toLocaleString('en')} NAPTR records, dnsperf at ${RATE} q/s for ${SECONDS} s (2 cores, machine shared); load average ${loadStart} at the start, ${load()} at the end`,
  );
  console.log(
    `start: zone_loaded ${loaded.ms} ms (worker) + zones_compiled ${compiled.ms} ms = ${initial} ms; listening after ${startMs.toFixed(0)} ms`,
  );
  console.log(
    `plain load (loadZoneFile, own process, best of 2): ${plainMs.toFixed(0)} ms, ${plain.loadCpuMs.toFixed(0)} ms of CPU (all its threads: GC helpers included)`,
  );
  console.log(
    `reload (changed file): ${changed.ms} ms (zone_loaded ${changedLoad.ms} ms in the load thread, ${changedLoad.cpuMs ?? '?'} ms of its CPU; steps ${JSON.stringify(changedLoad.phases ?? {})}); swap on the answering thread ${swapMs} ms`,
  );
  console.log(
    `reload / plain load: ${(Number(changed.ms) / plainMs).toFixed(2)}x (target <= 1.2); reload / the server's initial load: ${(Number(changed.ms) / initial).toFixed(2)}x`,
  );
  // The reload's work against the plain load's (CPU of the loading thread in each), and the
  // share of a core the load thread got: the wall-time ratio is their quotient.
  const work = Number(changedLoad.cpuMs) / plain.loadThreadCpuMs;
  const share = Number(changedLoad.cpuMs) / Number(changedLoad.ms);
  const plainShare = plain.loadThreadCpuMs / plainMs;
  console.log(
    `  work: the load thread's CPU ${changedLoad.cpuMs} ms vs the plain load's ${plain.loadThreadCpuMs.toFixed(0)} ms = ${work.toFixed(2)}x; share of a core: reload ${share.toFixed(2)}, plain load ${plainShare.toFixed(2)}`,
  );
  console.log(`reload (touched, same content): ${touched.ms} ms (hash only)`);
  const line = (label: string, sorted: Float64Array, tail: string) => {
    const p = (x: number) => percentile(sorted, x).toFixed(2);
    console.log(
      `${label.padEnd(24)} answered ${sorted.length}${tail}; latency ms p50 ${p(50)}, p99 ${p(99)}, p99.9 ${p(99.9)}, max ${p(100)}`,
    );
  };
  for (const [label, r] of [
    ['cold start (first 2 s)', cold],
    ['no reload (baseline)', quiet],
    ['the run with 2 reloads', busy],
  ] as const) {
    const d = r.drops;
    line(label, r.sorted, `, sent ${r.sent}, lost ${r.lost}`);
    console.log(
      `${''.padEnd(24)} dropped by the kernel: ${d.server} at the server's sockets (receive buffer full), ${d.dnsperf} at dnsperf's; machine RcvbufErrors +${d.machine}`,
    );
  }
  const ws = busy.windows.map((w) => `${(w.to - w.from).toFixed(0)} ms`).join(' + ');
  const wDrops = busy.windows.reduce((n, w) => n + w.serverDrops, 0);
  line(
    'during the reloads',
    busy.during,
    ` (SIGHUP to 1 s after zones_reloaded: ${ws}), dropped at the server's sockets ${wDrops}`,
  );
  if (values.timeline) {
    const gcOut = readFileSync(serverOut, 'utf8');
    if (quiet.windows[0])
      printTimeline(quiet.windows[0], quiet.answers[0]!, serverStart, gcOut, true);
  }
  if (values.timeline)
    busy.windows.forEach((w, i) =>
      printTimeline(w, busy.answers[i]!, serverStart, readFileSync(serverOut, 'utf8')),
    );
} catch (e) {
  console.error(`bench/reload.ts FAILED: ${(e as Error).message}`);
  console.error(`last server log lines:\n${logs.split('\n').slice(-30).join('\n')}`);
  process.exitCode = 1;
} finally {
  if (process.env.RELOAD_BENCH_LOG) writeFileSync(process.env.RELOAD_BENCH_LOG, logs);
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
