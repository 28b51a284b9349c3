/**
 * Zone transfers with `--workers 2`: both answering threads serve AXFR and
 * IXFR (the kernel spreads TCP connections over their SO_REUSEPORT
 * sockets), the second one from the IXFR history the main thread's reloads
 * send it. NSD, Knot and BIND pull the zone, then follow four changes in a
 * row (NOTIFY, IXFR each time); then sixteen connections at once ask AXFR
 * and IXFR from the first serial: every answer is whole, every IXFR is the
 * condensed difference (not the whole zone), and both threads took
 * connections.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG } from '../../src/config/server.ts';
import { createLogger } from '../../src/authority/log.ts';
import { startServer, type RunningServer } from '../../src/authority/server.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import type { Daemon } from '../e2e/daemons.ts';
import { freePort } from '../server/named.ts';
import { query } from '../server/harness.ts';
import { startAllSecondaries, stopAll } from './secondaries.ts';
import { xfr, xfrQuery } from './client.ts';

const nsd = toolOrSkip('nsd');
const knotd = toolOrSkip('knotd');
const named = toolOrSkip('named');
const skip = nsd.skipReason ?? knotd.skipReason ?? named.skipReason;

const ORIGIN = 'workers.xfr.test.';
const FIRST = 2026020101;

function zoneText(serial: number, version: number): string {
  const body = Array.from(
    { length: 200 },
    (_, i) => `unit${i} NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://127.0.0.1:8300/${i}/?\\\\1!" .`,
  );
  return `$ORIGIN ${ORIGIN}
$TTL 300
@ SOA ns1 hostmaster ${serial} 3600 600 86400 300
@ NS ns1
ns1 A 127.0.0.1
current TXT "v${version}"
${body.join('\n')}
`;
}

describe.skipIf(skip !== undefined)(
  `transfers with --workers 2 to NSD, Knot and BIND${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    let dir: string;
    let file: string;
    let server: RunningServer;
    const daemons: Daemon[] = [];
    let ports: number[] = [];
    let port: number;

    beforeAll(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-xfr-workers-'));
      file = path.join(dir, `${ORIGIN}zone`);
      writeFileSync(file, zoneText(FIRST, 0));
      ports = [await freePort(), await freePort(), await freePort()];
      const log = createLogger(() => undefined, 'warn', 'json');
      server = await startServer({
        config: {
          ...DEFAULT_SERVER_CONFIG,
          listen: [{ host: '127.0.0.1', port: 0 }],
          zones: [file],
          workers: 2,
          allowTransfer: ['127.0.0.1/32'],
          secondaries: ports.map((p) => ({ host: '127.0.0.1', port: p })),
          transfer: { ...DEFAULT_SERVER_CONFIG.transfer, notifyTimeoutMs: 250, notifyTries: 4 },
        },
        log,
        cwd: dir,
      });
      port = server.tcp[0]!.port;
      daemons.push(
        ...(await startAllSecondaries(
          { nsd: nsd.path!, knotd: knotd.path!, named: named.path! },
          ports,
          { host: '127.0.0.1', port },
          [ORIGIN],
        )),
      );
    }, 60_000);

    afterAll(() => stopAll(daemons, server, dir));

    it('four changes in a row: each secondary follows every one', async () => {
      for (let v = 1; v <= 4; v++) {
        writeFileSync(file, zoneText(FIRST + v, v));
        await server.reload();
        const t0 = performance.now();
        for (const [i, d] of daemons.entries()) {
          for (;;) {
            const r = await query(ports[i]!, 'udp', `current.${ORIGIN}`, 'TXT');
            if (r.answer[0]?.includes(`v${v}`)) break;
            if (performance.now() - t0 > 10_000)
              throw new Error(`${d.name} did not get version ${v}:\n${d.output()}`);
            await new Promise((r) => setTimeout(r, 25));
          }
        }
      }
    });

    it('sixteen transfers at once: all whole, each IXFR incremental, both threads took connections', async () => {
      const before = (await server.threads!.stats())[0]!.tcp[0]!.accepted;
      const beforeHere = server.tcp[0]!.stats.accepted;
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          xfr(port, i % 2 === 0 ? xfrQuery(ORIGIN, 'AXFR') : xfrQuery(ORIGIN, 'IXFR', FIRST + 1)),
        ),
      );
      for (const [i, r] of results.entries()) {
        expect(r.rcode, `transfer ${i}`).toBe(0);
        expect(r.complete, `transfer ${i}`).toBe(true);
        const soas = r.records
          .filter((a) => a.type === 'SOA')
          .map((a) => (a.data as { serial: number }).serial);
        if (i % 2 === 0) expect(soas).toEqual([FIRST + 4, FIRST + 4]);
        // Condensed from FIRST + 1 to FIRST + 4: current, old, new, current; one TXT out, one in.
        else {
          expect(soas, `IXFR ${i}`).toEqual([FIRST + 4, FIRST + 1, FIRST + 4, FIRST + 4]);
          expect(r.records.filter((a) => a.type === 'TXT')).toHaveLength(2);
        }
      }
      const other = (await server.threads!.stats())[0]!.tcp[0]!.accepted - before;
      const here = server.tcp[0]!.stats.accepted - beforeHere;
      expect(other, 'connections taken by the second thread').toBeGreaterThan(0);
      expect(here, 'connections taken by the first thread').toBeGreaterThan(0);
    });
  },
);
