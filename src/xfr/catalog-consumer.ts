/**
 * Catalog zones consumed (RFC 9432 version 2; `secondaryCatalogs`, `serve
 * --secondary-catalog NAME=ADDR:PORT[,key NAME]`): each catalog is a
 * secondary zone like any other (transferred by AXFR/IXFR with its
 * primary's key, refreshed at its SOA refresh and on NOTIFY, served); after
 * each transfer that installs a new version, and at start from the version
 * held on disk, its members are read (`core/catalog-read.ts`) and the
 * member zones are added to and removed from the secondary zones
 * (`Secondaries.addZone`, `removeZone`): each member is then a secondary
 * zone of the catalog's primaries and key, through the one secondary and
 * zone-load path.
 *
 * Properties (`group`, `coo`, `ext`) are read and ignored: every member is
 * provisioned alike, a change of ownership is not followed. A broken
 * version leaves the members as they were; a broken member entry leaves
 * that member as it was. The members provisioned are kept in
 * `transfer.stateDir/catalogs/<catalog>json`: a restart serves them at once. A member that is already a zone here (a zone
 * file, a configured secondary zone, another catalog's member) is not
 * provisioned (CATALOG_MEMBER_CONFLICT).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../authority/log.ts';
import { isSecondaryZone, type ServerConfig, type SecondaryZoneConfig } from '../config/server.ts';
import type { Zone } from '../dns/core/zone/model.ts';
import { planCatalog, readCatalog, type CatalogRecord } from './core/catalog-read.ts';
import { newXfrRecord, soaRecord, soaSerialOf, zoneBodyCursor } from './core/records.ts';
import type { Secondaries } from './secondary.ts';

export interface CatalogConsumerOptions {
  /** The catalogs consumed (each also a secondary zone of `secondaries`). */
  readonly catalogs: readonly SecondaryZoneConfig[];
  readonly secondaries: Secondaries;
  /** The origins served now (a member among them that is not a secondary zone is a zone file's). */
  readonly served: () => Iterable<string>;
  /** A reload: members removed leave the served set, members held on disk at start join it. */
  readonly reload: () => Promise<unknown>;
  /**
   * Where the members provisioned from each catalog are kept
   * (`<catalog>json`): a restart provisions them again before it reads the
   * catalog held, so that a broken version held keeps them too.
   */
  readonly stateDir: string;
  readonly log: Logger;
}

/** What `ctl status` and the tests learn of a catalog consumed. */
export interface CatalogConsumed {
  readonly catalog: string;
  /** The serial of the version applied last (undefined: none yet). */
  readonly serial: number | undefined;
  readonly members: number;
  /** Problems of the last version read, by code. */
  readonly problems: Readonly<Record<string, number>>;
}

/** The catalog zone's records as the reader takes them. */
function recordsOf(zone: Zone): CatalogRecord[] {
  const out: CatalogRecord[] = [];
  const cur = zoneBodyCursor(zone);
  const r = newXfrRecord();
  while (cur.next(r))
    out.push({ key: r.key, type: r.type, rdata: r.block.slice(r.start, r.start + r.len) });
  return out;
}

export class CatalogConsumer {
  private readonly o: CatalogConsumerOptions;
  /** Per catalog: the members provisioned from it, name to unique ID. */
  private readonly members = new Map<string, ReadonlyMap<string, string>>();
  private readonly state = new Map<string, { serial?: number; problems: Record<string, number> }>();
  /** Updates run one at a time, in order. */
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(o: CatalogConsumerOptions) {
    this.o = o;
    for (const c of o.catalogs) {
      this.members.set(c.origin, new Map());
      this.state.set(c.origin, { problems: {} });
    }
  }

  /** Whether `origin` is a catalog consumed here. */
  isCatalog(origin: string): boolean {
    return this.members.has(origin);
  }

  /**
   * Start, before the secondary zones' first checks: the members
   * provisioned before the restart (kept on disk) are provisioned again,
   * then one reload serves their files held. The catalogs themselves are
   * read by `readAll` once the secondary service has started (a catalog held
   * is its file with its journal of differences replayed).
   */
  async start(): Promise<void> {
    await mkdir(this.o.stateDir, { recursive: true });
    let added = 0;
    for (const c of this.o.catalogs) {
      const kept = await readFile(this.keptFile(c.origin), 'utf8').then(
        (t) => new Map(Object.entries(JSON.parse(t) as Record<string, string>)),
        () => new Map<string, string>(),
      );
      const next = new Map(kept);
      added += this.provision(c.origin, c, [...kept.keys()], next).length;
      this.members.set(c.origin, next);
    }
    if (added > 0) await this.o.reload();
  }

  /** Apply the version of every catalog held (after the start: a catalog changed before a restart and not applied yet). */
  async readAll(trigger: string): Promise<void> {
    for (const c of this.o.catalogs) await this.update(c.origin, trigger);
  }

  private keptFile(catalog: string): string {
    return path.join(this.o.stateDir, `${catalog}json`);
  }

