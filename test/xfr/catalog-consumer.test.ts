/**
 * lexroute as a catalog consumer (RFC 9432 version 2, `secondaryCatalogs`,
 * `serve --secondary-catalog`) of real BIND and Knot primaries on loopback
 * ports: each serves a catalog zone written by the test as RFC 9432 shows
 * it (version "2", one `<id>.zones PTR` per member) and the member zones,
 * requires a TSIG key for every transfer and NOTIFYs lexroute (signed) for
 * the catalog. lexroute transfers the catalog, then every member from the
 * same primary with the same key; a member added to the catalog (serial
 * raised, SIGHUP, NOTIFY) appears, a removed one disappears (its copy
 * deleted), a catalog whose version is not "2" is not applied, and a
 * restart serves the members held on disk at once, then reads the catalog
 * held again (its IXFR journal replayed).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG, type ServerConfig } from '../../src/config/server.ts';
import { startServer, type RunningServer } from '../../src/authority/server.ts';
import { secondaryFile } from '../../src/xfr/secondary.ts';
import { eventLogger, type LogEvent } from '../helpers/events.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { freePort } from '../server/named.ts';
import { query } from '../server/harness.ts';
import { TsigSigner } from '../../src/xfr/core/tsig.ts';
import { transferRequest } from '../../src/xfr/core/read.ts';
import { nameKey } from '../../src/dns/core/wire/name.ts';
import { TYPE_SOA } from '../../src/dns/core/rr/types.ts';
import { nodeHmac, nowSeconds } from '../../src/xfr/tsig.ts';
import { daemonDir, knotHead, launch, waitReady, writeConf, type Daemon } from '../e2e/daemons.ts';

const named = toolOrSkip('named');
const knotd = toolOrSkip('knotd');

const HOST = '127.0.0.1';
const KEY = {
  name: 'catz-key',
  algorithm: 'hmac-sha256',
  secret: 'Y2F0YWxvZy1jb25zdW1lci1zZWNyZXQtMTIzNDU2Nzg=',
};
const MEMBERS = ['m1.catz.test.', 'm2.catz.test.', 'm3.catz.test.'];

function memberText(origin: string): string {
  return `$ORIGIN ${origin}
$TTL 300
@ SOA ns1 hostmaster 1 3600 600 86400 300
@ NS ns1
ns1 A 127.0.0.1
www A 192.0.2.${MEMBERS.indexOf(origin) + 1}
`;
}

/** The catalog as RFC 9432 section 4 shows one: SOA, NS invalid., version, member PTRs. */
function catalogText(catalog: string, serial: number, members: string[], version = '2'): string {
  return `$ORIGIN ${catalog}
$TTL 0
@ SOA invalid. invalid. ${serial} 3600 600 2147483646 0
@ NS invalid.
version TXT "${version}"
${members.map((m) => `id-${m.split('.')[0]!}.zones PTR ${m}`).join('\n')}
group.id-m1.zones TXT "ignored-group"
`;
}

interface Primary extends Daemon {
  /** Rewrite the catalog and reload (SIGHUP): the primary NOTIFYs lexroute. */
  catalog(text: string): void;
}

interface PrimarySetup {
  readonly dir: string;
  readonly catalog: string;
  readonly port: number;
  readonly notifyPort: number;
  /** The zone files, by origin (the catalog's included). */
  readonly files: ReadonlyMap<string, string>;
}

function bindConf(s: PrimarySetup): string {
  const zones = [...s.files]
    .map(
      ([o, f]) => `zone "${o}" {
  type primary;
  file "${f}";
  allow-transfer { key "${KEY.name}"; };
  ${o === s.catalog ? `notify explicit; also-notify { ${HOST} port ${s.notifyPort} key "${KEY.name}"; };` : 'notify no;'}
};`,
    )
    .join('\n');
  return `options {
  directory "${s.dir}";
  pid-file none;
  listen-on port ${s.port} { ${HOST}; };
  listen-on-v6 { none; };
  recursion no;
  dnssec-validation no;
  notify-source ${HOST};
  session-keyfile "${s.dir}/session.key";
  managed-keys-directory "${s.dir}";
  ixfr-from-differences yes;
  notify-delay 0;
};
controls { };
key "${KEY.name}" { algorithm ${KEY.algorithm}; secret "${KEY.secret}"; };
${zones}
`;
}

