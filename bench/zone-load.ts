/**
 * Zone load benchmark: a generated LEX routing zone of 1,000,000 NAPTR
 * records (digest section 13, variant B: one small RRset per jurisdiction
 * code or unit, real codes from the LexML vocabulary plus generated units),
 * loaded by `loadZoneFile` (parse + build + validate, the server's load path)
 * in a child process, next to `named-checkzone` on the same file in the same
 * run. Prints times and peak RSS, and the ratios.
 *
 *   node_modules/.bin/node bench/zone-load.ts [--records N] [--runs R] [--lint] [--ts] [--node-flags="--flag ..."]
 *
 * The loader runs as JavaScript transpiled into bench/out/ (what production
 * runs: bin/lexroute.js prefers the dist/ build); --ts runs the TypeScript
 * sources directly instead (Node's type stripping adds about 40 MB of RSS).
 * CPU time (user + system) is printed beside wall time: the machine may be
 * shared, and CPU time is the steadier figure.
 *
 * --lint adds what `lexroute zone check` does after the load: the NAPTR lint
 * of every record and the `; expect` directives (the zone then carries one
 * per 1,000 RRsets, all expected to hold). It prints the lint time beside the
 * load time (lint/load ratio) and load + lint against named-checkzone.
 * The zone is written to a temporary directory and removed afterwards.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import type * as LoadModuleType from '../src/authority/zones/load.ts';
import type * as LintModuleType from '../src/ddds/core/lint/naptr-lint.ts';

type LoadModule = typeof LoadModuleType;
type LintModule = typeof LintModuleType;

const SHARED = new URL('../../shared/', import.meta.url).pathname;

if (process.argv[2] === '--child') {
  // Child: load one zone, report time and peak RSS as JSON.
  const file = process.argv[3]!;
  const lint = process.argv[4] === 'lint';
  const loader = process.argv[5] ?? new URL('../src/authority/zones/load.ts', import.meta.url).href;
  const { loadZoneFile } = (await import(loader)) as LoadModule;
  const lintModule = lint
    ? ((await import(
        loader.replace(/authority\/zones\/load\.(ts|js)$/, 'ddds/core/lint/naptr-lint.$1')
      )) as LintModule)
    : undefined;
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  // The loading thread alone (GC helper threads left out), as the reload's load thread reports it.
  const threadCpu = () => {
    const u = process.threadCpuUsage();
    return (u.user + u.system) / 1000;
  };
  const c0 = cpu();
  const tc0 = threadCpu();
  const t0 = performance.now();
  const r = await loadZoneFile(file);
  const t1 = performance.now();
  const c1 = cpu();
  const tc1 = threadCpu();
  let lintMs = 0;
  let lintCpuMs = 0;
  let lintFindings = 0;
  let expects = 0;
  if (lintModule) {
    // As `zone check`: the records (views made on first access), the lint, the expectations.
    const records = r.records;
    lintFindings =
      lintModule.lintNaptrRecords(records).length +
      lintModule.checkExpectations(r.expects, records).length;
    expects = r.expects.length;
    lintMs = performance.now() - t1;
    lintCpuMs = cpu() - c1;
  }
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  process.stdout.write(
    JSON.stringify({
      ms: t1 - t0,
      loadCpuMs: c1 - c0,
      loadThreadCpuMs: tc1 - tc0,
      lintMs,
      lintCpuMs,
      lintFindings,
      expects,
      records: r.zone?.size ?? 0,
      names: r.zone?.nodes.size ?? 0,
      errors: errors.length,
      firstError: errors[0]?.message,
      maxRssKiB: process.resourceUsage().maxRSS,
    }) + '\n',
  );
  process.exit(0);
}

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '3' },
    lint: { type: 'boolean', default: false },
    ts: { type: 'boolean', default: false },
    'node-flags': { type: 'string', default: '' },
  },
});

/**
 * Transpile the loader's import graph (TypeScript -> JavaScript, no type
 * check) into bench/out/zone-load-js/, mirroring src/ so bare imports still
 * resolve from the project's node_modules.
 */
async function transpileLoader(): Promise<string> {
  const ts = (await import('typescript')).default;
  const root = new URL('../', import.meta.url).pathname;
  const out = join(root, 'bench/out/zone-load-js/');
  const seen = new Set<string>();
  const visit = (rel: string) => {
    if (seen.has(rel)) return;
    seen.add(rel);
    const source = readFileSync(join(root, rel), 'utf8');
    const js = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2023,
        rewriteRelativeImportExtensions: true,
        verbatimModuleSyntax: true,
      },
    }).outputText;
    const target = join(out, rel.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, js);
    for (const m of source.matchAll(/from '(\.{1,2}\/[^']+\.ts)'/g))
      visit(join(dirname(rel), m[1]!));
  };
  visit('src/authority/zones/load.ts');
  visit('src/ddds/core/lint/naptr-lint.ts');
  return new URL(`file://${join(out, 'src/authority/zones/load.js')}`).href;
}
const TARGET = Number(values.records);
const RUNS = Number(values.runs);

