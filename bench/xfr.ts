/**
 * Zone transfer benchmark: the 1,000,000-record NAPTR zone (generated as in
 * bench/zone-load.ts: three NAPTR records per jurisdiction unit) served by
 * `lexroute serve` and by BIND (`named -n 1`) in the same run, each
 * transferred to the same client (`kdig +noall AXFR`): wall time of the
 * transfer and the server's peak RSS (VmHWM), side by side, with ratios.
 * Then IXFR: one record changed and the serial raised, SIGHUP to lexroute;
 * the time from the reload signal, and from the swap (`zones_compiled`),
 * until a Knot secondary (notified by lexroute) answers the new record, and
 * the cost of the difference (`ixfr_difference` ms, computed in the load
 * worker) against the load itself (`zone_loaded` ms, which includes it, less
 * the difference).
 *
 *   node_modules/.bin/node bench/xfr.ts [--records N] [--runs R]
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AS_NOBODY, freePort, scratch, spawnServe, until } from './harness.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '3' },
  },
});
const TARGET = Number(values.records);
const RUNS = Number(values.runs);
const ORIGIN = 'lex.example.';

function zoneText(serial: number, changed: string): string {
  const lines = [
    `$ORIGIN ${ORIGIN}`,
    '$TTL 3600',
    `@ IN SOA ns1 hostmaster ${serial} 3600 900 604800 300`,
    '@ IN NS ns1',
    'ns1 IN A 192.0.2.1',
    `changed IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!https://${changed}/?\\\\1!" .`,
  ];
  const kinds = ['camara', 'prefeitura', 'tribunal', 'secretaria', 'assembleia', 'conselho'];
  for (let n = 0; lines.length - 6 + 3 <= TARGET; n++) {
    const owner = `${kinds[n % kinds.length]}-${n}.sp.br`;
    const host = `r${n % 997}.resolvers.example`;
    lines.push(
      `${owner} IN NAPTR 100 10 "" "" "!^urn:lex:br;sao\\\\.paulo;${kinds[n % kinds.length]}\\\\.${n};([^:;@$~]+)[;:].*$!\\\\1.${owner}.lex.example!i" .`,
      `${owner} IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!https://${host}/uri-res/N2L?\\\\1!" .`,
      `${owner} IN NAPTR 200 20 "u" "http+N2Ls" "!^(.*)$!https://${host}/uri-res/N2Ls?\\\\1!" .`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function vmHwmKiB(pid: number): number {
  const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0);
}

function soaAnswers(port: number, name = ORIGIN, type = 'SOA'): string {
  const r = spawnSync(
    'kdig',
    ['+short', '+timeout=1', '+retry=0', '@127.0.0.1', '-p', String(port), name, type],
    { encoding: 'utf8' },
  );
  return r.stdout.trim();
}

function axfrMs(port: number): { ms: number; records: number } {
  const t0 = performance.now();
  const r = spawnSync(
    'kdig',
    ['+noall', '+stats', '@127.0.0.1', '-p', String(port), ORIGIN, 'AXFR'],
    { encoding: 'utf8', maxBuffer: 1 << 30 },
  );
  const ms = performance.now() - t0;
  const m = /\((\d+) messages, (\d+) records\)/.exec(r.stdout);
  return { ms, records: Number(m?.[2] ?? 0) };
}

const { dir, children } = scratch('lexroute-bench-xfr-');
const zoneFile = join(dir, `${ORIGIN}zone`);
writeFileSync(zoneFile, zoneText(2024010101, 'old.example'));
chmodSync(zoneFile, 0o644);

// lexroute, with a Knot secondary to notify.
const lexPort = await freePort();
const knotPort = await freePort();
/** When each log event arrived (ms, performance.now()), by event name, in order. */
const arrivals: { event: string; at: number }[] = [];
const lexServe = spawnServe(
  [
    '--zones',
    zoneFile,
    '--listen',
    `127.0.0.1:${lexPort}`,
    '--allow-transfer',
    '127.0.0.1/32',
    '--notify',
    `127.0.0.1:${knotPort}`,
  ],
  children,
  (text) => {
    const at = performance.now();
    for (const m of text.matchAll(/"event":"([a-z_]+)"/g)) arrivals.push({ event: m[1]!, at });
  },
);
const lex = lexServe.child;
await until('lexroute ready', () => lexServe.log().includes('"event":"ready"'), 600_000);
const loadMs = Number(/"event":"zone_loaded".*?"ms":(\d+)/.exec(lexServe.log())?.[1] ?? NaN);

