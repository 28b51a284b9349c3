/**
 * Client benchmark, in one run against a local `lexroute serve` (a separate
 * process on 127.0.0.1):
 *
 * 1. Cold resolution of N distinct URNs through a 3-level chain (CNR table,
 *    jurisdiction, sub-jurisdiction; no cache, no HTTP) versus the sum of the
 *    bare DNS round trips for the same queries made by a minimal dgram loop
 *    (pre-encoded query, one socket, send, wait, dns-packet decode).
 *    Target: overhead <= 1.2x.
 * 2. Warm-cache resolutions per second on one core without the HTTP step,
 *    next to the cost of the DDDS step function alone on the same cached
 *    records (the floor). Target: >= 100,000/s.
 *
 * Usage: node bench/client.ts [N=300] [warmSeconds=2]
 */
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as dnsPacket from 'dns-packet';
import { LexClient } from '../src/client/resolve.ts';
import { DnsTransport } from '../src/client/transport.ts';
import { dddsStep, type NaptrRecord } from '../src/core/ddds/step.ts';
import { toDnsKey } from '../src/core/urn/index.ts';

const N = Number(process.argv[2] ?? 300);
const WARM_SECONDS = Number(process.argv[3] ?? 2);
const REPO = path.resolve(import.meta.dirname, '..');

const SOA = (o: string) =>
  `@ IN SOA ns.${o}. hostmaster.${o}. 1 7200 3600 1209600 300\n@ IN NS ns.${o}.\nns IN A 127.0.0.1\n`;
const ZONES: Record<string, string> = {
  'urn.arpa': `$ORIGIN urn.arpa.\n$TTL 3600\n${SOA('urn.arpa')}lex IN NAPTR 100 10 "" "" "" lex-nameserver.nic.it.\n`,
  'nic.it':
    `$ORIGIN nic.it.\n$TTL 3600\n${SOA('nic.it')}` +
    `lex-nameserver IN NAPTR 100 10 "" "" "!^urn:lex:br[;:].*$!lex.senado.gov.br!i" .\n` +
    `lex-nameserver IN NAPTR 100 10 "" "" "!^urn:lex:it[;:].*$!lex.normattiva.example.it!i" .\n` +
    `lex-nameserver IN NAPTR 100 10 "" "" "!^urn:lex:de[;:].*$!lex.example.de!i" .\n`,
  'lex.senado.gov.br':
    `$ORIGIN lex.senado.gov.br.\n$TTL 3600\n${SOA('lex.senado.gov.br')}` +
    `@ IN NAPTR 100 10 "" "" "!^urn:lex:br;sao\\\\.paulo[;:].*$!lex.sao-paulo.gov.br!i" .\n` +
    `@ IN NAPTR 100 10 "" "" "!^urn:lex:br;minas\\\\.gerais[;:].*$!lex.mg.gov.br!i" .\n` +
    `@ IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!https://resolver.senado.example/uri-res/N2L?\\\\1!" .\n`,
  'lex.sao-paulo.gov.br':
    `$ORIGIN lex.sao-paulo.gov.br.\n$TTL 3600\n${SOA('lex.sao-paulo.gov.br')}` +
    `@ IN NAPTR 100 10 "" "" "!^urn:lex:br;sao\\\\.paulo;campinas[;:].*$!lex.campinas.sp.gov.br!i" .\n` +
    `@ IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!https://resolver.sao-paulo.example/uri-res/N2L?\\\\1!" .\n`,
};

