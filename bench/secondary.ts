/**
 * Secondary mode: how long lexroute takes to serve a change made at a BIND
 * primary, with a BIND secondary as the baseline in the same run: from the
 * NOTIFY until the secondary answers the changed record (its SOA query, the
 * IXFR, applying it).
 * Each secondary has its own BIND primary of the same file; both primaries
 * get SIGHUP at once, and once both serve the new serial the bench sends
 * the NOTIFY to both secondaries itself (the primaries' own NOTIFYs would
 * time BIND's reload of the zone, seconds at 1,000,000 records, and BIND
 * paces the NOTIFYs of one zone to several targets hundreds of milliseconds
 * apart); both secondaries are polled the same way. The NOTIFYs wait until
 * both primaries have used no CPU for 200 ms: a primary still busy after
 * its reload (journal, file) competed with the secondaries for the two
 * cores, and the figure followed which one got a core first.
 * Also lexroute's own figure: from the NOTIFY it received to the new version
 * swapped in (`notify_received` to `xfr_in`, from its log).
 * Each change touches 10 records: the `vSERIAL` name replaced and 9 more
 * `unit-N` records given a new target (an IXFR of 10 deletions and 10
 * additions).
 * `--prof DIR` runs lexroute with `--cpu-prof` (its profile, written at exit,
 * goes to DIR).
 *
 * `--workers N` runs lexroute with N answering threads (each swaps in every
 * applied IXFR: its cost is in `applyMs`).
 *
 *   node_modules/.bin/node bench/secondary.ts [--records N] [--runs R] [--workers N] [--prof DIR]
 */
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as dnsPacket from 'dns-packet';
import { AS_NOBODY, freePort, processCpuUs, scratch, spawnServe, until } from './harness.ts';
import { median } from './stats.ts';
import { changingZone } from './ixfr-zone.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '5' },
    prof: { type: 'string' },
    workers: { type: 'string', default: '1' },
  },
});
const RECORDS = Number(values.records);
const RUNS = Number(values.runs);
const ORIGIN = 'lex.example.';
/** Bound of each wait: loads and transfers of large zones on a busy machine take minutes. */
const WAIT_MS = Math.max(60_000, RECORDS / 2);

const zoneText = (serial: number) => changingZone(ORIGIN, RECORDS, serial);

/** NOERROR with an answer for `name` NAPTR at port (one UDP query, 50 ms wait). */
function answers(port: number, name: string): Promise<boolean> {
  const q = dnsPacket.encode({ type: 'query', id: 1, questions: [{ type: 'NAPTR', name }] });
  const s = dgram.createSocket('udp4');
  return new Promise((resolve) => {
    const done = (v: boolean) => {
      clearTimeout(t);
      s.close();
      resolve(v);
    };
    const t = setTimeout(() => done(false), 50);
    s.on('message', (m) => done((m[3]! & 0xf) === 0 && m.readUInt16BE(6) > 0));
    s.send(q, port, '127.0.0.1');
  });
}

/** A NOTIFY for the zone (RFC 1996), from 127.0.0.1 as the primaries' would come. */
function notify(port: number): void {
  const m = dnsPacket.encode({ type: 'query', id: 7, questions: [{ type: 'SOA', name: ORIGIN }] });
  m[2] = (4 << 3) | 0x04; // opcode NOTIFY, AA
  const s = dgram.createSocket('udp4');
  s.send(m, port, '127.0.0.1', () => s.close());
}

const { dir, children } = scratch('lexroute-bench-secondary-');

