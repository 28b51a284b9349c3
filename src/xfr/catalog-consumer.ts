/**
 * Catalog zones consumed (RFC 9432 version 2; `secondaryCatalogs`): each
 * catalog is a secondary zone; after each new version (and at start) its
 * members are read (`core/catalog-read.ts`) and added to or removed from the
 * secondary zones, with the catalog's primaries and key.
 *
 * `group` is reported only; `coo` (section 5.3) lets another catalog take a
 * member over (keeping its data when the member ID is the same). A member
 * that is already a zone here is CATALOG_MEMBER_CONFLICT, and is provisioned
 * later when its owner drops it or names this catalog in `coo`. A broken
 * version (or member entry) leaves things as they were. Members and `coo`
 * are kept in `<stateDir>/catalogs/<catalog>json` across restarts.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../authority/log.ts';
import { isSecondaryZone, type ServerConfig, type SecondaryZoneConfig } from '../config/server.ts';
import { planCatalog, readCatalog } from './core/catalog-read.ts';
import { soaRecord, zoneBodyRecords } from './core/records.ts';
import { soaSerialOf } from '../dns/core/rr/soa.ts';
import type { LastRefresh, Secondaries } from './secondary.ts';
import { replaceFile } from './served-state.ts';

export interface CatalogConsumerOptions {
  /** The catalogs consumed (each also a secondary zone of `secondaries`). */
  readonly catalogs: readonly SecondaryZoneConfig[];
  readonly secondaries: Secondaries;
  /** The origins served now (a member among them that is not a secondary zone is a zone file's). */
  readonly served: () => Iterable<string>;
  /** A reload: members removed leave the served set, members held on disk at start join it. */
  readonly reload: () => Promise<unknown>;
  /** Where each catalog's members are kept (`<catalog>json`), provisioned again at restart. */
  readonly stateDir: string;
  readonly log: Logger;
}

/** A member zone of a catalog consumed, as `status` reports it. */
export interface CatalogMemberStatus {
  readonly zone: string;
  /** Its member node's unique ID. */
  readonly id: string;
  /** Its `group` property values (RFC 9432 section 5.2). */
  readonly groups: readonly string[];
  /** pending: no version yet; failed: the last refresh failed (a version held is still served). */
  readonly state: 'provisioned' | 'pending' | 'failed';
  readonly serial: number | undefined;
  /** The member's last refresh: result (axfr, ixfr, current, failed), time, failure code. */
  readonly lastRefresh: LastRefreshReport | undefined;
}

/** A `LastRefresh` with its time in ISO form. */
export type LastRefreshReport = Omit<LastRefresh, 'at'> & { readonly at: string };

/** What `ctl status`, the metrics and the tests learn of a catalog consumed. */
export interface CatalogConsumed {
  readonly catalog: string;
  /** The serial of the version read last (undefined: none yet). */
  readonly serial: number | undefined;
  readonly members: number;
  /** Problems of the last version read, by code. */
  readonly problems: Readonly<Record<string, number>>;
  /** When the last version was read (ISO time). */
  readonly appliedAt: string | undefined;
  /** The catalog zone's own last refresh from its primaries. */
  readonly lastTransfer: LastRefreshReport | undefined;
  readonly states: Readonly<Record<CatalogMemberStatus['state'], number>>;
  readonly memberZones: readonly CatalogMemberStatus[];
  /** Members listed but not provisioned from this catalog (CATALOG_MEMBER_CONFLICT). */
  readonly rejected: readonly {
    readonly zone: string;
    readonly code: string;
    readonly message: string;
  }[];
}

/** What is known of a catalog's last version read, beside its members. */
interface CatalogState {
  serial?: number;
  appliedAt?: number;
  problems: Record<string, number>;
  groups: ReadonlyMap<string, readonly string[]>;
  /** Member to the catalog its `coo` names. */
  coo: ReadonlyMap<string, string>;
  rejected: Map<string, { code: string; message: string }>;
}

const emptyState = (): CatalogState => ({
  problems: {},
  groups: new Map(),
  coo: new Map(),
  rejected: new Map(),
});

const refreshReport = (l: LastRefresh | undefined): LastRefreshReport | undefined =>
  l && { ...l, at: new Date(l.at).toISOString() };

export class CatalogConsumer {
  private readonly o: CatalogConsumerOptions;
  /** Per catalog: the members provisioned from it, name to unique ID. */
  private readonly members = new Map<string, Map<string, string>>();
  private readonly state = new Map<string, CatalogState>();
  /** Updates run one at a time, in order. */
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  /** Every member and its catalog, before members are added and after each change (for `--workers`). */
  onMembers: ((members: readonly (readonly [string, string])[]) => Promise<void>) | undefined;

