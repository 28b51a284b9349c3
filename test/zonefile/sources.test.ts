/**
 * One zone source module (issue 19, issue 20): `zone check DIR` and
 * `serve --zones DIR` find the same zone files in a folder and give them the
 * same origins, for `*.zone`, `*.db`, `db.*` and other names; names that do
 * not spell a domain name, files that name another zone, and a server with
 * nothing to serve are reported.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { fileNameOrigin, parseZoneSourceArg } from '../../src/authority/zones/sources.ts';
import { loadZoneFile } from '../../src/authority/zones/load.ts';
import { captureIo, type CapturedIo } from '../helpers/io.ts';

function zone(origin: string, extra = ''): string {
  return `$TTL 3600
${origin} IN SOA ns.${origin} host.${origin} 1 3600 600 86400 300
${origin} IN NS ns.${origin}
ns.${origin} IN A 192.0.2.1
${extra}`;
}

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'lexroute-sources-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** Start `lexroute serve` in-process; resolves with the `ready` (or failure) log line and the io. */
async function serve(args: string[]): Promise<{ io: CapturedIo; code: Promise<number> }> {
  const io = captureIo();
  const code = run(['serve', '--listen', '127.0.0.1:0', '--log-format', 'json', ...args], io);
  for (let i = 0; i < 200; i++) {
    if (/"event":"(ready|start_failed)"/.test(io.stderr())) break;
    await Promise.race([code, new Promise((r) => setTimeout(r, 25))]);
  }
  return { io, code };
}

function logLines(io: CapturedIo): Record<string, unknown>[] {
  return io
    .stderr()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('zone file names and origins (one rule)', () => {
  it.each([
    ['example.com.zone', 'example.com.'],
    ['example.com.db', 'example.com.'],
    ['db.example.com', 'example.com.'],
    ['DB.Example.COM', 'Example.COM.'],
    ['..zone', '.'],
    ['lex.urn.arpa..zone', 'lex.urn.arpa.'],
  ])('%s gives %s', (name, origin) => {
    expect(fileNameOrigin(`/x/${name}`)).toEqual({ origin });
  });
  it.each([['@.zone'], ['a b.zone'], ['x..y.zone'], ['%41.db']])(
    '%s does not spell a domain name',
    (name) => {
      expect(fileNameOrigin(`/x/${name}`)).toHaveProperty('unusable');
    },
  );
  it('other names give no origin', () => {
    expect(fileNameOrigin('/x/routes.txt')).toBeUndefined();
  });
  it('--zones ORIGIN=FILE', () => {
    expect(parseZoneSourceArg('example.=routes.txt')).toEqual({
      path: 'routes.txt',
      origin: 'example.',
    });
    expect(parseZoneSourceArg('zones/a=b.zone')).toEqual({ path: 'zones/a=b.zone' });
  });
});

describe('zone check DIR and serve --zones DIR agree', () => {
  it('on the zones and origins of *.zone, *.db, db.* (other names are not zone files)', async () => {
    const dir = folder({
      'a.example.zone': zone('a.example.'),
      'b.example.db': zone('b.example.'),
      'db.c.example': zone('c.example.'),
      'routes.txt': zone('d.example.'),
      'README.md': '# not a zone\n',
    });
    const check = captureIo();
    expect(await run(['zone', 'check', '--json', dir], check)).toBe(0);
    const report = JSON.parse(check.stdout()) as { files: { origin: string; loaded: boolean }[] };
    const checked = report.files.filter((f) => f.loaded).map((f) => f.origin);
    expect(checked.sort()).toEqual(['a.example.', 'b.example.', 'c.example.']);

    const s = await serve(['--zones', dir]);
    const ready = logLines(s.io).find((l) => l.event === 'ready');
    s.io.abort();
    expect(await s.code).toBe(0);
    expect((ready?.zones as string[]).sort()).toEqual(checked.sort());
  });

  it('past 100 zones, the ready line names the first 100 and counts them all (one line journald keeps whole)', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 150; i++) files[`z${i}.example.zone`] = zone(`z${i}.example.`);
    const s = await serve(['--zones', folder(files)]);
    const ready = logLines(s.io).find((l) => l.event === 'ready');
    s.io.abort();
    expect(await s.code).toBe(0);
    expect(ready).toMatchObject({ zoneCount: 150, zonesNotNamed: 50 });
    const named = ready?.zones as string[];
    expect(named).toHaveLength(100);
    expect(new Set(named).size).toBe(100);
    expect(named.every((z) => /^z\d+\.example\.$/.test(z))).toBe(true);
  });

  it('on a file of another name: its origin from $ORIGIN or the SOA, or given explicitly', async () => {
    const dir = folder({ 'routes.txt': zone('d.example.'), 'plain.txt': zone('@', '') });
    const check = captureIo();
    expect(await run(['zone', 'check', '--json', join(dir, 'routes.txt')], check)).toBe(0);
    const origin = (JSON.parse(check.stdout()) as { files: { origin: string }[] }).files[0]!.origin;
    expect(origin).toBe('d.example.');
    const s = await serve(['--zones', join(dir, 'routes.txt')]);
    const ready = logLines(s.io).find((l) => l.event === 'ready');
    s.io.abort();
    await s.code;
    expect(ready?.zones).toEqual([origin]);

    // An explicit origin for a file whose records are relative.
    const explicit = await serve(['--zones', `e.example.=${join(dir, 'plain.txt')}`]);
    const ready2 = logLines(explicit.io).find((l) => l.event === 'ready');
    explicit.io.abort();
    await explicit.code;
    expect(ready2?.zones).toEqual(['e.example.']);
    const check2 = captureIo();
    expect(
      await run(
        ['zone', 'check', '--json', '--origin', 'e.example.', join(dir, 'plain.txt')],
        check2,
      ),
    ).toBe(0);
  });

  it('on a file name that is not a domain name (@.zone): the origin from the content, said so', async () => {
    const dir = folder({ '@.zone': zone('f.example.') });
    const r = await loadZoneFile(join(dir, '@.zone'));
    expect(r.origin).toBe('f.example.');
    expect(r.zone?.origin).toBe('f.example.');
    expect(r.diagnostics.map((d) => d.code)).toContain('ZONE_FILE_NAME_NOT_ORIGIN');
    const s = await serve(['--zones', dir]);
    const ready = logLines(s.io).find((l) => l.event === 'ready');
    s.io.abort();
    await s.code;
    expect(ready?.zones).toEqual(['f.example.']);
  });

  it('a file name with no usable name and no origin inside: ZONE_NO_ORIGIN names the file', async () => {
    const dir = folder({ '@.zone': 'www 3600 IN A 192.0.2.1\n' });
    const r = await loadZoneFile(join(dir, '@.zone'));
    const d = r.diagnostics.filter((x) => x.code === 'ZONE_NO_ORIGIN');
    expect(d.some((x) => x.message.includes('@.zone'))).toBe(true);
    expect(r.zone).toBeUndefined();
  });
});

