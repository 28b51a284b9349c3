/**
 * The systemd unit (`contrib/systemd/lexroute.service`) and the production
 * configuration it installs (`config/production.json`), issue 16:
 * `systemd-analyze verify` accepts the unit (with ExecStart pointed at this
 * checkout's command), `systemd-analyze security` rates its exposure low, the
 * configuration validates, and `serve` reports readiness to systemd only
 * after its zones are loaded and it listens (through `systemd-notify`, here
 * a stand-in on PATH that records its arguments).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateServerConfig } from '../../src/config/server.ts';
import { toolOrSkip } from '../helpers/tools.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/lexroute.js');
const UNIT = readFileSync(join(ROOT, 'contrib/systemd/lexroute.service'), 'utf8');
const analyze = toolOrSkip('systemd-analyze');
const dir = mkdtempSync(join(tmpdir(), 'lexroute-systemd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The unit with its ExecStart on this checkout's command. */
function localUnit(): string {
  const file = join(dir, 'lexroute.service');
  writeFileSync(file, UNIT.replace('/usr/local/bin/lexroute', BIN));
  return file;
}

describe('systemd unit', () => {
  it('has the hardening the issue asks for', () => {
    for (const line of [
      'DynamicUser=yes',
      'AmbientCapabilities=CAP_NET_BIND_SERVICE',
      'CapabilityBoundingSet=CAP_NET_BIND_SERVICE',
      'ProtectSystem=strict',
      'NoNewPrivileges=yes',
      'ReadOnlyPaths=/etc/lexroute',
      'ReadWritePaths=/var/lib/lexroute',
      'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
      'SystemCallFilter=@system-service',
      'ExecReload=/bin/kill -HUP $MAINPID',
      'Type=notify',
    ])
      expect(UNIT.split('\n')).toContain(line);
    expect(UNIT).toMatch(/^MemoryMax=\S+$/m);
    expect(UNIT).toMatch(/^LimitNOFILE=\d+$/m);
  });

  it.skipIf(analyze.skipReason)('systemd-analyze verify accepts it', () => {
    const r = spawnSync(analyze.path!, ['verify', localUnit()], { encoding: 'utf8' });
    expect(r.stderr.trim()).toBe('');
    expect(r.status).toBe(0);
  });

  it.skipIf(analyze.skipReason)('systemd-analyze security rates its exposure 2.5 or lower', () => {
    const r = spawnSync(analyze.path!, ['security', '--offline=yes', localUnit()], {
      encoding: 'utf8',
    });
    const m = /Overall exposure level for lexroute\.service: ([0-9.]+)/.exec(r.stdout);
    expect(m, r.stdout + r.stderr).not.toBeNull();
    expect(Number(m![1])).toBeLessThanOrEqual(2.5);
  });

  it('the production configuration validates', () => {
    const raw: unknown = JSON.parse(readFileSync(join(ROOT, 'config/production.json'), 'utf8'));
    const v = validateServerConfig(raw);
    expect(v.errors).toEqual([]);
    expect(v.config.workers).toBe(0);
    expect(v.config.rrl.responsesPerSecond).toBeGreaterThan(0);
    expect(UNIT).toContain('--config /etc/lexroute/server.json');
  });

  it('serve notifies readiness only once zones are loaded and it listens', async () => {
    const fake = join(dir, 'bin');
    spawnSync('mkdir', ['-p', fake]);
    const record = join(dir, 'notify.log');
    writeFileSync(
      join(fake, 'systemd-notify'),
      `#!/bin/sh\necho "$NOTIFY_SOCKET $*" >> '${record}'\n`,
    );
    chmodSync(join(fake, 'systemd-notify'), 0o755);
    const zones = join(dir, 'zones');
    spawnSync('mkdir', ['-p', zones]);
    writeFileSync(
      join(zones, 'notify.test.zone'),
      '$TTL 60\n@ IN SOA ns host 1 3600 600 86400 60\n@ IN NS ns\nns IN A 192.0.2.1\n',
    );
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--zones', zones, '--listen', '127.0.0.1:0', '--log-format', 'json'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: {
          ...process.env,
          NOTIFY_SOCKET: '/run/test-notify',
          PATH: `${fake}:${process.env.PATH}`,
        },
      },
    );
    let logs = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => void (logs += d));
    for (let t = 0; t < 30_000 && !existsSync(record); t += 50)
      await new Promise((r) => setTimeout(r, 50));
    // By the time systemd hears READY=1, the zones were loaded and the sockets opened.
    expect(logs).toContain('"event":"zone_loaded"');
    expect(logs).toContain('"event":"listening"');
    expect(logs).toContain('"event":"ready"');
    const exited = new Promise((r) => child.on('exit', r));
    child.kill('SIGTERM');
    await exited;
    const lines = readFileSync(record, 'utf8').trim().split('\n');
    expect(lines[0]).toMatch(/^\/run\/test-notify --ready --status=serving 1 zone\(s\) --pid=\d+$/);
    expect(lines[1]).toMatch(/^\/run\/test-notify STOPPING=1 --pid=\d+$/);
  }, 40_000);
});
