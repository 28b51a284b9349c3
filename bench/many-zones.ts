/**
 * Many small zones (issue 30): lexroute, NSD and Knot in the same run, each
 * serving 1,000 / 5,000 / 10,000 generated zones of 6 records (SOA, NS, the
 * name server's A, two NAPTR at the apex, one NAPTR below it), and lexroute
 * once more serving the same names as one zone. Per server and zone count:
 *
 * - start: from the spawn until every zone answers its SOA (NOERROR, AA);
 *   `last s` is the first part, until the last zone answers;
 *   the last zone is asked alone until it answers, then every zone (asking
 *   all of them in each round loaded the server with the bench's queries,
 *   up to 10,000 a round, while it started);
 * - memory: resident memory (VmRSS of the process and its children) once
 *   every zone answers, and again after the timed queries (`RSS q/s`);
 * - q/s: dnsperf over random names of the zones (40% apex NAPTR, 40% the
 *   NAPTR below the apex, 10% NXDOMAIN, 10% NODATA), server pinned to one
 *   core, dnsperf to the other (as bench/server-qps.sh), after one pass
 *   through the same names (every server answers each name once before it
 *   is timed: lexroute encodes a name's answer on its first query);
 * - with --rounds N (lexroute and one-zone both selected): both lexroutes
 *   up at once, q/s and server CPU per query at a fixed --rate, measured in
 *   turn N times (the order alternating), each round's ratio and the
 *   median: one q/s figure per server swings by a half on the shared
 *   machine, a ratio of neighbouring runs much less;
 * - reload: one zone file changed (serial + 1, a NAPTR rewritten), SIGHUP,
 *   until that zone's new serial is served; for lexroute also
 *   `lexroute ctl reload ZONE` after a second change (until served, with
 *   ctl's own Node start-up, and the reload time the server reports).
 *
 * - `--servers built`: lexroute as the installed package runs it, the
 *   sources transpiled to JavaScript (`tsconfig.build.json`, into the
 *   scratch folder): from a checkout, `bin/lexroute.js` runs the TypeScript
 *   sources, and Node's type stripping costs each thread that loads them
 *   (the answering thread and the zone-load thread) its own memory (about
 *   45 MB in all on this machine). Started through the package's
 *   bin/lexroute.js, so with its compile cache (warm after the first start)
 *   and node options.
 *
 * Prints a side-by-side table and lexroute's ratios to the targets
 * (start <= 3x NSD + 0.5 s, memory <= 2x NSD, q/s over the zones >= 0.85x
 * the same names in one zone, reload <= 1 s after SIGHUP, <= 100 ms by ctl).
 * The zones are generated into a scratch folder, removed at exit.
 *
 *   node_modules/.bin/node bench/many-zones.ts [--zones 1000,5000,10000]
 *     [--seconds 10] [--servers lexroute,one-zone,built,nsd,knot]
 *     [--server-cpu 0] [--client-cpu 1] [--rounds 0] [--rate 10000]
 *     [--start-only] [--repeat 1] [--workers 1]
 *
 * `--start-only` measures the start and its memory only (no queries, no
 * reload); `--repeat N` measures each selected server N times per zone
 * count, in turn, and the targets take each server's median start;
 * `--workers N` runs lexroute with N answering threads (`--server-cpu
 * 0,1` gives them both cores).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as dnsPacket from 'dns-packet';
import { AS_NOBODY, ROOT, freePort, scratch } from './harness.ts';

const { values } = parseArgs({
  options: {
    zones: { type: 'string', default: '1000,5000,10000' },
    seconds: { type: 'string', default: '10' },
    servers: { type: 'string', default: 'lexroute,one-zone,nsd,knot' },
    'server-cpu': { type: 'string', default: '0' },
    'client-cpu': { type: 'string', default: '1' },
    rounds: { type: 'string', default: '0' },
    rate: { type: 'string', default: '10000' },
    'start-only': { type: 'boolean', default: false },
    repeat: { type: 'string', default: '1' },
    workers: { type: 'string', default: '1' },
  },
});
const COUNTS = values.zones.split(',').map(Number);
const SECONDS = Number(values.seconds);
const SERVERS = new Set(values.servers.split(','));
const SERVER_CPU = values['server-cpu'];
const CLIENT_CPU = values['client-cpu'];
const ROUNDS = Number(values.rounds);
const RATE = values.rate;
const START_ONLY = values['start-only'];
const REPEAT = Number(values.repeat);
const WORKERS = Number(values.workers);
const PARENT = 'lex.bench.';
const NODE = join(ROOT, 'node_modules/.bin/node');
const BIN = join(ROOT, 'bin/lexroute.js');
const { dir, children } = scratch('lexroute-many-zones-');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const zoneName = (i: number) => `z${i}.${PARENT}`;

/** The records of zone i below `$ORIGIN` of the zone itself (relative owners). */
function zoneBody(i: number, serial: number, variant: string): string[] {
  return [
    `@ 3600 IN SOA ns1 hostmaster ${serial} 7200 3600 1209600 300`,
    `@ 3600 IN NS ns1`,
    `ns1 3600 IN A 192.0.2.${1 + (i % 250)}`,
    `@ 3600 IN NAPTR 100 10 "" "" "!^urn:lex:z${i};([a-z0-9.-]+)[;:].*$!\\\\1.z${i}.lex.bench!i" .`,
    `@ 3600 IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!https://z${i}${variant}.resolver.example/uri-res/N2L?\\\\1!" .`,
    `j1 3600 IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!https://j1.z${i}.resolver.example/N2L?\\\\1!" .`,
  ];
}

