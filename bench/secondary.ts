/**
 * Secondary mode: how long lexroute takes to serve a change made at a BIND
 * primary, from the primary's reload (SIGHUP) until lexroute answers the
 * changed record, with a BIND secondary as the baseline in the same run.
 * Each secondary has its own BIND primary of the same file (BIND paces the
 * NOTIFYs of one zone to several targets hundreds of milliseconds apart, which
 * would favour the first listed); both primaries get SIGHUP at once, both
 * secondaries are polled the same way.
 * Also lexroute's own figure: from the NOTIFY it received to the new version
 * swapped in (`notify_received` to `xfr_in`, from its log).
 *
 *   node_modules/.bin/node bench/secondary.ts [--records N] [--runs R]
 */
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as dnsPacket from 'dns-packet';
import { AS_NOBODY, freePort, scratch, spawnServe, until } from './harness.ts';
import { median } from './stats.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '5' },
  },
});
const RECORDS = Number(values.records);
const RUNS = Number(values.runs);
const ORIGIN = 'lex.example.';

function zoneText(serial: number): string {
  const lines = [
    `$ORIGIN ${ORIGIN}`,
    '$TTL 3600',
    `@ IN SOA ns1 hostmaster ${serial} 3600 900 604800 300`,
    '@ IN NS ns1',
    'ns1 IN A 192.0.2.1',
    `v${serial} IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!https://v${serial}.example/?\\\\1!" .`,
  ];
  for (let n = 0; n < RECORDS; n++)
    lines.push(
      `unit-${n} IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!https://r${n % 97}.example/N2L?\\\\1!" .`,
    );
  return `${lines.join('\n')}\n`;
}

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
const primaryConf = (
  port: number,
  notify: number,
  zoneFile: string,
) => `${options(port, 'ixfr-from-differences yes; notify-delay 0; notify-source 127.0.0.1;')}
zone "${ORIGIN}" { type primary; file "${zoneFile}"; notify explicit;
  also-notify { 127.0.0.1 port ${notify}; }; allow-transfer { 127.0.0.1; }; };
`;
// The BIND secondary's primary (pPort) and lexroute's (qPort), the same zone.
const primaries = [
  named('primary-b.conf', primaryConf(pPort, sPort, zoneFiles[0]!)),
  named('primary-l.conf', primaryConf(qPort, lPort, zoneFiles[1]!)),
];
await until(
  'the primaries',
  async () => (await answers(pPort, `v1.${ORIGIN}`)) && (await answers(qPort, `v1.${ORIGIN}`)),
  60_000,
  2,
);
named(
  'secondary.conf',
  `${options(sPort, 'notify no;')}
zone "${ORIGIN}" { type secondary; primaries { 127.0.0.1 port ${pPort}; };
  file "${dir}/secondary.db"; allow-notify { 127.0.0.1; }; };
`,
);
const lex = spawnServe(
  [
    '--listen',
    `127.0.0.1:${lPort}`,
    '--state-dir',
    join(dir, 'lexroute'),
    '--secondary',
    `${ORIGIN}=127.0.0.1:${qPort}`,
  ],
  children,
);
await until(
  'both secondaries',
  async () => (await answers(sPort, `v1.${ORIGIN}`)) && (await answers(lPort, `v1.${ORIGIN}`)),
  60_000,
  2,
);

const bindMs: number[] = [];
const lexMs: number[] = [];
const lexInner: number[] = [];
for (let run = 0; run < RUNS; run++) {
  serial++;
  const name = `v${serial}.${ORIGIN}`;
  writeZones();
  const logFrom = lex.log().length;
  const t0 = performance.now();
  const wall0 = Date.now();
  for (const p of primaries) p.kill('SIGHUP');
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
    60_000,
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
    .map((l) => JSON.parse(l) as { event: string; time: string });
  const n = lines.find((l) => l.event === 'notify_received');
  // The transfer this NOTIFY started (a late line of the previous run may come first).
  const x = n && lines.slice(lines.indexOf(n)).find((l) => l.event === 'xfr_in');
  if (n && x) lexInner.push(Date.parse(x.time) - Date.parse(n.time));
  if (process.env.BENCH_VERBOSE)
    console.log(JSON.stringify({ notifyAt: n && Date.parse(n.time) - wall0, x }));
  console.log(
    `run ${run + 1}: BIND secondary ${bind.toFixed(0)} ms, lexroute ${lexroute.toFixed(0)} ms (reload signal to answer)`,
  );
}
const mb = median(bindMs);
const ml = median(lexMs);
console.log(
  `zone of ${RECORDS + 3} records, ${RUNS} changes (one record added, serial raised, IXFR):`,
);
console.log(`  BIND secondary (baseline):    median ${mb.toFixed(0)} ms from the primary's reload`);
console.log(
  `  lexroute secondary:           median ${ml.toFixed(0)} ms (${(ml / mb).toFixed(2)}x BIND)`,
);
console.log(
  `  lexroute NOTIFY in -> swapped: median ${lexInner.length ? median(lexInner).toFixed(0) : 'n/a'} ms (its log: notify_received to xfr_in)`,
);
process.exit(0);
