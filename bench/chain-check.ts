/**
 * `lexroute chain check` over the 5,664 jurisdiction codes of LexML's
 * localidade.csv, against the Brazil fixture of test/routes/brazil.ts (a
 * federal table routing the 27 states to their own zones, built with
 * `lexroute zone build`):
 *
 * 1. --zones DIR: the zones loaded in process, no sockets (target: all
 *    5,664 in under 5 s);
 * 2. --server: the real client over loopback UDP against `lexroute serve`
 *    (a separate process), the client's cache on as chain check runs it.
 *
 * Each is run `rounds` times; the best and the median are printed in codes
 * per second, side by side, with the ratio in-process / UDP. The wall time
 * includes reading the list and, for --zones, loading the 30 zone files.
 *
 * Usage: node bench/chain-check.ts [rounds=3]
 */
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { DnsTransport } from '../src/client/transport.ts';
import { run } from '../src/cli/main.ts';
import { captureIo } from '../test/helpers/io.ts';
import { LOCALIDADE, brazilChain } from '../test/routes/brazil.ts';

const ROUNDS = Number(process.argv[2] ?? 3);
const REPO = path.resolve(import.meta.dirname, '..');

async function cli(args: string[]): Promise<{ seconds: number; total: number; failed: number }> {
  const io = captureIo();
  const t0 = performance.now();
  const code = await run(args, io);
  const seconds = (performance.now() - t0) / 1000;
  const r = JSON.parse(io.stdout()) as { total: number; failed: number };
  if (code !== 0 || r.failed !== 0) throw new Error(`chain check failed: ${io.stderr()}`);
  return { seconds, total: r.total, failed: r.failed };
}

async function serve(dir: string): Promise<{ port: number; stop: () => void }> {
  const probe = dgram.createSocket('udp4');
  await new Promise<void>((r) => probe.bind(0, '127.0.0.1', () => r()));
  const port = probe.address().port;
  await new Promise<void>((r) => probe.close(() => r()));
  const server = spawn(
    process.execPath,
    [
      path.join(REPO, 'bin/lexroute.js'),
      'serve',
      '--zones',
      dir,
      '--listen',
      `127.0.0.1:${port}`,
      '--log-level',
      'error',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const stop = () => server.kill('SIGTERM');
  const t = new DnsTransport({ timeoutMs: 200, tries: 1 });
  try {
    for (let i = 0; i < 100; i++) {
      try {
        const ex = await t.query('lex.urn.arpa.', 'NAPTR', {
          servers: [{ host: '127.0.0.1', port }],
        });
        if (ex.message.answers.length > 0) return { port, stop };
      } catch {
        // not up yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    t.close();
  }
  stop();
  throw new Error('lexroute serve did not start');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rate = (x: number) => Math.round(x).toLocaleString('en');

const chain = await brazilChain(async (table, zone) => {
  const io = captureIo();
  if ((await run(['zone', 'build', table, '-o', zone], io)) !== 0) throw new Error(io.stderr());
});
console.log(
  `fixture: ${readdirSync(chain.zones).length} zones in ${chain.zones}; list ${LOCALIDADE}`,
);
const server = await serve(chain.zones);
const inProcess: number[] = [];
const udp: number[] = [];
let total = 0;
try {
  for (let r = 0; r < ROUNDS; r++) {
    const a = await cli(['chain', 'check', '--zones', chain.zones, '--json', LOCALIDADE]);
    const b = await cli([
      'chain',
      'check',
      '--server',
      `127.0.0.1:${server.port}`,
      '--json',
      LOCALIDADE,
    ]);
    total = a.total;
    inProcess.push(a.seconds);
    udp.push(b.seconds);
    console.log(
      `round ${r + 1}: --zones ${a.seconds.toFixed(2)} s, --server (UDP) ${b.seconds.toFixed(2)} s`,
    );
  }
} finally {
  server.stop();
}
const best = (xs: number[]) => Math.min(...xs);
console.log(`\n${total} codes          best s   median s   codes/s (median)`);
console.log(
  `--zones (in process)  ${best(inProcess).toFixed(2).padStart(6)}   ${median(inProcess).toFixed(2).padStart(8)}   ${rate(total / median(inProcess)).padStart(8)}`,
);
console.log(
  `--server (UDP)        ${best(udp).toFixed(2).padStart(6)}   ${median(udp).toFixed(2).padStart(8)}   ${rate(total / median(udp)).padStart(8)}`,
);
console.log(`ratio in-process / UDP (codes/s): ${(median(udp) / median(inProcess)).toFixed(1)}x`);
console.log(
  `target: in-process all ${total} in < 5 s: ${median(inProcess) < 5 ? 'met' : 'NOT met'} (median ${median(inProcess).toFixed(2)} s)`,
);
