/**
 * lexroute as a user gets it: `npm pack` (prepack builds dist/), the tarball
 * installed into a fresh project with `npm ci --offline` (from the tarball
 * and the npm cache, resolved by a lockfile made from the project's own), and
 * then, on Node 22 and on Node 24:
 *   - the CLI: `npx lexroute --help`, `urn parse --json`, `zone check` on a
 *     sample zone;
 *   - an ES module importing every entry point and calling one function of each;
 * and once, on Node 22 (the oldest Node the package supports; every other
 * test file runs the sources on Node 24): `serve` answering `dig` and the
 * resolve example following the chain through it, the programs of
 * examples/ run against the installed package; a TypeScript consumer
 * compiled by the TypeScript compiler under moduleResolution nodenext and
 * bundler with skipLibCheck off for lexroute's declaration files, and the
 * tarball's file list.
 *
 * Node 24 is the pinned devDependency (the Node running the tests). Node 22
 * is the npm package `node@22`, installed once into node_modules/.cache
 * (about 5 s and 30 MB from the registry the first time, then reused): a
 * second `node` devDependency would fight over node_modules/.bin/node.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolOrSkip } from '../helpers/tools.ts';
import { feedStdin } from '../helpers/io.ts';

const REPO = path.resolve(import.meta.dirname, '../..');
const NODE22_VERSION = '22.23.3';
const NODE22_DIR = path.join(REPO, 'node_modules/.cache', `lexroute-node-${NODE22_VERSION}`);
const exec = promisify(execFile);
const dig = toolOrSkip('dig');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run a program to its end; a non-zero exit is a result, not an exception. */
async function run(
  file: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string; timeout?: number },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeout ?? 120_000);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : -1), stdout, stderr });
    });
    feedStdin(child.stdin, options.input ?? '');
  });
}

function expectOk(r: Run, what: string): void {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}\n${r.stderr}\n${r.stdout}`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/** The Node 22 binary (npm package node@22), installed once into node_modules/.cache. */
async function node22(): Promise<string> {
  const bin = path.join(NODE22_DIR, 'node_modules/node/bin/node');
  if (!existsSync(bin)) {
    mkdirSync(NODE22_DIR, { recursive: true });
    writeFileSync(
      path.join(NODE22_DIR, 'package.json'),
      JSON.stringify({ private: true, allowScripts: { node: true } }),
    );
    const r = await run(
      'npm',
      [
        'install',
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        `node@${NODE22_VERSION}`,
      ],
      { cwd: NODE22_DIR, timeout: 240_000 },
    );
    expectOk(r, `npm install node@${NODE22_VERSION}`);
  }
  return bin;
}

/** package.json and a lockfile for a project that depends on the tarball only. */
function consumerProject(dir: string, tarball: string): void {
  const lock = JSON.parse(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, Record<string, unknown> & { dependencies?: Record<string, string> }>;
  };
  const own = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
    version: string;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
    bin: Record<string, string>;
    engines: Record<string, string>;
  };
  // A TypeScript consumer brings its own @types/node (lexroute's declarations use Node's types).
  const consumerDev = { '@types/node': own.devDependencies['@types/node']! };
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const spec = `file:${path.basename(tarball)}`;
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', dependencies: { lexroute: spec }, devDependencies: consumerDev },
    'node_modules/lexroute': {
      version: own.version,
      resolved: spec,
      integrity,
      license: 'MIT',
      dependencies: own.dependencies,
      bin: own.bin,
      engines: own.engines,
    },
  };
  // The runtime dependencies and theirs (and @types/node), as the project's lockfile pins them.
  const todo = [...Object.keys(own.dependencies), ...Object.keys(consumerDev)];
  while (todo.length > 0) {
    const key = `node_modules/${todo.pop()!}`;
    if (key in packages) continue;
    const entry = { ...lock.packages[key] };
    if (entry.version === undefined) throw new Error(`${key} is not in package-lock.json`);
    delete entry.dev;
    delete entry.devOptional;
    delete entry.peer;
    packages[key] = entry;
    todo.push(...Object.keys(entry.dependencies ?? {}));
    // Optional dependencies (pg's pg-cloudflare) are in the lock when npm resolved them.
    const optional = Object.keys((entry.optionalDependencies as Record<string, string>) ?? {});
    todo.push(...optional.filter((d) => `node_modules/${d}` in lock.packages));
  }
  writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'consumer',
      private: true,
      type: 'module',
      dependencies: { lexroute: spec },
      devDependencies: consumerDev,
    }),
  );
  writeFileSync(
    path.join(dir, 'package-lock.json'),
    JSON.stringify({ name: 'consumer', lockfileVersion: 3, requires: true, packages }, null, 2),
  );
}

/**
 * What `tsc -p config` reports, with skipLibCheck off for lexroute's own
 * declaration files and the consumer, in this process: every file of
 * node_modules/lexroute/ is checked, while the declaration files of other
 * packages (@types/node: most of a full check's time) are read, not checked,
 * as their own packages test them.
 */
function typeErrors(config: string): string {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    config,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  )!;
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const ours = program
    .getSourceFiles()
    .filter(
      (f) =>
        !f.fileName.includes('/node_modules/') || f.fileName.includes('/node_modules/lexroute/'),
    );
  expect(
    ours.filter((f) => f.fileName.includes('/node_modules/lexroute/dist/')).length,
  ).toBeGreaterThan(9);
  const diagnostics = [
    ...parsed.errors,
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...ours.flatMap((f) => [
      ...program.getSyntacticDiagnostics(f),
      ...program.getSemanticDiagnostics(f),
    ]),
  ];
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => path.dirname(config),
    getNewLine: () => '\n',
  });
}

/** Imports every entry point and calls one function of each. */
const CONSUMER_MJS = `
import { parseLexUrn } from 'lexroute';
import * as urn from 'lexroute/urn';
import * as ddds from 'lexroute/ddds';
import * as zone from 'lexroute/zone';
import * as client from 'lexroute/client';
import * as server from 'lexroute/server';
import * as resolver from 'lexroute/resolver';
import * as catalogue from 'lexroute/catalogue';
import * as dev from 'lexroute/dev';