describe('a file that names another zone than its file name', () => {
  it('is an error naming both origins, in zone check and serve alike', async () => {
    const dir = folder({ 'g.example.zone': zone('h.example.') });
    const r = await loadZoneFile(join(dir, 'g.example.zone'));
    const d = r.diagnostics.find((x) => x.code === 'ZONE_ORIGIN_MISMATCH');
    expect(d?.severity).toBe('error');
    expect(d?.message).toContain('g.example.');
    expect(d?.message).toContain('h.example.');
    const check = captureIo();
    expect(await run(['zone', 'check', dir], check)).toBe(1);
    expect(check.stdout()).toContain('ZONE_ORIGIN_MISMATCH');
    // Named explicitly, the same file loads.
    const ok = await loadZoneFile(join(dir, 'g.example.zone'), { origin: 'h.example.' });
    expect(ok.zone?.origin).toBe('h.example.');
  });
});

describe('serve refuses to run with nothing to do', () => {
  it('--zones /nonexistent fails at start with a clear message', async () => {
    const s = await serve(['--zones', '/nonexistent/lexroute-zones']);
    expect(await s.code).toBe(1);
    const failed = logLines(s.io).find((l) => l.event === 'start_failed');
    expect(failed?.code).toBe('SERVER_NO_ZONES');
    expect(String(failed?.error)).toContain('--allow-empty');
  });
  it('a folder whose only zone fails to load fails at start', async () => {
    const dir = folder({ 'bad.example.zone': 'this is not a zone\n' });
    const s = await serve(['--zones', dir]);
    expect(await s.code).toBe(1);
    expect(logLines(s.io).find((l) => l.event === 'start_failed')?.code).toBe('SERVER_NO_ZONES');
  });
  it('--allow-empty starts anyway (REFUSED for every query)', async () => {
    const s = await serve(['--zones', '/nonexistent/lexroute-zones', '--allow-empty']);
    const lines = logLines(s.io);
    expect(lines.some((l) => l.event === 'ready')).toBe(true);
    expect(lines.some((l) => l.event === 'no_zones')).toBe(true);
    s.io.abort();
    expect(await s.code).toBe(0);
  });
});