function zoneText(i: number, serial: number, variant = ''): string {
  return [`$ORIGIN ${zoneName(i)}`, ...zoneBody(i, serial, variant), ''].join('\n');
}

/** Write `count` zone files into a fresh folder; returns the folder. */
function writeZones(count: number): string {
  const folder = join(dir, `zones-${count}`);
  mkdirSync(folder, { mode: 0o755 });
  for (let i = 0; i < count; i++) writeFileSync(join(folder, `${zoneName(i)}zone`), zoneText(i, 1));
  return folder;
}

/** The same names (and records, bar each zone's SOA and NS) in one zone `lex.bench.`. */
function writeOneZone(count: number): string {
  const lines = [
    `$ORIGIN ${PARENT}`,
    `@ 3600 IN SOA ns1 hostmaster 1 7200 3600 1209600 300`,
    `@ 3600 IN NS ns1`,
    `ns1 3600 IN A 192.0.2.1`,
  ];
  for (let i = 0; i < count; i++) {
    lines.push(`$ORIGIN ${zoneName(i)}`, ...zoneBody(i, 1, '').slice(2));
  }
  const file = join(dir, `one-zone-${count}.zone`);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** dnsperf's query file: random names of the zones. */
function writeQueries(count: number): string {
  let seed = 42;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const out: string[] = [];
  for (let n = 0; n < 50_000; n++) {
    const z = zoneName(Math.floor(rand() * count));
    const r = n % 10;
    if (r < 4) out.push(`${z} NAPTR`);
    else if (r < 8) out.push(`j1.${z} NAPTR`);
    else if (r < 9) out.push(`x${n}.${z} NAPTR`);
    else out.push(`${z} A`);
  }
  const file = join(dir, `queries-${count}.txt`);
  writeFileSync(file, out.join('\n') + '\n');
  return file;
}

/**
 * Ask every name's SOA over UDP (at most `window` in flight) until each has
 * answered NOERROR with `serial` (any serial when undefined). Returns when
 * all have; throws after `ms`.
 */
async function allAnswer(
  port: number,
  names: readonly string[],
  ms: number,
  serial?: number,
  alive: () => boolean = () => true,
  window = 256,
): Promise<void> {
  const sock = dgram.createSocket('udp4');
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
  sock.on('error', () => {});
  const pending = new Set(names.map((_, i) => i));
  let inFlight = 0;
  const sent = new Map<number, number>();
  sock.on('message', (msg) => {
    let res: dnsPacket.Packet;
    try {
      res = dnsPacket.decode(msg);
    } catch {
      return;
    }
    const i = res.id === undefined ? undefined : sent.get(res.id);
    if (i === undefined) return;
    sent.delete(res.id!);
    inFlight--;
    const soa = res.answers?.find((a) => a.type === 'SOA');
    const ok =
      (res as { rcode?: string }).rcode === 'NOERROR' &&
      soa !== undefined &&
      (serial === undefined || (soa.data as { serial: number }).serial === serial);
    if (ok) pending.delete(i);
  });
  const t0 = performance.now();
  let nextId = 1;
  try {
    while (pending.size > 0) {
      if (!alive()) throw new Error('the server exited');
      if (performance.now() - t0 > ms)
        throw new Error(`${pending.size} zones not answering after ${ms} ms`);
      sent.clear();
      inFlight = 0;
      const round = [...pending];
      for (const i of round) {
        while (inFlight >= window) await sleep(1);
        const id = (nextId = (nextId % 65535) + 1);
        sent.set(id, i);
        inFlight++;
        const q = dnsPacket.encode({
          id,
          type: 'query',
          flags: 0,
          questions: [{ type: 'SOA', name: names[i]!.slice(0, -1) }],
        });
        sock.send(q, port, '127.0.0.1');
        if (inFlight >= window) {
          const w = performance.now();
          while (inFlight >= window && performance.now() - w < 200) await sleep(1);
          if (inFlight >= window) inFlight = 0; // lost: the round's retry asks again
        }
      }
      const w = performance.now();
      while (inFlight > 0 && performance.now() - w < 200) await sleep(2);
      if (pending.size > 0) await sleep(20);
    }
  } finally {
    sock.close();
  }
}

/** Resident memory (MB) of `pid` and its descendants. */
function rssMb(pid: number): number {
  let kb = 0;
  const visit = (p: number) => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      kb += Number(m?.[1] ?? 0);
      for (const t of readdirSync(`/proc/${p}/task`)) {
        const kids = readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').trim();
        for (const k of kids.split(/\s+/).filter((s) => s !== '')) visit(Number(k));
      }
    } catch {
      /* gone */
    }
  };
  visit(pid);
  return kb / 1024;
}