const sub = ddds.parseSubstitution('!^urn:lex:([a-z]+)[;:].*$!\\\\1.lex-routing.nic.it!i');
const store = new catalogue.SqliteCatalogue(process.argv[2]);
const out = {
  lexroute: parseLexUrn('urn:lex:it:stato:legge:2000-04-03;56').ok,
  urn: urn.normalizeLexUrn('URN:LEX:IT:Stato:Legge:2000-04-03;56').canonical,
  ddds: ddds.applySubstitution(sub.value, 'urn:lex:it:stato:legge:2000-04-03;56').output,
  zone: zone.parseZoneText('@ 3600 IN NAPTR 100 10 "" "" "" lex-nameserver.nic.it.\\n', {
    origin: 'lex.urn.arpa.',
  }).records.length,
  client: client.formatServer(client.parseServerAddress('[::1]:5353')),
  server: server.validateServerConfig({ listen: ['127.0.0.1:5353'] }).errors.length,
  resolver: resolver.validateResolverConfig({}).ok,
  catalogue: store.counts().works,
  dev: dev.formatListen({ host: '::1', port: 5300 }),
};
store.close();
console.log(JSON.stringify(out));
`;

const CONSUMER_TS = `
import { parseLexUrn, resolveLexUrn, type ResolveResult } from 'lexroute';
import { toDnsKey, type LexUrn } from 'lexroute/urn';
import { dddsStep, type NaptrRecord } from 'lexroute/ddds';
import { parseZoneText, type Zone } from 'lexroute/zone';
import { LexClient, DnsTransport, type Trace } from 'lexroute/client';
import { startServer, type RunningServer } from 'lexroute/server';
import { createResolverApp, type ResolverApp } from 'lexroute/resolver';
import { SqliteCatalogue, MemoryCatalogue } from 'lexroute/catalogue';
import { startDevChain } from 'lexroute/dev';

const parsed = parseLexUrn('urn:lex:it:stato:legge:2000-04-03;56');
const urn: LexUrn | undefined = parsed.ok ? parsed.value : undefined;
const key: string = toDnsKey('lex.example').ok ? 'ok' : 'bad';
const records: NaptrRecord[] = [];
let zone: Zone | undefined;
let result: ResolveResult | undefined;
let trace: Trace | undefined;
let running: RunningServer | undefined;
let app: ResolverApp | undefined;
export const all = [urn, key, records, zone, result, trace, running, app, dddsStep, parseZoneText,
  resolveLexUrn, LexClient, DnsTransport, startServer, createResolverApp, SqliteCatalogue,
  MemoryCatalogue, startDevChain];
