/**
 * Zone reload: which files changed (size and mtime, or the content hash the loader recognises),
 * loaded through the one zone path in the zone-load worker; a refused zone keeps its served
 * version (`zone_rejected`); the new zone set is swapped in one assignment.
 */
import { open, rename, stat, unlink } from 'node:fs/promises';
import { constants } from 'node:fs';
import type { Zone, ZoneDiagnostic } from '../dns/core/zone/model.ts';
import { isZoneCode } from '../dns/core/zone/codes.ts';
import type { IndexedZone } from './core/zone-lookup.ts';
import type { Logger } from './log.ts';
import { nameKey } from '../dns/core/wire/name.ts';
import { serialCompare, type SerialPolicy } from '../xfr/core/serial.ts';
import type { RestoredServed } from './zones/version.ts';
import type { BackgroundLoadResult, VersionRequest } from './zones/background.ts';
import type { VersionOutcome } from './zones/version.ts';
import { soaRecord } from '../xfr/core/records.ts';
import { soaSerialOf } from '../dns/core/rr/soa.ts';
import type { ZoneDiff } from '../xfr/core/diff.ts';
import type { FileStamp } from './zones/load.ts';

export type { VersionRequest, VersionOutcome };
import {
  expandZoneSources,
  inferOriginFromFileName,
  soaSerial,
  type ZoneSourceSpec,
} from './zones/sources.ts';

/** What the loader gives for one file (the load worker's result, its own time aside). */
export type ZoneLoadResult = Omit<BackgroundLoadResult, 'workerMs'>;

/**
 * Loads one zone file in the zone-load worker (`zones/loader.ts`); `previousHash` lets it answer
 * `unchanged`; `previousSerial` and `signedBefore` are what inline signing goes past and keeps.
 */
export type ZoneFileLoader = (
  file: string,
  origin: string | undefined,
  previousHash?: string,
  previousSerial?: number,
  version?: VersionRequest,
  signedBefore?: Zone,
) => Promise<ZoneLoadResult>;

export interface ReloadReport {
  readonly loaded: number;
  readonly unchanged: number;
  readonly failed: number;
  readonly removed: number;
  readonly zones: number;
  /** Time the reload took, compile included. */
  readonly ms: number;
}

/** One served zone and what identifies its file's version. */
interface Loaded {
  readonly zone: Zone;
  /** The zone as the loader indexed it (absent: the engine indexes it). */
  readonly indexed: IndexedZone | undefined;
  readonly mtimeMs: number;
  readonly size: number;
  readonly serial: number | undefined;
  readonly hash: string | undefined;
  /** Inline signing: when the signatures need refreshing (epoch ms). */
  readonly refreshAt: number | undefined;
  /** This version against the one served before it (difference, serial chosen). */
  readonly version?: VersionOutcome;
}

/** What the swap hook learns of each zone loaded by this reload, by origin. */
export interface SwapInfo {
  readonly version?: VersionOutcome;
  readonly hash?: string;
  readonly file: string;
  /** Signed inline (the served serial is the signer's). */
  readonly signed?: boolean;
  /** The zone's serial policy (when versioning is on). */
  readonly policy?: SerialPolicy;
}

/** Comparing each load with the served version: serial policy, IXFR difference. */
export interface Versioning {
  /** The serial policy of a zone (by the origin configured for the file, or served from it). */
  policyFor(origin: string | undefined): SerialPolicy;
  /** Compute IXFR differences (transfers are served). */
  readonly diff: boolean;
  /** State kept before a restart, by origin (`xfr/served-state.ts`). */
  readonly restored?: ReadonlyMap<string, RestoredServed>;
  /** Today as YYYYMMDD. */
  today(): number;
}

/** A refresh of signatures that failed is tried again after this long. */
const REFRESH_RETRY_MS = 30_000;

/** What one file's reload gave. */
type FileOutcome = 'loaded' | 'unchanged' | 'failed' | 'incomplete';

/** Whether the zone's file is read itself (not a transferred copy being installed). */
const direct = (source: string, file: string) => source === file;