/** dnsperf over `queries` for --seconds (or `run`: e.g. `-n 1`, one pass; `-Q rate`). */
function dnsperf(
  port: number,
  queries: string,
  run: string[] = ['-l', String(SECONDS)],
): { qps: number; lost: string; completed: number } {
  const r = spawnSync(
    'taskset',
    [
      '-c',
      CLIENT_CPU,
      'dnsperf',
      '-s',
      '127.0.0.1',
      '-p',
      String(port),
      '-d',
      queries,
      ...run,
      '-c',
      '4',
      '-q',
      '100',
    ],
    { encoding: 'utf8' },
  );
  const qps = Number(/Queries per second:\s+([\d.]+)/.exec(r.stdout)?.[1] ?? 0);
  const lost = /Queries lost:\s+(\S+)/.exec(r.stdout)?.[1] ?? '?';
  const completed = Number(/Queries completed:\s+(\d+)/.exec(r.stdout)?.[1] ?? 0);
  return { qps, lost, completed };
}

/**
 * CPU time (ns) of a process's threads, from the scheduler (as
 * bench/server-qps.sh: utime/stime are sampled at clock ticks).
 */
function cpuNs(pid: number): number {
  let ns = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      /* the thread ended */
    }
  }
  return ns;
}

/**
 * A server's figures for one round: q/s at full speed; the same per second
 * of the server's own CPU time (what it would answer with the core to
 * itself: the steadier figure where other work takes a varying share of
 * the core); server CPU µs per query at --rate queries/s.
 */
interface Figures {
  qps: number;
  /** Queries dnsperf got no answer to in the full-speed run (each holds a slot until its time-out). */
  lost: string;
  qpsPerCpu: number;
  cpu: number;
}

function figures(pid: number, port: number, queries: string): Figures {
  let c0 = cpuNs(pid);
  const full = dnsperf(port, queries);
  const qpsPerCpu = full.completed / ((cpuNs(pid) - c0) / 1e9);
  c0 = cpuNs(pid);
  const { completed } = dnsperf(port, queries, ['-l', String(SECONDS), '-Q', RATE]);
  const cpu = completed > 0 ? (cpuNs(pid) - c0) / 1000 / completed : NaN;
  return { qps: full.qps, lost: full.lost, qpsPerCpu, cpu };
}