/** Jurisdictions from the LexML vocabulary: `br`, `br;sao.paulo`, `br;sao.paulo;campinas`, ... */
function realJurisdictions(): string[] {
  const csv = readFileSync(
    `${SHARED}data/anchors-ddds/okfn-brasil-lexml-vocabulary/localidade.csv`,
    'utf8',
  );
  const out: string[] = [];
  for (const line of csv.split('\n').slice(1)) {
    const about = line.split(',')[1];
    if (about && /^[a-z0-9.;-]+$/.test(about)) out.push(about);
  }
  return out;
}

const ORIGIN = 'lex.example.';
/** DNS owner (relative to ORIGIN) of a jurisdiction: units reversed, dots in a unit become '-'. */
function ownerOf(j: string): string {
  return j
    .split(';')
    .map((u) => u.replaceAll('.', '-'))
    .reverse()
    .join('.');
}
function ereOf(j: string): string {
  return j.replaceAll('.', '\\\\.');
}

/** `expects`: one `; expect` directive per 1,000 RRsets (for --lint), each true. */
function generate(file: string, expects: boolean): { records: number; owners: number } {
  const lines: string[] = [
    `$ORIGIN ${ORIGIN}`,
    '$TTL 3600',
    '@ IN SOA ns1 hostmaster 2024010101 3600 900 604800 300',
    '@ IN NS ns1',
    '@ IN NS ns2',
    'ns1 IN A 192.0.2.1',
    'ns2 IN A 192.0.2.2',
  ];
  let records = 0;
  let owners = 0;
  const rrset = (j: string, host: string) => {
    const owner = ownerOf(j);
    const e = ereOf(j);
    lines.push(
      `${owner} IN NAPTR 100 10 "" "" "!^urn:lex:${e};([^:;@$~]+)[;:].*$!\\\\1.${owner}.${ORIGIN.slice(0, -1)}!i" .`,
      `${owner} IN NAPTR 200 10 "u" "http+N2L" "!^(.*)$!https://${host}/uri-res/N2L?\\\\1!" .`,
      `${owner} IN NAPTR 200 20 "u" "http+N2Ls" "!^(.*)$!https://${host}/uri-res/N2Ls?\\\\1!" .`,
    );
    records += 3;
    owners++;
    if (expects && owners % 1000 === 0)
      lines.push(`; expect urn:lex:${j};x:lei:2020 -> x.${owner}.${ORIGIN}`);
  };
  const real = realJurisdictions();
  for (const j of real) rrset(j, `resolver.${ownerOf(j).split('.').reverse().join('.')}.example`);
  // Generated units below the real ones (organs, courts, chambers), until TARGET.
  const kinds = ['camara', 'prefeitura', 'tribunal', 'secretaria', 'assembleia', 'conselho'];
  let n = 0;
  while (records + 3 <= TARGET) {
    const parent = real[n % real.length]!;
    const unit = `${kinds[n % kinds.length]}.${Math.floor(n / real.length)}`;
    rrset(`${parent};${unit}`, `r${n % 997}.resolvers.example`);
    n++;
  }
  writeFileSync(file, lines.join('\n') + '\n');
  return { records, owners };
}

