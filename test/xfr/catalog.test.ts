/**
 * lexroute publishing a catalog zone (RFC 9432 version 2, `catalog`) to
 * Knot (`catalog-role: interpret`) and BIND (`catalog-zones`) as catalog
 * consumers: each transfers the catalog, then every member zone from
 * lexroute; `ctl zone add FILE` makes a new zone appear on both (the
 * catalog's serial raised, NOTIFY sent), `ctl zone remove ORIGIN` makes one
 * disappear (REFUSED there).
 */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG } from '../../src/config/server.ts';
import { createLogger } from '../../src/authority/log.ts';
import { startAuthority, type Authority } from '../../src/authority/authority.ts';
import { sendControlCommand } from '../../src/authority/control.ts';
import { DnsTransport } from '../../src/client/transport.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { catalogMemberId } from '../../src/xfr/core/catalog.ts';
import { daemonDir, knotHead, launch, waitReady, writeConf, type Daemon } from '../e2e/daemons.ts';
import { freePort } from '../server/named.ts';
import { stopAll } from './secondaries.ts';

const knotd = toolOrSkip('knotd');
const named = toolOrSkip('named');
const kdig = toolOrSkip('kdig');
const skip = knotd.skipReason ?? named.skipReason;

const CATALOG = 'catalog.invalid.';
const HOST = '127.0.0.1';

function zoneText(origin: string, serial: number): string {
  return `$ORIGIN ${origin}
$TTL 300
@ SOA ns1 hostmaster ${serial} 3600 600 86400 300
@ NS ns1
ns1 A 127.0.0.1
www A 192.0.2.7
`;
}

/** Knot interpreting lexroute's catalog: members from a template whose master is lexroute. */
async function startKnotConsumer(port: number, primaryPort: number): Promise<Daemon> {
  const dir = daemonDir('knot-catalog');
  mkdirSync(path.join(dir, 'db'));
  chmodSync(path.join(dir, 'db'), 0o777);
  writeConf(
    path.join(dir, 'knot.conf'),
    `${knotHead(dir, HOST, port)}remote:
  - id: primary
    address: ${HOST}@${primaryPort}
acl:
  - id: notify_from_primary
    address: ${HOST}
    action: notify
template:
  - id: default
    storage: "${dir}"
    zonefile-sync: -1
  - id: member
    storage: "${dir}"
    zonefile-sync: -1
    master: primary
    acl: notify_from_primary
zone:
  - domain: "${CATALOG}"
    master: primary
    acl: notify_from_primary
    catalog-role: interpret
    catalog-template: member
`,
  );
  // Knot does not answer queries for a catalog it interprets: its members tell it is up.
  const args = ['-c', `${dir}/knot.conf`];
  return launch('knotd', knotd.path!, args, dir, HOST, port).daemon;
}

/** BIND consuming lexroute's catalog (catalog-zones, default-primaries: lexroute). */
async function startBindConsumer(port: number, primaryPort: number): Promise<Daemon> {
  const dir = daemonDir('named-catalog');
  writeConf(
    path.join(dir, 'named.conf'),
    `options {
  directory "${dir}";
  pid-file none;
  listen-on port ${port} { ${HOST}; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  notify no;
  allow-new-zones yes;
  session-keyfile "${dir}/session.key";
  managed-keys-directory "${dir}";
  catalog-zones {
    zone "${CATALOG}" default-primaries { ${HOST} port ${primaryPort}; } zone-directory "${dir}" min-update-interval 1;
  };
};
controls { };
zone "${CATALOG}" { type secondary; primaries { ${HOST} port ${primaryPort}; }; file "${dir}/catalog.db"; allow-notify { ${HOST}; }; };
`,
  );
  const args = ['-g', '-n', '1', '-c', `${dir}/named.conf`];
  const { child, daemon } = launch('named', named.path!, args, dir, HOST, port);
  return waitReady(daemon, child, CATALOG, 'SOA');
}

/** The rcode of `origin SOA` at a daemon ('TIMEOUT' when it does not answer). */
async function soaRcode(t: DnsTransport, d: Daemon, origin: string): Promise<string> {
  try {
    const ex = await t.query(origin, 'SOA', { servers: [{ host: d.host, port: d.port }] });
    return ex.message.rcode === 'NOERROR' && ex.message.answers.length === 0
      ? 'NODATA'
      : ex.message.rcode;
  } catch {
    return 'TIMEOUT';
  }
}

