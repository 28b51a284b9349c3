/**
 * Issue 21's reproductions of items 5 to 9, run against this checkout with
 * real sockets and the real CLI, printing the figures the issue recorded
 * before the fixes next to the ones measured now:
 *
 * 5. `lexroute resolver` under `ulimit -n 1024` (prlimit), 1,100 clients
 *    that send half a request and never leave: file descriptors the
 *    resolver still holds once its header timeout has passed, and whether
 *    /health answers.
 * 6. 48,000 distinct N2L requests, each with its own Accept and
 *    Accept-Language headers (up to 16 KB): the resolver's RSS before and
 *    after.
 * 7. `lexroute resolve` against hostile DNS: ten steps answered slowly
 *    (1.9 s each); a referral to 100 name servers that never answer
 *    (iterative mode); a tree of glueless referrals whose leaves never
 *    answer: time to fail and the error code.
 * 8. a resolver that answers `Location: javascript:alert(1)`: exit code and
 *    error code of `lexroute resolve`.
 * 9. `kill -9` of an import into an empty catalogue, then a normal import:
 *    partial-match (year-only reference) requests/s and p99 against the
 *    same catalogue imported without the kill.
 *
 * Figures are wall-clock times and sizes on a possibly shared machine;
 * item 9 compares the two catalogues in interleaved rounds.
 *
 * Usage: node bench/hardening.ts [items, e.g. 5,6,7,8,9] [works for item 9 = 200000]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { startFakeDns, type FakeDns, type FakeRecord } from '../test/client/helpers/fake-dns.ts';
import { median } from './stats.ts';

interface AutocannonResult {
  requests: { average: number };
  latency: { p99: number };
  non2xx: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
// autocannon ships no type declarations.
const autocannon = ((await import('autocannon' as string)) as { default: Autocannon }).default;

const ITEMS = new Set((process.argv[2] ?? '5,6,7,8,9').split(',').map(Number));
const WORKS = Number(process.argv[3] ?? 200_000);
const REPO = path.resolve(import.meta.dirname, '..');
const BIN = path.join(REPO, 'bin/lexroute.js');
const NODE = process.execPath;
const dir = mkdtempSync(path.join(tmpdir(), 'lexroute-bench-hardening-'));
const URN = 'urn:lex:br:federal:lei:2002-01-10;10406';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(m?.[1] ?? 0) / 1024);
}

function fds(pid: number): number {
  return spawnSync('ls', [`/proc/${pid}/fd`])
    .stdout.toString()
    .trim()
    .split('\n').length;
}

/** Start `lexroute resolver` (through `prefix`, e.g. prlimit) and wait for its listen line. */
async function startResolver(
  args: string[],
  prefix: string[] = [],
): Promise<{ child: ChildProcess; url: string }> {
  const cmd = [...prefix, NODE, BIN, 'resolver', '--listen', '127.0.0.1:0', ...args];
  const child = spawn(cmd[0] as string, cmd.slice(1), {
    stdio: ['ignore', 'ignore', 'pipe'],
    cwd: dir,
  });
  let seen = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`resolver did not start: ${seen}`)), 120_000);
    child.stderr?.on('data', (d: Buffer) => {
      seen += d.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    });
    child.once('exit', (code) => reject(new Error(`resolver exited ${code}: ${seen}`)));
  });
  child.stderr?.removeAllListeners('data');
  child.stderr?.resume();
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(5_000).then(() => child.kill('SIGKILL'))]);
}