interface Server {
  child: ChildProcess;
  /** Reload after the files changed (SIGHUP by default). */
  stop(): Promise<void>;
}

function spawnPinned(cmd: string, args: string[], opts: object = {}): ChildProcess {
  const child = spawn('taskset', ['-c', SERVER_CPU, cmd, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...opts,
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    if (err.length > 20_000) err = err.slice(-10_000);
  });
  child.on('exit', (code) => {
    if (code !== null && code !== 0)
      process.stderr.write(`${cmd} exited ${code}: ${err.slice(-2000)}\n`);
  });
  children.push(child);
  return child;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([gone, sleep(5000)]);
    if (child.exitCode === null) child.kill('SIGKILL');
  };
}

function startLexroute(zones: string, port: number, control: string, bin = BIN): Server {
  const child = spawnPinned(NODE, [
    bin,
    'serve',
    '--zones',
    zones,
    '--listen',
    `127.0.0.1:${port}`,
    '--log-level',
    'warn',
    '--control',
    control,
    ...(WORKERS > 1 ? ['--workers', String(WORKERS)] : []),
  ]);
  return { child, stop: stopper(child) };
}

function startNsd(folder: string, count: number, port: number): Server {
  const work = join(dir, `nsd-${count}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work);
  chmodSync(work, 0o777);
  const conf = [
    'server:',
    `  ip-address: 127.0.0.1@${port}`,
    '  server-count: 1',
    '  username: ""',
    '  chroot: ""',
    `  zonesdir: "${folder}"`,
    `  pidfile: "${work}/nsd.pid"`,
    '  database: ""',
    `  zonelistfile: "${work}/zonelist"`,
    `  xfrdfile: "${work}/xfrd"`,
    `  xfrdir: "${work}"`,
    '  verbosity: 0',
    '  rrl-ratelimit: 0',
    '  rrl-whitelist-ratelimit: 0',
    'remote-control:',
    '  control-enable: no',
  ];
  for (let i = 0; i < count; i++)
    conf.push('zone:', `  name: ${zoneName(i)}`, `  zonefile: "${zoneName(i)}zone"`);
  writeFileSync(join(work, 'nsd.conf'), conf.join('\n') + '\n');
  const child = spawnPinned('nsd', ['-d', '-c', join(work, 'nsd.conf')]);
  return { child, stop: stopper(child) };
}

function startKnot(folder: string, count: number, port: number): Server {
  const work = join(dir, `knot-${count}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work);
  chmodSync(work, 0o777);
  const conf = [
    'server:',
    `  rundir: "${work}"`,
    `  listen: 127.0.0.1@${port}`,
    '  udp-workers: 1',
    '  tcp-workers: 1',
    '  background-workers: 1',
    'database:',
    `  storage: "${work}"`,
    'log:',
    '  - target: stderr',
    '    any: error',
    'template:',
    '  - id: default',
    `    storage: "${folder}"`,
    '    file: "%s.zone"',
    '    zonefile-sync: -1',
    '    journal-content: none',
    'zone:',
  ];
  for (let i = 0; i < count; i++) conf.push(`  - domain: ${zoneName(i)}`);
  writeFileSync(join(work, 'knot.conf'), conf.join('\n') + '\n');
  const child = spawnPinned('knotd', ['-c', join(work, 'knot.conf')], AS_NOBODY);
  return { child, stop: stopper(child) };
}

interface Row {
  server: string;
  zones: number;
  /** Until the last zone answers (the first part of startS: then every zone is asked). */
  lastS: number;
  startS: number;
  rssMb: number;
  /** Resident memory after the timed queries. */
  rssAfterMb?: number;
  qps: number;
  lost: string;
  reloadS?: number;
  ctlS?: number;
  /** The reload's time in the server, as `ctl --json reload ZONE` reports it. */
  ctlServerMs?: number;
}

/** Change zone `i`'s file (serial raised, one NAPTR rewritten) and wait until its new serial is served. */
async function changeAndWait(
  port: number,
  folder: string,
  i: number,
  serial: number,
  trigger: () => void | Promise<void>,
): Promise<number> {
  writeFileSync(join(folder, `${zoneName(i)}zone`), zoneText(i, serial, `-v${serial}`));
  const t0 = performance.now();
  await trigger();
  await allAnswer(port, [zoneName(i)], 60_000, serial);
  return (performance.now() - t0) / 1000;
}