  constructor(o: CatalogConsumerOptions) {
    this.o = o;
    for (const c of o.catalogs) {
      this.members.set(c.origin, new Map());
      this.state.set(c.origin, emptyState());
    }
  }

  isCatalog(origin: string): boolean {
    return this.members.has(origin);
  }

  /** Before the first checks: the members kept on disk provisioned and reloaded (catalogs: `readAll`). */
  async start(): Promise<void> {
    await mkdir(this.o.stateDir, { recursive: true });
    let added = 0;
    for (const c of this.o.catalogs) {
      const { members: kept, coo } = await this.readKept(c.origin);
      this.state.set(c.origin, { ...emptyState(), coo });
      const next = new Map(kept);
      await this.announce(c.origin, [...kept.keys()]);
      added += (await this.provision(c.origin, c, [...kept.keys()], next)).length;
      this.members.set(c.origin, next);
    }
    await this.announce();
    if (added > 0) await this.o.reload();
  }

  /** Apply the version of every catalog held (once the secondary service has started). */
  async readAll(trigger: string): Promise<void> {
    for (const c of this.o.catalogs) await this.update(c.origin, trigger);
  }

  private keptFile(catalog: string): string {
    return path.join(this.o.stateDir, `${catalog}json`);
  }

  /** Keep the members of `catalog` (name to ID) and its `coo` (name to catalog) for the next start. */
  private async keep(catalog: string): Promise<void> {
    const file = this.keptFile(catalog);
    const members = Object.fromEntries(this.members.get(catalog) ?? []);
    const coo = Object.fromEntries(this.state.get(catalog)?.coo ?? []);
    await replaceFile(file, `${JSON.stringify({ members, coo }, null, 1)}\n`);
  }

  /** What `keep` wrote (a file of an older version holds the members alone: name to ID). */
  private async readKept(catalog: string) {
    const file = this.keptFile(catalog);
    const text = await readFile(file, 'utf8').catch(() => '{}');
    let o: { members?: Record<string, string>; coo?: Record<string, string> } = {};
    try {
      o = JSON.parse(text) as typeof o;
    } catch (e) {
      this.o.log.warn('catalog_state_unreadable', { file, error: (e as Error).message });
    }
    const flat = typeof o.members !== 'object';
    return {
      members: new Map(Object.entries(flat ? (o as Record<string, string>) : o.members!)),
      coo: new Map(Object.entries(flat ? {} : (o.coo ?? {}))),
    };
  }

  /** Tell `onMembers` every member, `adding` too (known before provisioned: an early NOTIFY passes). */
  private async announce(catalog?: string, adding: readonly string[] = []): Promise<void> {
    const all = new Map<string, string>();
    for (const [c, m] of this.members) for (const name of m.keys()) all.set(name, c);
    for (const name of adding) if (!all.has(name)) all.set(name, catalog!);
    await this.onMembers?.([...all]);
  }

  /** A new version of `catalog` was installed (the secondary service's hook). */
  installed(origin: string): void {
    if (this.isCatalog(origin)) void this.update(origin, 'transfer');
  }

  idle(): Promise<void> {
    return this.queue;
  }

  close(): void {
    this.closed = true;
  }