function knotConf(s: PrimarySetup): string {
  const zones = [...s.files]
    .map(
      ([o, f]) =>
        `  - domain: "${o}"\n    file: "${f}"\n    acl: transfer\n${o === s.catalog ? '    notify: lexroute\n' : ''}`,
    )
    .join('');
  return `${knotHead(s.dir, HOST, s.port)}key:
  - id: ${KEY.name}
    algorithm: ${KEY.algorithm}
    secret: ${KEY.secret}
remote:
  - id: lexroute
    address: ${HOST}@${s.notifyPort}
    key: ${KEY.name}
acl:
  - id: transfer
    address: ${HOST}
    action: transfer
    key: ${KEY.name}
template:
  - id: default
    storage: "${s.dir}"
    zonefile-sync: -1
    zonefile-load: difference
    journal-content: changes
zone:
${zones}`;
}

/** BIND or Knot serving the catalog and every member zone (the catalog listing `listed`). */
async function startPrimary(
  kind: 'named' | 'knotd',
  port: number,
  notifyPort: number,
  catalog: string,
  listed: string[],
): Promise<Primary> {
  const dir = daemonDir(`${kind}-catalog-primary`);
  const files = new Map<string, string>();
  const write = (origin: string, text: string) => {
    const file = path.join(dir, `${origin}zone`);
    writeFileSync(file, text);
    chmodSync(file, 0o666);
    files.set(origin, file);
  };
  write(catalog, catalogText(catalog, 1, listed));
  for (const m of MEMBERS) write(m, memberText(m));
  const setup = { dir, catalog, port, notifyPort, files };
  const conf = path.join(dir, kind === 'named' ? 'named.conf' : 'knot.conf');
  if (kind === 'knotd') mkdirSync(path.join(dir, 'db'), { mode: 0o777 });
  if (kind === 'knotd') chmodSync(path.join(dir, 'db'), 0o777);
  writeConf(conf, kind === 'named' ? bindConf(setup) : knotConf(setup));
  const program = (kind === 'named' ? named : knotd).path!;
  const args = kind === 'named' ? ['-g', '-n', '1', '-c', conf] : ['-c', conf];
  const { child, daemon } = launch(kind, program, args, dir, HOST, port);
  const ready = await waitReady(daemon, child, catalog, 'SOA');
  return {
    ...ready,
    catalog(text: string) {
      write(catalog, text);
      child.kill('SIGHUP');
    },
  };
}

interface Consumer {
  server: RunningServer;
  events: LogEvent[];
}

async function startConsumer(
  port: number,
  primaryPort: number,
  catalog: string,
  dir: string,
  workers = 1,
): Promise<Consumer> {
  const { log, events } = eventLogger();
  const config: ServerConfig = {
    ...DEFAULT_SERVER_CONFIG,
    listen: [{ host: HOST, port }],
    workers,
    zones: [],
    secondaryCatalogs: [
      { origin: catalog, primaries: [{ host: HOST, port: primaryPort, key: KEY.name }] },
    ],
    tsigKeys: [KEY],
    transfer: { ...DEFAULT_SERVER_CONFIG.transfer, stateDir: dir },
  };
  const server = await startServer({ config, log, cwd: dir });
  return { server, events };
}

/** Poll `f` (a failed query counts as undefined) until it gives `want`, for up to 20 s. */
async function eventually<T>(f: () => Promise<T>, want: T): Promise<void> {
  const o = { timeout: 20_000, interval: 50 };
  await expect.poll(() => f().catch(() => undefined), o).toEqual(want);
}