  /** Keep the members of `catalog` for the next start. */
  private async keep(catalog: string, members: ReadonlyMap<string, string>): Promise<void> {
    const file = this.keptFile(catalog);
    await writeFile(`${file}.tmp`, `${JSON.stringify(Object.fromEntries(members), null, 1)}\n`);
    await rename(`${file}.tmp`, file);
  }

  /** A new version of `catalog` was installed (the secondary service's hook). */
  installed(origin: string): void {
    if (this.isCatalog(origin)) void this.update(origin, 'transfer');
  }

  /** Resolves when no update is running. */
  idle(): Promise<void> {
    return this.queue;
  }

  close(): void {
    this.closed = true;
  }

  status(): CatalogConsumed[] {
    return [...this.members].map(([catalog, m]) => ({
      catalog,
      serial: this.state.get(catalog)?.serial,
      members: m.size,
      problems: this.state.get(catalog)?.problems ?? {},
    }));
  }

  /** Apply the version of `catalog` served now; the number of members added. */
  update(catalog: string, trigger: string): Promise<number> {
    const run = this.queue.then(() => this.apply(catalog, trigger));
    this.queue = run.then(
      () => undefined,
      (e: unknown) => {
        this.o.log.error('catalog_apply_failed', { zone: catalog, error: (e as Error).message });
      },
    );
    return run.catch(() => 0);
  }

  private async apply(catalog: string, trigger: string): Promise<number> {
    const zone = this.o.secondaries.zoneOf(catalog);
    const config = this.o.catalogs.find((c) => c.origin === catalog);
    if (zone === undefined || config === undefined || this.closed) return 0;
    const serial = soaSerialOf(soaRecord(zone).rdata);
    const read = readCatalog(catalog, recordsOf(zone));
    const problems: Record<string, number> = {};
    for (const p of read.problems) {
      problems[p.code] = (problems[p.code] ?? 0) + 1;
      this.o.log.warn('catalog_problem', { zone: catalog, serial, ...p });
    }
    this.state.set(catalog, { serial, problems });
    const before = this.members.get(catalog) ?? new Map<string, string>();
    const plan = planCatalog(before, read);
    const next = new Map(plan.next);
    const gone = [...plan.remove, ...plan.reset];
    for (const name of gone) await this.o.secondaries.removeZone(name);
    // The zones removed leave the served set before any is added again (a reset).
    if (gone.length > 0) await this.o.reload();
    const added = this.provision(catalog, config, [...plan.add, ...plan.reset], next);
    this.members.set(catalog, next);
    await this.keep(catalog, next);
    this.o.log.info('catalog_applied', {
      zone: catalog,
      serial,
      trigger,
      applied: read.members !== undefined,
      members: next.size,
      added: added.slice(0, 20),
      removed: plan.remove.slice(0, 20),
      reset: plan.reset.slice(0, 20),
      ignoredProperties: read.ignored,
    });
    return added.length;
  }

  /** Add the members `names` as secondary zones of the catalog's primaries; conflicts leave `next`. */
  private provision(
    catalog: string,
    config: SecondaryZoneConfig,
    names: readonly string[],
    next: Map<string, string>,
  ): string[] {
    const served = new Set(this.o.served());
    const added: string[] = [];
    for (const name of names) {
      const here = this.o.secondaries.has(name)
        ? `a secondary zone here already${this.o.secondaries.catalogOf(name) ? ` (a member of ${this.o.secondaries.catalogOf(name)!})` : ''}`
        : served.has(name)
          ? 'served here from a zone file'
          : undefined;
      if (here !== undefined || this.isCatalog(name)) {
        next.delete(name);
        this.o.log.warn('catalog_problem', {
          zone: catalog,
          code: 'CATALOG_MEMBER_CONFLICT',
          owner: name,
          message: `${name} is ${here ?? 'a catalog consumed here'}: not provisioned from ${catalog}`,
        });
        continue;
      }
      this.o.secondaries.addZone({ origin: name, primaries: config.primaries }, catalog);
      added.push(name);
    }
    return added;
  }
}

/** The secondary zones of a configuration: those of `zones`, and the catalogs consumed. */
export function secondaryZonesOf(config: ServerConfig): SecondaryZoneConfig[] {
  return [...config.zones.filter(isSecondaryZone), ...config.secondaryCatalogs];
}

/** The consumer of a configuration's catalogs (undefined without `secondaryCatalogs`), hooked to its secondaries. */
export function catalogConsumerFor(
  config: ServerConfig,
  secondaries: Secondaries | undefined,
  served: () => Iterable<string>,
  reload: () => Promise<unknown>,
  stateDir: string,
  log: Logger,
): CatalogConsumer | undefined {
  if (secondaries === undefined || config.secondaryCatalogs.length === 0) return undefined;
  const consumer = new CatalogConsumer({
    catalogs: config.secondaryCatalogs,
    secondaries,
    served,
    reload,
    stateDir: path.join(stateDir, 'catalogs'),
    log,
  });
  secondaries.onInstalled = (origin) => consumer.installed(origin);
  return consumer;
}
