/**
 * Process handling, table-driven over every long-running command: `serve`,
 * `resolver` and `dev` run as real processes stop cleanly on SIGTERM and on
 * SIGINT (exit 0, their "stopped" line, their ports free, their temporary
 * folders gone); and `npm start` under a process manager: SIGTERM to the npm
 * process stops `lexroute dev` too (npm forwards the signal to the command,
 * which `exec` makes the node process itself rather than a shell that would
 * die alone and leave the chain running).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { which } from '../helpers/tools.ts';
import { REPO } from './helpers.ts';

const BIN = path.join(REPO, 'bin', 'lexroute.js');

interface Started {
  readonly child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function start(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Started {
  const child = spawn(command, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (b: Buffer) => (text += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (text += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { child, output: () => text, exited };
}

async function waitFor(what: string, test: () => boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!test()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** True when nothing listens on 127.0.0.1:port over TCP any more. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

let scratch: string;
let catalogue: string;
beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'lexroute-signals-'));
  catalogue = path.join(scratch, 'catalogue.sqlite');
  const imp = start(
    process.execPath,
    [BIN, 'catalogue', 'import', 'data/sample-catalogue.jsonl', '--catalogue', catalogue],
    process.env,
  );
  expect(await imp.exited).toBe(0);
}, 60_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const COMMANDS = [
  {
    name: 'serve',
    args: () => ['serve', '--zones', 'zones', '--listen', '127.0.0.1:0', '--log-format', 'json'],
    ready: /"event":"ready".*"listen":\["127\.0\.0\.1:(\d+)"/,
    stopped: /"event":"stopped"/,
  },
  {
    name: 'resolver',
    args: () => ['resolver', '--listen', '127.0.0.1:0', '--catalogue', catalogue],
    ready: /listening.*http:\/\/127\.0\.0\.1:(\d+)/,
    stopped: /stopped/,
  },
  {
    name: 'dev',
    args: () => ['dev', '--dns-port', '0', '--http-port', '0', '--quiet'],
    ready: /dig @127\.0\.0\.1 -p (\d+)/,
    stopped: /lexroute dev: stopped/,
  },
] as const;

describe.each(COMMANDS)('lexroute $name as a process', (c) => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s stops it cleanly: exit 0, stopped, port free, no temporary folder left',
    async (signal) => {
      const tmp = mkdtempSync(path.join(scratch, 'tmp-'));
      const p = start(process.execPath, [BIN, ...c.args()], { ...process.env, TMPDIR: tmp });
      await waitFor(`${c.name} ready`, () => c.ready.test(p.output()));
      const port = Number(c.ready.exec(p.output())![1]);
      expect(await portFree(port)).toBe(false);
      p.child.kill(signal);
      const code = await Promise.race([
        p.exited,
        new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000)),
      ]);
      if (code === 'hung') p.child.kill('SIGKILL');
      expect(code, p.output()).toBe(0);
      expect(p.output()).toMatch(c.stopped);
      expect(await portFree(port)).toBe(true);
      expect(readdirSync(tmp)).toEqual([]);
    },
    40_000,
  );
});

const npm = which('npm');

describe.skipIf(npm === undefined)('npm start under a process manager', () => {
  it('SIGTERM to the npm process stops lexroute dev: ports free, temporary folders removed', async () => {
    const tmp = mkdtempSync(path.join(scratch, 'npm-'));
    const p = start(npm!, ['start', '--', '--dns-port', '0', '--http-port', '0', '--quiet'], {
      ...process.env,
      TMPDIR: tmp,
      // npm puts node_modules/.bin first: the pinned Node 24 runs the command.
      npm_config_update_notifier: 'false',
    });
    const ready = /dig @127\.0\.0\.1 -p (\d+)/;
    await waitFor('npm start ready', () => ready.test(p.output()), 30_000);
    const port = Number(ready.exec(p.output())![1]);
    const http = Number(/curl -i 'http:\/\/127\.0\.0\.1:(\d+)\//.exec(p.output())![1]);
    const ours = () => readdirSync(tmp).filter((f) => f.startsWith('lexroute-dev-'));
    expect(ours().length).toBeGreaterThan(0); // the rewritten zones, the catalogue
    p.child.kill('SIGTERM'); // the npm process, as a process manager does
    const code = await Promise.race([
      p.exited,
      new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000)),
    ]);
    expect(code, p.output()).not.toBe('hung');
    await waitFor('lexroute dev to stop', () => p.output().includes('lexroute dev: stopped'));
    expect(await portFree(port)).toBe(true);
    expect(await portFree(http)).toBe(true);
    await waitFor('temporary folders removed', () => ours().length === 0, 5_000);
  }, 60_000);
});