/** A file still being written: it does not end with a newline, or it changed while we looked. */
async function looksIncomplete(file: string, st: { size: number; mtimeMs: number }) {
  await new Promise((r) => setTimeout(r, 100));
  let again;
  try {
    again = await stat(file);
  } catch {
    return true;
  }
  if (again.size !== st.size || again.mtimeMs !== st.mtimeMs) return true;
  if (!again.isFile() || again.size === 0) return false;
  let fh;
  try {
    fh = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const b = Buffer.alloc(1);
    await fh.read(b, 0, 1, again.size - 1);
    return b[0] !== 0x0a;
  } catch {
    return false;
  } finally {
    await fh?.close();
  }
}

/** Log a reloaded zone's serial when it went backwards or stayed while the file changed (as BIND does). */
function checkSerial(
  log: Logger,
  file: string,
  prev: Loaded | undefined,
  zone: Zone,
  serial: number | undefined,
  version: VersionOutcome | undefined,
) {
  if (version?.raised) {
    log.info('zone_serial_raised', {
      file,
      origin: zone.origin,
      serial: version.serial,
      fileSerial: version.fileSerial,
      previous: prev?.serial ?? null,
      note: 'the content changed but the file serial did not go up: raised (serial policy); the file is not rewritten',
    });
    return;
  }
  // Only comments or layout changed: nothing for the secondaries to transfer.
  if (version?.changed === false && serial === prev?.serial) return;
  if (
    !prev ||
    prev.zone.origin !== zone.origin ||
    serial === undefined ||
    prev.serial === undefined
  )
    return;
  const order = serialCompare(serial, prev.serial);
  if (order < 0 || Number.isNaN(order)) {
    log.warn('zone_serial_backwards', {
      file,
      origin: zone.origin,
      serial,
      previous: prev.serial,
      note: 'secondaries and caches keep the old version (RFC 1982 serial arithmetic)',
    });
  } else if (serial === prev.serial) {
    log.warn('zone_serial_unchanged', {
      file,
      origin: zone.origin,
      serial,
      note: 'the file changed but the SOA serial did not: secondaries will not transfer it',
    });
  }
}

function logDiagnostics(log: Logger, file: string, diagnostics: readonly ZoneDiagnostic[]) {
  for (const d of diagnostics) {
    const fields = {
      file,
      code: d.code,
      message: d.message,
      ...(d.position ? { line: d.position.line, column: d.position.column } : {}),
    };
    if (d.severity === 'error') log.error('zone_diagnostic', fields);
    else log.warn('zone_diagnostic', fields);
  }
}

/** A refused load: one `zone_rejected` line (count, first refusing finding); true when refused. */
function rejected(
  log: Logger,
  file: string,
  r: ZoneLoadResult,
  ms: number,
  prev: Loaded | undefined,
): boolean {
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  if (r.zone && errors.length === 0) return false;
  // Without an error, the zone was refused for its warnings (strict).
  const first = errors[0] ?? r.diagnostics[0];
  const p = first?.position;
  log.error('zone_rejected', {
    file,
    errors: errors.length,
    ...(errors.length === 0 ? { warnings: r.diagnostics.length, strict: true } : {}),
    code: first?.code ?? 'ZONE_LOAD_FAILED',
    ...(p ? { line: p.line, column: p.column } : {}),
    message: first?.message ?? 'the zone-load worker gave no zone',
    ms,
    keeping: prev ? `${prev.zone.origin} (previous version)` : null,
  });
  return true;
}

/** The zone_loaded line (with what inline signing did, if it signed). */
function logLoaded(
  log: Logger,
  file: string,
  zone: Zone,
  serial: number | undefined,
  ms: number,
  r: ZoneLoadResult,
) {
  const s = r.signed;
  const signed = s && { signed: { ...s, refreshAt: new Date(s.refreshAt).toISOString() } };
  log.info('zone_loaded', {
    file,
    origin: zone.origin,
    serial: serial ?? null,
    records: zone.size,
    ms,
    ...(r.phases ? { phases: r.phases } : {}),
    ...(r.cpuMs !== undefined ? { cpuMs: r.cpuMs } : {}),
    ...(r.unniced !== undefined ? { starvedUnnicedAfterMs: r.unniced } : {}),
    // Names whose answers the load worker encoded ahead (the hot set of the version replaced).
    ...(r.indexed?.answers ? { answersAhead: r.indexed.answers.names } : {}),
    ...signed,
  });
}

