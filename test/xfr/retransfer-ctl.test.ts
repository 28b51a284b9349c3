/**
 * `lexroute ctl retransfer ZONE [--force]` against a running `serve` with a
 * secondary zone (issue 31 item 2): the primary went back to an older
 * serial; a plain retransfer transfers it and refuses it
 * (XFR_SERIAL_OLDER, exit 1, the version served kept), `--force` installs
 * it (the operator's way back). A zone that is not a secondary here is
 * CTL_UNKNOWN_ZONE; `--force` with another command is a usage error.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { captureIo, type CapturedIo } from '../helpers/io.ts';
import { query } from '../server/harness.ts';
import { scriptedPrimary } from './endless.ts';

describe('lexroute ctl retransfer', () => {
  const serials = { soa: 5, xfr: 5 };
  let primary: net.Server;
  let io: CapturedIo;
  let done: Promise<number>;
  let dir: string;
  let sock: string;
  let port: number;

  const lines = () =>
    io
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const waitEvent = async (name: string) => {
    for (let i = 0; i < 400; i++) {
      const e = lines().find((x) => x.event === name);
      if (e) return e;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no ${name} event:\n${io.stderr()}`);
  };
  const ctl = async (...args: string[]) => {
    const c = captureIo();
    const code = await run(['ctl', '--control', sock, ...args], c);
    return { code, out: c.stdout(), err: c.stderr() };
  };
  const served = async () => {
    const r = await query(port, 'udp', 'older.test.', 'SOA');
    return Number(/"serial":(\d+)/.exec(r.answer[0] ?? '')?.[1]);
  };

  beforeAll(async () => {
    const p = await scriptedPrimary(serials);
    primary = p.server;
    dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-retransfer-'));
    sock = path.join(dir, 'control.sock');
    io = captureIo({ cwd: dir });
    done = run(
      [
        'serve',
        '--listen',
        '127.0.0.1:0',
        '--secondary',
        `older.test.=127.0.0.1:${p.port}`,
        '--state-dir',
        dir,
        '--control',
        sock,
        '--log-format',
        'json',
      ],
      io,
    );
    port = (await waitEvent('listening')).port as number;
    await waitEvent('control_listening');
    await waitEvent('xfr_in');
  });

  afterAll(async () => {
    io?.abort();
    await done;
    await new Promise((r) => primary?.close(r));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an older serial without --force, installs it with --force', async () => {
    expect(await served()).toBe(5);
    serials.soa = 4;
    serials.xfr = 4;
    const plain = await ctl('retransfer', 'older.test');
    expect(plain.code).toBe(1);
    expect(plain.err).toContain('XFR_SERIAL_OLDER');
    expect(await served()).toBe(5);
    const forced = await ctl('retransfer', 'older.test', '--force');
    expect(forced.code).toBe(0);
    expect(forced.out).toBe('older.test.: transferred, serving serial 4\n');
    expect(await served()).toBe(4);
  });

  it('a zone that is not a secondary here, and --force elsewhere, are refused', async () => {
    const r = await ctl('retransfer', 'other.test');
    expect(r.code).toBe(1);
    expect(r.err).toContain('CTL_UNKNOWN_ZONE');
    expect((await ctl('status', '--force')).code).toBe(2);
    expect((await ctl('retransfer')).code).toBe(2);
  });
});
