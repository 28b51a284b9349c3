/**
 * Regression (issue 31 item 14): `npx lexroute serve` left an orphan server
 * on SIGTERM. npm runs the bin through `sh -c`, dash does not pass the
 * signal on, the shell died and the server kept its port. bin/lexroute.js
 * now notices that its parent died and stops as on SIGTERM.
 *
 * Run as a user does: `npm exec` in the checkout (npx links the checkout),
 * SIGTERM to the npm process, then the server (found among npm's
 * descendants) must be gone and its port free.
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;

/** The pids whose parent is `pid`, from /proc. */
function children(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function descendants(pid: number): number[] {
  const kids = children(pid);
  return kids.concat(kids.flatMap(descendants));
}

/** Running (a zombie that init has not reaped yet counts as stopped). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** True when the UDP port can be bound again (the server let it go). */
function udpFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createSocket('udp4');
    s.once('error', () => resolve(false));
    s.bind(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

describe('npx lexroute serve under SIGTERM', () => {
  it('the server stops with npm: no orphan, the port is free', async () => {
    const npm = spawn(
      'npm',
      [
        'exec',
        '--offline',
        '--',
        'lexroute',
        'serve',
        '--listen',
        '127.0.0.1:0',
        '--zones',
        'zones',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let log = '';
    npm.stdout.on('data', (b: Buffer) => (log += b.toString()));
    npm.stderr.on('data', (b: Buffer) => (log += b.toString()));
    let server = 0;
    try {
      await until('the server to be ready', () => log.includes('"event":"ready"'), 60_000);
      const port = Number(/"event":"listening"[^\n]*"port":(\d+)/.exec(log)![1]);
      const tree = descendants(npm.pid!);
      server =
        tree.find(
          (p) => / serve --listen /.test(commandLine(p)) && commandLine(p).includes('node'),
        ) ?? 0;
      expect(server, `npm's descendants: ${tree.map(commandLine).join(' | ')}`).toBeGreaterThan(0);
      // The shape the issue describes: npm -> sh -c -> node (the bin).
      expect(tree.map(commandLine).some((c) => /^(\/bin\/)?sh -c /.test(c))).toBe(true);
      expect(await udpFree(port)).toBe(false);

      npm.kill('SIGTERM');
      await until('the server to stop', () => !alive(server));
      expect(await udpFree(port)).toBe(true);
      expect(log).not.toMatch(/"level":"error"/);
    } finally {
      if (server && alive(server)) process.kill(server, 'SIGKILL');
      if (npm.exitCode === null) npm.kill('SIGKILL');
    }
  }, 90_000);
});