async function measure(
  name: string,
  count: number,
  start: (port: number) => Server,
  probeNames: readonly string[],
  queries: string,
  reload?: { folder: string; ctl?: string },
): Promise<Row> {
  const port = await freePort();
  const t0 = performance.now();
  const server = start(port);
  try {
    const alive = () => server.child.exitCode === null;
    // The last zone first, alone: asking every name in each round put the bench's own load (up
    // to 10,000 queries per round, tens of thousands a second) on the server while it started.
    await allAnswer(port, probeNames.slice(-1), 600_000, undefined, alive);
    const lastS = (performance.now() - t0) / 1000;
    await allAnswer(port, probeNames, 600_000, undefined, alive);
    const startS = (performance.now() - t0) / 1000;
    await sleep(500);
    const rss = rssMb(server.child.pid!);
    const started = { server: name, zones: count, lastS, startS, rssMb: rss };
    if (START_ONLY) {
      const row: Row = { ...started, qps: NaN, lost: '-' };
      process.stderr.write(`  ${JSON.stringify(row)}\n`);
      return row;
    }
    dnsperf(port, queries, ['-n', '1']);
    const { qps, lost } = dnsperf(port, queries);
    const row: Row = { ...started, rssAfterMb: rssMb(server.child.pid!), qps, lost };
    if (reload !== undefined) {
      const i = Math.floor(count / 2);
      // Knot and NSD compare file modification times in whole seconds.
      await sleep(1100);
      row.reloadS = await changeAndWait(port, reload.folder, i, 2, () => {
        server.child.kill('SIGHUP');
      });
      if (reload.ctl !== undefined) {
        const ctl = reload.ctl;
        await sleep(1100);
        try {
          row.ctlS = await changeAndWait(port, reload.folder, i, 3, () => {
            const out = execFileSync(
              NODE,
              [BIN, 'ctl', '--control', ctl, '--json', 'reload', zoneName(i)],
              { stdio: ['ignore', 'pipe', 'pipe'] },
            ).toString();
            // The server's own time for the reload (ctl's start-up, a Node process, is not in it).
            const ms = (JSON.parse(out) as { result?: { ms?: number } }).result?.ms;
            if (ms !== undefined) row.ctlServerMs = ms;
          });
        } catch (e) {
          const err = (e as { stderr?: Buffer }).stderr?.toString() ?? String(e);
          process.stderr.write(`  ctl reload failed: ${err.slice(0, 500)}\n`);
        }
      }
      // Put the file back for the next server.
      writeFileSync(join(reload.folder, `${zoneName(i)}zone`), zoneText(i, 1));
    }
    process.stderr.write(`  ${JSON.stringify(row)}\n`);
    return row;
  } finally {
    await server.stop();
    await sleep(500);
  }
}

/** Per round: q/s and CPU µs per query of lexroute over the zones and over one zone. */
interface Round {
  many: Figures;
  one: Figures;
}

/** q/s, q/s per CPU second, CPU per query: many zones over one zone. */
const ratios = (r: Round) => [
  r.many.qps / r.one.qps,
  r.many.qpsPerCpu / r.one.qpsPerCpu,
  r.many.cpu / r.one.cpu,
];

const median = (xs: number[]) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * lexroute over `count` zones and over the same names in one zone, both up
 * at once (pinned to the same core), each answered one pass of the names
 * first; then ROUNDS times, in alternating order, q/s at full speed and CPU
 * per query at a fixed rate for each.
 */
