/**
 * The catalog zone a primary publishes (`serve --catalog NAME`, RFC 9432
 * version 2): when the primary zones served change, a new version of its
 * file (serial raised) goes through the reload path like any zone file. The
 * file is `transfer.stateDir/catalog/<name>zone` (kept across restarts),
 * else in a temporary folder removed on close.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from '../authority/log.ts';
import type { ReloaderOptions } from '../authority/reload.ts';
import { isSecondaryZone, type ServerConfig } from '../config/server.ts';
import {
  catalogMembers,
  catalogZoneText,
  nextCatalogSerial,
  readCatalogText,
} from './core/catalog.ts';
import { replaceFile } from './served-state.ts';

export interface CatalogOptions {
  /** The catalog zone's name (absolute, lowercased). */
  readonly name: string;
  /** The state folder (absolute), or undefined for a temporary folder. */
  readonly stateDir: string | undefined;
  /** Origins never listed (the secondary zones: their primary is elsewhere). */
  readonly exclude: ReadonlySet<string>;
  /** Members' `group` properties (`catalogGroups`), by zone. */
  readonly groups?: Readonly<Record<string, readonly string[]>>;
  readonly log: Logger;
}

export class CatalogPublisher {
  readonly name: string;
  /** The zone file of the catalog (set by `open`). */
  file = '';
  private serial: number | undefined;
  private members: string[] | undefined;
  /** The text of the version written last, but its serial: a version differs when this does. */
  private body: string | undefined;
  private temp: string | undefined;
  private readonly o: CatalogOptions;

  private constructor(o: CatalogOptions) {
    this.o = o;
    this.name = o.name;
  }

  /** The publisher, with the version a previous run left in the state folder, if any. */
  static async open(o: CatalogOptions): Promise<CatalogPublisher> {
    const p = new CatalogPublisher(o);
    let dir: string;
    if (o.stateDir !== undefined) {
      dir = path.join(o.stateDir, 'catalog');
      await mkdir(dir, { recursive: true });
    } else dir = p.temp = await mkdtemp(path.join(tmpdir(), 'lexroute-catalog-'));
    p.file = path.join(dir, `${o.name === '.' ? '.' : o.name}zone`);
    const text = await readFile(p.file, 'utf8').catch(() => undefined);
    const before = text === undefined ? undefined : readCatalogText(text);
    if (before) {
      p.serial = before.serial;
      p.members = before.members;
      p.body = bodyOf(text!);
    }
    return p;
  }

  /** The members listed now (undefined before the first version). */
  listed(): readonly string[] | undefined {
    return this.members;
  }

  /** After a swap: a new version written when the primary zones differ (true: reload it). */
  async update(served: Iterable<string>): Promise<boolean> {
    const members = catalogMembers(
      [...served].filter((o) => !this.o.exclude.has(o.toLowerCase())),
      this.name,
    );
    const groups = this.o.groups;
    const body = bodyOf(catalogZoneText({ name: this.name, serial: 0, members, groups }));
    if (this.members !== undefined && body === this.body) return false;
    const serial = nextCatalogSerial(this.serial, Date.now() / 1000);
    const text = catalogZoneText({ name: this.name, serial, members, groups });
    await replaceFile(this.file, text);
    const added = members.filter((m) => !this.members?.includes(m));
    const removed = (this.members ?? []).filter((m) => !members.includes(m));
    this.serial = serial;
    this.members = members;
    this.body = body;
    this.o.log.info('catalog_updated', {
      zone: this.name,
      serial,
      members: members.length,
      added: added.slice(0, 20),
      removed: removed.slice(0, 20),
    });
    return true;
  }

  /** Remove the temporary folder (a state folder's file stays). */
  async close(): Promise<void> {
    if (this.temp !== undefined) await rm(this.temp, { recursive: true, force: true });
  }
}

/** A catalog's text without its SOA line (what a new version must change). */
const bodyOf = (text: string) => text.replace(/^@ IN SOA .*$/m, '');

type SwapHook = NonNullable<ReloaderOptions['onSwap']>;

/** The swap hook with the catalog kept up to date (a new version, then a reload of its file alone). */
export function swapWithCatalog(
  onSwap: SwapHook,
  catalog: CatalogPublisher | undefined,
  reloadCatalog: () => Promise<unknown>,
  log: Logger,
): SwapHook {
  if (catalog === undefined) return onSwap;
  return async (before, after, loaded, sameSet) => {
    await onSwap(before, after, loaded, sameSet);
    if (sameSet) return;
    const written = await catalog.update(after.keys()).catch((e: unknown) => {
      log.error('catalog_write_failed', { zone: catalog.name, error: (e as Error).message });
      return false;
    });
    if (written) void reloadCatalog();
  };
}

/** The catalog of a configuration (`catalog`, `serve --catalog`), or undefined. */
export async function catalogFor(
  config: ServerConfig,
  cwd: string,
  log: Logger,
): Promise<CatalogPublisher | undefined> {
  if (config.catalog === null) return undefined;
  const dir = config.transfer.stateDir;
  const exclude = new Set(config.zones.filter(isSecondaryZone).map((z) => z.origin));
  return CatalogPublisher.open({
    name: config.catalog,
    stateDir: dir === null ? undefined : path.resolve(cwd, dir),
    exclude,
    groups: config.catalogGroups,
    log,
  });
}
