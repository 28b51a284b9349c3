/**
 * NOTIFY that a real secondary accepts (issue 30, issue 31 items 11 and 12):
 * NSD takes a NOTIFY only from the addresses its allow-notify lists, and
 * answers REFUSED from any other ("no acl matches"). Here NSD lists
 * 127.0.0.2 and 127.0.0.4, never 127.0.0.1, which the kernel would pick
 * for an unbound socket on loopback:
 * - lexroute with `transfer.notifySource` 127.0.0.2: accepted (NOERROR),
 *   and NSD transfers the change it announces;
 * - lexroute listening on 127.0.0.4, no notifySource: sent from the served
 *   address, accepted;
 * - lexroute with notifySource 127.0.0.3: REFUSED, logged at warn
 *   (`notify_rejected`), not at info.
 * And a secondary listed for one zone (`{"address", "zones"}`, the config
 * of `--notify ZONE=ADDR:PORT`) is not notified of the others.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG, type ServerConfig } from '../../src/config/server.ts';
import { createLogger } from '../../src/authority/log.ts';
import { startServer, type RunningServer } from '../../src/authority/server.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import type { Daemon } from '../e2e/daemons.ts';
import { freePort } from '../server/named.ts';
import { query } from '../server/harness.ts';
import { startNsdSecondary } from './secondaries.ts';

const nsd = toolOrSkip('nsd');

const A = 'a.notify.test.';
const B = 'b.notify.test.';

function zoneText(origin: string, serial: number, extra = ''): string {
  return `$ORIGIN ${origin}\n$TTL 300\n@ SOA ns1 hostmaster ${serial} 3600 600 86400 300\n@ NS ns1\nns1 A 127.0.0.1\n${extra}`;
}

type Event = Record<string, unknown>;

describe.skipIf(nsd.skipReason !== undefined)(
  `NSD accepts lexroute's NOTIFY from the configured or served address${nsd.skipReason ? ` (skipped: ${nsd.skipReason})` : ''}`,
  () => {
    let dir: string;
    const servers: RunningServer[] = [];
    let secondary: Daemon | undefined;
    let nsdPort: number;
    const files = { a: '', b: '' };

    /** A lexroute primary of zones A and B with `over` on its config; its events. */
    async function primary(over: Partial<ServerConfig>): Promise<Event[]> {
      const events: Event[] = [];
      const log = createLogger((l) => void events.push(JSON.parse(l) as Event), 'info', 'json');
      const s = await startServer({
        config: {
          ...DEFAULT_SERVER_CONFIG,
          listen: [{ host: '127.0.0.1', port: 0 }],
          zones: [
            { file: files.a, origin: A },
            { file: files.b, origin: B },
          ],
          allowTransfer: ['127.0.0.0/8'],
          secondaries: [{ host: '127.0.0.1', port: nsdPort, zones: [A] }],
          ...over,
          transfer: {
            ...DEFAULT_SERVER_CONFIG.transfer,
            notifyTimeoutMs: 250,
            notifyTries: 3,
            ...over.transfer,
          },
        },
        log,
        cwd: dir,
      });
      servers.push(s);
      return events;
    }

    const until = async (what: string, ok: () => boolean | Promise<boolean>) => {
      const t0 = Date.now();
      while (!(await ok())) {
        if (Date.now() - t0 > 15_000)
          throw new Error(`timed out: ${what}\n${secondary?.output().slice(-2000) ?? ''}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const notifyEvents = (events: Event[]) =>
      events.filter((e) => typeof e.event === 'string' && e.event.startsWith('notify_'));

    let first: Event[];

    beforeAll(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-notify-source-'));
      files.a = path.join(dir, 'a.zone');
      files.b = path.join(dir, 'b.zone');
      writeFileSync(files.a, zoneText(A, 1));
      writeFileSync(files.b, zoneText(B, 1));
      nsdPort = await freePort();
      first = await primary({
        transfer: { ...DEFAULT_SERVER_CONFIG.transfer, notifySource: '127.0.0.2' },
      });
      secondary = await startNsdSecondary(
        nsd.path!,
        '127.0.0.1',
        nsdPort,
        {
          host: '127.0.0.1',
          port: servers[0]!.tcp[0]!.port,
          notifyFrom: ['127.0.0.2', '127.0.0.4'],
        },
        [A],
      );
    }, 60_000);

    afterAll(async () => {
      await secondary?.close();
      for (const s of servers) await s.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('from transfer.notifySource: NSD answers NOERROR and transfers the change', async () => {
      const before = first.length;
      writeFileSync(files.a, zoneText(A, 2, 'new A 192.0.2.2\n'));
      writeFileSync(files.b, zoneText(B, 2, 'new A 192.0.2.2\n'));
      await servers[0]!.reload();
      await until('NSD serves the change', async () => {
        const r = await query(nsdPort, 'udp', `new.${A}`, 'A');
        return r.rcode === 0 && r.answer.length === 1;
      });
      const sent = notifyEvents(first.slice(before)).filter((e) => e.serial === 2);
      expect(sent).toEqual([
        expect.objectContaining({
          event: 'notify_sent',
          level: 'info',
          zone: A,
          from: '127.0.0.2',
          answer: 'NOERROR',
          peer: `127.0.0.1:${nsdPort}`,
        }),
      ]);
    });

    it('a secondary listed for zone A only is never notified of zone B', () => {
      expect(notifyEvents(first).filter((e) => e.zone === B)).toEqual([]);
      expect(notifyEvents(first).filter((e) => e.zone === A).length).toBeGreaterThanOrEqual(1);
    });

    it('without notifySource, from the address the zone is served on (127.0.0.4): accepted', async () => {
      const events = await primary({ listen: [{ host: '127.0.0.4', port: 0 }] });
      await until('the start NOTIFY answered', () => notifyEvents(events).length > 0);
      expect(notifyEvents(events)).toEqual([
        expect.objectContaining({ event: 'notify_sent', from: '127.0.0.4', answer: 'NOERROR' }),
      ]);
    });

    it('from an address NSD does not list: REFUSED, logged at warn', async () => {
      const events = await primary({
        transfer: { ...DEFAULT_SERVER_CONFIG.transfer, notifySource: '127.0.0.3' },
      });
      await until('the start NOTIFY answered', () => notifyEvents(events).length > 0);
      expect(notifyEvents(events)).toEqual([
        expect.objectContaining({
          event: 'notify_rejected',
          level: 'warn',
          from: '127.0.0.3',
          answer: 'REFUSED',
        }),
      ]);
      expect(secondary!.output()).toMatch(/127\.0\.0\.3.*refused/);
    });
  },
);