export interface ReloaderOptions {
  readonly specs: readonly ZoneSourceSpec[];
  readonly cwd: string;
  readonly loader: ZoneFileLoader;
  /** Where each new zone set goes, with the origin keys of configured zones not served (SERVFAIL). */
  readonly engine: {
    setZones(
      zones: readonly (Zone | IndexedZone)[],
      unavailable: readonly string[],
    ): void | Promise<void>;
    /** A new version of one zone served (same origin); false: not done (then `setZones`). */
    replaceZone?(zone: Zone | IndexedZone): boolean | Promise<boolean>;
  };
  /** Secondary zones: the file each transferred zone is kept in (absent until the first transfer). */
  readonly secondaryFiles?: readonly { readonly file: string; readonly origin: string }[];
  readonly log: Logger;
  /** Ask for another reload shortly (a file was still being written). */
  readonly retrySoon: () => void;
  /**
   * After each swap: the zones served before and after, by origin (IXFR
   * history, NOTIFY); with `sameSet`, only the zones that changed (one
   * zone reloaded: the set of origins served is the same).
   */
  readonly onSwap?: (
    before: ReadonlyMap<string, Zone>,
    after: ReadonlyMap<string, Zone>,
    loaded: ReadonlyMap<string, SwapInfo>,
    sameSet?: boolean,
  ) => Promise<void>;
  /** Compare loads with the served versions (serial policy, IXFR differences). */
  readonly versioning?: Versioning;
  /** Zone files the server writes itself (the catalog zone): loaded when they exist. */
  readonly generatedFiles?: () => readonly { readonly file: string; readonly origin: string }[];
}

const now = () => performance.now();
const round1 = (ms: number) => Math.round(ms * 10) / 10;

function report(
  counts: Partial<Record<FileOutcome, number>>,
  removed: number,
  zones: number,
  t0: number,
): ReloadReport {
  const { loaded = 0, unchanged = 0, failed = 0 } = counts;
  return { loaded, unchanged, failed, removed, zones, ms: Math.round(now() - t0) };
}

export class ZoneReloader {
  private readonly o: ReloaderOptions;
  private current = new Map<string, Loaded>();
  private served = new Map<string, Zone>();
  private running: Promise<unknown> | undefined;
  private incompleteTries = 0;
  /** Secondary zones past their expire time (origins): left out of the set, SERVFAIL. */
  private readonly expired = new Set<string>();
  private unavailableKey = '';
  /** What the last run did with each file. */
  private outcomes = new Map<string, FileOutcome>();
  /** The origin each file was given (ORIGIN=FILE), for a reload of one zone. */
  private readonly origins = new Map<string, string>();
  /** Zone sources added while running (`ctl zone add FILE`). */
  private readonly added: ZoneSourceSpec[] = [];
  /** Origins taken out of the served set while running (`ctl zone remove`). */
  private readonly removedOrigins = new Set<string>();
  /** The file of each origin in `current` (the first in order), made again at each swap of the set. */
  private fileByOrigin = new Map<string, string>();
  /** The earliest `refreshAt` in `current` (Infinity: none; NaN: to be found again). */
  private earliest = NaN;
  /** A zone expired or came back since the last swap of the set (the next reload swaps it). */
  private expiryChanged = false;

  constructor(options: ReloaderOptions) {
    this.o = options;
  }

  /**
   * Re-read the sources, one reload at a time; a file is loaded only when its
   * size or mtime changed. With `only` (`ctl reload ZONE`) only that zone's
   * file is looked at (a zone not served yet takes the full reload).
   */
  reload(
    watching = false,
    overrides?: ReadonlyMap<string, string>,
    only?: string,
  ): Promise<ReloadReport> {
    return this.queue(() => this.run(watching, overrides, only));
  }