const [pPort, qPort, sPort, lPort] = [
  await freePort(),
  await freePort(),
  await freePort(),
  await freePort(),
];
// One copy of the zone per primary (each keeps its own journal beside it).
const zoneFiles = [join(dir, 'primary-b.db'), join(dir, 'primary-l.db')];
let serial = 1;
const writeZones = () => {
  for (const f of zoneFiles) {
    writeFileSync(f, zoneText(serial));
    chmodSync(f, 0o666);
  }
};
writeZones();
const named = (conf: string, text: string) => {
  writeFileSync(join(dir, conf), text);
  const c = spawn('named', ['-g', '-n', '1', '-c', join(dir, conf)], {
    stdio: 'ignore',
    cwd: dir,
    ...AS_NOBODY,
  });
  children.push(c);
  return c;
};
const options = (port: number, extra: string) => `options {
  directory "${dir}"; pid-file none; listen-on port ${port} { 127.0.0.1; }; listen-on-v6 { none; };
  recursion no; dnssec-validation no; session-keyfile none; managed-keys-directory "${dir}";
  ${extra}
};
controls { };
`;
const primaryConf = (port: number, zoneFile: string) => `${options(
  port,
  'ixfr-from-differences yes; notify no;',
)}
zone "${ORIGIN}" { type primary; file "${zoneFile}"; allow-transfer { 127.0.0.1; }; };
`;
// The BIND secondary's primary (pPort) and lexroute's (qPort), the same zone.
const primaries = [
  named('primary-b.conf', primaryConf(pPort, zoneFiles[0]!)),
  named('primary-l.conf', primaryConf(qPort, zoneFiles[1]!)),
];
await until(
  'the primaries',
  async () => (await answers(pPort, `v1.${ORIGIN}`)) && (await answers(qPort, `v1.${ORIGIN}`)),
  WAIT_MS,
  2,
);
named(
  'secondary.conf',
  `${options(sPort, 'notify no;')}
zone "${ORIGIN}" { type secondary; primaries { 127.0.0.1 port ${pPort}; };
  file "${dir}/secondary.db"; allow-notify { 127.0.0.1; }; };
`,
);
if (values.prof) process.env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${values.prof}`;
const lex = spawnServe(
  [
    '--listen',
    `127.0.0.1:${lPort}`,
    '--state-dir',
    join(dir, 'lexroute'),
    '--secondary',
    `${ORIGIN}=127.0.0.1:${qPort}`,
    '--workers',
    values.workers,
  ],
  children,
);
delete process.env.NODE_OPTIONS;
await until(
  'both secondaries',
  async () => (await answers(sPort, `v1.${ORIGIN}`)) && (await answers(lPort, `v1.${ORIGIN}`)),
  WAIT_MS,
  2,
);

/** Waits until the processes used no CPU for 200 ms together (at most 20 s); returns the wait, ms. */
async function primariesIdle(pids: number[]): Promise<number> {
  const t0 = performance.now();
  let before = pids.map(processCpuUs);
  while (performance.now() - t0 < 20_000) {
    await new Promise((r) => setTimeout(r, 200));
    const now = pids.map(processCpuUs);
    if (now.every((c, i) => c === before[i])) break;
    before = now;
  }
  return performance.now() - t0;
}

const bindMs: number[] = [];
const lexMs: number[] = [];
const lexInner: number[] = [];
/** lexroute's `applyMs` of each run (its xfr_in line: the IXFR received to the new version swapped in). */
const applyMs: number[] = [];
for (let run = 0; run < RUNS; run++) {
  serial++;
  const name = `v${serial}.${ORIGIN}`;
  writeZones();
  for (const p of primaries) p.kill('SIGHUP');
  await until(
    `the primaries at serial ${serial}`,
    async () => (await answers(pPort, name)) && (await answers(qPort, name)),
    WAIT_MS,
    20,
  );
  // Both primaries done with their reload (its journal, its file) first: their work after
  // the first answer of the new serial otherwise competed with the secondaries' for the
  // cores, and the order in which a core came free decided the figure.
  const settledMs = await primariesIdle(primaries.map((p) => p.pid!));
  const logFrom = lex.log().length;
  const t0 = performance.now();
  const wall0 = Date.now();
  notify(sPort);
  notify(lPort);
  let bind = 0;
  let lexroute = 0;
  await until(
    `serial ${serial}`,
    async () => {
      const [b, l] = await Promise.all([
        bind ? true : answers(sPort, name),
        lexroute ? true : answers(lPort, name),
      ]);
      if (b && !bind) bind = performance.now() - t0;
      if (l && !lexroute) lexroute = performance.now() - t0;
      return bind > 0 && lexroute > 0;
    },
    WAIT_MS,
    2,
  );
  bindMs.push(bind);
  lexMs.push(lexroute);
  // The xfr_in line follows the swap the answer shows: give it a moment.
  await new Promise((r) => setTimeout(r, 300));
  const lines = lex
    .log()
    .slice(logFrom)
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { event: string; time: string; applyMs?: number });
  const n = lines.find((l) => l.event === 'notify_received');
  // The transfer this NOTIFY started (a late line of the previous run may come first).
  const x = n && lines.slice(lines.indexOf(n)).find((l) => l.event === 'xfr_in');
  if (n && x) lexInner.push(Date.parse(x.time) - Date.parse(n.time));
  if (process.env.BENCH_VERBOSE)
    console.log(JSON.stringify({ notifyAt: n && Date.parse(n.time) - wall0, x }));
  const parts = x as { transferMs?: number; applyMs?: number } | undefined;
  if (parts?.applyMs !== undefined) applyMs.push(parts.applyMs);
  console.log(
    `run ${run + 1}: BIND secondary ${bind.toFixed(0)} ms, lexroute ${lexroute.toFixed(0)} ms (NOTIFY to answer; lexroute's transfer ${parts?.transferMs ?? '?'} ms, apply ${parts?.applyMs ?? '?'} ms; primaries settled ${settledMs.toFixed(0)} ms after serving it)`,
  );
}
const mb = median(bindMs);
const ml = median(lexMs);
console.log(
  `zone of ${RECORDS + 4} records, ${RUNS} changes (10 records changed, serial raised, IXFR):`,
);
console.log(`  BIND secondary (baseline):    median ${mb.toFixed(0)} ms from the NOTIFY`);
console.log(
  `  lexroute secondary:           median ${ml.toFixed(0)} ms (${(ml / mb).toFixed(2)}x BIND)`,
);
console.log(
  `  lexroute NOTIFY in -> swapped: median ${lexInner.length ? median(lexInner).toFixed(0) : 'n/a'} ms (its log: notify_received to xfr_in)`,
);
console.log(`  lexroute apply by run:        ${applyMs.join(', ')} ms (xfr_in applyMs)`);
if (values.prof) {
  // The profile is written when lexroute exits.
  const exited = new Promise((r) => lex.child.once('exit', r));
  lex.child.kill('SIGTERM');
  await exited;
  console.log(`  lexroute's CPU profile: ${values.prof}`);
}
process.exit(0);
