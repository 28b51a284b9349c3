/**
 * In-process cost of Engine.respond (no sockets): queries/s for the same mix
 * as bench/server-qps.sh, next to a baseline loop that only allocates and
 * copies one pre-built response (what the Node ceiling does per query).
 *
 * Also the cost of response-rate limiting on that path: Engine.respond
 * followed by Rrl.check (at a rate no query reaches, as server-qps.sh's
 * `--rrl` run), alternated with Engine.respond alone, best of 5 each. The
 * RRL's clock is read once per event-loop turn; this loop never yields, so
 * here it is read once (the server reads it once per 32 datagrams at most).
 *
 * And the cost of the query pipeline (`pipeline.ts`: one parse, the TSIG
 * check, dispatch, the RRL stage) over Engine.respond alone, best of 5 each.
 *
 * Usage: node bench/server-engine.ts [ZONE_FILE]
 */
import dnsPacket from 'dns-packet';
import { DEFAULT_RRL_CONFIG } from '../src/config/server.ts';
import { Engine, TRANSPORT_UDP } from '../src/authority/engine.ts';
import { Rrl } from '../src/authority/rrl.ts';
import { createLogger } from '../src/authority/log.ts';
import { createLogSummary } from '../src/authority/log-summary.ts';
import { QueryPipeline } from '../src/authority/pipeline.ts';
import { loadZoneFile, loadZoneText } from '../src/authority/zones/load.ts';

const N = 300;
let text = `$ORIGIN lex.bench.\n$TTL 3600\n@ IN SOA ns1 hostmaster 1 7200 3600 1209600 300\n@ IN NS ns1\nns1 IN A 192.0.2.1\n`;
text += `@ IN NAPTR 100 10 "" "" "!^urn:lex:([a-z0-9.-]+)[;:].*$!\\\\1.lex.bench!i" .\n`;
for (let i = 1; i <= N; i++)
  text += `j${i} IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!https://j${i}.resolver.example/uri-res/N2L?\\\\1!" .\n`;
const loaded = process.argv[2]
  ? await loadZoneFile(process.argv[2])
  : loadZoneText(text, 'lex.bench.zone');
if (!loaded.zone) throw new Error(JSON.stringify(loaded.diagnostics.slice(0, 3)));
const engine = new Engine([loaded.zone]);

const queries: Buffer[] = [];
for (let i = 0; i < 1000; i++) {
  const r = i % 10;
  const j = 1 + (i % N);
  const [name, type] =
    r < 4
      ? ['lex.bench', 'NAPTR']
      : r < 8
        ? [`j${j}.lex.bench`, 'NAPTR']
        : r < 9
          ? [`x${i}.lex.bench`, 'NAPTR']
          : [`j${j}.lex.bench`, 'A'];
  queries.push(
    Buffer.from(
      dnsPacket.encode({ type: 'query', id: i, questions: [{ name, type: type as 'A' }] }),
    ),
  );
}
const template = engine.respond(queries[0]!, TRANSPORT_UDP)!;

function time(label: string, f: (q: Buffer) => Buffer | undefined): number {
  const rounds = 1000;
  let sink = 0;
  for (let r = 0; r < 50; r++) for (const q of queries) sink += f(q)?.length ?? 0;
  const t0 = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) for (const q of queries) sink += f(q)?.length ?? 0;
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const qps = (rounds * queries.length) / s;
  console.log(`${label.padEnd(34)} ${(qps / 1e6).toFixed(2)} M queries/s  (sink ${sink % 7})`);
  return qps;
}

const base = time('baseline: alloc + copy one packet', (q) => {
  const out = Buffer.allocUnsafe(template.length);
  template.copy(out);
  out[0] = q[0]!;
  out[1] = q[1]!;
  return out;
});
const ours = time('Engine.respond (mix)', (q) => engine.respond(q, TRANSPORT_UDP));
console.log(`ratio Engine.respond / baseline: ${(ours / base).toFixed(2)}`);

// RRL on the same path: a source per 16 queries, as a few clients would be.
const rrl = new Rrl({ ...DEFAULT_RRL_CONFIG, responsesPerSecond: 1e9 });
const sources = Array.from({ length: 64 }, (_, i) => `10.0.${i}.${i + 1}`);
let n = 0;
const withRrl = (q: Buffer) => {
  const a = engine.query(q, TRANSPORT_UDP)!;
  rrl.check(sources[(n++ >> 4) & 63]!, a, rrl.nowSecond());
  return a.bytes;
};
/** Best of 5 alternated rounds of two loops: [a, b] in queries/s. */
function bestOf5(la: string, a: (q: Buffer) => Buffer | undefined, lb: string, b: typeof a) {
  let [x, y] = [0, 0];
  for (let r = 0; r < 5; r++) {
    x = Math.max(x, time(la, a));
    y = Math.max(y, time(lb, b));
  }
  return [x, y] as const;
}
const respond = (q: Buffer) => engine.respond(q, TRANSPORT_UDP);
const [off, on] = bestOf5(
  'Engine.respond (mix), RRL off',
  respond,
  'Engine.respond + Rrl.check (mix)',
  withRrl,
);
console.log(`ratio RRL on / off (in process, best of 5): ${(on / off).toFixed(3)}`);

// The query pipeline around the engine (parse, TSIG check, dispatch, RRL stage), as the
// UDP listener calls it: the cost of the front door over Engine.respond, best of 5 each.
const summary = createLogSummary(
  createLogger(() => undefined, 'error', 'json'),
  60_000,
);
const pipeline = new QueryPipeline({ engine: () => engine, summary });
const viaPipeline = (q: Buffer) => {
  const o = pipeline.handle(q, TRANSPORT_UDP, '10.0.0.1');
  return o.kind === 'answer' ? o.bytes : undefined;
};
const [direct, piped] = bestOf5(
  'Engine.respond (mix)',
  respond,
  'QueryPipeline.handle (mix)',
  viaPipeline,
);
console.log(
  `ratio pipeline / Engine.respond (in process, best of 5): ${(piped / direct).toFixed(3)}`,
);
summary.close();

// Per kind of query.
const kinds: [string, Buffer][] = [
  ['apex NAPTR hit', queries[0]!],
  ['jurisdiction NAPTR hit', queries[4]!],
  ['NXDOMAIN', queries[8]!],
  ['NODATA', queries[9]!],
];
for (const [label, q] of kinds) {
  const t0 = process.hrtime.bigint();
  let sink = 0;
  for (let i = 0; i < 300_000; i++) sink += engine.respond(q, TRANSPORT_UDP)!.length;
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(
    `  ${label.padEnd(32)} ${(300_000 / s / 1e6).toFixed(2)} M queries/s (sink ${sink % 7})`,
  );
}
