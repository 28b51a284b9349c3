/**
 * Issue 21 items 1-3 and 10 (zone sources): a FIFO among the zone sources or
 * as `$INCLUDE` must not hang `serve` or `zone check`, `$INCLUDE /dev/zero`
 * must not read without limit, one long entry must not cost quadratic time
 * (and has a limit), `zone check` must not print raw control bytes. The
 * process cases run as child processes under a memory limit (prlimit
 * --data) and a timeout.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { loadZoneFile, loadZoneText } from '../../src/authority/zones/load.ts';
import { parseZoneChunks, parseZoneText } from '../../src/dns/core/zone/parser.ts';
import { toolOrSkip } from '../helpers/tools.ts';

const BIN = resolve(import.meta.dirname, '../../bin/lexroute.js');
const ZONE = `$TTL 3600
@ IN SOA ns host 1 3600 600 86400 300
@ IN NS ns
ns IN A 192.0.2.1
`;

function folder(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'lexroute-hostile-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

const PRLIMIT = toolOrSkip('prlimit');

/** Run the CLI in a child process with at most 1 GiB of data memory and a 30 s timeout. */
function bounded(args: string[]) {
  const r = spawnSync(PRLIMIT.path!, [`--data=${1 << 30}`, process.execPath, BIN, ...args], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

describe('only regular files are read', () => {
  it('a FIFO named as a zone file is refused at once (no writer needed)', async () => {
    const dir = folder();
    mkfifo(join(dir, 'evil.test.zone'));
    const r = await loadZoneFile(join(dir, 'evil.test.zone'));
    expect(r.zone).toBeUndefined();
    expect(r.diagnostics[0]?.code).toBe('ZONE_NOT_REGULAR_FILE');
  });

  it('$INCLUDE of a FIFO in the zone directory is refused', async () => {
    const dir = folder({ 'fifo.test.zone': `${ZONE}$INCLUDE pipe\n` });
    mkfifo(join(dir, 'pipe'));
    const r = await loadZoneFile(join(dir, 'fifo.test.zone'));
    expect(r.diagnostics.map((d) => d.code)).toContain('ZONE_NOT_REGULAR_FILE');
  });

  it('$INCLUDE /dev/zero is outside the zone directory, and a device when /dev is allowed', async () => {
    const dir = folder({ 'zero.test.zone': `${ZONE}$INCLUDE /dev/zero\n` });
    const r = await loadZoneFile(join(dir, 'zero.test.zone'));
    expect(r.diagnostics.map((d) => d.code)).toContain('ZONE_INCLUDE_OUTSIDE');
    const allowed = await loadZoneFile(join(dir, 'zero.test.zone'), { includeDirs: ['/dev'] });
    expect(allowed.diagnostics.map((d) => d.code)).toContain('ZONE_NOT_REGULAR_FILE');
  });

  it('$INCLUDE .. is confined too, and an allowed directory works', async () => {
    const outside = folder({ 'part.inc': 'www 3600 IN A 192.0.2.2\n' });
    const dir = folder({ 'inc.test.zone': `${ZONE}$INCLUDE ${join(outside, 'part.inc')}\n` });
    const r = await loadZoneFile(join(dir, 'inc.test.zone'));
    expect(r.diagnostics.map((d) => d.code)).toContain('ZONE_INCLUDE_OUTSIDE');
    const ok = await loadZoneFile(join(dir, 'inc.test.zone'), { includeDirs: [outside] });
    expect(ok.zone?.nodes.has('www.inc.test.')).toBe(true);
  });

  it('the size limit counts the zone file and its $INCLUDEs', async () => {
    const dir = folder({
      'big.test.zone': `${ZONE}$INCLUDE part\n`,
      part: `www 3600 IN TXT "${'x'.repeat(200)}"\n`,
    });
    const ok = await loadZoneFile(join(dir, 'big.test.zone'), { maxBytes: 1000 });
    expect(ok.zone).toBeDefined();
    const r = await loadZoneFile(join(dir, 'big.test.zone'), { maxBytes: 200 });
    expect(r.diagnostics.map((d) => d.code)).toContain('ZONE_FILE_TOO_LARGE');
    const inc = await loadZoneFile(join(dir, 'big.test.zone'), { maxBytes: 250 });
    expect(inc.diagnostics.map((d) => d.code)).toContain('ZONE_FILE_TOO_LARGE');
  });

  it('loadZoneText does not follow $INCLUDE unless asked', () => {
    const r = loadZoneText(`${ZONE}$INCLUDE /etc/hostname\n`, 'x.test.zone');
    expect(r.diagnostics.map((d) => d.code)).toContain('ZONE_INCLUDE_DISABLED');
  });
});

describe.skipIf(PRLIMIT.skipReason !== undefined)(
  'zone check under a memory limit and a timeout',
  () => {
    it('a FIFO in a checked folder: reported, no hang', () => {
      const dir = folder({ 'good.test.zone': ZONE });
      mkfifo(join(dir, 'evil.test.zone'));
      const r = bounded(['zone', 'check', dir]);
      expect(r.signal).toBeNull();
      expect(r.status).toBe(1);
      expect(r.out).toContain('ZONE_NOT_REGULAR_FILE');
    });
    it('$INCLUDE /dev/zero and $INCLUDE of a FIFO: reported, bounded', () => {
      const dir = folder({ 'zero.test.zone': `${ZONE}$INCLUDE /dev/zero\n$INCLUDE pipe\n` });
      mkfifo(join(dir, 'pipe'));
      const r = bounded(['zone', 'check', join(dir, 'zero.test.zone')]);
      expect(r.signal).toBeNull();
      expect(r.status).toBe(1);
      expect(r.out).toContain('ZONE_INCLUDE_OUTSIDE');
      expect(r.out).toContain('ZONE_NOT_REGULAR_FILE');
    });
    it('an 8 MB one-line comment: ZONE_ENTRY_TOO_LONG, bounded', () => {
      const dir = folder({ 'long.test.zone': `${ZONE};${'x'.repeat(8 << 20)}\n` });
      const r = bounded(['zone', 'check', join(dir, 'long.test.zone')]);
      expect(r.signal).toBeNull();
      expect(r.status).toBe(1);
      expect(r.out).toContain('ZONE_ENTRY_TOO_LONG');
    });
    it('control bytes of an unknown directive are printed escaped', () => {
      const dir = folder({ 'esc.test.zone': `${ZONE}$EVIL\x1b[2J\x07 x\n` });
      const r = bounded(['zone', 'check', join(dir, 'esc.test.zone')]);
      expect(r.status).toBe(1);
      expect(r.out).toContain('ZONE_UNKNOWN_DIRECTIVE');
      expect(r.out).toContain('\\027[2J\\007');
      expect(r.out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    });
  },
);

describe('one long entry', () => {
  it('over the limit stops the parse with ZONE_ENTRY_TOO_LONG; under it, the entry is read', async () => {
    const dir = folder({
      'c.test.zone': `${ZONE};${'c'.repeat(3 << 20)}\nwww 3600 IN A 192.0.2.9\n`,
    });
    const r = await loadZoneFile(join(dir, 'c.test.zone'));
    expect(r.diagnostics.map((d) => d.code)).toContain('ZONE_ENTRY_TOO_LONG');
    expect(r.zone).toBeUndefined();
    const ok = await loadZoneFile(join(dir, 'c.test.zone'), { maxEntryChars: 4 << 20 });
    expect(ok.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(ok.zone?.nodes.has('www.c.test.')).toBe(true);
  });
  it('parsed in pieces of any size gives what the whole text gives', () => {
    const txt = `${ZONE}long 3600 IN TXT ( ${'"abc" '.repeat(20000)})\n; ${'z'.repeat(100000)}\nb 3600 IN A 192.0.2.3\n`;
    const whole = parseZoneText(txt, { origin: 'p.test.' });
    for (const size of [1, 7, 4096, 65536]) {
      const pieces: string[] = [];
      for (let i = 0; i < txt.length; i += size) pieces.push(txt.slice(i, i + size));
      const cut = parseZoneChunks(pieces, { origin: 'p.test.' });
      expect(cut.diagnostics).toEqual(whole.diagnostics);
      expect(cut.records.map((r) => [r.owner, r.type, r.ttl, [...r.rdata]])).toEqual(
        whole.records.map((r) => [r.owner, r.type, r.ttl, [...r.rdata]]),
      );
    }
  });
});

/** Query the server over UDP; resolves with the rcode or undefined after `ms`. */
function probe(port: number, name: string, ms = 1000): Promise<number | undefined> {
  return new Promise((done) => {
    const s = dgram.createSocket('udp4');
    const t = setTimeout(() => {
      s.close();
      done(undefined);
    }, ms);
    s.on('message', (m) => {
      clearTimeout(t);
      s.close();
      done(m.readUInt16BE(2) & 0xf);
    });
    s.send(
      dnsPacket.encode({ type: 'query', id: 1, questions: [{ type: 'A', name }] }),
      port,
      '127.0.0.1',
    );
  });
}

describe.skipIf(PRLIMIT.skipReason !== undefined)(
  'serve with a FIFO among its zone sources (real signals)',
  () => {
    it('SIGHUP after mkfifo: answers go on, the FIFO is refused, SIGTERM stops it', async () => {
      const dir = folder({ 'good.test.zone': ZONE });
      const child = spawn(
        PRLIMIT.path!,
        [
          `--data=${2 ** 31}`, // a worker thread reserves virtual memory of its own
          process.execPath,
          BIN,
          'serve',
          '--zones',
          dir,
          '--listen',
          '127.0.0.1:0',
          '--log-format',
          'json',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let logs = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (d: string) => void (logs += d));
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      try {
        const wait = async (re: RegExp) => {
          for (let i = 0; i < 300 && !re.test(logs); i++)
            await new Promise((r) => setTimeout(r, 20));
          return re.test(logs);
        };
        expect(await wait(/"event":"listening"/)).toBe(true);
        const port = Number(/"event":"listening"[^\n]*"port":(\d+)/.exec(logs)![1]);
        expect(await probe(port, 'ns.good.test')).toBe(0);
        mkfifo(join(dir, 'evil.test.zone'));
        child.kill('SIGHUP');
        expect(await wait(/"event":"zones_reloaded"/)).toBe(true);
        expect(logs).toContain('ZONE_NOT_REGULAR_FILE');
        expect(await probe(port, 'ns.good.test')).toBe(0);
        child.kill('SIGTERM');
        const code = await Promise.race([
          exited,
          new Promise((r) => setTimeout(() => r('timeout'), 5000)),
        ]);
        expect(code).toBe(0);
      } finally {
        child.kill('SIGKILL');
      }
    });
  },
);