  /** Run `go` once the reload running (if any) is done; `idle()` waits for it too. */
  private queue<T>(go: () => Promise<T>): Promise<T> {
    const run = (this.running ?? Promise.resolve()).then(go, go);
    const tracked = run.finally(() => {
      if (this.running === tracked) this.running = undefined;
    });
    this.running = tracked;
    return run;
  }

  /** A secondary zone transferred into `tmp`: loaded as `file`'s zone, renamed over it when it loads, else removed. */
  async install(file: string, tmp: string): Promise<boolean> {
    await this.reload(false, new Map([[file, tmp]]));
    const o = this.outcomes.get(file);
    return o === 'loaded' || o === 'unchanged';
  }

  /** Mark a secondary zone expired (left out of the zone set: SERVFAIL) or not, and swap. */
  async setExpired(origin: string, expired: boolean): Promise<void> {
    if (expired === this.expired.has(origin)) return;
    if (expired) this.expired.add(origin);
    else this.expired.delete(origin);
    this.expiryChanged = true;
    await this.reload();
  }

  /**
   * `ctl zone add`: serve the zone of `spec` from now on, or, with `origin` alone, a zone taken out
   * by `removeZone` or whose file appeared in a configured folder.
   */
  async addZone(
    spec: ZoneSourceSpec | { readonly origin: string },
  ): Promise<{ outcome: string | undefined; origin: string | undefined }> {
    if (spec.origin !== undefined) this.removedOrigins.delete(spec.origin);
    if ('path' in spec && !this.added.some((a) => a.path === spec.path)) this.added.push(spec);
    await this.reload();
    await this.idle(); // the catalog's reload, queued by the swap
    const file = 'path' in spec ? spec.path : spec.origin && this.fileByOrigin.get(spec.origin);
    if (file === undefined) return { outcome: undefined, origin: undefined };
    return { outcome: this.outcomes.get(file), origin: this.current.get(file)?.zone.origin };
  }

  /** `ctl zone remove`: stop serving `origin` (until `addZone`); false when it is not served. */
  async removeZone(origin: string): Promise<boolean> {
    const file = this.fileByOrigin.get(origin);
    if (file === undefined) return false;
    this.removedOrigins.add(origin);
    const i = this.added.findIndex((a) => a.path === file);
    if (i >= 0) this.added.splice(i, 1);
    await this.reload();
    await this.idle();
    return true;
  }

  /** The origins served now. */
  servedOrigins(): string[] {
    return [...this.served.keys()];
  }

  /** The zone loaded from a file (served or expired), if any. */
  zoneOfFile(file: string): Zone | undefined {
    return this.current.get(file)?.zone;
  }

  /** The earliest time (epoch ms) a served zone's signatures need refreshing (inline signing). */
  nextRefresh(): number | undefined {
    if (Number.isNaN(this.earliest)) {
      this.earliest = Infinity;
      for (const l of this.current.values())
        if (l.refreshAt !== undefined && l.refreshAt < this.earliest) this.earliest = l.refreshAt;
    }
    return this.earliest === Infinity ? undefined : this.earliest;
  }

  /** One file's zone replaced in `current` (a reload of that zone alone). */
  private setCurrent(file: string, l: Loaded): void {
    const prev = this.current.get(file);
    this.current.set(file, l);
    if (prev?.refreshAt === this.earliest) this.earliest = NaN;
    else if (l.refreshAt !== undefined && l.refreshAt < this.earliest) this.earliest = l.refreshAt;
  }

  /** Resolves once no reload is running. */
  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  /** The zone files and the secondary zones' files that exist (or are being installed). */
  private async allFiles(overrides: ReadonlyMap<string, string> | undefined) {
    const files: { file: string; origin?: string | undefined }[] = (
      await expandZoneSources([...this.o.specs, ...this.added], this.o.cwd)
    ).filter((f) => !this.isRemoved(f.file, f.origin));
    for (const s of [...(this.o.secondaryFiles ?? []), ...(this.o.generatedFiles?.() ?? [])]) {
      const there =
        overrides?.has(s.file) ||
        (await stat(s.file).then(
          () => true,
          () => false,
        ));
      if (there) files.push({ file: s.file, origin: s.origin });
    }
    return files;
  }

