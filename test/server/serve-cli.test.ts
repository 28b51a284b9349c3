/**
 * `lexroute serve` end to end, in-process: options and config validation,
 * reload on SIGHUP (a broken zone keeps its previous version, the swap is
 * whole), `--watch`, JSON logs, clean shutdown on abort (SIGTERM).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { captureIo, type CapturedIo, events } from '../helpers/io.ts';
import { query, SAMPLE_ZONES } from './harness.ts';
import { waitFor } from '../helpers/wait.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempZones(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-serve-'));
  dirs.push(dir);
  cpSync(SAMPLE_ZONES, dir, { recursive: true });
  return dir;
}

async function startServe(
  args: string[],
): Promise<{ io: CapturedIo; port: number; done: Promise<number> }> {
  const io = captureIo({ cwd: path.resolve(SAMPLE_ZONES, '..') });
  const done = run(['serve', '--listen', '127.0.0.1:0', '--log-format', 'json', ...args], io);
  const port = await waitFor('listening', () => {
    const e = events(io).find((x) => x.event === 'listening');
    return e ? (e.port as number) : undefined;
  });
  return { io, port, done };
}

function serial(a: string[]): number {
  return JSON.parse(a[0]!.split(' ').slice(3).join(' ')).serial as number;
}

describe('lexroute serve', () => {
  it('--help', async () => {
    const io = captureIo();
    expect(await run(['serve', '--help'], io)).toBe(0);
    expect(io.stdout()).toContain('Usage: lexroute serve');
  });

  it('usage errors exit 2', async () => {
    for (const argv of [
      ['--listen', 'nope'],
      ['--listen', '127.0.0.1:99999'],
      ['--log-level', 'loud'],
      ['extra'],
    ]) {
      const io = captureIo();
      expect(await run(['serve', ...argv], io)).toBe(2);
      expect(io.stderr()).toMatch(/lexroute serve: /);
    }
  });

  it('an invalid config file exits 1 naming the key and code', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-cfg-'));
    dirs.push(dir);
    const file = path.join(dir, 'server.json');
    writeFileSync(
      file,
      JSON.stringify({
        listen: ['127.0.0.1:0'],
        tcp: { maxConections: 5 },
        udp: { maxPayload: 100 },
      }),
    );
    const io = captureIo();
    expect(await run(['serve', '--config', file], io)).toBe(1);
    expect(io.stderr()).toContain('CONFIG_UNKNOWN_KEY');
    expect(io.stderr()).toContain('tcp.maxConections');
    expect(io.stderr()).toContain('CONFIG_BAD_NUMBER');
    writeFileSync(file, '{ nope');
    const io2 = captureIo();
    expect(await run(['serve', '--config', file], io2)).toBe(1);
    expect(io2.stderr()).toContain('CONFIG_BAD_JSON');
  });

  it('the documented default config is valid and is what no arguments mean', async () => {
    const { validateServerConfig, DEFAULT_SERVER_CONFIG } =
      await import('../../src/config/server.ts');
    const file = path.resolve(SAMPLE_ZONES, '../config/server.json');
    const v = validateServerConfig(JSON.parse(readFileSync(file, 'utf8')));
    expect(v.errors).toEqual([]);
    expect(v.config).toEqual(DEFAULT_SERVER_CONFIG);
  });

  it('serves, reloads on SIGHUP keeping the last good zone, shuts down on abort', async () => {
    const dir = tempZones();
    const { io, port, done } = await startServe(['--zones', dir]);
    const before = await query(port, 'udp', 'urn.arpa', 'SOA');
    expect(serial(before.answer)).toBe(2026112001);

    const file = path.join(dir, 'urn.arpa.zone');
    const good = readFileSync(file, 'utf8');
    // A broken edit: reported, the previous version keeps being served.
    writeFileSync(file, good.replace('2026112001', '2026112002') + 'bad line with ( unbalanced\n');
    io.reload();
    await waitFor('zone_rejected', () => events(io).find((e) => e.event === 'zone_rejected'));
    await waitFor('zones_reloaded', () => events(io).find((e) => e.event === 'zones_reloaded'));
    expect(serial((await query(port, 'udp', 'urn.arpa', 'SOA')).answer)).toBe(2026112001);
    expect((await query(port, 'tcp', 'lex.urn.arpa', 'NAPTR')).answer).toHaveLength(1);

    // A good edit: the new version is served.
    writeFileSync(file, good.replace('2026112001', '2026112003').replace('lex  86400', 'lex  600'));
    io.reload();
    await waitFor('new serial', async () => {
      const r = await query(port, 'udp', 'urn.arpa', 'SOA');
      return serial(r.answer) === 2026112003 ? r : undefined;
    });
    expect((await query(port, 'udp', 'lex.urn.arpa', 'NAPTR')).answer[0]).toMatch(
      /^lex\.urn\.arpa 600 NAPTR/,
    );

    io.abort();
    expect(await done).toBe(0);
    expect(events(io).map((e) => e.event)).toContain('stopped');
    for (const e of events(io)) expect(typeof e.time).toBe('string');
  });

  it('--watch reloads a changed zone file', async () => {
    const dir = tempZones();
    const { io, port, done } = await startServe(['--zones', dir, '--watch']);
    const file = path.join(dir, 'nic.it.zone');
    writeFileSync(file, readFileSync(file, 'utf8').replace('2026112001', '2026112009'));
    await waitFor('watched reload', async () => {
      const r = await query(port, 'udp', 'nic.it', 'SOA');
      return serial(r.answer) === 2026112009 ? r : undefined;
    });
    io.abort();
    expect(await done).toBe(0);
  });

  it('a port in use is a clear error, exit 1', async () => {
    const { io, port, done } = await startServe(['--zones', SAMPLE_ZONES]);
    const io2 = captureIo();
    expect(await run(['serve', '--listen', `127.0.0.1:${port}`, '--log-format', 'json'], io2)).toBe(
      1,
    );
    expect(io2.stderr()).toContain('PORT_IN_USE');
    io.abort();
    await done;
  });
});
