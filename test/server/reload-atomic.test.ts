/**
 * Reload is atomic: while zones are swapped again and again, every answer
 * comes whole from the old or the new version (the NAPTR RRset and the SOA
 * serial of one response always agree), never REFUSED or a mix.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, SAMPLE_ZONES, startTestServer, type Harness } from './harness.ts';

let h: Harness;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-atomic-'));
  cpSync(SAMPLE_ZONES, dir, { recursive: true });
  h = await startTestServer([dir]);
});
afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('atomic reload', () => {
  it('queries during 20 reloads see one version or the other, whole', async () => {
    const file = path.join(dir, 'urn.arpa.zone');
    const base = readFileSync(file, 'utf8');
    const version = (v: number) =>
      base
        .replace('2026112001', String(2026112000 + v))
        .replace('lex  86400 IN NAPTR 100 10', `lex  86400 IN NAPTR ${100 + v} 10`);
    let stop = false;
    const seen = new Set<number>();
    const bad: string[] = [];
    const load = (async () => {
      while (!stop) {
        const r = await query(h.port, 'udp', 'lex.urn.arpa', 'NAPTR');
        if (r.rcode !== 0 || r.answer.length !== 1) bad.push(JSON.stringify(r.answer));
        else
          seen.add(
            Number(
              /NAPTR \{"order":(\d+)/.exec(r.answer[0]!)?.[1] ??
                /NAPTR (\d+)/.exec(r.answer[0]!)?.[1],
            ),
          );
      }
    })();
    for (let v = 1; v <= 20; v++) {
      writeFileSync(file, version(v));
      const report = await h.server.reload();
      expect(report.failed).toBe(0);
      const soa = await query(h.port, 'tcp', 'urn.arpa', 'SOA');
      expect(soa.answer[0]).toContain(`"serial":${2026112000 + v}`);
    }
    stop = true;
    await load;
    expect(bad).toEqual([]);
    expect(seen.size).toBeGreaterThan(1);
    for (const order of seen) expect(order === 100 || (order >= 101 && order <= 120)).toBe(true);
  });
});
