/**
 * Issue 29: the served serial is one fact that survives restarts. The
 * operator's sequence, with inline signing (`dnssec.keys`), a state folder,
 * and NSD and Knot as secondaries (IXFR, NOTIFY from lexroute): a change
 * (the file's serial left as it was: the signer raises it), a restart with
 * the same files, another change, another restart, and a change made while
 * the server is down. After each step lexroute serves a serial above every
 * serial it served before (or the same one, with the same signatures, when
 * nothing changed), and each secondary answers exactly what lexroute
 * answers, signatures included. `journal_stale` appears only when the
 * content changed while the server was down.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG, type ServerConfig } from '../../src/config/server.ts';
import { startServer, type RunningServer } from '../../src/authority/server.ts';
import { generateKey } from '../../src/dnssec/keys.ts';
import { serialCompare } from '../../src/xfr/core/serial.ts';
import { eventLogger, type LogEvent } from '../helpers/events.ts';
import { naptrZoneText } from '../helpers/naptr-zone.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import type { Daemon } from '../e2e/daemons.ts';
import { freePort } from '../server/named.ts';
import { query } from '../server/harness.ts';
import { startKnotSecondary, startNsdSecondary, stopAll } from './secondaries.ts';

const nsd = toolOrSkip('nsd');
const knotd = toolOrSkip('knotd');
const skip = nsd.skipReason ?? knotd.skipReason;

const ORIGIN = 'served.xfr.test.';
const FILE_SERIAL = 10;

describe.skipIf(skip !== undefined)(
  `the served serial survives restarts, NSD and Knot secondaries${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    let dir: string;
    let file: string;
    let port: number;
    let ports: number[] = [];
    let server: RunningServer | undefined;
    const daemons: Daemon[] = [];
    /** The zone's NAPTR owners j0 .. j(count-1); each change adds one. */
    let count = 2;
    const names = () => Array.from({ length: count }, (_, i) => `j${i}`);
    const served: number[] = [];
    let events: LogEvent[] = [];

    const start = async () => {
      const config: ServerConfig = {
        ...DEFAULT_SERVER_CONFIG,
        listen: [{ host: '127.0.0.1', port }],
        zones: [{ file, origin: ORIGIN, allowTransfer: ['127.0.0.1/32'] }],
        secondaries: ports.map((p) => ({ host: '127.0.0.1', port: p })),
        dnssec: { ...DEFAULT_SERVER_CONFIG.dnssec, keys: path.join(dir, 'keys') },
        transfer: { ...DEFAULT_SERVER_CONFIG.transfer, stateDir: path.join(dir, 'state') },
      };
      events = [];
      const { log } = eventLogger('info', events);
      server = await startServer({ config, log, cwd: dir });
    };
    const stop = async () => {
      await server?.close();
      server = undefined;
    };
    const serialAt = async (p: number) => {
      const r = await query(p, 'udp', ORIGIN, 'SOA');
      return Number(/"serial":(\d+)/.exec(r.answer[0] ?? '')?.[1]);
    };
    /** The signed answers (records and RRSIGs, sorted) to the questions that tell a version apart. */
    const answers = async (p: number) => {
      const out: string[] = [];
      for (const [qname, qtype] of [
        [ORIGIN, 'SOA'],
        [ORIGIN, 'DNSKEY'],
        [ORIGIN, 'NS'],
        ...names().map((n) => [`${n}.${ORIGIN}`, 'NAPTR']),
      ] as const) {
        const r = await query(p, 'tcp', qname, qtype, { edns: { do: true } });
        out.push(...r.answer.map((l) => `${qname} ${qtype}: ${l}`).sort());
      }
      return out;
    };
    /** Wait until every secondary serves `serial`, then compare its answers with lexroute's. */
    const secondariesAgree = async (serial: number) => {
      const ours = await answers(port);
      for (const [i, d] of daemons.entries()) {
        const t0 = performance.now();
        while ((await serialAt(ports[i]!)) !== serial) {
          if (performance.now() - t0 > 15_000)
            throw new Error(`${d.name} did not get serial ${serial}:\n${d.output()}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(await answers(ports[i]!), d.name).toEqual(ours);
      }
      for (const d of daemons)
        expect(d.output(), d.name).not.toMatch(
          /Failed to apply IXFR|remote is outdated|is different from/,
        );
    };
    const change = () => writeFileSync(file, naptrZoneText(++count, FILE_SERIAL));
    const expectAbove = (serial: number) => {
      for (const s of served) expect(serialCompare(serial, s), `${serial} after ${s}`).toBe(1);
      served.push(serial);
    };
    /** A change (the file serial left as it is), reloaded: a serial above all, which the secondaries take. */
    const changeServed = async () => {
      change();
      await server!.reload();
      const s = await serialAt(port);
      expectAbove(s);
      await secondariesAgree(s);
      return s;
    };
    const eventNames = () => events.map((e) => e.event);

    beforeAll(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-served-serial-'));
      file = path.join(dir, `${ORIGIN}zone`);
      await generateKey(path.join(dir, 'keys'), ORIGIN, 13, true);
      await generateKey(path.join(dir, 'keys'), ORIGIN, 13, false);
      writeFileSync(file, naptrZoneText(count, FILE_SERIAL));
      port = await freePort();
      ports = [await freePort(), await freePort()];
      await start();
      const primary = { host: '127.0.0.1', port };
      daemons.push(
        await startNsdSecondary(nsd.path!, '127.0.0.1', ports[0]!, primary, [ORIGIN]),
        await startKnotSecondary(knotd.path!, '127.0.0.1', ports[1]!, primary, [ORIGIN]),
      );
    }, 60_000);

    afterAll(async () => {
      await stopAll(daemons, undefined, undefined);
      await stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('start: the file serial, signed; the secondaries hold the same zone', async () => {
      const s = await serialAt(port);
      expect(s).toBe(FILE_SERIAL);
      expectAbove(s);
      await secondariesAgree(s);
    });

    it('a change without a raised file serial: signed as the next serial, taken by IXFR', async () => {
      await changeServed();
    });

    it('a restart with the same files serves the same serial and the same signatures; no journal_stale', async () => {
      const before = await answers(port);
      const serial = served.at(-1)!;
      await stop();
      await start();
      expect(await serialAt(port)).toBe(serial);
      expect(await answers(port)).toEqual(before);
      expect(eventNames()).not.toContain('journal_stale');
      expect(eventNames()).toContain('journal_loaded');
      const loaded = events.find((e) => e.event === 'zone_loaded') as {
        signed?: { resumed?: boolean };
      };
      expect(loaded.signed?.resumed).toBe(true);
      await secondariesAgree(serial);
    });

    it('a change after the restart gets a serial above every serial served', async () => {
      const s = await changeServed();
      await stop();
      await start();
      expect(await serialAt(port)).toBe(s);
      expect(eventNames()).not.toContain('journal_stale');
      await secondariesAgree(s);
    });

    it('a change while the server is down: a serial above every one served, journal_stale, the secondaries follow', async () => {
      await stop();
      change();
      await start();
      const s = await serialAt(port);
      expectAbove(s);
      expect(eventNames()).toContain('journal_stale');
      await secondariesAgree(s);
    });
  },
);