  status(): CatalogConsumed[] {
    const zones = new Map(this.o.secondaries.status().map((z) => [z.origin, z]));
    return [...this.members].map(([catalog, m]) => {
      const st = this.state.get(catalog) ?? emptyState();
      const states = { provisioned: 0, pending: 0, failed: 0 };
      const memberZones = [...m].sort().map(([zone, id]): CatalogMemberStatus => {
        const z = zones.get(zone);
        const state =
          z?.last?.result === 'failed' || z?.expired
            ? 'failed'
            : z?.serial === undefined
              ? 'pending'
              : 'provisioned';
        states[state]++;
        const groups = st.groups.get(zone) ?? [];
        return { zone, id, groups, state, serial: z?.serial, lastRefresh: refreshReport(z?.last) };
      });
      return {
        catalog,
        serial: st.serial,
        members: m.size,
        problems: st.problems,
        appliedAt: st.appliedAt === undefined ? undefined : new Date(st.appliedAt).toISOString(),
        lastTransfer: refreshReport(zones.get(catalog)?.last),
        states,
        memberZones,
        rejected: [...st.rejected].map(([zone, r]) => ({ zone, ...r })),
      };
    });
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
    const read = readCatalog(catalog, zoneBodyRecords(zone));
    const problems: Record<string, number> = {};
    for (const p of read.problems) {
      problems[p.code] = (problems[p.code] ?? 0) + 1;
      this.o.log.warn('catalog_problem', { zone: catalog, serial, ...p });
    }
    const before = this.members.get(catalog) ?? new Map<string, string>();
    const old = this.state.get(catalog) ?? emptyState();
    // A version not applied keeps the properties of the members as they were.
    const props = read.members === undefined ? old : read;
    const st: CatalogState = {
      serial,
      appliedAt: Date.now(),
      problems,
      groups: props.groups,
      coo: props.coo,
      rejected: read.members === undefined ? old.rejected : new Map(),
    };
    this.state.set(catalog, st);
    const plan = planCatalog(before, read);
    const next = new Map(plan.next);
    const gone = [...plan.remove, ...plan.reset];
    for (const name of gone) await this.o.secondaries.removeZone(name);
    // The zones removed leave the served set before any is added again (a reset).
    if (gone.length > 0) await this.o.reload();
    const adding = [...plan.add, ...plan.reset];
    if (adding.length > 0) await this.announce(catalog, adding);
    const added = await this.provision(catalog, config, adding, next);
    this.members.set(catalog, next);
    await this.keep(catalog);
    await this.announce();
    this.reapplyOthers(catalog, plan.remove, old.coo, st.coo);
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

  /** A catalog refused a member `catalog` now drops or hands over (`coo`): applied again. */
  private reapplyOthers(
    catalog: string,
    dropped: readonly string[],
    cooBefore: ReadonlyMap<string, string>,
    coo: ReadonlyMap<string, string>,
  ): void {
    const handed = [...coo].filter(([name, to]) => cooBefore.get(name) !== to);
    for (const [other, st] of this.state) {
      if (other === catalog) continue;
      if (dropped.some((n) => st.rejected.has(n)))
        void this.update(other, `released by ${catalog}`);
      else if (handed.some(([n, to]) => to === other && st.rejected.has(n)))
        void this.update(other, `coo of ${catalog}`);
    }
  }

  /** Why `name` cannot be provisioned from a catalog, or undefined. */
  private conflict(name: string, served: ReadonlySet<string>): string | undefined {
    if (this.o.secondaries.has(name)) {
      const owner = this.o.secondaries.catalogOf(name);
      return `a secondary zone here already${owner ? ` (a member of ${owner})` : ''}`;
    }
    if (served.has(name)) return 'served here from a zone file';
    return this.isCatalog(name) ? 'a catalog consumed here' : undefined;
  }

  /** Add `names` as secondary zones (taken over when the owner's `coo` names this catalog). */
  private async provision(
    catalog: string,
    config: SecondaryZoneConfig,
    names: readonly string[],
    next: Map<string, string>,
  ): Promise<string[]> {
    const served = new Set(this.o.served());
    const added: string[] = [];
    const rejected = this.state.get(catalog)?.rejected;
    const coo = this.state.get(catalog)?.coo;
    for (const name of names) {
      const owner = this.o.secondaries.catalogOf(name);
      // Moved to the catalog this one's coo names: still listed here until its producer drops it.
      if (owner !== undefined && owner !== catalog && coo?.get(name) === owner) {
        next.delete(name);
        continue;
      }
      if (
        owner !== undefined &&
        owner !== catalog &&
        this.state.get(owner)?.coo.get(name) === catalog
      ) {
        await this.takeOver(name, owner, catalog, config, next.get(name)!);
        added.push(name);
        continue;
      }
      const here = this.conflict(name, served);
      if (here === undefined) {
        this.o.secondaries.addZone({ origin: name, primaries: config.primaries }, catalog);
        added.push(name);
        continue;
      }
      next.delete(name);
      const message = `${name} is ${here}: not provisioned from ${catalog}`;
      rejected?.set(name, { code: 'CATALOG_MEMBER_CONFLICT', message });
      this.o.log.warn('catalog_problem', {
        zone: catalog,
        code: 'CATALOG_MEMBER_CONFLICT',
        owner: name,
        message,
      });
    }
    return added;
  }

  /** A change of ownership (RFC 9432 section 5.3): the same ID keeps the zone's data, another resets it. */
  private async takeOver(
    name: string,
    from: string,
    to: string,
    config: SecondaryZoneConfig,
    id: string,
  ): Promise<void> {
    const oldId = this.members.get(from)?.get(name);
    this.members.get(from)?.delete(name);
    await this.keep(from);
    const kept = oldId === id;
    if (kept) this.o.secondaries.moveZone(name, to, config.primaries);
    else {
      await this.o.secondaries.removeZone(name);
      await this.o.reload();
      this.o.secondaries.addZone({ origin: name, primaries: config.primaries }, to);
    }
    this.o.log.info('catalog_member_moved', { zone: name, from, to, id, kept });
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