  /** A file whose zone `ctl zone remove` took out (by its given origin, its name, or what it served). */
  private isRemoved(file: string, origin: string | undefined): boolean {
    if (this.removedOrigins.size === 0) return false;
    const o = origin ?? this.current.get(file)?.zone.origin ?? inferOriginFromFileName(file);
    return o !== undefined && this.removedOrigins.has(o.toLowerCase());
  }

  private async run(
    watching: boolean,
    overrides?: ReadonlyMap<string, string>,
    only?: string,
  ): Promise<ReloadReport> {
    const t0 = now();
    const target = only === undefined ? undefined : this.fileByOrigin.get(only);
    if (target !== undefined) return this.runOne(target, t0);
    const files = await this.allFiles(overrides);
    const next = new Map<string, Loaded>();
    const counts = { loaded: 0, unchanged: 0, failed: 0, incomplete: 0 };
    this.outcomes = new Map();
    // Files are loaded LOAD_CONCURRENCY at a time (the loads asked for together go to the
    // load worker in one message), then taken in file order: the first file of an origin wins.
    const results = await inTurns(files, LOAD_CONCURRENCY, async ({ file, origin }) => {
      const own = new Map<string, Loaded>();
      const o = await this.file(file, origin, own, watching, overrides?.get(file));
      return { file, origin, o, loaded: own.get(file) };
    });
    for (const { file, origin, o, loaded } of results) {
      if (loaded) next.set(file, loaded);
      if (origin !== undefined) this.origins.set(file, origin);
      this.outcomes.set(file, o);
      counts[o]++;
    }
    // Files still being written are tried again shortly (at most 20 times, then read as they are).
    if (counts.incomplete > 0) {
      this.incompleteTries++;
      this.o.retrySoon();
    } else this.incompleteTries = 0;
    const removed = [...this.current.keys()].filter((f) => !next.has(f)).length;
    const loadedFiles = results.filter((r) => r.o === 'loaded').map((r) => r.file);
    const zones =
      (await this.replaceEach(next, loadedFiles, removed)) ??
      (await this.swapIn(next, counts.loaded > 0 || removed > 0));
    return report(counts, removed, zones, t0);
  }

  /**
   * `ctl reload ZONE`: that zone's file alone, in time proportional to it: a new version of the
   * same origin replaces the served one by itself (engine, answering threads, swap hook); anything
   * else takes the swap of the whole set.
   */
  private async runOne(file: string, t0: number): Promise<ReloadReport> {
    const prev = this.current.get(file)!;
    const own = new Map<string, Loaded>();
    const o = await this.file(file, this.origins.get(file), own, false);
    this.outcomes.set(file, o);
    const l = own.get(file);
    if (o === 'loaded' && l && !(await this.swapOne(file, prev, l))) {
      await this.swapIn(new Map(this.current).set(file, l), true);
    } else if (l) this.setCurrent(file, l);
    return report({ [o]: 1 }, 0, this.served.size, t0);
  }

  /**
   * A reload that changed a few zones and nothing else of the set (no file added or gone, no expiry
   * changed): each zone replaced by itself, as by `ctl reload ZONE`. The number of zones served;
   * undefined: not done (the caller swaps the set).
   */
  private async replaceEach(
    next: Map<string, Loaded>,
    loaded: readonly string[],
    removed: number,
  ): Promise<number | undefined> {
    if (loaded.length === 0 || loaded.length > REPLACE_AT_MOST || this.expiryChanged) return;
    if (removed > 0 || next.size !== this.current.size) return;
    if (this.unavailable(this.served).join() !== this.unavailableKey) return;
    const swaps = loaded.map((file) => ({
      file,
      prev: this.current.get(file),
      l: next.get(file)!,
    }));
    if (!swaps.every(({ prev, l }) => prev && this.replaceable(prev, l))) return;
    for (const { file, prev, l } of swaps) if (!(await this.swapOne(file, prev!, l))) return;
    // The other files' sizes and times (a touched file) as this reload found them.
    this.current = next;
    this.earliest = NaN;
    return this.served.size;
  }

