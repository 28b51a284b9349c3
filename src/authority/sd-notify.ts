/**
 * systemd readiness (`Type=notify`): READY=1 once zones are loaded and every
 * worker listens, STOPPING=1 at stop, through `systemd-notify` (Node has no
 * Unix datagram socket; the unit sets `NotifyAccess=all`).
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