// BIND as primary of the same file.
const bindPort = await freePort();
mkdirSync(join(dir, 'named'), { mode: 0o777 });
chmodSync(join(dir, 'named'), 0o777);
writeFileSync(
  join(dir, 'named.conf'),
  `options { directory "${dir}/named"; pid-file none; listen-on port ${bindPort} { 127.0.0.1; }; listen-on-v6 { none; }; recursion no; notify no; allow-transfer { any; }; session-keyfile "${dir}/named/s.key"; managed-keys-directory "${dir}/named"; };
controls { };
zone "${ORIGIN}" { type primary; file "${zoneFile}"; check-names ignore; };
`,
);
const bind = spawn('named', ['-g', '-n', '1', '-c', join(dir, 'named.conf')], {
  stdio: 'ignore',
  ...AS_NOBODY,
});
children.push(bind);
await until('named ready', () => soaAnswers(bindPort).includes('hostmaster'), 600_000);

const lexRuns: number[] = [];
const bindRuns: number[] = [];
let records = 0;
for (let i = 0; i < RUNS; i++) {
  const a = axfrMs(lexPort);
  const b = axfrMs(bindPort);
  if (a.records !== b.records)
    throw new Error(`record counts differ: lexroute ${a.records}, BIND ${b.records}`);
  records = a.records;
  lexRuns.push(a.ms);
  bindRuns.push(b.ms);
}
const lexRss = vmHwmKiB(lex.pid!);
const bindRss = vmHwmKiB(bind.pid!);
bind.kill('SIGTERM');

// IXFR: a Knot secondary, then one changed record and SIGHUP.
mkdirSync(join(dir, 'knot/db'), { recursive: true, mode: 0o777 });
for (const d of ['knot', 'knot/db']) chmodSync(join(dir, d), 0o777);
writeFileSync(
  join(dir, 'knot/knot.conf'),
  `server:\n  listen: 127.0.0.1@${knotPort}\n  rundir: "${dir}/knot"\ndatabase:\n  storage: "${dir}/knot/db"\nremote:\n  - id: primary\n    address: 127.0.0.1@${lexPort}\nacl:\n  - id: n\n    address: 127.0.0.1\n    action: notify\ntemplate:\n  - id: default\n    storage: "${dir}/knot"\n    zonefile-sync: -1\nzone:\n  - domain: "${ORIGIN}"\n    master: primary\n    acl: n\n`,
);
const knot = spawn('knotd', ['-c', join(dir, 'knot/knot.conf')], {
  stdio: 'ignore',
  cwd: join(dir, 'knot'),
  ...AS_NOBODY,
});
children.push(knot);
await until(
  'Knot transferred the zone',
  () => soaAnswers(knotPort).includes('2024010101'),
  600_000,
);
writeFileSync(zoneFile, zoneText(2024010102, 'new.example'));
const before = lexServe.log().length;
const t0 = performance.now();
const arrivedBefore = arrivals.length;
lex.kill('SIGHUP');
await until(
  'Knot answers the changed record',
  () => soaAnswers(knotPort, `changed.${ORIGIN}`, 'NAPTR').includes('new.example'),
  120_000,
);
const answeredAt = performance.now();
const ixfrToAnswer = answeredAt - t0;
// The swap: the answering thread logs zones_compiled right after it (then NOTIFY goes out).
const swapAt = arrivals.slice(arrivedBefore).find((a) => a.event === 'zones_compiled')?.at ?? NaN;
const later = lexServe.log().slice(before);
const diffMs = Number(/"event":"ixfr_difference".*?"ms":(\d+)/.exec(later)?.[1] ?? NaN);
const reloadMs = Number(/"event":"zone_loaded".*?"ms":(\d+)/.exec(later)?.[1] ?? NaN);
const kind = /"event":"xfr_out"[^\n]*"kind":"([^"]+)"/.exec(later)?.[1];
const where = /"event":"ixfr_difference"[^\n]*"where":"([^"]+)"/.exec(later)?.[1];

const f = (n: number) => n.toFixed(0).padStart(8);
console.log(
  `AXFR of ${records} records (${TARGET} asked), median of ${RUNS}, client kdig +noall AXFR`,
);
console.log(`             time ms   peak RSS MiB`);
console.log(`lexroute    ${f(median(lexRuns))}   ${f(lexRss / 1024)}`);
console.log(`named -n 1  ${f(median(bindRuns))}   ${f(bindRss / 1024)}`);
console.log(
  `ratio (lexroute/BIND): time ${(median(lexRuns) / median(bindRuns)).toFixed(2)}x, peak RSS ${(lexRss / bindRss).toFixed(2)}x`,
);
console.log(
  `IXFR of one changed record (Knot secondary, ${kind}): SIGHUP to Knot answering ${ixfrToAnswer.toFixed(0)} ms; swap to Knot answering ${(answeredAt - swapAt).toFixed(0)} ms`,
);
// zone_loaded's ms covers the whole load in the worker, the comparison with the served version included.
const loadOnly = reloadMs - diffMs;
console.log(
  `difference at reload (${where}) ${diffMs} ms against the load itself ${loadOnly} ms (zone_loaded ${reloadMs} ms, first load ${loadMs} ms): ${(diffMs / loadOnly).toFixed(2)}x`,
);
process.exit(0);
