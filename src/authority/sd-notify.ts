/**
 * Readiness for systemd (`Type=notify`): when the service manager set
 * `NOTIFY_SOCKET`, `serve` reports READY=1 once its zones are loaded and
 * every worker listens, and STOPPING=1 when it begins to stop. Node has no
 * Unix datagram socket, so the message goes through `systemd-notify` (the
 * unit sets `NotifyAccess=all` for that child). Outside systemd, nothing.
 */
import { spawn } from 'node:child_process';
import type { Logger } from './log.ts';

export function sdNotify(
  env: Readonly<Record<string, string | undefined>>,
  log: Logger,
  args: readonly string[],
): Promise<void> {
  if (!env.NOTIFY_SOCKET) return Promise.resolve();
  return new Promise((resolve) => {
    const child = spawn('systemd-notify', [...args, `--pid=${process.pid}`], {
      stdio: 'ignore',
      env: { ...process.env, ...env } as NodeJS.ProcessEnv,
    });
    child.on('error', (e) => {
      log.warn('sd_notify_failed', { error: e.message });
      resolve();
    });
    child.on('exit', (code) => {
      if (code !== 0) log.warn('sd_notify_failed', { exitCode: code });
      resolve();
    });
  });
}