  /** `l` can replace `prev` alone: the same origin, served from `prev`'s file, not expired. */
  private replaceable(prev: Loaded, l: Loaded): boolean {
    const origin = l.zone.origin;
    if (this.o.engine.replaceZone === undefined || origin !== prev.zone.origin) return false;
    return this.served.get(origin) === prev.zone && !this.expired.has(origin);
  }

  /** Serve `l` in place of `prev`, the zone of `file`; false: not done (then the set is swapped). */
  private async swapOne(file: string, prev: Loaded, l: Loaded): Promise<boolean> {
    const origin = l.zone.origin;
    const { replaceZone } = this.o.engine;
    if (replaceZone === undefined || !this.replaceable(prev, l)) return false;
    const c0 = now();
    if (!(await replaceZone.call(this.o.engine, l.indexed ?? l.zone))) return false;
    this.o.log.info('zones_compiled', { zones: this.served.size, ms: round1(now() - c0), origin });
    this.setCurrent(file, l);
    this.served.set(origin, l.zone);
    const info = new Map([[origin, this.swapInfo(file, l)]]);
    await this.swapHook(new Map([[origin, prev.zone]]), new Map([[origin, l.zone]]), info, true);
    return true;
  }

  private async swapHook(...a: Parameters<NonNullable<ReloaderOptions['onSwap']>>) {
    await this.o.onSwap?.(...a).catch((e: unknown) => {
      this.o.log.error('zones_swap_hook_failed', { error: (e as Error).message });
    });
  }

  /**
   * A secondary zone changed by difference (IXFR): `to` replaces `from` and is swapped in as a
   * reload swaps. False when the zone of `file` is no longer `from` (the caller transfers again).
   */
  applyDifference(
    file: string,
    from: Zone,
    to: { readonly zone: Zone; readonly indexed: IndexedZone },
    diff: ZoneDiff | undefined,
  ): Promise<boolean> {
    return this.queue(async () => {
      const prev = this.current.get(file);
      if (prev?.zone !== from) return false;
      const serial = soaSerialOf(soaRecord(to.zone).rdata);
      const version = diff && {
        fileSerial: serial,
        serial,
        rewritten: false,
        raised: false,
        changed: true,
        diff,
        ms: 0,
      };
      const l = { ...prev, zone: to.zone, indexed: to.indexed, serial, version };
      // Replaced alone, as by `ctl reload ZONE` (else the set is swapped).
      if (!(await this.swapOne(file, prev, l)))
        await this.swapIn(new Map(this.current).set(file, l), true);
      return true;
    });
  }

  /** `file` was written with the zone served from it (after `applyDifference`): its time and size are the loaded ones. */
  async fileWritten(file: string, zone: Zone): Promise<void> {
    const l = this.current.get(file);
    if (l?.zone !== zone) return;
    const st = await stat(file);
    if (this.current.get(file) === l)
      this.current.set(file, { ...l, mtimeMs: st.mtimeMs, size: st.size });
  }