function get(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(5_000, () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

function row(label: string, before: string, after: string): void {
  console.log(`  ${label.padEnd(46)} ${before.padEnd(22)} ${after}`);
}

async function item5(): Promise<void> {
  console.log(
    'item 5: 1,100 half-sent requests under ulimit -n 1024 (default header timeout, 10 s)',
  );
  const { child, url } = await startResolver(['--sample'], ['prlimit', '--nofile=1024:1024']);
  const { port } = new URL(url);
  const sockets: Socket[] = [];
  let closedByServer = 0;
  for (let i = 0; i < 1_100; i++) {
    const s = connect({ host: '127.0.0.1', port: Number(port), allowHalfOpen: true });
    s.on('error', () => {});
    s.on('end', () => closedByServer++);
    s.on('connect', () => s.write('GET /health HTTP/1.1\r\nHost: a\r\n'));
    sockets.push(s);
  }
  await sleep(1_000);
  const heldDuring = fds(child.pid as number);
  await sleep(11_500);
  const heldAfter = fds(child.pid as number);
  const health = await get(`${url}/health`);
  row('', 'before (issue 21)', 'now');
  row('descriptors held while the clients wait', '> 1,024', String(heldDuring));
  row('descriptors held after the timeout', '> 1,024 (until they leave)', String(heldAfter));
  row(
    'connections the server closed (FIN received)',
    '0 (half-closed)',
    `${closedByServer} of 1,100`,
  );
  row('/health while the clients stay', 'fails', String(health));
  for (const s of sockets) s.destroy();
  await stop(child);
}

function randomHeader(n: number, size: number): string {
  const langs = [];
  for (let i = 0; langs.join(',').length < size; i++) langs.push(`x${n}-${i};q=0.${i % 10}`);
  return langs.join(',').slice(0, size);
}

async function item6(): Promise<void> {
  console.log(
    'item 6: 48,000 distinct requests with their own Accept/Accept-Language (up to 16 KB)',
  );
  const { child, url } = await startResolver(['--sample']);
  const pid = child.pid as number;
  await get(`${url}/uri-res/N2L?${URN}`);
  const before = rssMb(pid);
  let next = 0;
  const worker = async () => {
    while (next < 48_000) {
      const n = next++;
      const size = 1_000 + ((n * 7919) % 15_000);
      await get(`${url}/uri-res/N2L?${URN}`, {
        accept: `text/html;q=0.${n % 9},${randomHeader(n, size / 2)}`,
        'accept-language': randomHeader(n, size / 2),
      });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  const after = rssMb(pid);
  row('', 'before (issue 21)', 'now');
  row('resolver RSS before the requests', '169 MB', `${before} MB`);
  row('resolver RSS after 48,000 distinct requests', '936 MB', `${after} MB`);
  await stop(child);
}

function naptr(name: string, flags: string, regexp: string, replacement: string): FakeRecord {
  const data = {
    order: 100,
    preference: 10,
    flags,
    services: flags ? 'http+N2L' : '',
    regexp,
    replacement,
  };
  return { name, type: 'NAPTR', data };
}

function soa(origin: string): FakeRecord {
  const data = {
    mname: 'ns.invalid',
    rname: 'h.invalid',
    serial: 1,
    refresh: 1,
    retry: 1,
    expire: 1,
    minimum: 1,
  };
  return { name: origin, type: 'SOA', data };
}

/** `lexroute resolve` with `args`: seconds taken, exit code and the error code printed. */
function timedResolve(args: string[]): Promise<{ seconds: number; status: number; code: string }> {
  const t0 = performance.now();
  const child = spawn(NODE, [BIN, 'resolve', URN, '--json', ...args], { cwd: dir });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => {
    child.once('exit', (status) => {
      const code =
        /"code":\s*"([A-Z_]+)"/.exec(out)?.[1] ?? /\b([A-Z]+_[A-Z_]+)\b/.exec(out)?.[1] ?? '-';
      resolve({ seconds: (performance.now() - t0) / 1000, status: status ?? -1, code });
    });
  });
}

/** Ten NAPTR steps, each answered after 1.9 s (nothing once `closing.done`). */
async function slowSteps(closing: { done: boolean }): Promise<FakeDns> {
  const records: FakeRecord[] = [soa('')];
  const keys = ['lex.urn.arpa', ...Array.from({ length: 9 }, (_, i) => `step${i}.test`)];
  keys.forEach((k, i) => {
    const next = keys[i + 1];
    records.push(
      next
        ? naptr(k, '', '', next)
        : naptr(k, 'u', '!^(.*)$!http://127.0.0.1:9/uri-res/N2L?\\1!', ''),
    );
  });
  return startFakeDns({
    zones: [{ origin: '', records }],
    hook: async () => {
      await sleep(1_900);
      return closing.done ? null : undefined;
    },
  });
}

/** A root that refers lex.urn.arpa. to `fanout` name servers on addresses where nothing answers. */
async function deadReferral(fanout: number, glueless: boolean): Promise<FakeDns> {
  const records: FakeRecord[] = [soa('')];
  for (let i = 0; i < fanout; i++) {
    const ns = glueless ? `ns${i}.g${i}.test` : `ns${i}.dead.test`;
    records.push({ name: 'lex.urn.arpa', type: 'NS', data: ns });
    if (glueless) {
      // Each glueless name is itself delegated to glueless servers, two levels down.
      for (let j = 0; j < 4; j++) {
        const inner = `ns${j}.h${i}x${j}.test`;
        records.push({ name: `g${i}.test`, type: 'NS', data: inner });
        records.push({ name: `h${i}x${j}.test`, type: 'NS', data: `ns.d${i}x${j}.test` });
        records.push({ name: `d${i}x${j}.test`, type: 'NS', data: `ns.d${i}x${j}.test` });
        records.push({
          name: `ns.d${i}x${j}.test`,
          type: 'A',
          data: `127.0.2.${1 + ((i * 4 + j) % 250)}`,
        });
      }
    } else {
      records.push({ name: ns, type: 'A', data: `127.0.1.${1 + (i % 250)}` });
    }
  }
  return startFakeDns({ zones: [{ origin: '', records }] });
}

async function item7(): Promise<void> {
  console.log('item 7: the client against slow and dead name servers (default --deadline)');
  row('', 'before (issue 21)', 'now: seconds, exit, code');
  const closing = { done: false };
  const slow = await slowSteps(closing);
  const a = await timedResolve(['--server', `127.0.0.1:${slow.port}`, '--no-http']);
  row(
    'ten steps answered in 1.9 s each',
    '19 s',
    `${a.seconds.toFixed(1)} s, ${a.status}, ${a.code}`,
  );
  closing.done = true;
  await sleep(2_000);
  await slow.close();
  const dead = await deadReferral(100, false);
  const b = await timedResolve(['--root', `127.0.0.1:${dead.port}`, '--no-http']);
  row(
    'referral to 100 dead name servers',
    '401 s',
    `${b.seconds.toFixed(1)} s, ${b.status}, ${b.code}`,
  );
  const b0 = await timedResolve([
    '--root',
    `127.0.0.1:${dead.port}`,
    '--no-http',
    '--deadline',
    '0',
  ]);
  row(
    '  the same with --deadline 0 (name server cap only)',
    '401 s',
    `${b0.seconds.toFixed(1)} s, ${b0.status}, ${b0.code}`,
  );
  await dead.close();
  const tree = await deadReferral(8, true);
  const c = await timedResolve(['--root', `127.0.0.1:${tree.port}`, '--no-http']);
  row(
    'glueless referral tree, dead leaves',
    '122 s',
    `${c.seconds.toFixed(1)} s, ${c.status}, ${c.code}`,
  );
  const c0 = await timedResolve([
    '--root',
    `127.0.0.1:${tree.port}`,
    '--no-http',
    '--deadline',
    '0',
  ]);
  row(
    '  the same with --deadline 0 (name server cap only)',
    '122 s',
    `${c0.seconds.toFixed(1)} s, ${c0.status}, ${c0.code}`,
  );
  await tree.close();
}

async function item8(): Promise<void> {
  console.log('item 8: a resolver answering Location: javascript:alert(1)');
  const http = createServer((_req, res) => {
    res.writeHead(303, { location: 'javascript:alert(1)' });
    res.end();
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as { port: number }).port;
  const rule = naptr('lex.urn.arpa', 'u', `!^(.*)$!http://127.0.0.1:${port}/uri-res/N2L?\\1!`, '');
  const dns = await startFakeDns({ zones: [{ origin: '', records: [soa(''), rule] }] });
  const r = await timedResolve(['--server', `127.0.0.1:${dns.port}`]);
  row('', 'before (issue 21)', 'now');
  row(
    'lexroute resolve: exit code, code',
    '0, javascript:alert(1) printed',
    `${r.status}, ${r.code}`,
  );
  await dns.close();
  await new Promise((r) => http.close(r));
}

function works(file: string, n: number): void {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const w = `urn:lex:br;minas.gerais:estadual:lei:${1950 + (i % 70)}-01-0${1 + (i % 9)};${i}`;
    lines.push(
      JSON.stringify({ urn: `${w}$almg.gov.br:text-html`, url: `https://almg.example/${i}` }),
    );
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

function importInto(catalogue: string, file: string, killAfterMs?: number): Promise<string> {
  const child = spawn(NODE, [BIN, 'catalogue', 'import', file, '--catalogue', catalogue], {
    cwd: dir,
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  if (killAfterMs !== undefined) setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? String(code) + err.slice(-300))),
  );
}

function indexes(catalogue: string): string {
  const sql =
    "SELECT group_concat(name) FROM sqlite_schema WHERE type = 'index' AND name LIKE 'names_%'";
  const code = `const {DatabaseSync}=require('node:sqlite');const d=new DatabaseSync(process.argv[1],{readOnly:true});console.log(Object.values(d.prepare(${JSON.stringify(sql)}).get())[0]??'none')`;
  return spawnSync(NODE, ['-e', code, catalogue]).stdout.toString().trim();
}

async function item9(): Promise<void> {
  console.log(
    `item 9: kill -9 of an import into an empty catalogue, then a normal import (${WORKS.toLocaleString('en')} works, SQLite)`,
  );
  const file = path.join(dir, 'works.jsonl');
  works(file, WORKS);
  const clean = path.join(dir, 'clean.sqlite');
  const killed = path.join(dir, 'killed.sqlite');
  await importInto(clean, file);
  const t0 = performance.now();
  await importInto(path.join(dir, 'timing.sqlite'), file);
  const importMs = performance.now() - t0;
  const signal = await importInto(killed, file, Math.round(importMs * 0.6));
  const afterKill = indexes(killed);
  await importInto(killed, file);
  const partial = '/uri-res/N2L?urn:lex:br;minas.gerais:estadual:lei:1960';
  const rates: Record<string, number[]> = { clean: [], killed: [] };
  const p99: Record<string, number[]> = { clean: [], killed: [] };
  const servers = {
    clean: await startResolver(['--catalogue', clean]),
    killed: await startResolver(['--catalogue', killed]),
  };
  for (let round = 0; round < 3; round++) {
    for (const k of ['clean', 'killed'] as const) {
      const r = await autocannon({
        url: `${servers[k].url}${partial}`,
        connections: 10,
        duration: 3,
      });
      rates[k]?.push(r.requests.average);
      p99[k]?.push(r.latency.p99);
    }
  }
  row('', 'before (issue 21)', 'now');
  row(`import killed (${signal}): partial-match indexes`, 'dropped', afterKill);
  const fig = (k: 'clean' | 'killed') =>
    `${Math.round(median(rates[k] ?? [])).toLocaleString('en')} req/s, p99 ${median(p99[k] ?? [])} ms`;
  row('partial matches, catalogue never killed', '13,000 req/s', fig('clean'));
  row('partial matches, killed then imported', '81 req/s, p99 1.4 s', fig('killed'));
  for (const s of Object.values(servers)) await stop(s.child);
}

console.log(
  `machine: ${cpus().length} CPUs, load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}; node ${process.version}`,
);
try {
  if (ITEMS.has(5)) await item5();
  if (ITEMS.has(6)) await item6();
  if (ITEMS.has(7)) await item7();
  if (ITEMS.has(8)) await item8();
  if (ITEMS.has(9)) await item9();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
