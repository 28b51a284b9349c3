/**
 * Stalls of the answering thread during a reload (issue 20), without dnsperf
 * or sockets, before and after the two changes that removed them, side by
 * side in one run:
 *
 * - "before": V8's default accounting of memory outside its heap (the 170 MB
 *   of columns arriving at the swap are "external memory pressure": marking
 *   steps of 5-10 ms on the receiving thread) and the hot set listed at once
 *   at the reload's start (`Engine.hotNames`);
 * - "now": what `serve` does: `countBuffersInHeapLimit()` and the hot set
 *   listed in slices (`Engine.hotNamesInSlices`).
 *
 * Each variant runs in a process of its own (a V8 flag is process-wide),
 * alternately, `--rounds` times: an Engine answers 20 queries every
 * millisecond (20,000 q/s, 10,000 names, as bench/reload.ts) from a
 * BackgroundZoneLoader's zone while the same loader reloads a changed file,
 * then the same file touched, `--reloads` times. Every gap of the ticker over
 * 3 ms is a stall; printed per variant: the worst gap, the gaps over 10 ms,
 * and where in the reload the worst fell (from its start; the reply arrives at
 * the time shown). The gaps of a busy 2-core machine (the load thread and
 * the GC threads of both isolates share it) are in both columns alike.
 *
 *   node_modules/.bin/node bench/reload-stall.ts [--records N] [--reloads K] [--rounds R]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync, utimesSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import dnsPacket from 'dns-packet';
import {
  BackgroundZoneLoader,
  countBuffersInHeapLimit,
} from '../src/authority/zones/background.ts';
import { Engine, TRANSPORT_UDP } from '../src/authority/engine.ts';
import { naptrZoneText } from './harness.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    reloads: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '2' },
    child: { type: 'string' },
  },
});
const RECORDS = Number(values.records);
const RELOADS = Number(values.reloads);
const ORIGIN = 'lex.reload.bench.';

/** One reload as a child reports it. */
interface Reload {
  kind: 'changed' | 'touched';
  replyMs: number;
  /** [ms from the reload's start, gap ms], gaps over 3 ms. */
  gaps: [number, number][];
}

const zoneText = (serial: number, extra: string) => naptrZoneText(RECORDS, serial, extra);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A child: one variant, its reloads as JSON on standard output. */
async function child(now: boolean): Promise<void> {
  if (now) countBuffersInHeapLimit();
  const dir = mkdtempSync(join(tmpdir(), 'lexroute-reload-stall-'));
  const file = join(dir, `${ORIGIN}zone`);
  writeFileSync(file, zoneText(1, ''));
  // The changed files are written before the ticker starts (writing 80 MB would stall it).
  const next = Array.from({ length: RELOADS }, (_, i) => join(dir, `next${i}.tmp`));
  next.forEach((f, i) =>
    writeFileSync(f, zoneText(2 + i, `new${i} IN NAPTR 100 10 "u" "" "" .\n`)),
  );
  const queries = Array.from({ length: 10_000 }, (_, i) =>
    dnsPacket.encode({
      type: 'query',
      id: i,
      questions: [{ type: 'NAPTR', name: `j${(i * 7919) % RECORDS}.${ORIGIN}` }],
    }),
  );
  const loader = new BackgroundZoneLoader();
  const first = await loader.load(file, ORIGIN);
  const engine = new Engine([first.indexed!]);
  loader.hot = () => (now ? engine.hotNamesInSlices() : engine.hotNames());
  let hash = first.hash;
  let qi = 0;
  let last = performance.now();
  let gaps: [number, number][] = [];
  const ticker = setInterval(() => {
    const t = performance.now();
    if (t - last > 3) gaps.push([last, t - last]);
    last = t;
    for (let k = 0; k < 20; k++) engine.respond(queries[qi++ % queries.length]!, TRANSPORT_UDP);
  }, 1);
  await sleep(3000);
  const reloads: Reload[] = [];
  const reload = async (kind: Reload['kind']) => {
    gaps = [];
    const t0 = performance.now();
    const r = await loader.load(file, ORIGIN, hash);
    const replyMs = performance.now() - t0;
    if (r.indexed) engine.setZones([r.indexed]);
    hash = r.hash ?? hash;
    await sleep(1500);
    reloads.push({ kind, replyMs, gaps: gaps.map(([at, g]) => [at - t0, g]) });
  };
  for (let i = 0; i < RELOADS; i++) {
    // The file replaced is kept until the end: unlinking 80 MB here would stall the ticker.
    renameSync(file, join(dir, `old${i}.tmp`));
    renameSync(next[i]!, file);
    await reload('changed');
    utimesSync(file, new Date(), new Date(Date.now() + 60_000 * (i + 1)));
    await reload('touched');
  }
  clearInterval(ticker);
  await loader.close();
  rmSync(dir, { recursive: true });
  process.stdout.write(JSON.stringify(reloads));
}

function parent(): void {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  console.log(
    `reload stalls: ${RECORDS.toLocaleString('en')} NAPTR records, ${RELOADS} changed + ${RELOADS} touched reloads per process, ${values.rounds} rounds; load average ${load()}`,
  );
  const got: Record<'before' | 'now', Reload[]> = { before: [], now: [] };
  for (let r = 0; r < Number(values.rounds); r++)
    for (const v of ['before', 'now'] as const) {
      const out = spawnSync(
        process.execPath,
        [
          import.meta.filename,
          '--child',
          v,
          '--records',
          String(RECORDS),
          '--reloads',
          String(RELOADS),
        ],
        { encoding: 'utf8', maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      if (out.status !== 0) throw new Error(`the ${v} child failed (status ${out.status})`);
      got[v].push(...(JSON.parse(out.stdout) as Reload[]));
    }
  const row = (label: string, f: (rs: Reload[]) => string) =>
    console.log(`${label.padEnd(44)} ${f(got.before).padEnd(22)} ${f(got.now)}`);
  console.log(`${''.padEnd(44)} ${'before'.padEnd(22)} now`);
  for (const kind of ['changed', 'touched'] as const) {
    const of = (rs: Reload[]) => rs.filter((r) => r.kind === kind);
    const worst = (r: Reload) => Math.max(0, ...r.gaps.map((g) => g[1]));
    row(`${kind}: worst gap per reload, ms`, (rs) =>
      of(rs)
        .map((r) => worst(r).toFixed(1))
        .join(' '),
    );
    row(`${kind}: gaps over 10 ms, all reloads`, (rs) =>
      String(of(rs).reduce((n, r) => n + r.gaps.filter((g) => g[1] > 10).length, 0)),
    );
    row(`${kind}: the worst gap's start / the reply, ms`, (rs) => {
      const r = of(rs).reduce((a, b) => (worst(b) > worst(a) ? b : a));
      const g = r.gaps.find((x) => x[1] === worst(r));
      return `${g ? g[0].toFixed(0) : '-'} / ${r.replyMs.toFixed(0)}`;
    });
  }
  console.log(`load average at the end ${load()}`);
}

if (values.child !== undefined) await child(values.child === 'now');
else parent();
