/**
 * `zoneFiles.loadNice`: the nice value of the thread that loads zones
 * (issue 20: 0 loads at the answering threads' priority; 10 leaves them the
 * CPU first, at the cost of a longer reload on a busy machine). The default
 * is 0; the value reaches the load thread (read
 * back from /proc on Linux); out-of-range values are refused with their path.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateServerConfig } from '../../src/config/server.ts';
import { BackgroundZoneLoader } from '../../src/authority/zones/background.ts';

/** The nice values of this process's threads (Linux; empty elsewhere). */
function threadNices(): number[] {
  try {
    return readdirSync('/proc/self/task').map((tid) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Field 19 (nice), counted after the command name's closing parenthesis.
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    });
  } catch {
    return [];
  }
}

const ZONE = '$TTL 300\n@ IN SOA ns host 1 3600 600 86400 300\n@ IN NS ns\nns IN A 192.0.2.1\n';

describe('zoneFiles.loadNice', () => {
  it('defaults to 0 and takes 0 to 19', () => {
    expect(validateServerConfig({}).config.zoneFiles.loadNice).toBe(0);
    for (const nice of [0, 19]) {
      const { config, errors } = validateServerConfig({ zoneFiles: { loadNice: nice } });
      expect(errors).toEqual([]);
      expect(config.zoneFiles.loadNice).toBe(nice);
    }
  });

  it('refuses negative, fractional and out-of-range values with the key named', () => {
    for (const bad of [-1, 1.5, 20, '10']) {
      const { errors } = validateServerConfig({ zoneFiles: { loadNice: bad } });
      expect(errors.map((e) => e.path)).toEqual(['zoneFiles.loadNice']);
    }
  });

  it.runIf(process.platform === 'linux')('runs the load thread at the value given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lexroute-load-nice-'));
    const file = join(dir, 'nice.test.zone');
    writeFileSync(file, ZONE);
    const before = threadNices().filter((n) => n === 7).length;
    const bg = new BackgroundZoneLoader({ nice: 7 });
    try {
      const r = await bg.load(file, 'nice.test.');
      expect(r.zone?.origin).toBe('nice.test.');
      // The load thread keeps the value it loaded at until its next load (threads it
      // started meanwhile, such as libuv's pool on its first file read, inherit it).
      expect(threadNices().filter((n) => n === 7).length).toBeGreaterThan(before);
    } finally {
      await bg.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
