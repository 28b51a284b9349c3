/**
 * DNS over HTTPS benchmark (issue 13), in one run against one `lexroute
 * serve` process listening on UDP/TCP and on a plain loopback DoH endpoint:
 *
 * 1. Queries per second: HTTP/2 (h2c by prior knowledge, one connection,
 *    10 streams in flight, GET `?dns=`) versus UDP (one socket, 10 queries
 *    in flight), the same questions, the same engine. Ratio DoH/UDP.
 * 2. Cold resolution of N distinct URNs (no cache, no HTTP step), one after
 *    the other, with the client's DoH transport (GET, ID 0, kept-alive
 *    HTTP/1.1 on undici: src/client/doh-undici.ts) versus its UDP transport,
 *    both stub transports to the same server. Target: DoH within 1.5x of
 *    UDP on loopback.
 *
 * Rounds are interleaved (the order alternates) and medians printed, as the
 * machine is shared. On a loaded machine the wall-clock ratio mostly
 * measures the scheduler, so the cold runs also print the CPU time per DNS
 * query of the client (this process) and of the server (its
 * /proc/PID/stat, Linux), summed over the rounds: the part the code decides. TLS is left out on purpose: on loopback it measures
 * the cipher, not the transport (and a browser's page uses its own TLS).
 *
 * Usage: node bench/doh.ts [N=300] [rounds=7] [seconds per qps round=2]
 */
import dgram from 'node:dgram';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as dnsPacket from 'dns-packet';
import { LexClient } from '../src/client/resolve.ts';
import { base64UrlEncode } from '../src/dns/core/wire/doh.ts';
import { freePortOnAll } from '../src/dev/ports.ts';
import { spawnServeProcess, waitForDoh } from '../test/helpers/serve-process.ts';
import { CHAIN_ZONES as ZONES } from '../test/helpers/doh-chain.ts';
import { processCpuUs } from './harness.ts';
import { freshUrns, median } from './stats.ts';

const N = Number(process.argv[2] ?? 300);
const ROUNDS = Number(process.argv[3] ?? 7);
const SECONDS = Number(process.argv[4] ?? 2);
const IN_FLIGHT = 10;

const QUESTIONS = [
  'lex.urn.arpa',
  'lex-nameserver.nic.it',
  'lex.senado.gov.br',
  'lex.sao-paulo.gov.br',
];

interface Server {
  udp: number;
  doh: number;
  pid: number;
  stop: () => void;
}

async function startServer(dir: string): Promise<Server> {
  for (const [o, t] of Object.entries(ZONES)) await writeFile(path.join(dir, `${o}.zone`), t);
  const udp = await freePortOnAll(['127.0.0.1']);
  const doh = await freePortOnAll(['127.0.0.1']);
  const server = spawnServeProcess(dir, `127.0.0.1:${udp}`, `127.0.0.1:${doh}`);
  const stop = () => server.kill('SIGTERM');
  try {
    await waitForDoh(doh);
  } catch (e) {
    stop();
    throw e;
  }
  return { udp, doh, pid: server.pid ?? 0, stop };
}

function query(name: string, id: number): Buffer {
  return dnsPacket.encode({ type: 'query', id, questions: [{ type: 'NAPTR', name, class: 'IN' }] });
}

/** Answers per second over UDP with IN_FLIGHT queries outstanding. */
async function udpQps(port: number): Promise<number> {
  const s = dgram.createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const queries = QUESTIONS.map((q, i) => query(q, i));
  let answered = 0;
  let sent = 0;
  const end = performance.now() + SECONDS * 1000;
  await new Promise<void>((resolve) => {
    const send = () => s.send(queries[sent++ % queries.length] as Buffer, port, '127.0.0.1');
    s.on('message', () => {
      answered++;
      if (performance.now() < end) send();
      else if (answered >= sent) resolve();
    });
    for (let i = 0; i < IN_FLIGHT; i++) send();
    // Lost datagrams must not stall the end of the round.
    setTimeout(resolve, SECONDS * 1000 + 1000);
  });
  s.close();
  return answered / SECONDS;
}