/** The rcode of `www.<origin> A` at lexroute and the address answered, if any. */
async function www(port: number, origin: string): Promise<{ rcode: number; address?: string }> {
  const r = await query(port, 'udp', `www.${origin}`, 'A');
  const a = r.answer[0]?.split(' ').at(-1);
  return { rcode: r.rcode, ...(a !== undefined ? { address: a } : {}) };
}

const served = async (port: number, origin: string) => (await www(port, origin)).address;

/** A primary (its catalog listing `listed`) and lexroute consuming it, started before the tests of a describe and stopped after. */
function primaryAndConsumer(
  kind: 'named' | 'knotd',
  catalog: string,
  listed: string[],
  workers = 1,
): { primary: Primary; consumer: Consumer; dir: string; port: number } {
  const s = {} as { primary: Primary; consumer: Consumer; dir: string; port: number };
  beforeAll(async () => {
    s.dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-catalog-consumer-'));
    const primaryPort = await freePort();
    s.port = await freePort();
    s.primary = await startPrimary(kind, primaryPort, s.port, catalog, listed);
    s.consumer = await startConsumer(s.port, primaryPort, catalog, s.dir, workers);
  }, 30_000);
  afterAll(async () => {
    await (s.consumer as Consumer | undefined)?.server.close();
    await (s.primary as Primary | undefined)?.close();
    rmSync(s.dir, { recursive: true, force: true });
  });
  return s;
}

const PRIMARIES = [
  { name: 'BIND', kind: 'named', tool: named },
  { name: 'Knot', kind: 'knotd', tool: knotd },
] as const;

for (const P of PRIMARIES) {
  describe.skipIf(P.tool.skipReason !== undefined)(
    `lexroute as catalog consumer of ${P.name}${P.tool.skipReason ? ` (skipped: ${P.tool.skipReason})` : ''}`,
    () => {
      const catalog = `catalog.${P.kind}.test.`;
      const s = primaryAndConsumer(P.kind, catalog, MEMBERS.slice(0, 2));

      it('serves every member after the catalog transfer, each transferred with the key', async () => {
        await eventually(() => served(s.port, MEMBERS[0]!), '192.0.2.1');
        await eventually(() => served(s.port, MEMBERS[1]!), '192.0.2.2');
        // Not listed yet: not a zone here.
        expect((await www(s.port, MEMBERS[2]!)).rcode).toBe(5);
        const applied = s.consumer.events.find((e) => e.event === 'catalog_applied');
        expect(applied).toMatchObject({ zone: catalog, applied: true, members: 2 });
        expect(applied!.ignoredProperties).toEqual({ group: 1 });
        // Each transferred (xfr_in is logged just after the swap that serves the zone).
        const zonesIn = async () =>
          [
            ...new Set(s.consumer.events.filter((e) => e.event === 'xfr_in').map((e) => e.zone)),
          ].sort();
        await eventually(zonesIn, [catalog, ...MEMBERS.slice(0, 2)].sort());
        expect(s.consumer.server.catalogs?.status()).toEqual([
          { catalog, serial: 1, members: 2, problems: {} },
        ]);
      }, 30_000);

      it('a member added to the catalog (serial raised, NOTIFY) appears', async () => {
        s.primary.catalog(catalogText(catalog, 2, MEMBERS));
        await eventually(() => served(s.port, MEMBERS[2]!), '192.0.2.3');
        const catalogIn = s.consumer.events.filter(
          (e) => e.event === 'xfr_in' && e.zone === catalog,
        );
        expect(catalogIn.at(-1)).toMatchObject({ serial: 2, kind: 'IXFR', trigger: 'notify' });
        expect(s.consumer.server.catalogs?.status()[0]).toMatchObject({ serial: 2, members: 3 });
      }, 30_000);

      it('a member removed from the catalog disappears, its copy deleted', async () => {
        const file = secondaryFile(s.dir, MEMBERS[0]!);
        expect(existsSync(file)).toBe(true);
        s.primary.catalog(catalogText(catalog, 3, MEMBERS.slice(1)));
        await eventually(async () => (await www(s.port, MEMBERS[0]!)).rcode, 5);
        expect(existsSync(file)).toBe(false);
        expect(await served(s.port, MEMBERS[1]!)).toBe('192.0.2.2');
        expect(
          s.consumer.server.secondaries
            ?.status()
            .map((s) => s.origin)
            .sort(),
        ).toEqual([catalog, MEMBERS[1]!, MEMBERS[2]!].sort());
      }, 30_000);

      it('a catalog whose version is not "2" is not applied: the members stay, CATALOG_VERSION', async () => {
        s.primary.catalog(catalogText(catalog, 4, MEMBERS.slice(2), '1'));
        const read = async () =>
          s.consumer.events.some((e) => e.event === 'catalog_problem' && e.serial === 4);
        await eventually(read, true);
        const problem = s.consumer.events.find(
          (e) => e.event === 'catalog_problem' && e.serial === 4,
        );
        expect(problem).toMatchObject({ code: 'CATALOG_VERSION', owner: `version.${catalog}` });
        expect(await served(s.port, MEMBERS[1]!)).toBe('192.0.2.2');
        expect(s.consumer.server.catalogs?.status()[0]).toMatchObject({
          serial: 4,
          members: 2,
          problems: { CATALOG_VERSION: 1 },
        });
      }, 30_000);

      it('a restart serves the members held on disk at once', async () => {
        await s.consumer.server.close();
        await s.primary.close();
        s.consumer = await startConsumer(s.port, s.primary.port, catalog, s.dir);
        // The primary is gone: what is served comes from the state folder.
        expect(await served(s.port, MEMBERS[1]!)).toBe('192.0.2.2');
        expect(await served(s.port, MEMBERS[2]!)).toBe('192.0.2.3');
        expect((await www(s.port, MEMBERS[0]!)).rcode).toBe(5);
        // Then the catalog held (its journal of IXFR differences replayed) is read again: version 4, not applied.
        const read = () => s.consumer.events.find((e) => e.event === 'catalog_applied');
        await eventually(async () => read()?.serial, 4);
        expect(read()).toMatchObject({ trigger: 'start', applied: false, members: 2 });
        expect(await served(s.port, MEMBERS[2]!)).toBe('192.0.2.3');
      }, 30_000);
    },
  );
}