  /** Make `next` the zones served (the engine's set, then the swap hook); the number served. */
  private async swapIn(next: Map<string, Loaded>, changedFiles: boolean): Promise<number> {
    const byOrigin = new Map<string, Zone | IndexedZone>();
    const zones = new Map<string, Zone>();
    const swapped = new Map<string, SwapInfo>();
    for (const [file, l] of next) {
      if (this.expired.has(l.zone.origin)) continue;
      if (byOrigin.has(l.zone.origin)) {
        this.o.log.error('zone_duplicate_origin', {
          file,
          origin: l.zone.origin,
          served: 'the first file in order',
        });
        continue;
      }
      byOrigin.set(l.zone.origin, l.indexed ?? l.zone);
      zones.set(l.zone.origin, l.zone);
      if (this.current.get(file)?.zone !== l.zone) {
        swapped.set(l.zone.origin, this.swapInfo(file, l));
      }
    }
    const unavailable = this.unavailable(byOrigin);
    const changed =
      changedFiles ||
      unavailable.join() !== this.unavailableKey ||
      [...next].some(([f, l]) => this.current.get(f)?.zone !== l.zone);
    this.unavailableKey = unavailable.join();
    if (changed) {
      const c0 = now();
      await this.o.engine.setZones([...byOrigin.values()], unavailable);
      this.o.log.info('zones_compiled', { zones: byOrigin.size, ms: round1(now() - c0) });
    }
    this.current = next;
    this.earliest = NaN;
    this.expiryChanged = false;
    this.fileByOrigin = new Map();
    for (const [file, l] of next)
      if (!this.fileByOrigin.has(l.zone.origin)) this.fileByOrigin.set(l.zone.origin, file);
    if (changed) {
      const before = this.served;
      this.served = zones;
      await this.swapHook(before, zones, swapped);
    }
    return byOrigin.size;
  }

  /** The origin keys of the secondary zones configured and not in `served` (SERVFAIL). */
  private unavailable(served: ReadonlyMap<string, unknown>): string[] {
    return (this.o.secondaryFiles ?? [])
      .filter((s) => !served.has(s.origin))
      .map((s) => nameKey(s.origin));
  }

  /** What the swap hook learns of a zone loaded by this reload. */
  private swapInfo(file: string, l: Loaded): SwapInfo {
    const policy = this.o.versioning?.policyFor(l.zone.origin);
    return {
      file,
      ...(l.hash !== undefined ? { hash: l.hash } : {}),
      ...(l.version ? { version: l.version } : {}),
      ...(l.refreshAt !== undefined ? { signed: true } : {}),
      ...(policy !== undefined ? { policy } : {}),
    };
  }

  /** What the loader is asked to compare a file's new version with (undefined: nothing). */
  private versionRequest(
    origin: string | undefined,
    prev: Loaded | undefined,
  ): VersionRequest | undefined {
    const v = this.o.versioning;
    if (v === undefined) return undefined;
    const policy = v.policyFor(origin ?? prev?.zone.origin);
    if (policy === 'keep' && !v.diff) return undefined;
    return {
      policy,
      diff: v.diff,
      date: v.today(),
      ...(prev ? { before: prev.zone } : v.restored ? { restored: v.restored } : {}),
    };
  }

  /** Reload one file into `next`; the previous version stays when the new one fails. */
  private async file(
    file: string,
    origin: string | undefined,
    next: Map<string, Loaded>,
    watching: boolean,
    source = file,
  ): Promise<FileOutcome> {
    const outcome = await this.fileFrom(file, origin, next, watching, source);
    if (source === file) return outcome;
    // A transferred zone: it replaces the file only when it loaded.
    if (outcome === 'loaded' || outcome === 'unchanged') {
      await rename(source, file);
      const l = next.get(file);
      if (l) {
        const st = await stat(file);
        next.set(file, { ...l, mtimeMs: st.mtimeMs, size: st.size });
      }
    } else await unlink(source).catch(() => undefined);
    return outcome;
  }

  /** The loader's result, or its failure as a diagnostic (a code of its own, ZONE_LOAD_TIMEOUT, kept). */
  private async load(
    source: string,
    origin: string | undefined,
    prev: Loaded | undefined,
    hash: string | undefined,
  ): Promise<ZoneLoadResult> {
    try {
      const version = this.versionRequest(origin, prev);
      // Inline signing keeps the signatures of what did not change, from the version served.
      const signed = prev?.refreshAt !== undefined ? prev.zone : undefined;
      return await this.o.loader(source, origin, hash, prev?.serial, version, signed);
    } catch (e) {
      const { message, code } = e as Error & { code?: unknown };
      const c = isZoneCode(code) ? code : 'ZONE_LOAD_FAILED';
      return { diagnostics: [{ code: c, message, severity: 'error' }] };
    }
  }