/** Wait (up to ~20 s) until `origin` is served (NOERROR) or gone (anything else) at `d`. */
async function waitZone(d: Daemon, origin: string, served: boolean): Promise<string> {
  const t = new DnsTransport({ timeoutMs: 300, tries: 1 });
  let rcode = '';
  try {
    for (let i = 0; i < 100; i++) {
      rcode = await soaRcode(t, d, origin);
      if ((rcode === 'NOERROR') === served) return rcode;
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    t.close();
  }
  throw new Error(`${d.name}: ${origin} still ${rcode}\n${d.output()}`);
}

describe.skipIf(skip !== undefined)(
  `Knot and BIND as catalog consumers of lexroute${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    let dir: string;
    let authority: Authority | undefined;
    const daemons: Daemon[] = [];
    const events: Record<string, unknown>[] = [];
    const control = () => path.join(dir, 'ctl.sock');

    beforeAll(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-catalog-'));
      mkdirSync(path.join(dir, 'zones'));
      for (const o of ['one.cat.test.', 'two.cat.test.'])
        writeFileSync(path.join(dir, 'zones', `${o}zone`), zoneText(o, 1));
      writeFileSync(path.join(dir, 'three.cat.test.zone'), zoneText('three.cat.test.', 1));
      const ports = [await freePort(), await freePort()];
      const log = createLogger(
        (l) => void events.push(JSON.parse(l) as Record<string, unknown>),
        'info',
        'json',
      );
      authority = await startAuthority(
        {
          ...DEFAULT_SERVER_CONFIG,
          listen: [{ host: HOST, port: 0 }],
          zones: ['zones'],
          catalog: CATALOG,
          catalogGroups: { 'one.cat.test.': ['operator-x-nsec3'] },
          allowTransfer: ['127.0.0.1/32'],
          secondaries: ports.map((port) => ({ host: HOST, port })),
          transfer: { ...DEFAULT_SERVER_CONFIG.transfer, notifyTimeoutMs: 250, notifyTries: 4 },
        },
        { log, cwd: dir, control: control() },
      );
      // The catalog is loaded right after the first swap.
      for (
        let i = 0;
        i < 100 && !authority.server.engine.zones.some((z) => z.origin === CATALOG);
        i++
      )
        await new Promise((r) => setTimeout(r, 50));
      const primaryPort = authority.server.tcp[0]!.port;
      daemons.push(
        ...(await Promise.all([
          startKnotConsumer(ports[0]!, primaryPort),
          startBindConsumer(ports[1]!, primaryPort),
        ])),
      );
    }, 60_000);

    afterAll(() => stopAll(daemons, authority, dir));

    it('every member zone is served by Knot and BIND after the catalog transfer', async () => {
      for (const d of daemons)
        for (const o of ['one.cat.test.', 'two.cat.test.'])
          expect(await waitZone(d, o, true), `${d.name} ${o}`).toBe('NOERROR');
      const loaded = events.filter((e) => e.event === 'catalog_updated');
      expect(loaded[0]).toMatchObject({ zone: CATALOG, members: 2 });
    }, 60_000);

    it.skipIf(kdig.skipReason !== undefined)(
      "the catalog carries each member's configured group (kdig AXFR)",
      async () => {
        const port = authority!.server.tcp[0]!.port;
        // Asynchronous: this process is the server kdig asks.
        const { stdout } = await promisify(execFile)(
          kdig.path!,
          ['@127.0.0.1', '-p', String(port), '+tcp', '+nocomments', CATALOG, 'AXFR'],
          { encoding: 'utf8' },
        );
        const id = catalogMemberId('one.cat.test.');
        const group = (o: string) =>
          stdout
            .split('\n')
            .filter((l) => l.startsWith(`group.${catalogMemberId(o)}.zones.${CATALOG}`))
            .map((l) => l.split(/\s+/).slice(4).join(' '));
        expect(stdout).toContain(`${id}.zones.${CATALOG}`);
        expect(group('one.cat.test.')).toEqual(['"operator-x-nsec3"']);
        expect(group('two.cat.test.')).toEqual([]);
      },
    );

    it('ctl zone add FILE: the new zone appears on both consumers', async () => {
      const a = await sendControlCommand(control(), {
        command: 'zone',
        args: ['add', path.join(dir, 'three.cat.test.zone')],
      });
      expect(a).toMatchObject({ ok: true, result: { zone: 'three.cat.test.', added: true } });
      expect((a.ok && (a.result.catalog as { members: number }).members) || 0).toBe(3);
      for (const d of daemons)
        expect(await waitZone(d, 'three.cat.test.', true), d.name).toBe('NOERROR');
      // The new catalog version went out by IXFR (its difference from the reload's history).
      const catalogOut = events.filter((e) => e.event === 'xfr_out' && e.zone === CATALOG);
      expect(catalogOut.map((e) => e.kind)).toContain('IXFR:incremental');
    }, 60_000);

    it('ctl zone remove ORIGIN: the zone disappears from lexroute and both consumers', async () => {
      const a = await sendControlCommand(control(), {
        command: 'zone',
        args: ['remove', 'one.cat.test'],
      });
      expect(a).toMatchObject({ ok: true, result: { zone: 'one.cat.test.', removed: true } });
      expect(authority!.server.engine.zones.map((z) => z.origin)).not.toContain('one.cat.test.');
      const gone = await sendControlCommand(control(), {
        command: 'status',
        args: ['one.cat.test'],
      });
      expect(gone).toMatchObject({ ok: false, code: 'CTL_UNKNOWN_ZONE' });
      for (const d of daemons)
        expect(await waitZone(d, 'one.cat.test.', false), d.name).not.toBe('NOERROR');
      // The others stay.
      for (const d of daemons) expect(await waitZone(d, 'two.cat.test.', true)).toBe('NOERROR');
    }, 60_000);

    it('ctl status ZONE counts the transfers out and NOTIFY results of the zone, by peer', async () => {
      const a = await sendControlCommand(control(), { command: 'status', args: ['two.cat.test'] });
      expect(a.ok).toBe(true);
      const r = (a.ok ? a.result : {}) as {
        serial?: number;
        transfersOut?: { kind: string; peer: string; result: string; count: number }[];
        notify?: { peer: string; result: string; count: number }[];
      };
      expect(r.serial).toBe(1);
      // Knot and BIND each transferred it whole once (at least).
      const axfr = r.transfersOut?.find((t) => t.kind === 'AXFR' && t.result === 'ok');
      expect(axfr).toMatchObject({ peer: HOST });
      expect(axfr!.count).toBeGreaterThanOrEqual(2);
      // The zone's NOTIFYs went out at start, while Knot and BIND were still starting: each
      // peer's tries are counted as answered (NOERROR), refused by a consumer that has not read
      // the catalog yet (NOTAUTH: no such zone there) or, on a loaded machine, timed out.
      const notified = r.notify?.filter((n) => n.peer === HOST) ?? [];
      expect(notified.length).toBeGreaterThan(0);
      for (const n of notified) expect(['NOERROR', 'NOTAUTH', 'timeout']).toContain(n.result);
      const c = await sendControlCommand(control(), { command: 'status', args: [CATALOG] });
      expect(c).toMatchObject({ ok: true, result: { zone: CATALOG } });
    });

    it('a secondary zone and the catalog itself cannot be removed; bad usage is coded', async () => {
      const cat = await sendControlCommand(control(), {
        command: 'zone',
        args: ['remove', CATALOG],
      });
      expect(cat).toMatchObject({ ok: false, code: 'CTL_ZONE_FIXED' });
      const none = await sendControlCommand(control(), {
        command: 'zone',
        args: ['remove', 'nothing.cat.test.'],
      });
      expect(none).toMatchObject({ ok: false, code: 'CTL_UNKNOWN_ZONE' });
      const bad = await sendControlCommand(control(), { command: 'zone', args: ['move', 'x'] });
      expect(bad).toMatchObject({ ok: false, code: 'CTL_USAGE' });
      const missing = await sendControlCommand(control(), {
        command: 'zone',
        args: ['add', 'absent.cat.test.'],
      });
      expect(missing).toMatchObject({ ok: false, code: 'CTL_ZONE_ADD_FAILED' });
    });
  },
);