`;

/** Files the tarball may hold: what a user runs and reads. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^CHANGELOG\.md$/,
  /^LICENSE$/,
  /^bin\/lexroute\.js$/,
  /^dist\/.+\.(js|d\.ts)$/,
  /^zones\/.+/,
  /^config\/.+\.(json|md)$/,
  /^data\/sample-catalogue\.jsonl$/,
];
/** Each entry point's module in dist/, without its extension (package.json `exports`). */
const ENTRIES = [
  'index',
  'urn/index',
  'ddds/index',
  'dns/index',
  'client/index',
  'authority/index',
  'resolver/index',
  'resolver/catalogue/index',
  'dev/index',
];

describe('the npm package (npm pack, installed offline into a fresh project)', () => {
  let tmp: string;
  let project: string;
  let files: string[] = [];
  let tarballBytes = 0;
  const nodes: { name: string; bin: string }[] = [];

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-pack-'));
    const packStarted = performance.now();
    const pack = await run('npm', ['pack', '--json', '--pack-destination', tmp], {
      cwd: REPO,
      timeout: 240_000,
    });
    expectOk(pack, 'npm pack');
    const info = (
      JSON.parse(pack.stdout) as { filename: string; size: number; files: { path: string }[] }[]
    )[0]!;
    files = info.files.map((f) => f.path);
    tarballBytes = info.size;

    project = path.join(tmp, 'consumer');
    mkdirSync(project);
    cpSync(path.join(tmp, info.filename), path.join(project, info.filename));
    consumerProject(project, path.join(project, info.filename));
    const started = performance.now();
    const install = await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], {
      cwd: project,
      timeout: 240_000,
    });
    expectOk(install, 'npm ci --offline of the tarball');
    console.log(
      `package: ${(tarballBytes / 1024).toFixed(1)} KiB tarball, ${files.length} files; ` +
        `npm pack (build included): ${((started - packStarted) / 1000).toFixed(1)} s; ` +
        `npm ci --offline in a fresh project: ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    for (const f of readdirSync(path.join(REPO, 'examples'))) {
      cpSync(path.join(REPO, 'examples', f), path.join(project, f));
    }
    writeFileSync(path.join(project, 'consumer.mjs'), CONSUMER_MJS);
    nodes.push({ name: 'Node 22', bin: await node22() });
    nodes.push({ name: 'Node 24', bin: process.execPath });
  }, 600_000);

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('the tarball holds dist/, bin/, the samples, README, CHANGELOG and LICENSE, nothing else', () => {
    expect(files.filter((f) => !ALLOWED.some((re) => re.test(f)))).toEqual([]);
    for (const e of ENTRIES) {
      expect(files).toContain(`dist/${e}.js`);
      expect(files).toContain(`dist/${e}.d.ts`);
    }
    for (const f of ['LICENSE', 'README.md', 'CHANGELOG.md', 'bin/lexroute.js'])
      expect(files).toContain(f);
    expect(files).toContain('data/sample-catalogue.jsonl');
    expect(files).toContain('zones/nic.it.zone');
    expect(files).toContain('config/server.json');
    // The resolution page's script, built by scripts/build-page.ts.
    expect(files).toContain('dist/browser/lexroute-page.js');
    expect(files.some((f) => /^(src|test|bench|examples|\.ci)\//.test(f))).toBe(false);
    // No source maps: they would point at src/, which is not shipped; dist/ is plain tsc output.
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
  });

  it('a TypeScript consumer compiles with tsc (nodenext and bundler, skipLibCheck off)', () => {
    writeFileSync(path.join(project, 'consumer.ts'), CONSUMER_TS);
    const base = {
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      target: 'es2023',
      types: ['node'],
      typeRoots: [path.join(project, 'node_modules/@types')],
    };
    const configs = {
      'tsconfig.nodenext.json': { ...base, module: 'nodenext', moduleResolution: 'nodenext' },
      'tsconfig.bundler.json': { ...base, module: 'esnext', moduleResolution: 'bundler' },
    };
    for (const [name, compilerOptions] of Object.entries(configs)) {
      writeFileSync(
        path.join(project, name),
        JSON.stringify({ compilerOptions, files: ['consumer.ts'] }),
      );
      expect(`${name}: ${typeErrors(path.join(project, name))}`).toBe(`${name}: `);
    }
  }, 180_000);

  for (const which of ['Node 22', 'Node 24']) {
    describe(which, () => {
      const node = () => nodes.find((n) => n.name === which)!.bin;
      const env = (): NodeJS.ProcessEnv => ({
        ...process.env,
        PATH: `${path.dirname(node())}${path.delimiter}${process.env.PATH ?? ''}`,
      });
      const lexroute = (args: string[], input?: string) =>
        run('npx', ['--offline', '--no-install', 'lexroute', ...args], {
          cwd: project,
          env: env(),
          ...(input !== undefined && { input }),
        });

      it('runs the installed CLI: --help, urn parse --json, zone check, no PostgreSQL driver', async () => {
        const version = await run(node(), ['--version'], { cwd: project });
        expect(version.stdout.trim().split('.')[0]).toBe(which === 'Node 22' ? 'v22' : 'v24');
        const help = await lexroute(['--help']);
        expectOk(help, 'lexroute --help');
        expect(help.stdout).toContain('Usage: lexroute <command>');
        expect(help.stderr).not.toMatch(/ERR_|Error/);

        const parsed = await lexroute([
          'urn',
          'parse',
          '--json',
          'urn:lex:it:stato:legge:2000-04-03;56~art1',
        ]);
        expectOk(parsed, 'urn parse');
        expect(JSON.parse(parsed.stdout)).toMatchObject({ ok: true });
        // Nothing on standard error: `urn` does not load node:sqlite (Node 22 warns when it is).
        expect(parsed.stderr).toBe('');

        const checked = await lexroute([
          'zone',
          'check',
          'node_modules/lexroute/zones/lex.senado.gov.br.zone',
        ]);
        expectOk(checked, 'zone check');
        expect(checked.stdout).toMatch(/1 zone loaded: 0 errors, 0 warnings/);
        expect(checked.stderr).toBe('');

        // pg is an optional peer, not installed here: a postgres:// catalogue says what to install.
        expect(existsSync(path.join(project, 'node_modules/pg'))).toBe(false);
        const pg = await lexroute([
          'catalogue',
          'migrate',
          '--catalogue',
          'postgres://127.0.0.1:1/x',
        ]);
        expect(pg.code).toBe(1);
        expect(pg.stderr).toContain('CATALOGUE_PG_DRIVER');
        expect(pg.stderr).toContain('npm install pg pg-copy-streams');
      }, 90_000);

      // The end-to-end runs below, once: on the oldest Node the package supports.
      const once = which === 'Node 22';

      if (once)
        it.skipIf(dig.skipReason !== undefined)(
          'lexroute serve answers dig, and the resolve example follows the chain through it',
          async () => {
            const port = await freePort();
            // The installed bin itself: npx would stand between the signal and the server.
            const serve: ChildProcess = spawn(
              path.join(project, 'node_modules/.bin/lexroute'),
              ['serve', '--zones', 'node_modules/lexroute/zones', '--listen', `127.0.0.1:${port}`],
              { cwd: project, env: env(), stdio: ['ignore', 'ignore', 'pipe'] },
            );
            let log = '';
            serve.stderr!.on('data', (d: Buffer) => (log += d.toString()));
            try {
              for (let i = 0; i < 600 && !log.includes('listening'); i++) {
                if (serve.exitCode !== null) throw new Error(`serve exited: ${log}`);
                await new Promise((r) => setTimeout(r, 50));
              }
              expect(log).toContain('listening');
              const { stdout } = await exec(dig.path!, [
                `@127.0.0.1`,
                '-p',
                String(port),
                '+norec',
                '+short',
                'lex.urn.arpa',
                'NAPTR',
              ]);
              expect(stdout.trim()).toBe('100 10 "" "" "" lex-nameserver.nic.it.');
              const resolved = await run(
                node(),
                [
                  'resolve-with-trace.ts',
                  'urn:lex:it:stato:legge:2000-04-03;56~art1',
                  '--server',
                  `127.0.0.1:${port}`,
                  '--no-http',
                ],
                { cwd: project },
              );
              expectOk(resolved, 'resolve-with-trace.ts');
              expect(resolved.stdout).toContain('step 1  NAPTR lex.urn.arpa.');
              expect(resolved.stdout.trim().split('\n').at(-1)).toMatch(
                /\/uri-res\/N2L\?urn:lex:it:stato:legge:2000-04-03;56~art1$/,
              );
            } finally {
              const closed = new Promise((r) => serve.once('close', r));
              serve.kill('SIGTERM');
              await closed;
            }
            expect(serve.exitCode).toBe(0);
          },
          90_000,
        );

      it('an ES module imports every entry point and calls one function of each', async () => {
        const db = path.join(tmp, `${which.replace(' ', '')}.sqlite`);
        const r = await run(node(), ['consumer.mjs', db], { cwd: project });
        expectOk(r, 'consumer.mjs');
        expect(JSON.parse(r.stdout)).toEqual({
          lexroute: true,
          urn: 'urn:lex:it:stato:legge:2000-04-03;56',
          ddds: 'it.lex-routing.nic.it',
          zone: 1,
          client: '[::1]:5353',
          server: 0,
          resolver: true,
          catalogue: 0,
          dev: '[::1]:5300',
        });
      }, 90_000);

      if (once)
        it("npx lexroute dev runs the package's own sample chain, a URN resolves through it, SIGTERM stops it", async () => {
          // Nothing but package.json, the lockfile and node_modules/ here: no config/dev.json, no zones/.
          expect(existsSync(path.join(project, 'config'))).toBe(false);
          const dev: ChildProcess = spawn(
            path.join(project, 'node_modules/.bin/lexroute'),
            ['dev', '--dns-port', '0', '--http-port', '0', '--quiet'],
            { cwd: project, env: env(), stdio: ['ignore', 'pipe', 'pipe'] },
          );
          let out = '';
          let log = '';
          dev.stdout!.on('data', (d: Buffer) => (out += d.toString()));
          dev.stderr!.on('data', (d: Buffer) => (log += d.toString()));
          try {
            for (let i = 0; i < 1200 && !out.includes('Other ways in:'); i++) {
              if (dev.exitCode !== null) throw new Error(`dev exited: ${log}${out}`);
              await new Promise((r) => setTimeout(r, 50));
            }
            expect(out).toContain(path.join('node_modules', 'lexroute', 'config', 'dev.json'));
            const root = /from the root at (127\.0\.0\.1:\d+)/.exec(out)?.[1];
            expect(root, `${out}\n${log}`).toBeDefined();
            const resolved = await lexroute([
              'resolve',
              '--root',
              root!,
              'urn:lex:eec.lex.arpa:court.justice:judgement:1960-04-04;4-59',
            ]);
            expectOk(resolved, 'lexroute resolve through the dev chain');
            expect(resolved.stdout.trim().split('\n').at(-1)).toBe(
              'https://eur-lex.europa.eu/legal-content/FR/TXT/?uri=CELEX:61959CJ0004',
            );
          } finally {
            const closed = new Promise((r) => dev.once('close', r));
            dev.kill('SIGTERM');
            await closed;
          }
          expect(dev.exitCode, log).toBe(0);
        }, 90_000);

      if (once)
        it('runs the examples against the installed package', async () => {
          const batch = await run(node(), ['normalize-batch.ts'], {
            cwd: project,
            input: 'URN:LEX:IT:Stato:Legge:2000-04-03;56\n',
          });
          expectOk(batch, 'normalize-batch.ts');
          expect(JSON.parse(batch.stdout)).toMatchObject({
            canonical: 'urn:lex:it:stato:legge:2000-04-03;56',
          });
          const lint = await run(
            node(),
            ['lint-zone.ts', 'node_modules/lexroute/zones/nic.it.zone'],
            {
              cwd: project,
            },
          );
          expectOk(lint, 'lint-zone.ts');
          expect(lint.stdout).toMatch(/^nic\.it\. \d+ records: 0 errors/m);
          const embedded = await run(node(), ['embedded-resolver.ts'], { cwd: project });
          expectOk(embedded, 'embedded-resolver.ts');
          expect(embedded.stdout).toContain(
            '-> 303 https://www.normattiva.it/uri-res/N2Ls?urn:nir:stato:legge:2000-04-03;56#art1',
          );
        }, 90_000);
    });
  }
});
