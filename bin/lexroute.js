#!/usr/bin/env node
// lexroute CLI entry.
//
// - From a checkout (src/ is here): run the TypeScript sources, always. Node
//   24 strips the types; a dist/ left by an earlier `npm run build` is never
//   used, so an edit to src/ is never hidden by a stale build.
// - From an installed package (no src/): run the build in dist/, which
//   `npm pack` made (prepack) and which runs on Node 22 and 24.
// The Node version is checked on both paths before anything is imported.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const source = new URL('../src/cli/main.ts', import.meta.url);
const built = new URL('../dist/cli/main.js', import.meta.url);
const fromCheckout = existsSync(source);

function stop(message) {
  process.stderr.write(`lexroute: ${message}\n`);
  process.exit(2);
}

/**
 * Under npm (`npx lexroute serve`, `npm exec`, `npm run`), npm starts this
 * process through `sh -c`, and dash does not pass a SIGTERM on: npm's child,
 * the shell, dies and this process was left running, holding its ports.
 * Here the process runs in the same process as the CLI (no child of its
 * own), so what is left to do is to notice the shell's death: when the
 * parent changes (this process re-parented to init or a subreaper), it
 * sends itself the SIGTERM the shell did not pass on, and stops as `serve`,
 * `resolver` and `dev` stop on one. Only under npm (npm_command set): a
 * server a shell started in the background (`nohup lexroute serve &`) must
 * outlive that shell.
 */
function watchForOrphaning() {
  if (process.env.npm_command === undefined || process.platform === 'win32') return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, 250);
  timer.unref();
}

if (fromCheckout && major < 24) {
  stop(
    `running from the project's sources needs Node 24 or later (this is ${process.version}).\n` +
      "Run it as 'npx lexroute ...' or 'npm run lexroute -- ...' from the project,\n" +
      'which use the Node 24 that npm ci installs.',
  );
}
if (!fromCheckout && (major < 22 || (major === 22 && minor < 19))) {
  stop(`lexroute needs Node 22.19 or later, or Node 24 (this is ${process.version}).`);
}
if (!fromCheckout && !existsSync(built)) {
  stop('this copy has neither src/ nor dist/: reinstall the package (npm pack builds dist/).');
}
/**
 * The long-running services (`serve`, `resolver`, `dev`) run with V8's
 * optimizing compiler on the main thread (`--no-concurrent-recompilation`):
 * its background jobs left their scratch memory in the compiler threads'
 * malloc arenas, which glibc does not give back. `serve` over 1,000 small
 * zones held 120-134 MB resident with them, 87 MB without, at the same CPU
 * per query (bench/server-qps.sh, 37.7 vs 38.8 us at 10,000 q/s) and the
 * same start (issue 30). The process replaces its own image (execve: same
 * PID, same standard streams and signals), so nothing changes for whoever
 * started it; node options given are kept. Skipped where execve is missing
 * (Windows, Node 22 before 22.15) and when a concurrent-recompilation flag
 * was given explicitly, which is also how the new image knows it is one.
 */
function serveWithoutCompilerThreads() {
  const services = ['serve', 'resolver', 'dev'];
  if (!services.includes(process.argv[2] ?? '') || typeof process.execve !== 'function') return;
  if (process.execArgv.some((a) => a.endsWith('concurrent-recompilation'))) return;
  const flags = [...process.execArgv, '--no-concurrent-recompilation'];
  try {
    process.execve(process.execPath, [process.execPath, ...flags, ...process.argv.slice(1)]);
  } catch {
    // Not replaced (the binary cannot be executed again): run as started.
  }
}

serveWithoutCompilerThreads();
watchForOrphaning();
// Node's compile cache (22.1+): the code compiled by an earlier run, and on Node 24 the
// sources with their types stripped, are read back instead of made again. Entries are
// keyed by the source's content: an edit is never hidden. A start of `serve` took
// 0.9-1.1 s of CPU before its first answer, 0.43-0.46 s with it (issue 30). The folder
// is the user's own cache (NODE_COMPILE_CACHE, else $XDG_CACHE_HOME or ~/.cache, then
// lexroute/node-compile-cache), never the shared temporary folder: compiled code is not
// read from a place other users can write, and a run leaves nothing in TMPDIR. Off with
// NODE_DISABLE_COMPILE_CACHE=1. Set in the environment too, so that the zone-load and
// answering worker threads use it. Best effort: a folder that cannot be written leaves it off.
function compileCacheFolder() {
  if (process.env.NODE_COMPILE_CACHE) return process.env.NODE_COMPILE_CACHE;
  let base = process.env.XDG_CACHE_HOME;
  try {
    base ||= join(homedir(), '.cache');
  } catch {
    return undefined; // no home folder (homedir() throws without HOME or a passwd entry)
  }
  return isAbsolute(base) ? join(base, 'lexroute', 'node-compile-cache') : undefined;
}
if (process.env.NODE_DISABLE_COMPILE_CACHE === undefined) {
  const folder = compileCacheFolder();
  const cache = folder === undefined ? undefined : module.enableCompileCache?.(folder);
  if (cache?.directory !== undefined) process.env.NODE_COMPILE_CACHE ??= cache.directory;
}
const { main } = await import((fromCheckout ? source : built).href);
await main();
