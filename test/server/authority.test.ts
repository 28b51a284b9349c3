/**
 * `startAuthority(config)` from `lexroute/server`: what `lexroute serve`
 * runs, started by a program: it serves the zones on 127.0.0.1, `reload()`
 * takes a changed file (and refuses a broken one, as `serve` does),
 * `status()` says what `ctl status` says, the control channel answers
 * `lexroute ctl`, and `close()` stops it all.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAuthority } from '../../src/authority/index.ts';
import { createLogger } from '../../src/authority/log.ts';
import { DEFAULT_SERVER_CONFIG } from '../../src/config/server.ts';
import { run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';
import { goodZone, ZONE_FILE } from '../helpers/broken-zones.ts';
import { query } from './harness.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-authority-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('startAuthority', () => {
  it('serves, reloads, refuses a broken file, reports its status, answers ctl and closes', async () => {
    const file = path.join(dir, ZONE_FILE);
    writeFileSync(file, goodZone('v1'));
    const logs: string[] = [];
    const control = path.join(dir, 'control.sock');
    const authority = await startAuthority(
      { ...DEFAULT_SERVER_CONFIG, listen: [{ host: '127.0.0.1', port: 0 }], zones: [dir] },
      { cwd: dir, log: createLogger((l) => void logs.push(l), 'info', 'json'), control },
    );
    try {
      const port = authority.server.udp[0]!.port;
      const txt = async () => (await query(port, 'udp', 'v.t.example', 'TXT')).answer.join();
      expect(await txt()).toContain('v1');
      const status = authority.status();
      expect(status.listen).toEqual([`127.0.0.1:${port}`]);
      expect(status.zones).toMatchObject([{ zone: 't.example.', serial: 1, lastResult: 'loaded' }]);

      writeFileSync(file, goodZone('v2').replace(' 1 3600', ' 2 3600'));
      expect(await authority.reload()).toMatchObject({ loaded: 1, failed: 0, zones: 1 });
      expect(await txt()).toContain('v2');

      // What zone check rejects: refused, the version served stays, status says why.
      writeFileSync(file, `${goodZone('v3')}n NAPTR 100 10 "" "" "!^(x!y!" .\n`);
      expect(await authority.reload()).toMatchObject({ loaded: 0, failed: 1, zones: 1 });
      expect(await txt()).toContain('v2');
      expect(logs.join('\n')).toMatch(/"event":"zone_rejected".*"code":"NAPTR_ERE_SYNTAX"/);
      const after = authority.status().zones[0]!;
      expect(after).toMatchObject({ serial: 2, lastResult: 'failed' });
      expect(after.lastError).toContain('NAPTR_ERE_SYNTAX');

      const io = captureIo({ cwd: dir });
      expect(await run(['ctl', '--control', control, '--json', 'status'], io)).toBe(0);
      const answer = JSON.parse(io.stdout()) as { ok: boolean; result: { zones: unknown[] } };
      expect(answer.ok).toBe(true);
      expect(answer.result.zones).toHaveLength(1);
    } finally {
      await authority.close();
    }
    await expect(
      query(authority.server.udp[0]!.port, 'udp', 'v.t.example', 'TXT'),
    ).rejects.toThrow();
  }, 30_000);
});