/** Answers per second over one HTTP/2 connection with IN_FLIGHT streams open. */
async function dohQps(port: number): Promise<number> {
  const client = http2.connect(`http://127.0.0.1:${port}`);
  const paths = QUESTIONS.map((q) => `/dns-query?dns=${base64UrlEncode(query(q, 0))}`);
  let answered = 0;
  let n = 0;
  const end = performance.now() + SECONDS * 1000;
  const stream = async () => {
    while (performance.now() < end) {
      await new Promise<void>((resolve, reject) => {
        const req = client.request({
          ':path': paths[n++ % paths.length] as string,
          accept: 'application/dns-message',
        });
        req.on('data', () => undefined);
        req.on('end', () => {
          answered++;
          resolve();
        });
        req.on('error', reject);
        req.end();
      });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, stream));
  client.close();
  return answered / SECONDS;
}

interface Cold {
  ms: number;
  /** CPU time of the client and of the server during the run, us. */
  client: number;
  server: number;
}

async function coldRun(client: LexClient, pid: number): Promise<Cold> {
  const urns = freshUrns(N);
  const s0 = processCpuUs(pid);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (const u of urns) await client.resolve(u, { noHttp: true });
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, client: c.user + c.system, server: processCpuUs(pid) - s0 };
}

/** CPU per DNS query (4 a URN) over the rounds: client + server, us. */
function cpuPerQuery(runs: readonly Cold[]): { client: number; server: number } {
  const queries = runs.length * N * 4;
  const sum = (f: (r: Cold) => number) => runs.reduce((a, r) => a + f(r), 0) / queries;
  return { client: sum((r) => r.client), server: sum((r) => r.server) };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lexroute-bench-doh-'));
  const server = await startServer(dir);
  try {
    const udpClient = new LexClient({ servers: [`127.0.0.1:${server.udp}`], cache: false });
    const url = `http://127.0.0.1:${server.doh}/dns-query`;
    const dohClient = new LexClient({ doh: url, cache: false });
    await coldRun(udpClient, server.pid);
    await coldRun(dohClient, server.pid);
    const q: { udp: number; doh: number }[] = [];
    const c: { udp: Cold; doh: Cold }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0;
      const u1 = order ? await udpQps(server.udp) : 0;
      const d = await dohQps(server.doh);
      const u = order ? u1 : await udpQps(server.udp);
      q.push({ udp: u, doh: d });
      const cu1 = order ? await coldRun(udpClient, server.pid) : undefined;
      const cd1 = order ? await coldRun(dohClient, server.pid) : undefined;
      const cd = cd1 ?? (await coldRun(dohClient, server.pid));
      const cu = cu1 ?? (await coldRun(udpClient, server.pid));
      c.push({ udp: cu, doh: cd });
    }
    udpClient.close();
    await dohClient.close();
    const rate = (x: number) => Math.round(x).toLocaleString('en');
    console.log(`lexroute serve, one process; ${ROUNDS} interleaved rounds, medians\n`);
    console.log(`queries/s, ${IN_FLIGHT} in flight (${SECONDS} s per round):`);
    console.log(`  UDP          ${rate(median(q.map((x) => x.udp)))}`);
    console.log(`  DoH (h2c)    ${rate(median(q.map((x) => x.doh)))}`);
    console.log(`  DoH/UDP      ${median(q.map((x) => x.doh / x.udp)).toFixed(2)}x\n`);
    console.log(`cold resolution of ${N} distinct URNs (4 NAPTR steps each, no cache, no HTTP):`);
    console.log(`  UDP          ${median(c.map((x) => x.udp.ms)).toFixed(0)} ms`);
    console.log(`  DoH (HTTP/1.1)  ${median(c.map((x) => x.doh.ms)).toFixed(0)} ms`);
    console.log(
      `  DoH/UDP      ${median(c.map((x) => x.doh.ms / x.udp.ms)).toFixed(2)}x   (target <= 1.5x)`,
    );
    const cpuU = cpuPerQuery(c.map((x) => x.udp));
    const cpuD = cpuPerQuery(c.map((x) => x.doh));
    const us = (x: { client: number; server: number }) =>
      `${x.client.toFixed(0)} + ${x.server.toFixed(0)} = ${(x.client + x.server).toFixed(0)} us`;
    console.log(`CPU per DNS query in the cold runs, client + server (all rounds):`);
    console.log(`  UDP          ${us(cpuU)}`);
    console.log(`  DoH          ${us(cpuD)}`);
    console.log(
      `  DoH/UDP      ${((cpuD.client + cpuD.server) / (cpuU.client + cpuU.server)).toFixed(2)}x`,
    );
  } finally {
    server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
