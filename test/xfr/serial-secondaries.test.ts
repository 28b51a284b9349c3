/**
 * `serial: "auto"` and condensed IXFR against real secondaries. NSD, Knot
 * and BIND pull a zone from lexroute; the zone file is then changed twice
 * without raising its serial. lexroute raises it each time (date-based,
 * YYYYMMDDnn), the file on disk keeps the user's serial, and a NOTIFY (sent
 * by this test, so that each secondary is two versions behind) makes every
 * secondary transfer by IXFR from two versions back: one condensed
 * difference (RFC 1995 section 6). Then lexroute restarts with
 * `ixfrCondense: false` and the same state directory: it serves the raised
 * serial again (not the file's), keeps its IXFR journal, and after two more
 * changes each secondary transfers the incremental sequence. Every
 * secondary must end on lexroute's serial and answer the last record.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG, type ServerConfig } from '../../src/config/server.ts';
import { createLogger } from '../../src/authority/log.ts';
import { startServer, type RunningServer } from '../../src/authority/server.ts';
import { notifyAll } from '../../src/xfr/notify.ts';
import { serialCompare } from '../../src/xfr/core/serial.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import type { Daemon } from '../e2e/daemons.ts';
import { freePort } from '../server/named.ts';
import { query } from '../server/harness.ts';
import { startAllSecondaries, stopAll } from './secondaries.ts';

const nsd = toolOrSkip('nsd');
const knotd = toolOrSkip('knotd');
const named = toolOrSkip('named');
const skip = nsd.skipReason ?? knotd.skipReason ?? named.skipReason;

const ORIGIN = 'auto.xfr.test.';
const FILE_SERIAL = 2026010101;

function zoneText(records: readonly string[]): string {
  return `$ORIGIN ${ORIGIN}
$TTL 300
@ SOA ns1 hostmaster ${FILE_SERIAL} 3600 600 86400 300
@ NS ns1
ns1 A 127.0.0.1
court NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://127.0.0.1:8300/uri-res/N2L?\\\\1!" .
${records.join('\n')}
`;
}

/** YYYYMMDD of a UTC day, `back` days before now. */
function day(back: number): number {
  return Number(
    new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10).replaceAll('-', ''),
  );
}