function timeV(
  cmd: string,
  args: string[],
): { wallMs: number; cpuMs: number; maxRssKiB: number; status: number; out: string } {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-v', cmd, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const wallMs = performance.now() - t0;
  const field = (re: RegExp) => Number(re.exec(r.stderr)?.[1] ?? NaN);
  return {
    wallMs,
    cpuMs:
      (field(/User time \(seconds\): ([0-9.]+)/) + field(/System time \(seconds\): ([0-9.]+)/)) *
      1000,
    maxRssKiB: field(/Maximum resident set size \(kbytes\): (\d+)/),
    status: r.status ?? -1,
    out: r.stdout + r.stderr,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = mkdtempSync(join(tmpdir(), 'lexroute-zone-bench-'));
try {
  const file = join(dir, 'lex.example.zone');
  const g0 = performance.now();
  const gen = generate(file, values.lint);
  const size = readFileSync(file).length;
  console.log(
    `zone: ${gen.records} NAPTR records in ${gen.owners} RRsets, ${(size / 1e6).toFixed(1)} MB (generated in ${((performance.now() - g0) / 1000).toFixed(1)} s)`,
  );
  let named: string | undefined;
  try {
    named = execFileSync('sh', ['-c', 'command -v named-checkzone'], { encoding: 'utf8' }).trim();
  } catch {
    named = undefined;
  }
  const loader = values.ts ? undefined : await transpileLoader();
  const flags = values['node-flags'].split(' ').filter(Boolean);
  const ours: {
    wallMs: number;
    cpuMs: number;
    loadMs: number;
    loadCpuMs: number;
    rss: number;
    lintMs: number;
    lintCpuMs: number;
  }[] = [];
  const bind: { wallMs: number; cpuMs: number; rss: number }[] = [];
  for (let run = 0; run < RUNS; run++) {
    const childArgs = [
      ...flags,
      new URL(import.meta.url).pathname,
      '--child',
      file,
      values.lint ? 'lint' : 'nolint',
      ...(loader ? [loader] : []),
    ];
    const o = timeV(process.execPath, childArgs);
    const line = o.out.split('\n').find((l) => l.startsWith('{'));
    if (!line) throw new Error(`our loader failed:\n${o.out}`);
    const res = JSON.parse(line) as {
      ms: number;
      loadCpuMs: number;
      lintMs: number;
      lintCpuMs: number;
      lintFindings: number;
      expects: number;
      records: number;
      errors: number;
      firstError?: string;
    };
    if (res.errors > 0 || res.records !== gen.records + 5)
      throw new Error(
        `our loader: ${res.errors} errors (${res.firstError}), ${res.records} records`,
      );
    // The generated rules are clean and every expectation holds.
    if (values.lint && (res.lintFindings !== 0 || res.expects !== Math.floor(gen.owners / 1000)))
      throw new Error(`lint: ${res.lintFindings} findings, ${res.expects} expects`);
    ours.push({
      wallMs: o.wallMs,
      cpuMs: o.cpuMs,
      loadMs: res.ms,
      loadCpuMs: res.loadCpuMs,
      rss: o.maxRssKiB,
      lintMs: res.lintMs,
      lintCpuMs: res.lintCpuMs,
    });
    if (named) {
      const b = timeV(named, ['-q', ORIGIN, file]);
      if (b.status !== 0)
        throw new Error(`named-checkzone rejected the zone:\n${b.out.slice(0, 2000)}`);
      bind.push({ wallMs: b.wallMs, cpuMs: b.cpuMs, rss: b.maxRssKiB });
    }
  }
  const ow = median(ours.map((o) => o.wallMs));
  const oc = median(ours.map((o) => o.cpuMs));
  const ol = median(ours.map((o) => o.loadMs));
  const orss = median(ours.map((o) => o.rss));
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    `runs: ${RUNS} (medians); loader: ${loader ? 'transpiled JavaScript' : 'TypeScript sources (type stripping)'}${flags.length ? `; node flags: ${flags.join(' ')}` : ''}`,
  );
  console.log(
    `lexroute loadZoneFile${values.lint ? ' + lint' : ''}: ${s(ow)} wall, ${s(oc)} CPU (whole process; ${s(ol)} load+validate inside), peak RSS ${(orss / 1024).toFixed(0)} MiB`,
  );
  if (values.lint) {
    const lw = median(ours.map((o) => o.lintMs));
    const lc = median(ours.map((o) => o.lintCpuMs));
    const lcpu = median(ours.map((o) => o.loadCpuMs));
    const ratios = ours.map((o) => o.lintCpuMs / o.loadCpuMs);
    console.log(
      `  of which load+validate ${s(ol)} wall, ${s(lcpu)} CPU; then NAPTR lint + ${Math.floor(gen.owners / 1000)} expects (zone check): ${s(lw)} wall, ${s(lc)} CPU`,
    );
    console.log(
      `  lint/load: wall ${(lw / ol).toFixed(2)}x, CPU ${(lc / lcpu).toFixed(2)}x (per run: ${ratios.map((x) => x.toFixed(2)).join(' ')})`,
    );
  }
  if (named) {
    const bw = median(bind.map((b) => b.wallMs));
    const bc = median(bind.map((b) => b.cpuMs));
    const brss = median(bind.map((b) => b.rss));
    console.log(
      `named-checkzone:       ${s(bw)} wall, ${s(bc)} CPU, peak RSS ${(brss / 1024).toFixed(0)} MiB`,
    );
    console.log(
      `ratio (lexroute${values.lint ? ' load + lint' : ''} / named-checkzone): wall ${(ow / bw).toFixed(2)}x, CPU ${(oc / bc).toFixed(2)}x (target <= 1.0x${values.lint ? ' for the load alone' : ''}); peak memory ${(orss / brss).toFixed(2)}x (target <= 1.5x)`,
    );
  } else {
    console.log('named-checkzone not installed: no baseline (install bind9-utils)');
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