  /** The size and time of a zone's file (null, logged, when it cannot be looked at). */
  private async stamp(
    file: string,
    source: string,
    prev: Loaded | undefined,
  ): Promise<FileStamp | null> {
    try {
      return await stat(source);
    } catch (e) {
      this.o.log.error('zone_unreadable', {
        file,
        error: (e as Error).message,
        keeping: prev ? prev.zone.origin : null,
      });
      return null;
    }
  }

  /** Before a load: the file's size and time, or why it is not loaded now. */
  private async lookBefore(
    file: string,
    source: string,
    prev: Loaded | undefined,
    due: boolean,
    watching: boolean,
  ): Promise<{ st: FileStamp | undefined } | 'failed' | 'unchanged' | 'incomplete'> {
    // A file loaded for the first time is not looked at here: the load worker tells its stamp.
    const first = prev === undefined && direct(source, file) && !watching;
    const st = first ? undefined : await this.stamp(file, source, prev);
    if (st === null) return 'failed';
    const same = prev?.mtimeMs === st?.mtimeMs && prev?.size === st?.size;
    if (prev && !due && direct(source, file) && same) return 'unchanged';
    // A change seen by --watch may be a file still being written: wait for a whole one.
    if (
      watching &&
      st &&
      direct(source, file) &&
      this.incompleteTries < 20 &&
      (await looksIncomplete(file, st))
    ) {
      this.o.log.info('zone_incomplete', { file, note: 'still being written? retrying shortly' });
      return 'incomplete';
    }
    return { st };
  }

  private async fileFrom(
    file: string,
    origin: string | undefined,
    next: Map<string, Loaded>,
    watching: boolean,
    source: string,
  ): Promise<FileOutcome> {
    const log = this.o.log;
    const prev = this.current.get(file);
    // Inline signing: signatures due for refresh make an unchanged file be signed again.
    const due = prev?.refreshAt !== undefined && prev.refreshAt <= Date.now();
    const keep = () => {
      // A failed refresh is tried again shortly, not at once.
      if (prev) next.set(file, due ? { ...prev, refreshAt: Date.now() + REFRESH_RETRY_MS } : prev);
    };
    const looked = await this.lookBefore(file, source, prev, due, watching);
    if (typeof looked === 'string') {
      keep();
      return looked;
    }
    let st: FileStamp | null | undefined = looked.st;
    const started = now();
    // Another size is another content: the hash is then taken in the parse's own read.
    const sameSize = !due && st !== undefined && prev?.size === st.size;
    const result = await this.load(source, origin, prev, sameSize ? prev.hash : undefined);
    const ms = Math.round(now() - started);
    // Not opened by the worker (or a loader that does not tell): looked at here, as before a load.
    st ??= result.stat ?? (await this.stamp(file, source, prev));
    if (st === null) {
      keep();
      return 'failed';
    }
    if (result.unchanged && prev) {
      // Same content (touched, or rewritten identically): remember the new size and mtime.
      next.set(file, { ...prev, mtimeMs: st.mtimeMs, size: st.size });
      log.info('zone_unchanged', {
        file,
        origin: prev.zone.origin,
        serial: prev.serial ?? null,
        ms,
      });
      return 'unchanged';
    }
    logDiagnostics(log, file, result.diagnostics);
    if (rejected(log, file, result, ms, prev)) {
      keep();
      return 'failed';
    }
    const zone = result.zone!;
    const serial = soaSerial(zone);
    const { hash, signed, indexed, version } = result;
    checkSerial(log, file, prev, zone, serial, version);
    const { mtimeMs, size } = st;
    const refreshAt = signed?.refreshAt;
    next.set(file, { zone, indexed, mtimeMs, size, serial, hash, refreshAt, version });
    logLoaded(log, file, zone, serial, ms, result);
    return 'loaded';
  }
}

/** A reload that changed more zones than this swaps the set whole (not zone by zone). */
const REPLACE_AT_MOST = 16;

/** Files in flight per reload, so the load worker always has the next ones (`zones/worker.ts`). */
const LOAD_CONCURRENCY = 256;

/** `work` over `items`, at most `limit` at a time; the results in the items' order. */
async function inTurns<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