describe.skipIf(skip !== undefined)(
  `serial "auto" and condensed IXFR with NSD, Knot and BIND${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    let dir: string;
    let file: string;
    let server: RunningServer;
    let port: number;
    const events: Record<string, unknown>[] = [];
    const daemons: Daemon[] = [];
    let ports: number[] = [];
    const records: string[] = [];

    const start = (condense: boolean) => {
      const log = createLogger(
        (l) => void events.push(JSON.parse(l) as Record<string, unknown>),
        'info',
        'json',
      );
      const config: ServerConfig = {
        ...DEFAULT_SERVER_CONFIG,
        listen: [{ host: '127.0.0.1', port }],
        zones: [{ file, origin: ORIGIN, serial: 'auto', allowTransfer: ['127.0.0.1/32'] }],
        transfer: {
          ...DEFAULT_SERVER_CONFIG.transfer,
          stateDir: path.join(dir, 'state'),
          ixfrCondense: condense,
        },
      };
      return startServer({ config, log, cwd: dir });
    };
    const servedSerial = async () => {
      const r = await query(port, 'udp', ORIGIN, 'SOA');
      return Number(/"serial":(\d+)/.exec(r.answer[0] ?? '')?.[1]);
    };
    /** Two changes without a raised serial, each reloaded; returns the serials served after each. */
    const twoChanges = async (names: [string, string]) => {
      const served: number[] = [];
      for (const n of names) {
        records.push(
          `${n} NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://127.0.0.1:8301/${n}?\\\\1!" .`,
        );
        writeFileSync(file, zoneText(records));
        await server.reload();
        served.push(await servedSerial());
      }
      return served;
    };
    /** Wait until each secondary serves `serial` (and answers `name`, when given). */
    const allServe = async (serial: number, name?: string, ms = 10_000) => {
      const t0 = performance.now();
      for (const [i, d] of daemons.entries()) {
        for (;;) {
          const r = name && (await query(ports[i]!, 'udp', `${name}.${ORIGIN}`, 'NAPTR'));
          const soa = await query(ports[i]!, 'udp', ORIGIN, 'SOA');
          const named = !r || r.answer.length === 1;
          if (named && soa.answer[0]?.includes(`"serial":${serial},`)) break;
          if (performance.now() - t0 > ms)
            throw new Error(`${d.name} did not get serial ${serial}:\n${d.output()}`);
          await new Promise((r) => setTimeout(r, 25));
        }
      }
    };
    /** NOTIFY each secondary (from this test), then wait until each answers `name` and serves `serial`. */
    const notifyAndWait = async (name: string, serial: number) => {
      const zone = server.engine.zones.find((z) => z.origin === ORIGIN)!;
      const peers = ports.map((p) => ({ host: '127.0.0.1', port: p }));
      const log = createLogger(() => undefined, 'silent', 'json');
      await notifyAll(zone, serial, peers, { tries: 4, timeoutMs: 250 }, log);
      await allServe(serial, name);
    };

    beforeAll(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-xfr-auto-'));
      file = path.join(dir, `${ORIGIN}zone`);
      writeFileSync(file, zoneText(records));
      port = await freePort();
      ports = [await freePort(), await freePort(), await freePort()];
      server = await start(true);
      const primary = { host: '127.0.0.1', port };
      daemons.push(
        ...(await startAllSecondaries(
          { nsd: nsd.path!, knotd: knotd.path!, named: named.path! },
          ports,
          primary,
          [ORIGIN],
        )),
      );
      // Each secondary holds the first version before the changes: one whose first
      // transfer came after them (a slow start under load) had nothing left to ask for.
      await allServe(FILE_SERIAL, undefined, 30_000);
    }, 60_000);

    afterAll(() => stopAll(daemons, server, dir));

    it('two changes without a raised serial: lexroute raises it (YYYYMMDDnn); the file is not rewritten', async () => {
      expect(await servedSerial()).toBe(FILE_SERIAL);
      const [s1, s2] = await twoChanges(['one', 'two']);
      // Date-based: today's YYYYMMDD00 (or yesterday's, at midnight), then +1.
      expect([day(0) * 100, day(1) * 100]).toContain(s1);
      expect(s2).toBe(s1! + 1);
      const raised = events.filter((e) => e.event === 'zone_serial_raised');
      expect(raised.map((e) => [e.fileSerial, e.serial])).toEqual([
        [FILE_SERIAL, s1],
        [FILE_SERIAL, s2],
      ]);
      expect(readFileSync(file, 'utf8')).toContain(`hostmaster ${FILE_SERIAL} `);
    });

    it('each secondary, two versions behind, gets one condensed difference and serves the raised serial', async () => {
      const before = events.length;
      const serial = await servedSerial();
      await notifyAndWait('two', serial);
      const out = events.slice(before).filter((e) => e.event === 'xfr_out');
      const seen = JSON.stringify(out.map((e) => [e.peer, e.kind, e.transport ?? 'tcp']));
      expect(out.filter((e) => e.kind === 'IXFR:condensed').length, seen).toBeGreaterThanOrEqual(3);
      expect(out.some((e) => e.kind === 'AXFR' || e.kind === 'IXFR:full')).toBe(false);
    });

    it('a restart serves the raised serial again and keeps the journal; with ixfrCondense false the sequence goes out', async () => {
      const served = await servedSerial();
      await server.close();
      const before = events.length;
      server = await start(false);
      expect(await servedSerial()).toBe(served);
      const restart = events.slice(before);
      expect(restart.some((e) => e.event === 'journal_loaded')).toBe(true);
      expect(restart.some((e) => e.event === 'journal_stale')).toBe(false);
      const [s3, s4] = await twoChanges(['three', 'four']);
      expect(serialCompare(s3!, served)).toBe(1);
      expect(s4).toBe(s3! + 1);
      await notifyAndWait('four', s4!);
      const out = events.slice(before).filter((e) => e.event === 'xfr_out');
      const seen = JSON.stringify(out.map((e) => [e.peer, e.kind, e.transport ?? 'tcp']));
      expect(out.filter((e) => e.kind === 'IXFR:incremental').length, seen).toBeGreaterThanOrEqual(
        3,
      );
      expect(out.some((e) => e.kind === 'AXFR' || e.kind === 'IXFR:full')).toBe(false);
    });
  },
);
