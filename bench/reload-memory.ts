/**
 * The memory of `lexroute serve` across reloads (issue 20): a generated zone
 * of NAPTR records (1,000,000 by default) changed and reloaded (SIGHUP)
 * `--reloads` times; the server's resident memory (VmRSS, Linux) is printed
 * at start, 3 s after each reload and 10 s after the last. A server that
 * frees each replaced version stays within about one zone's size of its
 * first reload's figure; one that keeps them grows by a zone's share at each.
 *
 *   node_modules/.bin/node bench/reload-memory.ts [--records N] [--reloads K] [--workers N]
 *
 * --workers N serves with `serve --workers N` (the columns on
 * SharedArrayBuffers, read by every answering thread).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { naptrZoneText, scratch, spawnServe, until } from './harness.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    reloads: { type: 'string', default: '8' },
    workers: { type: 'string', default: '1' },
  },
});
const RECORDS = Number(values.records);
const RELOADS = Number(values.reloads);
const ORIGIN = 'lex.reload.bench.';

const zoneText = (serial: number) =>
  naptrZoneText(
    RECORDS,
    serial,
    `v${serial} IN NAPTR 100 10 "u" "" "!^.*$!https://v${serial}.example/!" .\n`,
  );

const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const { dir, children } = scratch('lexroute-reload-memory-');
const zones = join(dir, 'zones');
mkdirSync(zones);
const file = join(zones, `${ORIGIN}zone`);
writeFileSync(file, zoneText(1));
// Every version is written before the server starts (this process's own work stays out of it).
for (let s = 2; s <= RELOADS + 1; s++) writeFileSync(join(dir, `v${s}.tmp`), zoneText(s));

const { child: server, log } = spawnServe(
  ['--zones', zones, '--listen', '127.0.0.1:0', '--workers', values.workers],
  children,
);
const count = (event: string) => log().split(`"event":"${event}"`).length - 1;
const pid = server.pid!;
try {
  const refused = () => {
    // A zone the one zone path refuses is never served: say why rather than wait.
    if (count('zone_rejected') > 0) throw new Error(`the zone was rejected:\n${log()}`);
  };
  await until('ready', () => (refused(), count('ready') > 0), 300_000, 100);
  const figures = [`start ${rssMb(pid)}`];
  for (let s = 2; s <= RELOADS + 1; s++) {
    renameSync(join(dir, `v${s}.tmp`), file);
    server.kill('SIGHUP');
    await until(
      `reload ${s - 1}`,
      () => (refused(), count('zones_reloaded') >= s - 1),
      300_000,
      100,
    );
    await sleep(3000);
    figures.push(String(rssMb(pid)));
  }
  await sleep(10_000);
  figures.push(`10 s later ${rssMb(pid)}`);
  console.log(
    `lexroute serve --workers ${values.workers}, ${RECORDS.toLocaleString('en')} NAPTR records, ${RELOADS} reloads of a changed file; VmRSS MB at start, 3 s after each reload, 10 s after the last:`,
  );
  console.log(figures.join(', '));
} finally {
  server.kill('SIGTERM');
}
