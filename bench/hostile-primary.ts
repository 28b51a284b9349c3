/**
 * Hostile primaries against `lexroute serve` as their secondary, this
 * checkout and (with `--before DIR`, a checkout of an earlier commit with
 * its node_modules) the earlier one side by side in one run:
 * - endless: an AXFR that never ends, `serve` under --max-old-space-size
 *   (`--heap`, default 256; 0: V8's default): what happens (abort code, or the process
 *   dying), records the primary wrote until then, peak RSS, seconds, and
 *   whether the zone served from a file still answers;
 * - drip: one octet every 2 s (the idle timer never fires): seconds until
 *   the transfer is given up, or still running at the cut-off
 *   (`--seconds`, default 60; this checkout runs with
 *   transfer.inMaxSeconds = half of it);
 * - older: the SOA query announces serial 6 over the 5 served, the AXFR
 *   ends on 4: the serial served afterwards.
 *
 *   node_modules/.bin/node bench/hostile-primary.ts [--before DIR] [--heap MB] [--seconds S]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as dnsPacket from 'dns-packet';
import { freePort, ROOT, scratch } from './harness.ts';
import { endlessPrimary, scriptedPrimary } from '../test/xfr/endless.ts';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    heap: { type: 'string', default: '256' },
    seconds: { type: 'string', default: '60' },
  },
});
const CUTOFF = Number(values.seconds) * 1000;
const { dir, children } = scratch('lexroute-hostile-primary-');
const KEPT = join(dir, 'kept.test.zone');
writeFileSync(
  KEPT,
  '$ORIGIN kept.test.\n$TTL 60\n@ SOA ns1 h 1 3600 600 86400 60\n@ NS ns1\nns1 A 192.0.2.1\n',
);

interface Serve {
  child: ChildProcess;
  port: number;
  log: () => string;
  exited: () => number | null | undefined;
  peakMb: () => number;
}

/** `serve` of the checkout at `root`, secondary of `primaryPort` for `origin`. */
async function serve(
  root: string,
  origin: string,
  primaryPort: number,
  extra: string[],
): Promise<Serve> {
  const port = await freePort();
  const state = join(dir, `state-${port}`);
  const child = spawn(
    join(ROOT, 'node_modules/.bin/node'),
    [
      ...(values.heap === '0' ? [] : [`--max-old-space-size=${values.heap}`]),
      join(root, 'bin/lexroute.js'),
      'serve',
      '--listen',
      `127.0.0.1:${port}`,
      '--zones',
      KEPT,
      '--secondary',
      `${origin}=127.0.0.1:${primaryPort}`,
      '--state-dir',
      state,
      '--json',
      ...extra,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.push(child);
  let log = '';
  let exit: number | null | undefined;
  let peak = 0;
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  child.on('exit', (code, signal) => (exit = code ?? (signal ? -1 : null)));
  const sample = setInterval(() => {
    try {
      const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      if (kb !== undefined) peak = Math.max(peak, Math.round(Number(kb) / 1024));
    } catch {
      /* gone */
    }
  }, 100);
  child.on('exit', () => clearInterval(sample));
  return { child, port, log: () => log, exited: () => exit, peakMb: () => peak };
}

/** One UDP query: the rcode and the answer's first record, or undefined without an answer in 500 ms. */
function ask(port: number, name: string, type: 'A' | 'SOA'): Promise<dnsPacket.Packet | undefined> {
  const s = dgram.createSocket('udp4');
  return new Promise((resolve) => {
    const t = setTimeout(() => (s.close(), resolve(undefined)), 500);
    s.on('message', (m) => (clearTimeout(t), s.close(), resolve(dnsPacket.decode(m))));
    s.send(
      dnsPacket.encode({ type: 'query', id: 9, questions: [{ type, name }] }),
      port,
      '127.0.0.1',
    );
  });
}

const events = (s: Serve, name: string) =>
  s
    .log()
    .split('\n')
    .filter((l) => l.includes(`"event":"${name}"`))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

async function waitFor(ok: () => boolean, ms: number): Promise<boolean> {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > ms) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

async function endless(root: string): Promise<string> {
  const p = await endlessPrimary('endless', 2);
  const t0 = performance.now();
  const s = await serve(root, 'endless.test.', p.port, []);
  await waitFor(() => s.exited() !== undefined || events(s, 'xfr_in_failed').length > 0, CUTOFF);
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  const failed = events(s, 'xfr_in_failed')[0];
  const oom = s.log().includes('heap out of memory');
  const what = failed
    ? `aborted ${String(failed.code)}`
    : s.exited() !== undefined
      ? `died (exit ${s.exited()}${oom ? ', JavaScript heap out of memory' : ''})`
      : 'still transferring';
  const kept = (await ask(s.port, 'ns1.kept.test', 'A'))?.answers?.length === 1;
  s.child.kill('SIGKILL');
  p.server.close();
  return `${what}; ${p.sent.records.toLocaleString('en')} records sent; peak RSS ${s.peakMb()} MB; ${secs} s; other zone answers after: ${kept ? 'yes' : 'no'}`;
}

async function drip(root: string, limited: boolean): Promise<string> {
  const p = await endlessPrimary('drip', 2, '127.0.0.1', 2000);
  const extra: string[] = [];
  if (limited) {
    const conf = join(dir, 'drip.json');
    writeFileSync(conf, JSON.stringify({ transfer: { inMaxSeconds: Math.round(CUTOFF / 2000) } }));
    extra.push('--config', conf);
  }
  const t0 = performance.now();
  const s = await serve(root, 'drip.test.', p.port, extra);
  const done = await waitFor(() => events(s, 'xfr_in_failed').length > 0, CUTOFF);
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  const failed = events(s, 'xfr_in_failed')[0];
  s.child.kill('SIGKILL');
  p.server.close();
  return done
    ? `given up after ${secs} s (${String(failed!.code)})`
    : `still transferring at ${secs} s`;
}

async function older(root: string): Promise<string> {
  const serials = { soa: 5, xfr: 5 };
  const p = await scriptedPrimary(serials);
  const s = await serve(root, 'older.test.', p.port, []);
  await waitFor(() => events(s, 'xfr_in').length > 0, 20_000);
  serials.soa = 6;
  serials.xfr = 4;
  // A NOTIFY from the primary's address starts the check at once.
  const n = dnsPacket.encode({
    type: 'query',
    id: 7,
    questions: [{ type: 'SOA', name: 'older.test' }],
  });
  n[2] = (4 << 3) | 0x04;
  const u = dgram.createSocket('udp4');
  u.send(n, s.port, '127.0.0.1', () => u.close());
  await waitFor(
    () => events(s, 'xfr_in').length > 1 || events(s, 'xfr_in_failed').length > 0,
    20_000,
  );
  const soa = (await ask(s.port, 'older.test', 'SOA'))?.answers?.[0] as
    { data: { serial: number } } | undefined;
  const failed = events(s, 'xfr_in_failed')[0];
  s.child.kill('SIGKILL');
  p.server.close();
  return `served 5, SOA said 6, AXFR ended on 4: serving ${soa?.data.serial ?? '?'}${failed ? ` (${String(failed.code)})` : ''}`;
}

const roots: [string, string, boolean][] = [['this checkout', ROOT, true]];
if (values.before) roots.push(['before', values.before, false]);
for (const [label, root, current] of roots) {
  const heap =
    values.heap === '0' ? "V8's default heap limit" : `--max-old-space-size=${values.heap}`;
  console.log(`\n== ${label} (${root}), serve under ${heap}`);
  console.log(`endless AXFR: ${await endless(root)}`);
  console.log(`drip 1 octet / 2 s: ${await drip(root, current)}`);
  console.log(`older serial: ${await older(root)}`);
}
process.exit(0);
