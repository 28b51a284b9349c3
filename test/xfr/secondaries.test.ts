/**
 * lexroute as the primary of real secondaries (RFC 5936 AXFR, RFC 1996
 * NOTIFY, RFC 1995 IXFR): NSD, Knot and BIND, each started as a secondary of
 * `startServer` on loopback ports, pull the zone by AXFR at start; a change
 * to the zone file and a reload send NOTIFY, each secondary then transfers
 * by IXFR (lexroute's xfr_out events say IXFR:incremental, one per peer) and
 * answers the new record.
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

const nsd = toolOrSkip('nsd');
const knotd = toolOrSkip('knotd');
const named = toolOrSkip('named');
const skip = nsd.skipReason ?? knotd.skipReason ?? named.skipReason;

const ORIGIN = 'lex.xfr.test.';

export function zoneText(serial: number, extra = ''): string {
  return `$ORIGIN ${ORIGIN}
$TTL 300
@ SOA ns1 hostmaster ${serial} 3600 600 86400 300
@ NS ns1
ns1 A 127.0.0.1
@ NAPTR 100 10 "" "" "!^urn:lex:xx:([^:;@$~+]+)[:;+].*$!\\\\1.${ORIGIN}!i" .
court NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://127.0.0.1:8300/uri-res/N2L?\\\\1!" .
sub NS ns.sub
ns.sub A 192.0.2.53
${extra}`;
}

describe.skipIf(skip !== undefined)(
  `NSD, Knot and BIND as secondaries of lexroute${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    let dir: string;
    let file: string;
    let server: RunningServer;
    const events: Record<string, unknown>[] = [];
    const daemons: Daemon[] = [];
    let ports: number[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-xfr-'));
      file = path.join(dir, `${ORIGIN}zone`);
      writeFileSync(file, zoneText(2026010101));
      ports = [await freePort(), await freePort(), await freePort()];
      const log = createLogger(
        (l) => void events.push(JSON.parse(l) as Record<string, unknown>),
        'info',
        'json',
      );
      server = await startServer({
        config: {
          ...DEFAULT_SERVER_CONFIG,
          listen: [{ host: '127.0.0.1', port: 0 }],
          zones: [file],
          allowTransfer: ['127.0.0.1/32'],
          secondaries: ports.map((port) => ({ host: '127.0.0.1', port })),
          transfer: { ...DEFAULT_SERVER_CONFIG.transfer, notifyTimeoutMs: 250, notifyTries: 4 },
        },
        log,
        cwd: dir,
      });
      const primary = { host: '127.0.0.1', port: server.tcp[0]!.port };
      daemons.push(
        ...(await startAllSecondaries(
          { nsd: nsd.path!, knotd: knotd.path!, named: named.path! },
          ports,
          primary,
          [ORIGIN],
        )),
      );
    }, 60_000);

    afterAll(() => stopAll(daemons, server, dir));

    it('each secondary pulled the zone by AXFR and answers from it', async () => {
      const axfrs = events.filter((e) => e.event === 'xfr_out' && e.kind === 'AXFR');
      expect(axfrs.length).toBeGreaterThanOrEqual(3);
      for (const [i, d] of daemons.entries()) {
        const r = await query(ports[i]!, 'udp', `court.${ORIGIN}`, 'NAPTR');
        expect(r.rcode, d.name).toBe(0);
        expect(r.answer, d.name).toEqual([
          `court.${ORIGIN.slice(0, -1)} 300 NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://127.0.0.1:8300/uri-res/N2L?\\1!" .`,
        ]);
      }
    });

    it('a change and a reload: NOTIFY, then each secondary transfers by IXFR and answers the new record', async () => {
      const before = events.length;
      writeFileSync(
        file,
        zoneText(
          2026010102,
          'senate NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://127.0.0.1:8301/?\\\\1!" .\n',
        ),
      );
      const t0 = performance.now();
      await server.reload();
      const seen: number[] = [];
      for (const [i, d] of daemons.entries()) {
        for (;;) {
          const r = await query(ports[i]!, 'udp', `senate.${ORIGIN}`, 'NAPTR');
          if (r.rcode === 0 && r.answer.length === 1) break;
          if (performance.now() - t0 > 10_000)
            throw new Error(`${d.name} did not get the change:\n${d.output()}`);
          await new Promise((r) => setTimeout(r, 25));
        }
        seen.push(Math.round(performance.now() - t0));
      }
      console.log(`new record answered by NSD, Knot, BIND after ${seen.join(', ')} ms`);
      // The issue's target (2 s) with room for a loaded CI machine.
      expect(Math.max(...seen)).toBeLessThan(5000);
      const after = events.slice(before);
      // The NOTIFYs of this change (those sent at start may still be answered late on a busy machine).
      const notified = after.filter((e) => e.event === 'notify_sent' && e.serial === 2026010102);
      expect(notified.map((e) => e.peer).sort()).toEqual(ports.map((p) => `127.0.0.1:${p}`).sort());
      expect(notified.every((e) => e.answer === 'NOERROR')).toBe(true);
      const ixfr = after.filter((e) => e.event === 'xfr_out' && e.kind === 'IXFR:incremental');
      expect(ixfr.length).toBeGreaterThanOrEqual(3);
      expect(after.some((e) => e.event === 'xfr_out' && e.kind === 'AXFR')).toBe(false);
    });
  },
);
