/**
 * Client benchmark, in one run against a local `lexroute serve` (a separate
 * process on 127.0.0.1), with the targets of issue 5:
 *
 * 1. Cold resolution of N distinct URNs through a 3-level chain (CNR table,
 *    jurisdiction, sub-jurisdiction; no cache, no HTTP) versus the sum of the
 *    bare DNS round trips for the same queries made by a minimal dgram loop
 *    (pre-encoded query, one socket, send, wait, dns-packet decode).
 *    Target: overhead <= 1.2x.
 * 2. Warm-cache resolutions per second on one core without the HTTP step.
 *    Target: >= 100,000/s. Measured for repeated URNs (the step memo answers),
 *    for distinct URNs (every resolution builds its AUS and runs the step
 *    function on the cached RRsets), without the memo, and next to the step
 *    function alone on the same records (the floor).
 *
 * The machine may be shared, so every figure is taken in several short
 * rounds, the variants interleaved (the cold pair alternates which goes
 * first), and the best round is printed next to the median. The cold ratio
 * is the median of the per-round ratios (both sides of a round see the same
 * load). Warm throughput is per CPU-second of this process (user + system):
 * time spent descheduled by other work on the machine does not count.
 *
 * 3. DNSSEC validation (issue 32), against a second server serving the same
 *    zones signed inline (`serve --keys`, each zone's KSK a trust anchor):
 *    cold resolutions (no DNS cache) with `validate` against the same
 *    client without it, interleaved, target <= 1.5x (the validator's key
 *    cache kept, as a client keeps it; the first resolution of a fresh
 *    client, which fetches every DNSKEY, printed beside); and warm
 *    resolutions per CPU-second with validation, target >= 50,000/s.
 *
 * Usage: node bench/client.ts [N=300] [rounds=11] [cold|warm|validate|all]
 * (LEXROUTE_BIN=path/to/lexroute.js runs the server from another checkout.)
 */
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as dnsPacket from 'dns-packet';
import { LexClient } from '../src/client/resolve.ts';
import { DnsTransport } from '../src/client/transport.ts';
import { dddsStep, type NaptrRecord } from '../src/ddds/core/step.ts';
import { buildAus } from '../src/ddds/core/aus.ts';
import { toDnsKey } from '../src/urn/core/index.ts';
import { execFile } from 'node:child_process';
import { readdir, readFile, mkdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { parseTrustAnchors } from '../src/dnssec/core/validate/anchors.ts';
import type { TrustAnchor } from '../src/client/validate.ts';
import { freshUrns, median } from './stats.ts';

const N = Number(process.argv[2] ?? 300);
const ROUNDS = Number(process.argv[3] ?? 11);
const ONLY = process.argv[4] ?? 'all';
const WARM_PER_ROUND = 30_000;
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

function cpuMs(since: NodeJS.CpuUsage): number {
  const c = process.cpuUsage(since);
  return (c.user + c.system) / 1000;
}

const fmt = (x: number, d = 1) => x.toFixed(d);
const rate = (x: number) => Math.round(x).toLocaleString('en');

async function startServer(
  dir: string,
  extra: readonly string[] = [],
): Promise<{ port: number; stop: () => void }> {
  for (const [o, t] of Object.entries(ZONES)) await writeFile(path.join(dir, `${o}.zone`), t);
  // A free port (bind, read, release), taken again if another process grabs it first.
  for (let attempt = 0; attempt < 5; attempt++) {
    const probe = dgram.createSocket('udp4');
    await new Promise<void>((r) => probe.bind(0, '127.0.0.1', () => r()));
    const port = probe.address().port;
    await new Promise<void>((r) => probe.close(() => r()));
    const server = spawn(
      process.execPath,
      [
        process.env.LEXROUTE_BIN ?? path.join(REPO, 'bin/lexroute.js'),
        'serve',
        '--zones',
        dir,
        '--listen',
        `127.0.0.1:${port}`,
        '--log-level',
        'error',
        ...extra,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    let exited = false;
    server.once('exit', () => {
      exited = true;
    });
    const stop = () => server.kill('SIGTERM');
    const t = new DnsTransport({ timeoutMs: 200, tries: 1 });
    try {
      for (let i = 0; i <= 100 && !exited; i++) {
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
  }
  throw new Error('lexroute serve did not start');
}

async function cold(port: number): Promise<void> {
  const servers = [`127.0.0.1:${port}`];
  const client = new LexClient({ servers, cache: false });
  const first = await client.resolve(freshUrns(1)[0] as string, { noHttp: true });
  const keys = first.trace.steps.flatMap((s) => (s.kind === 'naptr' ? [s.key] : []));
  if (keys.length !== 4) throw new Error(`expected a 4-key chain, got ${keys.join(' ')}`);
  // The same queries, in the same order, for the bare loop (the keys do not depend on the URN).
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
  const bareRun = async (): Promise<{ wall: number; cpu: number }> => {
    const c0 = process.cpuUsage();
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
    return { wall: performance.now() - t0, cpu: cpuMs(c0) };
  };
  const clientRun = async (): Promise<{ wall: number; cpu: number }> => {
    const urns = freshUrns(N);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (const u of urns) await client.resolve(u, { noHttp: true });
    return { wall: performance.now() - t0, cpu: cpuMs(c0) };
  };
  // Warm up both paths (JIT, the server's per-name caches).
  await bareRun();
  await clientRun();
  const b: { wall: number; cpu: number }[] = [];
  const c: { wall: number; cpu: number }[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let x: { wall: number; cpu: number };
    let y: { wall: number; cpu: number };
    if (round % 2 === 0) {
      x = await bareRun();
      y = await clientRun();
    } else {
      y = await clientRun();
      x = await bareRun();
    }
    b.push(x);
    c.push(y);
    ratios.push(y.wall / x.wall);
  }
  bare.close();
  await client.close();
  const q = queries.length;
  const line = (label: string, xs: { wall: number; cpu: number }[], per: number, unit: string) => {
    const walls = xs.map((v) => v.wall);
    const cpus = xs.map((v) => v.cpu);
    console.log(
      `    ${label.padEnd(34)} best ${fmt(Math.min(...walls)).padStart(7)} ms, median ${fmt(median(walls)).padStart(7)} ms ` +
        `(${fmt((median(walls) * 1000) / per)} us/${unit}; CPU of this process ${fmt((median(cpus) * 1000) / per)} us/${unit})`,
    );
  };
  console.log(
    `(1) cold: ${N} distinct URNs through the 3-level chain (${keys.join(' -> ')}), no cache, no HTTP; ${ROUNDS} interleaved rounds`,
  );
  line(`bare dgram loop, same ${q} queries:`, b, q, 'query');
  line(`resolveLexUrn x ${N}:`, c, N, 'URN');
  const ratio = median(ratios);
  const sortedRatios = [...ratios].sort((a, b) => a - b);
  console.log(
    `    per-round ratios: ${sortedRatios.map((r) => fmt(r, 2)).join(' ')} (machine load moves them; compare within a run)`,
  );
  console.log(
    `    overhead: ${fmt(ratio, 2)}x the bare round trips (median of per-round ratios; best rounds ${fmt(
      Math.min(...c.map((v) => v.wall)) / Math.min(...b.map((v) => v.wall)),
      2,
    )}x; target <= 1.2x: ${ratio <= 1.2 ? 'met' : 'NOT met'})`,
  );
}

async function warm(port: number): Promise<void> {
  const servers = [`127.0.0.1:${port}`];
  const client = new LexClient({ servers });
  const repeated = freshUrns(N);
  for (const u of repeated) await client.resolve(u, { noHttp: true });
  // The step function alone over the same cached records, 4 steps per URN.
  const rrsets: { key: string; records: NaptrRecord[] }[] = [];
  const lookupTrace = (await client.resolve(repeated[0] as string, { noHttp: true })).trace;
  for (const s of lookupTrace.steps) {
    if (s.kind === 'naptr') rrsets.push({ key: s.key, records: s.records.map((f) => f.record) });
  }
  interface Variant {
    readonly name: string;
    /** Resolutions per round. */
    readonly count: number;
    /** Untimed set-up before each round (fresh URNs). */
    readonly prepare?: () => void;
    readonly body: () => Promise<void> | void;
    readonly floor?: boolean;
    readonly cpuRates: number[];
    readonly wallRates: number[];
  }
  const reps = Math.max(1, Math.round(WARM_PER_ROUND / repeated.length));
  let pool: string[] = [];
  const fresh = () => {
    pool = freshUrns(WARM_PER_ROUND);
  };
  const variants: Variant[] = [
    {
      name: 'repeated URNs (step memo answers)',
      count: reps * repeated.length,
      body: async () => {
        for (let k = 0; k < reps; k++) {
          for (const u of repeated) await client.resolve(u, { noHttp: true });
        }
      },
      cpuRates: [],
      wallRates: [],
    },
    {
      name: 'distinct URNs (AUS built, step runs)',
      count: WARM_PER_ROUND,
      prepare: fresh,
      body: async () => {
        for (const u of pool) await client.resolve(u, { noHttp: true });
      },
      cpuRates: [],
      wallRates: [],
    },
    {
      name: 'repeated URNs, memoSteps: false',
      count: reps * repeated.length,
      body: async () => {
        for (let k = 0; k < reps; k++) {
          for (const u of repeated) await client.resolve(u, { noHttp: true, memoSteps: false });
        }
      },
      cpuRates: [],
      wallRates: [],
    },
    {
      name: 'floor: buildAus + 4 x dddsStep',
      count: WARM_PER_ROUND,
      prepare: fresh,
      floor: true,
      body: () => {
        for (const u of pool) {
          const a = buildAus(u);
          if (!a.ok) throw new Error(u);
          for (const r of rrsets) {
            dddsStep({
              aus: a.value.aus,
              key: r.key,
              records: r.records,
              service: 'N2L',
              toDnsKey,
            });
          }
        }
      },
      cpuRates: [],
      wallRates: [],
    },
  ];
  const measure = async (v: Variant, record: boolean) => {
    v.prepare?.();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await v.body();
    const wall = performance.now() - t0;
    const cpu = cpuMs(c0);
    if (record) {
      v.cpuRates.push((v.count / cpu) * 1000);
      v.wallRates.push((v.count / wall) * 1000);
    }
  };
  for (const v of variants) await measure(v, false); // warm-up (JIT)
  for (let round = 0; round < ROUNDS; round++) {
    for (const v of round % 2 === 0 ? variants : [...variants].reverse()) await measure(v, true);
  }
  await client.close();
  console.log(
    `(2) warm cache, no HTTP, one core: resolutions per CPU-second of this process, ${ROUNDS} interleaved rounds of ~${rate(WARM_PER_ROUND)}`,
  );
  for (const v of variants) {
    const best = Math.max(...v.cpuRates);
    const mid = median(v.cpuRates);
    const target = v.floor ? '' : `  target >= 100,000/s: ${mid >= 100_000 ? 'met' : 'NOT met'}`;
    console.log(
      `    ${v.name.padEnd(38)} best ${rate(best).padStart(9)}/s, median ${rate(mid).padStart(9)}/s (wall median ${rate(median(v.wallRates))}/s)${target}`,
    );
  }
}

/** A server of the same zones signed inline, and each zone's KSK as a trust anchor. */
async function startSigned(
  dir: string,
): Promise<{ port: number; stop: () => void; anchors: TrustAnchor[] }> {
  const keys = path.join(dir, 'keys');
  await mkdir(keys, { recursive: true });
  const bin = process.env.LEXROUTE_BIN ?? path.join(REPO, 'bin/lexroute.js');
  for (const o of Object.keys(ZONES))
    await promisify(execFile)(process.execPath, [bin, 'zone', 'keygen', `${o}.`, '--dir', keys]);
  const server = await startServer(dir, ['--keys', keys]);
  let text = '';
  for (const f of await readdir(keys))
    if (f.endsWith('.key')) text += await readFile(path.join(keys, f), 'utf8');
  const parsed = parseTrustAnchors(text, keys, Date.now() / 1000);
  if (!('anchors' in parsed)) throw new Error(parsed.problem.message);
  // KSKs only (flags 257): the anchors a registrar would publish.
  return { ...server, anchors: parsed.anchors.filter((a) => a.rdata[1] === 1) };
}

async function validated(dir: string): Promise<void> {
  const signed = await startSigned(dir);
  try {
    const servers = [`127.0.0.1:${signed.port}`];
    const validate = { trustAnchors: signed.anchors, rootAnchors: false };
    // A fresh client's first resolution: every DNSKEY of the chain fetched and checked.
    const firsts: number[] = [];
    for (let i = 0; i < 5; i++) {
      const fresh = new LexClient({ servers, cache: false, validate });
      const t0 = performance.now();
      const r = await fresh.resolve(freshUrns(1)[0] as string, { noHttp: true });
      firsts.push(performance.now() - t0);
      const steps = r.trace.steps.filter((s) => s.kind === 'naptr');
      if (!steps.every((s) => s.validation?.status === 'secure'))
        throw new Error(`not secure: ${JSON.stringify(steps.map((s) => s.validation))}`);
      await fresh.close();
    }
    const plain = new LexClient({ servers, cache: false });
    const checked = new LexClient({ servers, cache: false, validate });
    const run = async (c: LexClient) => {
      const urns = freshUrns(N);
      const t0 = performance.now();
      for (const u of urns) await c.resolve(u, { noHttp: true });
      return performance.now() - t0;
    };
    await run(plain);
    await run(checked);
    const p: number[] = [];
    const v: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        p.push(await run(plain));
        v.push(await run(checked));
      } else {
        v.push(await run(checked));
        p.push(await run(plain));
      }
    }
    await plain.close();
    await checked.close();
    const ratio = median(v.map((x, i) => x / p[i]!));
    console.log(
      `(3) DNSSEC validation: the same chain signed inline (ECDSAP256SHA256, each zone's KSK a trust anchor); ${ROUNDS} interleaved rounds`,
    );
    console.log(
      `    cold, ${N} distinct URNs, no DNS cache: unvalidated median ${fmt(median(p))} ms (${fmt((median(p) * 1000) / N)} us/URN), validated ${fmt(median(v))} ms (${fmt((median(v) * 1000) / N)} us/URN)`,
    );
    console.log(
      `    validated / unvalidated: ${fmt(ratio, 2)}x (median of per-round ratios; target <= 1.5x: ${ratio <= 1.5 ? 'met' : 'NOT met'})`,
    );
    console.log(
      `    a fresh client's first resolution (every DNSKEY fetched and checked): median ${fmt(median(firsts))} ms`,
    );
    const warmClient = new LexClient({ servers, validate });
    const repeated = freshUrns(N);
    for (const u of repeated) await warmClient.resolve(u, { noHttp: true });
    const rates: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const reps = Math.max(1, Math.round(WARM_PER_ROUND / repeated.length));
      const c0 = process.cpuUsage();
      for (let k = 0; k < reps; k++)
        for (const u of repeated) await warmClient.resolve(u, { noHttp: true });
      if (round > 0) rates.push(((reps * repeated.length) / cpuMs(c0)) * 1000);
    }
    await warmClient.close();
    const mid = median(rates);
    console.log(
      `    warm cache with validation, repeated URNs: best ${rate(Math.max(...rates))}/s, median ${rate(mid)}/s per CPU-second (target >= 50,000/s: ${mid >= 50_000 ? 'met' : 'NOT met'})`,
    );
  } finally {
    signed.stop();
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'lexroute-bench-'));
  let server: { port: number; stop: () => void } | undefined;
  try {
    server = await startServer(dir);
    console.log(`lexroute client bench (Node ${process.version}, N=${N}, ${ROUNDS} rounds)`);
    console.log('');
    if (ONLY === 'all' || ONLY === 'cold') {
      await cold(server.port);
      console.log('');
    }
    if (ONLY === 'all' || ONLY === 'warm') await warm(server.port);
    if (ONLY === 'all' || ONLY === 'validate') {
      const signedDir = await mkdtemp(path.join(tmpdir(), 'lexroute-bench-signed-'));
      try {
        if (ONLY === 'all') console.log('');
        await validated(signedDir);
      } finally {
        await rm(signedDir, { recursive: true, force: true });
      }
    }
  } finally {
    server?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
