/**
 * A throwaway PostgreSQL server for tests: Debian's `postgresql` package
 * (`/usr/lib/postgresql/<version>/bin`, or LEXROUTE_PG_BIN), its own
 * `initdb` data directory in a temporary folder, listening only on a Unix
 * socket in that folder, run as `nobody` when the tests run as root
 * (PostgreSQL refuses root), and stopped (fast shutdown) afterwards.
 * Durability is off (fsync, synchronous_commit, full_page_writes): the data
 * lives as long as the test.
 *
 * Without PostgreSQL the tests that need it are skipped with the reason;
 * in CI (`CI=true`) a missing server is a failure (.ci/run installs it).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface TestPostgres {
  /** Folder of the Unix socket (the `host` of the URLs). */
  readonly socketDir: string;
  /** The postmaster's process id (its children are the sessions). */
  readonly pid: number | undefined;
  /** A URL for a new, empty database. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** The folder with `initdb` and `postgres`, or undefined. */
export function postgresBin(): string | undefined {
  const env = process.env.LEXROUTE_PG_BIN;
  if (env) return existsSync(join(env, 'postgres')) ? env : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** The bin folder, or the reason to skip (throws in CI). */
export function postgresOrSkip(): { bin: string | undefined; skipReason?: string } {
  const bin = postgresBin();
  if (bin) return { bin };
  if (process.env.CI) {
    throw new Error('PostgreSQL is required in CI (.ci/run installs the postgresql package)');
  }
  return { bin: undefined, skipReason: 'PostgreSQL not installed (Debian package postgresql)' };
}

const NOBODY = 65534;

export const PG_USER = 'lexroute';

export function pgUrl(socketDir: string, db: string): string {
  return `postgres://${PG_USER}@/${db}?host=${encodeURIComponent(socketDir)}`;
}

/**
 * initdb and start a server; resolves when it accepts connections.
 * `settings` adds or overrides server settings (`-c name=value`), e.g. a
 * bench's `shared_buffers`.
 */
export async function startPostgres(
  bin: string,
  settings: Readonly<Record<string, string>> = {},
): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'lexroute-pg-'));
  const asRoot = process.getuid?.() === 0;
  const ids = asRoot ? { uid: NOBODY, gid: NOBODY } : {};
  if (asRoot) chownSync(dir, NOBODY, NOBODY);
  const data = join(dir, 'data');
  execFileSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', PG_USER, '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync'],
    { ...ids, stdio: 'pipe', cwd: dir },
  );
  const server: ChildProcess = spawn(
    join(bin, 'postgres'),
    [
      '-D',
      data,
      '-k',
      dir,
      '-c',
      'listen_addresses=',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=60',
      '-c',
      'shared_buffers=32MB',
      ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    ],
    { ...ids, stdio: ['ignore', 'ignore', 'pipe'], cwd: dir },
  );
  let log = '';
  server.stderr?.on('data', (d: Buffer) => {
    log = (log + d.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const c = new pg.Client({ connectionString: pgUrl(dir, 'postgres') });
    try {
      await c.connect();
      await c.end();
      break;
    } catch (e) {
      await c.end().catch(() => undefined);
      if (server.exitCode !== null || Date.now() > deadline) {
        server.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`PostgreSQL did not start: ${(e as Error).message}\n${log}`, { cause: e });
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  let stopped = false;
  return {
    socketDir: dir,
    pid: server.pid,
    async createDatabase(name) {
      const c = new pg.Client({ connectionString: pgUrl(dir, 'postgres') });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${name}`);
      } finally {
        await c.end();
      }
      return pgUrl(dir, name);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      // SIGINT: fast shutdown (ends the sessions, no wait for clients).
      server.kill('SIGINT');
      const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