/** The rcode of a NOTIFY for `origin` signed with the key, sent from a fresh socket (its own source s.port). */
function signedNotify(port: number, origin: string, id: number): Promise<number> {
  const raw = transferRequest(nameKey(origin), TYPE_SOA, id);
  raw[2] = (4 << 3) | 0x04; // opcode NOTIFY, AA (RFC 1996 section 3.7)
  const key = {
    name: `${KEY.name}.`,
    algorithm: 'hmac-sha256' as const,
    secret: Buffer.from(KEY.secret, 'base64'),
  };
  const msg = new TsigSigner(key, nodeHmac, nowSeconds(), undefined).sign(raw);
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    const timer = setTimeout(() => {
      s.close();
      reject(new Error(`no answer to NOTIFY ${id}`));
    }, 3000);
    s.on('message', (m) => {
      clearTimeout(timer);
      s.close();
      resolve(m[3]! & 0x0f);
    });
    s.bind(0, HOST, () => s.send(msg, port, HOST));
  });
}

describe.skipIf(named.skipReason !== undefined)(
  `a catalog's members with --workers 2${named.skipReason ? ` (skipped: ${named.skipReason})` : ''}`,
  () => {
    const s = primaryAndConsumer('named', 'catalog.workers.test.', MEMBERS.slice(0, 1), 2);

    it('every answering thread accepts the signed NOTIFY of the primary for a member', async () => {
      await eventually(() => served(s.port, MEMBERS[0]!), '192.0.2.1');
      // SO_REUSEPORT spreads the source ports over both threads; the other thread does not know the member.
      const rcodes = [];
      for (let i = 0; i < 30; i++) rcodes.push(await signedNotify(s.port, MEMBERS[0]!, 3000 + i));
      expect(new Set(rcodes)).toEqual(new Set([0]));
    }, 30_000);
  },
);