async function qpsRounds(
  count: number,
  folder: string,
  names: readonly string[],
  queries: string,
): Promise<Round[]> {
  const one = writeOneZone(count);
  const [pm, po] = [await freePort(), await freePort()];
  const many = startLexroute(folder, pm, join(dir, `ctl-rounds-${count}.sock`));
  const single = startLexroute(`${PARENT}=${one}`, po, join(dir, `ctl-rounds-one-${count}.sock`));
  const rounds: Round[] = [];
  try {
    await allAnswer(pm, names, 600_000, undefined, () => many.child.exitCode === null);
    await allAnswer(po, [PARENT], 600_000, undefined, () => single.child.exitCode === null);
    dnsperf(pm, queries, ['-n', '1']);
    dnsperf(po, queries, ['-n', '1']);
    for (let r = 1; r <= ROUNDS; r++) {
      const runMany = () => figures(many.child.pid!, pm, queries);
      const runOne = () => figures(single.child.pid!, po, queries);
      let row: Round;
      if (r % 2 === 1) row = { many: runMany(), one: runOne() };
      else {
        const one = runOne();
        row = { many: runMany(), one };
      }
      rounds.push(row);
      const show = (x: Figures) =>
        `${x.qps.toFixed(0)} q/s (lost ${x.lost}), ${x.qpsPerCpu.toFixed(0)} per CPU s, ${x.cpu.toFixed(1)} us/query`;
      process.stderr.write(
        `  round ${r}: ${count} zones ${show(row.many)}; one zone ${show(row.one)}; ratios ${ratios(
          row,
        )
          .map((x) => x.toFixed(2))
          .join(' ')}\n`,
      );
    }
  } finally {
    await many.stop();
    await single.stop();
  }
  return rounds;
}

const have = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
if (!have('dnsperf')) throw new Error('dnsperf is required (apt-get install dnsperf)');

/**
 * The package as `npm pack` lays it out: the sources transpiled (tsc,
 * tsconfig.build.json) into dist/ and bin/lexroute.js beside it, in
 * bench/out/many-zones-js/ (inside the checkout, so that bare imports
 * resolve from its node_modules). Returns the bin, which runs dist/ there
 * (no src/ beside it) with the installed package's start: its Node checks,
 * compile cache and node options.
 */
function buildJs(): string {
  const out = join(ROOT, 'bench/out/many-zones-js');
  process.stderr.write(`transpiling the sources into ${out}\n`);
  rmSync(out, { recursive: true, force: true });
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const dist = join(out, 'dist');
  const args = [
    '-p',
    join(ROOT, 'tsconfig.build.json'),
    '--outDir',
    dist,
    '--declaration',
    'false',
  ];
  execFileSync(NODE, [tsc, ...args], { stdio: 'inherit' });
  mkdirSync(join(out, 'bin'));
  copyFileSync(join(ROOT, 'bin/lexroute.js'), join(out, 'bin/lexroute.js'));
  return join(out, 'bin/lexroute.js');
}
let built: string | undefined;

const rows: Row[] = [];
const roundsOf = new Map<number, Round[]>();
for (const count of COUNTS) {
  const folder = writeZones(count);
  const queries = writeQueries(count);
  const names = Array.from({ length: count }, (_, i) => zoneName(i));
  process.stderr.write(`${count} zones in ${folder}\n`);
  for (let rep = 0; rep < REPEAT; rep++) {
    if (SERVERS.has('lexroute')) {
      const control = join(dir, `ctl-${count}.sock`);
      rows.push(
        await measure('lexroute', count, (p) => startLexroute(folder, p, control), names, queries, {
          folder,
          ctl: control,
        }),
      );
    }
    if (SERVERS.has('built')) {
      const control = join(dir, `ctl-built-${count}.sock`);
      const bin = (built ??= buildJs());
      rows.push(
        await measure(
          'lexroute built',
          count,
          (p) => startLexroute(folder, p, control, bin),
          names,
          queries,
          {
            folder,
            ctl: control,
          },
        ),
      );
    }
    if (SERVERS.has('one-zone')) {
      const one = writeOneZone(count);
      const control = join(dir, `ctl-one-${count}.sock`);
      rows.push(
        await measure(
          'lexroute 1 zone',
          count,
          (p) => startLexroute(`${PARENT}=${one}`, p, control),
          [PARENT],
          queries,
        ),
      );
    }
    if (ROUNDS > 0 && SERVERS.has('lexroute') && SERVERS.has('one-zone')) {
      process.stderr.write(
        `${count} zones: ${ROUNDS} rounds, over the zones and one zone in turn\n`,
      );
      roundsOf.set(count, await qpsRounds(count, folder, names, queries));
    }
    if (SERVERS.has('nsd') && have('nsd')) {
      rows.push(
        await measure('nsd', count, (p) => startNsd(folder, count, p), names, queries, { folder }),
      );
    }
    if (SERVERS.has('knot') && have('knotd')) {
      rows.push(
        await measure('knot', count, (p) => startKnot(folder, count, p), names, queries, {
          folder,
        }),
      );
    }
  }
}

