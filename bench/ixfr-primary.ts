/**
 * The primary's side of an IXFR: a 1,000,000-record zone served by
 * `lexroute serve` with a transfer history, 10 of its records changed and
 * SIGHUP; the time from the signal until the IXFR from the previous serial is
 * offered (an IXFR query answered with the difference), and where it went,
 * from lexroute's log: the load's phases (read, parse, build ...), the
 * difference (`ixfr_difference`, computed at load), the swap
 * (`zones_compiled`).
 * `--before DIR` runs a second lexroute from another checkout (DIR holds its
 * bin/ and src/, node_modules linked) on a copy of the same file in the same
 * run: both are signalled at once, each change is measured on both.
 *
 * `--prof DIR`: the CPU profiles of the lexroute of this checkout (each
 * thread's, written at its exit) go to DIR.
 *
 *   node_modules/.bin/node bench/ixfr-primary.ts [--records N] [--runs R] [--before DIR] [--prof DIR]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import net from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as dnsPacket from 'dns-packet';
import { freePort, ROOT, scratch, until } from './harness.ts';
import { median } from './stats.ts';
import { changingZone } from './ixfr-zone.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '3' },
    before: { type: 'string' },
    prof: { type: 'string' },
  },
});
const RECORDS = Number(values.records);
const RUNS = Number(values.runs);
const ORIGIN = 'lex.example.';

const zoneText = (serial: number) => changingZone(ORIGIN, RECORDS, serial);

const SOA = (serial: number) => ({
  mname: `ns1.${ORIGIN}`,
  rname: `hostmaster.${ORIGIN}`,
  serial,
  refresh: 3600,
  retry: 900,
  expire: 604800,
  minimum: 300,
});

/** The SOA serial served at port (UDP, 50 ms wait), undefined without an answer. */
function servedSerial(port: number): Promise<number | undefined> {
  const q = dnsPacket.encode({ type: 'query', id: 1, questions: [{ type: 'SOA', name: ORIGIN }] });
  const s = dgram.createSocket('udp4');
  return new Promise((resolve) => {
    const done = (v: number | undefined) => {
      clearTimeout(t);
      s.close();
      resolve(v);
    };
    const t = setTimeout(() => done(undefined), 50);
    s.on('message', (m) => {
      const a = dnsPacket.decode(m).answers?.[0];
      done(a?.type === 'SOA' ? a.data.serial : undefined);
    });
    s.send(q, port, '127.0.0.1');
  });
}

/** Records in the first message of the IXFR from `from` (1: up to date, more: the difference). */
function ixfrAnswerCount(port: number, from: number): Promise<number> {
  const q = dnsPacket.streamEncode({
    type: 'query',
    id: 2,
    questions: [{ type: 'IXFR', name: ORIGIN }],
    authorities: [{ type: 'SOA', name: ORIGIN, ttl: 3600, data: SOA(from) }],
  });
  return new Promise((resolve, reject) => {
    const c = net.connect(port, '127.0.0.1', () => c.write(q));
    let buf = Buffer.alloc(0);
    c.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 2 || buf.length < 2 + buf.readUInt16BE(0)) return;
      c.destroy();
      resolve(dnsPacket.streamDecode(buf).answers?.length ?? 0);
    });
    c.on('error', reject);
  });
}

interface Server {
  readonly name: string;
  readonly port: number;
  readonly file: string;
  readonly child: ChildProcess;
  log: string;
}

const { dir, children } = scratch('lexroute-bench-ixfr-primary-');

async function start(name: string, root: string, prof?: string): Promise<Server> {
  const port = await freePort();
  const file = join(dir, `${name}.zone`);
  writeFileSync(file, zoneText(1));
  const child = spawn(
    join(ROOT, 'node_modules/.bin/node'),
    [
      join(root, 'bin/lexroute.js'),
      'serve',
      '--zones',
      `${ORIGIN}=${file}`,
      '--listen',
      `127.0.0.1:${port}`,
      '--allow-transfer',
      '127.0.0.1/32',
      '--state-dir',
      join(dir, `${name}-state`),
      '--json',
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: prof
        ? { ...process.env, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${prof}` }
        : process.env,
    },
  );
  children.push(child);
  const s: Server = { name, port, file, child, log: '' };
  child.stderr!.on('data', (d: Buffer) => (s.log += d.toString()));
  return s;
}

/** The JSON lines of a log from `from` on. */
function events(log: string, from: number): Record<string, unknown>[] {
  return log
    .slice(from)
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const servers = [await start('after', ROOT, values.prof)];
if (values.before) servers.push(await start('before', values.before));
await until(
  'the zone served',
  async () => (await Promise.all(servers.map((s) => servedSerial(s.port)))).every((x) => x === 1),
  180_000,
  50,
);

const offered = new Map<string, number[]>(servers.map((s) => [s.name, []]));
const phases = new Map<string, string[]>(servers.map((s) => [s.name, []]));
for (let run = 0; run < RUNS; run++) {
  const serial = run + 2;
  const text = zoneText(serial);
  for (const s of servers) writeFileSync(s.file, text);
  const from = servers.map((s) => s.log.length);
  const t0 = performance.now();
  for (const s of servers) s.child.kill('SIGHUP');
  const at = new Map<string, number>();
  await until(
    `the IXFR to ${serial}`,
    async () => {
      for (const s of servers) {
        if (at.has(s.name)) continue;
        if ((await ixfrAnswerCount(s.port, serial - 1)) > 1) at.set(s.name, performance.now() - t0);
      }
      return at.size === servers.length;
    },
    180_000,
    5,
  );
  await new Promise((r) => setTimeout(r, 300));
  const line: string[] = [];
  servers.forEach((s, i) => {
    offered.get(s.name)!.push(at.get(s.name)!);
    const ev = events(s.log, from[i]!);
    const loaded = ev.find((e) => e.event === 'zone_loaded');
    const diff = ev.find((e) => e.event === 'ixfr_difference');
    const swap = ev.find((e) => e.event === 'zones_compiled');
    const detail = JSON.stringify({
      load: loaded?.ms,
      phases: loaded?.phases,
      difference: diff && { ms: diff.ms, removed: diff.removed, added: diff.added },
      swapMs: swap?.ms,
    });
    phases.get(s.name)!.push(detail);
    line.push(`${s.name} ${at.get(s.name)!.toFixed(0)} ms ${detail}`);
  });
  console.log(`run ${run + 1} (serial ${serial}):\n  ${line.join('\n  ')}`);
}
console.log(
  `zone of ${RECORDS + 4} records, ${RUNS} changes of 10 records: SIGHUP until the IXFR is offered`,
);
for (const s of servers)
  console.log(`  ${s.name.padEnd(7)} median ${median(offered.get(s.name)!).toFixed(0)} ms`);
if (values.prof) {
  const exited = new Promise((r) => servers[0]!.child.once('exit', r));
  servers[0]!.child.kill('SIGTERM');
  await exited;
  console.log(`  CPU profiles of "after": ${values.prof}`);
}
process.exit(0);