const urns = Array.from(
  { length: N },
  (_, i) => `urn:lex:br;sao.paulo:governo:decreto:2008-03-05;${50000 + i}`,
);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lexroute-bench-'));
  for (const [o, t] of Object.entries(ZONES)) await writeFile(path.join(dir, `${o}.zone`), t);
  // A free port: bind, read, release.
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
  const t = new DnsTransport({ timeoutMs: 200, tries: 1 });
  try {
    for (let i = 0; ; i++) {
      try {
        const ex = await t.query('lex.urn.arpa.', 'NAPTR', {
          servers: [{ host: '127.0.0.1', port }],
        });
        if (ex.message.answers.length > 0) break;
      } catch {
        if (i > 100) throw new Error('lexroute serve did not start');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    t.close();
  }
  const servers = [`127.0.0.1:${port}`];
  try {
    // ---------------------------------------------------------------- (1) cold
    const cold = new LexClient({ servers, cache: false });
    const first = await cold.resolve(urns[0] as string, { noHttp: true });
    const keys = first.trace.steps.flatMap((s) => (s.kind === 'naptr' ? [s.key] : []));
    if (keys.length !== 4) throw new Error(`expected a 4-key chain, got ${keys.join(' ')}`);
    // The same queries, in the same order, for the bare loop.
    const queries: Buffer[] = [];
    for (let i = 0; i < N; i++) {
      for (const k of keys) {
        queries.push(
          dnsPacket.encode({
            type: 'query',
            id: (i * 4 + queries.length) & 0xffff,
            flags: dnsPacket.RECURSION_DESIRED,
            questions: [{ type: 'NAPTR', name: k, class: 'IN' }],
            additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232 } as dnsPacket.Answer],
          }),
        );
      }
    }
    const bare = dgram.createSocket('udp4');
    await new Promise<void>((r) => bare.bind(0, '127.0.0.1', () => r()));
    const bareRun = async (): Promise<number> => {
      const t0 = performance.now();
      for (const q of queries) {
        await new Promise<void>((resolve) => {
          bare.once('message', (m) => {
            dnsPacket.decode(m);
            resolve();
          });
          bare.send(q, port, '127.0.0.1');
        });
      }
      return performance.now() - t0;
    };
    const clientRun = async (): Promise<number> => {
      const t0 = performance.now();
      for (const u of urns) await cold.resolve(u, { noHttp: true });
      return performance.now() - t0;
    };
    // Warm up both paths (JIT, server's per-name caches), then alternate.
    await bareRun();
    await clientRun();
    const bareTimes: number[] = [];
    const clientTimes: number[] = [];
    for (let round = 0; round < 5; round++) {
      bareTimes.push(await bareRun());
      clientTimes.push(await clientRun());
    }
    bare.close();
    await cold.close();
    const b = median(bareTimes);
    const c = median(clientTimes);
    console.log(
      `lexroute client bench (Node ${process.version}, N=${N} URNs, ${keys.length} NAPTR keys each: ${keys.join(' -> ')})`,
    );
    console.log('');
    console.log(
      '(1) cold resolution through the 3-level chain (no cache, no HTTP), median of 5 rounds',
    );
    console.log(
      `    bare dgram loop, same ${queries.length} queries: ${b.toFixed(1)} ms (${((b * 1000) / queries.length).toFixed(1)} us/query)`,
    );
    console.log(
      `    resolveLexUrn x ${N}:                          ${c.toFixed(1)} ms (${((c * 1000) / N).toFixed(1)} us/URN)`,
    );
    console.log(`    overhead: ${(c / b).toFixed(2)}x the bare round trips (target <= 1.2x)`);

    // ---------------------------------------------------------------- (2) warm
    const warm = new LexClient({ servers });
    for (const u of urns) await warm.resolve(u, { noHttp: true });
    const runWarm = async (seconds: number, memoSteps = true): Promise<number> => {
      let count = 0;
      const t0 = performance.now();
      const end = t0 + seconds * 1000;
      while (performance.now() < end) {
        for (let i = 0; i < urns.length; i++) {
          await warm.resolve(urns[i] as string, { noHttp: true, memoSteps });
        }
        count += urns.length;
      }
      return count / ((performance.now() - t0) / 1000);
    };
    await runWarm(0.5);
    const warmRate = await runWarm(WARM_SECONDS);
    await runWarm(0.5, false);
    const warmNoMemo = await runWarm(WARM_SECONDS, false);
    // Floor: the step function alone over the same cached records, 4 steps per URN.
    const rrsets: { key: string; records: NaptrRecord[] }[] = [];
    const lookupTrace = (await warm.resolve(urns[0] as string, { noHttp: true })).trace;
    for (const s of lookupTrace.steps) {
      if (s.kind === 'naptr') rrsets.push({ key: s.key, records: s.records.map((f) => f.record) });
    }
    const stepOnly = (seconds: number): number => {
      let count = 0;
      const t0 = performance.now();
      const end = t0 + seconds * 1000;
      while (performance.now() < end) {
        for (let i = 0; i < urns.length; i++) {
          const aus = urns[i] as string;
          for (const r of rrsets)
            dddsStep({ aus, key: r.key, records: r.records, service: 'N2L', toDnsKey });
        }
        count += urns.length;
      }
      return count / ((performance.now() - t0) / 1000);
    };
    stepOnly(0.5);
    const stepRate = stepOnly(WARM_SECONDS);
    await warm.close();
    console.log('');
    console.log(`(2) warm cache, no HTTP, one core, ${WARM_SECONDS} s`);
    console.log(
      `    resolveLexUrn, cached RRsets + step memo:   ${Math.round(warmRate).toLocaleString('en')} resolutions/s (target >= 100,000/s)`,
    );
    console.log(
      `    resolveLexUrn, cached RRsets, no step memo: ${Math.round(warmNoMemo).toLocaleString('en')} resolutions/s`,
    );
    console.log(
      `    dddsStep alone, 4 steps per URN (floor without memo): ${Math.round(stepRate).toLocaleString('en')} chains/s`,
    );
    console.log(
      `    without memo the driver + cache + trace cost ${(stepRate / warmNoMemo).toFixed(2)}x the step function alone; the regexp engine dominates`,
    );
  } finally {
    server.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