/** Each start of `server` over `count` zones, in the order measured. */
const startsOf = (server: string, count: number) =>
  rows.filter((r) => r.server === server && r.zones === count).map((r) => r.startS);
const f = (x: number | undefined, d = 2) => (x === undefined ? '-' : x.toFixed(d));
/** `server`'s median start against the target (3x NSD's median + 0.5 s), each start listed. */
function startVsNsd(server: string, count: number): string {
  const [ls, ns] = [startsOf(server, count), startsOf('nsd', count)];
  const each =
    REPEAT > 1
      ? ` (starts ${ls.map((x) => f(x)).join(' ')}; NSD ${ns.map((x) => f(x)).join(' ')})`
      : '';
  return `start ${f(median(ls))} s vs target ${f(3 * median(ns) + 0.5)} s (3x NSD + 0.5)${each}`;
}
console.log(
  `\n${'server'.padEnd(16)} ${'zones'.padStart(6)} ${'last s'.padStart(7)} ${'start s'.padStart(8)} ${'RSS MB'.padStart(8)} ${'RSS q/s'.padStart(8)} ${'q/s'.padStart(9)} ${'lost'.padStart(7)} ${'SIGHUP s'.padStart(9)} ${'ctl s'.padStart(7)} ${'ctl srv ms'.padStart(10)}`,
);
for (const r of rows) {
  console.log(
    `${r.server.padEnd(16)} ${String(r.zones).padStart(6)} ${f(r.lastS).padStart(7)} ${f(r.startS).padStart(8)} ${f(r.rssMb, 0).padStart(8)} ${f(r.rssAfterMb, 0).padStart(8)} ${f(r.qps, 0).padStart(9)} ${r.lost.padStart(7)} ${f(r.reloadS, 3).padStart(9)} ${f(r.ctlS, 3).padStart(7)} ${f(r.ctlServerMs, 0).padStart(10)}`,
  );
}
console.log('');
for (const count of COUNTS) {
  const get = (s: string) => rows.find((r) => r.server === s && r.zones === count);
  const lex = get('lexroute');
  const nsd = get('nsd');
  const one = get('lexroute 1 zone');
  const js = get('lexroute built');
  if (js !== undefined && nsd !== undefined)
    console.log(
      `${count} zones, built: ${startVsNsd('lexroute built', count)}; memory ${f(js.rssMb / nsd.rssMb)}x NSD (target <= 2), after the queries ${f(js.rssAfterMb! / nsd.rssAfterMb!)}x`,
    );
  if (lex === undefined) continue;
  const parts: string[] = [];
  if (nsd !== undefined) {
    parts.push(startVsNsd('lexroute', count));
    const after = START_ONLY ? '' : `, after the queries ${f(lex.rssAfterMb! / nsd.rssAfterMb!)}x`;
    parts.push(`memory ${f(lex.rssMb / nsd.rssMb)}x NSD (target <= 2)${after}`);
  }
  if (one !== undefined) parts.push(`q/s ${f(lex.qps / one.qps)}x one zone (target >= 0.85)`);
  const rounds = roundsOf.get(count);
  if (rounds !== undefined) {
    const [q, qc, c] = [0, 1, 2].map((i) => rounds.map((r) => ratios(r)[i]!));
    const list = (xs: number[]) => `${f(median(xs))}x (rounds ${xs.map((x) => f(x)).join(' ')})`;
    parts.push(
      `over ${rounds.length} rounds, median of the ratios to one zone: q/s ${list(q!)}, q/s per server CPU second ${list(qc!)}, CPU per query at ${RATE} q/s ${list(c!)}`,
    );
  }
  if (!START_ONLY)
    parts.push(
      `SIGHUP ${f(lex.reloadS, 3)} s (target <= 1), ctl ${f(lex.ctlS, 3)} s, ${f(lex.ctlServerMs, 0)} ms in the server (target <= 0.1 s)`,
    );
  console.log(`${count} zones: ${parts.join('; ')}`);
}
process.exit(0);
