/**
 * Secondary mode (RFC 1034 section 4.3.5, RFC 1995, RFC 1996, RFC 5936):
 * SOA check at refresh or on NOTIFY, transfer when the serial is newer (RFC
 * 1982), IXFR when a version is held (else or on failure AXFR), retry at
 * retry; past `expire` without a successful check, SERVFAIL. An IXFR is
 * applied by difference and journaled (`secondary-journal.ts`); a whole zone
 * goes through a temporary file and the reloader, so a failure at any step
 * leaves the previous version served and on disk.
 */
import type net from 'node:net';
import { randomInt } from 'node:crypto';
import { mkdir, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  DEFAULT_TRANSFER_CONFIG,
  type PrimaryAddress,
  type SecondaryZoneConfig,
  type TransferConfig,
} from '../config/server.ts';
import type { Zone, ResourceRecord, ZoneDiagnostic } from '../dns/core/zone/model.ts';
import { keyToName, nameKey } from '../dns/core/wire/name.ts';
import { writeZone } from '../dns/core/zone/writer.ts';
import { lintNaptrRecords } from '../ddds/core/lint/naptr-lint.ts';
import { soaRecord, zoneBodyRecords, type PlainRecord } from './core/records.ts';
import { serialCompare } from './core/serial.ts';
import { soaTimers } from '../dns/core/rr/soa.ts';
import { TYPE_AXFR, TYPE_IXFR, TYPE_SOA } from '../dns/core/rr/types.ts';
import {
  applyIxfr,
  readWireName,
  wireKey,
  transferRequest,
  XfrReadError,
  XfrReader,
  type XfrRr,
} from './core/read.ts';
import type { NotifyRefusalCode } from './core/codes.ts';
import { RCODE_NOERROR } from '../authority/core/answer.ts';
import {
  nameWireKey,
  readTsig,
  TsigSigner,
  TsigStreamVerifier,
  type TsigKey,
} from './core/tsig.ts';
import { answerHead, nodeHmac, nowSeconds } from './tsig.ts';
import { RCODE_OF } from '../authority/rcodes.ts';
import type { Logger } from '../authority/log.ts';
import { createLogSummary, type LogSummary } from '../authority/log-summary.ts';
import { peerText, tcpExchange } from './exchange.ts';
import { zoneFromDifference } from '../authority/zones/servable.ts';
import { collectWhenIdle } from '../authority/zones/collector.ts';
import type { IndexedZone } from '../authority/core/zone-lookup.ts';
import type { ZoneDiff } from './core/diff.ts';
import { condenseDiffs, sequenceRecords } from './core/condense.ts';
import type { XfrStep } from './core/read.ts';
import { transferInLimits, type TransferInLimits } from './limits.ts';
import {
  appendJournal,
  compactAfter,
  readJournal,
  removeJournal,
  writeZoneFile,
} from './secondary-journal.ts';

/** Where a transferred zone goes: the reloader's install and expiry. */
export interface SecondaryTarget {
  install(file: string, tmp: string): Promise<boolean>;
  setExpired(origin: string, expired: boolean): Promise<void>;
  zoneOfFile(file: string): Zone | undefined;
  /** Swap in a zone changed by difference (IXFR); false when the zone of `file` is no longer `from`. */
  applyDifference?(
    file: string,
    from: Zone,
    to: { readonly zone: Zone; readonly indexed: IndexedZone },
    diff: ZoneDiff | undefined,
  ): Promise<boolean>;
  /** `file` now holds the zone served from it. */
  fileWritten?(file: string, zone: Zone): Promise<void>;
}

export interface SecondaryOptions {
  readonly zones: readonly SecondaryZoneConfig[];
  /** Folder the transferred zones are kept in. */
  readonly stateDir: string;
  /** TSIG keys by the wire key of their name. */
  readonly keys: ReadonlyMap<string, TsigKey>;
  /** No answer from a primary for this long (connect, or between messages) fails the try. */
  readonly timeoutMs?: number;
  /** An answering thread (`serve --workers`): an accepted NOTIFY calls this; the main thread checks. */
  readonly onNotify?: (origin: string) => void;
  /** An answering thread: the catalogs consumed (NOTIFYs for members sent by `setCatalogMembers`). */
  readonly catalogs?: readonly SecondaryZoneConfig[];
  /** Serve-wide limits of a transfer in (zones may set their own); absent: the defaults. */
  readonly limits?: Pick<TransferConfig, 'inMaxRecords' | 'inMaxBytes' | 'inMaxSeconds'>;
  /** Refused NOTIFYs are counted and summarised once per this interval (`log.summaryIntervalMs`). */
  readonly summaryIntervalMs?: number;
}

/** How a check runs: `ctl retransfer` transfers whole (AXFR) even when current; with `force`, an older serial too. */
export interface CheckMode {
  readonly retransfer?: boolean;
  readonly force?: boolean;
}

/** What a check did: the serial served after it, and the failure of its last try, if any. */
export interface CheckOutcome {
  readonly serial: number | undefined;
  readonly error?: { readonly code: string; readonly message: string };
}

/** Transfer results counted per zone (`lexroute_dns_xfr_in_total`). */
export type XfrInResult = 'axfr' | 'ixfr' | 'current' | 'failed';

interface ZoneState {
  readonly origin: string;
  readonly key: string;
  /** Changed by `moveZone` (a member taken over by another catalog). */
  primaries: readonly PrimaryAddress[];
  readonly file: string;
  readonly limits: TransferInLimits;
  /** The catalog zone this zone is a member of (`addZone`, `moveZone`); undefined: configured. */
  catalog: string | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  expireTimer: ReturnType<typeof setTimeout> | undefined;
  running: Promise<CheckOutcome> | undefined;
  again: boolean;
  expired: boolean;
  /** The journal being written after an IXFR applied by difference (or the file, compacted). */
  writing: Promise<void> | undefined;
  /** Differences in the file's journal, and their records (`secondary-journal.ts`). */
  journalDiffs: number;
  journalRecords: number;
  readonly results: Record<XfrInResult, number>;
  readonly failures: Map<string, number>;
  /** The last refresh's result and time (epoch ms), with the failure's code. */
  last: LastRefresh | undefined;
}

/** A secondary zone's last refresh (`ctl status`, the catalog consumer's status). */
export interface LastRefresh {
  readonly result: XfrInResult;
  readonly at: number;
  readonly code?: string;
}

export function secondaryFile(stateDir: string, origin: string): string {
  return path.join(stateDir, 'secondary', `${origin === '.' ? 'root.' : origin}zone`);
}

/** The IXFR failures that fall back to AXFR (not a TSIG fault, nor a limit: the AXFR would be as large). */
const FALLBACK_OK: ReadonlySet<string> = new Set([
  'XFR_BAD_MESSAGE',
  'XFR_BAD_ANSWER',
  'XFR_RCODE',
  'XFR_NO_SOA',
  'XFR_SOA_MISMATCH',
  'XFR_IXFR_SEQUENCE',
  'XFR_IXFR_MISMATCH',
  'XFR_TRAILING_DATA',
  'XFR_CUT_SHORT',
  'XFR_TIMEOUT',
  'XFR_CONNECT',
]);

/** Seconds as a timer's milliseconds (a timer cannot wait past 2^31-1 ms). */
const ms = (s: number) => Math.min(s * 1000, 2 ** 31 - 1);

export class Secondaries {
  private readonly o: SecondaryOptions;
  private readonly target: SecondaryTarget;
  private readonly log: Logger;
  private readonly zones = new Map<string, ZoneState>();
  private closed = false;
  private readonly sockets = new Set<net.Socket>();
  /** Refused NOTIFYs, one line per interval. */
  private readonly summary: LogSummary;
  private started = false;
  /** An answering thread: catalog members by key, to their catalog (`setCatalogMembers`). */
  private catalogMembers = new Map<string, string>();
  /** After a transfer installed a new version of a zone (the catalog consumer reads its catalogs). */
  onInstalled: ((origin: string) => void) | undefined;

  constructor(o: SecondaryOptions, target: SecondaryTarget, log: Logger) {
    this.o = o;
    this.target = target;
    this.log = log;
    this.summary = createLogSummary(log, o.summaryIntervalMs ?? 10_000);
    for (const z of o.zones) this.zones.set(nameKey(z.origin), this.stateOf(z, undefined));
  }

  private stateOf(z: SecondaryZoneConfig, catalog: string | undefined): ZoneState {
    return {
      origin: z.origin,
      key: nameKey(z.origin),
      primaries: z.primaries,
      file: secondaryFile(this.o.stateDir, z.origin),
      limits: transferInLimits(this.o.limits ?? DEFAULT_TRANSFER_CONFIG, z),
      catalog,
      timer: undefined,
      expireTimer: undefined,
      running: undefined,
      again: false,
      expired: false,
      writing: undefined,
      journalDiffs: 0,
      journalRecords: 0,
      results: { axfr: 0, ixfr: 0, current: 0, failed: 0 },
      failures: new Map(),
      last: undefined,
    };
  }

  /** A catalog's member added while running (checked now, or at start); false when already one. */
  addZone(z: SecondaryZoneConfig, catalog: string): boolean {
    const key = nameKey(z.origin);
    if (this.zones.has(key) || this.closed) return false;
    this.zones.set(key, this.stateOf(z, catalog));
    if (this.started) void this.check(z.origin, 'catalog');
    return true;
  }

  /** Drop a zone added by `addZone` (running check awaited, file and journal removed); false if not one. */
  async removeZone(origin: string): Promise<boolean> {
    const z = this.zones.get(nameKey(origin));
    if (z?.catalog === undefined) return false;
    this.zones.delete(z.key);
    clearTimeout(z.timer);
    clearTimeout(z.expireTimer);
    z.again = false;
    await z.running?.catch(() => undefined);
    await z.writing?.catch(() => undefined);
    clearTimeout(z.timer);
    clearTimeout(z.expireTimer);
    await unlink(z.file).catch(() => undefined);
    await removeJournal(z.file).catch(() => undefined);
    return true;
  }

  /** A zone added by `addZone` moves to `catalog` and its primaries, keeping its data (false: not one). */
  moveZone(origin: string, catalog: string, primaries: readonly PrimaryAddress[]): boolean {
    const z = this.zones.get(nameKey(origin));
    if (z?.catalog === undefined) return false;
    z.catalog = catalog;
    z.primaries = primaries;
    if (this.started) void this.check(z.origin, 'catalog');
    return true;
  }

  /** The catalog a secondary zone was provisioned from (undefined: configured, or not a secondary zone). */
  catalogOf(origin: string): string | undefined {
    return this.zones.get(nameKey(origin))?.catalog;
  }

  /** The version of a secondary zone held (served, or expired), if any. */
  zoneOf(origin: string): Zone | undefined {
    const z = this.zones.get(nameKey(origin));
    return z && this.target.zoneOfFile(z.file);
  }

  /** Whether `origin` is a secondary zone here (configured or from a catalog). */
  has(origin: string): boolean {
    return this.zones.has(nameKey(origin));
  }

  /** The files of the secondary zones, for the reloader. */
  files(): { file: string; origin: string }[] {
    return [...this.zones.values()].map((z) => ({ file: z.file, origin: z.origin }));
  }

  /** Start: a zone held on disk runs its expire clock from the file's time; every zone is checked now. */
  async start(): Promise<void> {
    this.started = true;
    await mkdir(path.join(this.o.stateDir, 'secondary'), { recursive: true });
    for (const z of this.zones.values()) {
      let zone = this.target.zoneOfFile(z.file);
      if (zone !== undefined) zone = await this.replay(z, zone);
      if (zone !== undefined) {
        const st = await stat(z.file).catch(() => undefined);
        this.armExpire(z, zone, st?.mtimeMs ?? Date.now());
      }
      void this.check(z.origin, 'start');
    }
  }

  /** Per zone: origin, transfers by result, failures by code, expired. */
  status(): {
    origin: string;
    serial: number | undefined;
    expired: boolean;
    results: Readonly<Record<XfrInResult, number>>;
    failures: ReadonlyMap<string, number>;
    last: LastRefresh | undefined;
  }[] {
    return [...this.zones.values()].map((z) => ({
      origin: z.origin,
      serial: this.heldSerial(z),
      expired: z.expired,
      results: z.results,
      failures: z.failures,
      last: z.last,
    }));
  }

  /** A refresh's result counted, and kept as the zone's last. */
  private counted(z: ZoneState, result: XfrInResult, code?: string): void {
    z.results[result]++;
    z.last = { result, at: Date.now(), ...(code !== undefined ? { code } : {}) };
  }

  async idle(): Promise<void> {
    for (const z of this.zones.values()) {
      await z.running;
      await z.writing;
    }
  }

  flushLog(): void {
    this.summary.flush();
  }

  close(): void {
    this.closed = true;
    this.summary.close();
    for (const z of this.zones.values()) {
      clearTimeout(z.timer);
      clearTimeout(z.expireTimer);
    }
    for (const s of this.sockets) s.destroy();
  }

  /**
   * A NOTIFY (RFC 1996 section 3.7), its TSIG verified by the pipeline (`key`
   * signed it): accepted from a primary of the zone, with its key when it has
   * one, else REFUSED. The answer is unsigned. Undefined: not a NOTIFY.
   */
  notify(msg: Uint8Array, source: string, key: string | undefined): Uint8Array | undefined {
    if (msg.length < 12 || (msg[2]! & 0xf8) !== OPCODE_NOTIFY << 3) return undefined;
    let q: { key: string; end: number; qtype: number };
    try {
      q = notifyQuestion(msg);
    } catch {
      return answerHeader(msg, 12, RCODE_OF.NOTIFY_MALFORMED);
    }
    const z = this.zones.get(q.key) ?? this.memberElsewhere(q.key);
    const from = z?.primaries.filter((p) => sameAddress(p.host, source)) ?? [];
    const refuse = (why: string, code: NotifyRefusalCode) => {
      this.summary.note('notify_refused', source, code, 'warn', `${keyToName(q.key)}: ${why}`);
      return answerHeader(msg, q.end, RCODE_OF[code]);
    };
    if (z === undefined || q.qtype !== TYPE_SOA)
      return refuse('not a secondary zone here', 'NOTIFY_REFUSED');
    if (from.length === 0) return refuse('not from a primary of the zone', 'NOTIFY_REFUSED');
    const keyed = from.filter((p) => p.key !== undefined);
    if (keyed.length > 0 && keyed.length === from.length) {
      if (key === undefined) return refuse('not signed with the primary key', 'NOTIFY_TSIG');
      const signedBy = nameWireKey(key);
      if (!keyed.some((p) => nameWireKey(p.key!) === signedBy))
        return refuse(`signed with ${key}, not the primary key`, 'NOTIFY_TSIG');
    }
    this.log.info('notify_received', { zone: z.origin, from: source });
    if (this.o.onNotify) this.o.onNotify(z.origin);
    else void this.check(z.origin, 'notify');
    return answerHeader(msg, q.end, RCODE_NOERROR);
  }

  /** An answering thread: a catalog member the main thread sent, with its catalog's primaries. */
  private memberElsewhere(
    key: string,
  ): { origin: string; primaries: readonly PrimaryAddress[] } | undefined {
    const catalog = this.o.onNotify ? this.catalogMembers.get(key) : undefined;
    const c =
      catalog === undefined ? undefined : this.o.catalogs?.find((x) => x.origin === catalog);
    return c && { origin: keyToName(key), primaries: c.primaries };
  }

  /** An answering thread: the members of the catalogs consumed (member, catalog), as the main thread has them now. */
  setCatalogMembers(members: readonly (readonly [string, string])[]): void {
    this.catalogMembers = new Map(members.map(([m, c]) => [nameKey(m), c]));
  }

  /** Check the zone now; one asked while a check runs runs again after it. */
  check(origin: string, trigger: string): Promise<void> {
    return this.run(origin, trigger, {}).then(() => undefined);
  }

  /** `ctl retransfer ZONE [--force]`: an AXFR after any running check; `force` takes an older serial. */
  async retransfer(origin: string, force: boolean): Promise<CheckOutcome | undefined> {
    const z = this.zones.get(nameKey(origin));
    if (z === undefined) return undefined;
    while (z.running) await z.running.catch(() => undefined);
    return this.run(origin, force ? 'retransfer --force' : 'retransfer', {
      retransfer: true,
      force,
    });
  }

  private run(origin: string, trigger: string, mode: CheckMode): Promise<CheckOutcome> {
    const z = this.zones.get(nameKey(origin));
    if (z === undefined || this.closed) return Promise.resolve({ serial: undefined });
    if (z.running) {
      z.again = true;
      return z.running;
    }
    clearTimeout(z.timer);
    const run = this.refresh(z, trigger, mode).finally(() => {
      z.running = undefined;
      if (z.again && !this.closed) {
        z.again = false;
        void this.check(z.origin, 'again');
      }
    });
    z.running = run;
    return run;
  }

  private heldSoa(z: ZoneState): XfrRr | undefined {
    const zone = this.target.zoneOfFile(z.file);
    return zone && inClassRr(soaRecord(zone));
  }

  private heldSerial(z: ZoneState): number | undefined {
    const held = this.heldSoa(z);
    return held && soaTimers(held.rdata).serial;
  }

  /** One refresh: each primary in order until one answers; timers set from the outcome. */
  private async refresh(z: ZoneState, trigger: string, mode: CheckMode): Promise<CheckOutcome> {
    let lastError: XfrReadError | undefined;
    const serial = () => this.heldSerial(z);
    for (const p of z.primaries) {
      if (this.closed) break;
      try {
        await this.refreshFrom(z, p, trigger, mode);
        this.schedule(z, 'refresh');
        return { serial: serial() };
      } catch (e) {
        const err = e instanceof XfrReadError ? e : new XfrReadError('XFR_BAD_MESSAGE', String(e));
        lastError = err;
        z.failures.set(err.code, (z.failures.get(err.code) ?? 0) + 1);
        this.counted(z, 'failed', err.code);
        this.log.warn('xfr_in_failed', {
          zone: z.origin,
          primary: peerText(p),
          code: err.code,
          error: err.message,
          keeping: serial() ?? null,
        });
      }
    }
    if (lastError) this.schedule(z, 'retry');
    const error = lastError && { code: lastError.code, message: lastError.message };
    return { serial: serial(), ...(error ? { error } : {}) };
  }

  private schedule(z: ZoneState, which: 'refresh' | 'retry'): void {
    if (this.closed) return;
    const soa = this.heldSoa(z);
    const t = soa ? soaTimers(soa.rdata) : undefined;
    // No version held, no SOA to take the retry from: 5 seconds.
    const seconds = t ? (which === 'refresh' ? t.refresh : t.retry) : 5;
    clearTimeout(z.timer);
    z.timer = setTimeout(() => void this.check(z.origin, which), ms(Math.max(seconds, 1)));
    z.timer.unref();
  }

  /** The zone was refreshed at `at` (epoch ms): it expires `expire` seconds later. */
  private armExpire(z: ZoneState, zone: Zone, at: number): void {
    const t = soaTimers(soaRecord(zone).rdata);
    clearTimeout(z.expireTimer);
    const wait = Math.max(at + t.expire * 1000 - Date.now(), 0);
    z.expireTimer = setTimeout(() => void this.expire(z), Math.min(wait, 2 ** 31 - 1));
    z.expireTimer.unref();
    if (z.expired) {
      z.expired = false;
      void this.target.setExpired(z.origin, false);
    }
  }

  private async expire(z: ZoneState): Promise<void> {
    if (this.closed || z.expired) return;
    z.expired = true;
    this.log.error('secondary_expired', {
      zone: z.origin,
      code: 'SECONDARY_EXPIRED',
      note: 'no successful refresh within the SOA expire time: answering SERVFAIL',
    });
    await this.target.setExpired(z.origin, true);
  }

  /** A successful check or transfer: the expire clock starts again (and the file's time records it). */
  private async refreshed(z: ZoneState): Promise<void> {
    const zone = this.target.zoneOfFile(z.file);
    if (zone === undefined) return;
    const now = new Date();
    await utimes(z.file, now, now).catch(() => undefined);
    // The reloader takes the new time as its own (no rehash of an unchanged file at the next reload).
    await this.target.fileWritten?.(z.file, zone).catch(() => undefined);
    this.armExpire(z, zone, now.getTime());
  }

  private async refreshFrom(
    z: ZoneState,
    p: PrimaryAddress,
    trigger: string,
    mode: CheckMode,
  ): Promise<void> {
    const held = this.heldSoa(z);
    const started = performance.now();
    // One deadline for the whole refresh: the SOA query, the IXFR and the AXFR fallback.
    const deadline = started + z.limits.maxSeconds * 1000;
    const soaAnswer = await this.exchange(z, p, TYPE_SOA, deadline);
    const remoteSerial = soaTimers(soaAnswer.soa.rdata).serial;
    const heldSerial = held && soaTimers(held.rdata).serial;
    if (heldSerial !== undefined && !mode.retransfer) {
      const order = serialCompare(remoteSerial, heldSerial);
      if (!(order > 0)) {
        if (order < 0)
          this.log.warn('xfr_in_serial_older', {
            zone: z.origin,
            primary: peerText(p),
            code: 'XFR_SERIAL_OLDER',
            serial: remoteSerial,
            held: heldSerial,
          });
        this.counted(z, 'current');
        this.log.debug('xfr_in_current', { zone: z.origin, serial: remoteSerial, trigger });
        await this.refreshed(z);
        return;
      }
    }
    const got = await this.transfer(z, p, mode.retransfer ? undefined : held, deadline);
    const end = got.patched ? soaRecord(got.patched.zone) : got.records[0]!;
    const newSerial = soaTimers(end.rdata).serial;
    // @see RFC 1982 section 3.2; RFC 1996 section 3.11: a secondary takes a newer serial only.
    if (heldSerial !== undefined && !mode.force && serialCompare(newSerial, heldSerial) < 0)
      throw new XfrReadError(
        'XFR_SERIAL_OLDER',
        `the ${got.kind} ends on serial ${newSerial}, older than the ${heldSerial} served (the SOA query said ${remoteSerial}); ctl retransfer ${z.origin} --force installs it`,
      );
    const count = got.patched ? got.patched.zone.size : got.records.length;
    if (count > z.limits.maxRecords)
      throw new XfrReadError(
        'XFR_TOO_MANY_RECORDS',
        `the zone the ${got.kind} makes has ${count} records, more than ${z.limits.maxRecords} (maxRecords)`,
      );
    if (got.patched) await this.installPatched(z, p, got.patched, { trigger, started });
    else await this.installRecords(z, p, got.records, { ...got, trigger, started });
  }

  /** IXFR when a version is held (AXFR when it fails, but for a TSIG fault), else AXFR: the new zone's records. */
  private async transfer(
    z: ZoneState,
    p: PrimaryAddress,
    held: XfrRr | undefined,
    deadline: number,
  ): Promise<{
    kind: 'AXFR' | 'IXFR';
    records: XfrRr[];
    touched: Set<string> | undefined;
    patched?: Patched;
  }> {
    if (held !== undefined) {
      try {
        const r = await this.exchange(z, p, TYPE_IXFR, deadline, held);
        if (r.result === undefined) throw new XfrReadError('XFR_NO_SOA', 'no answer');
        if (r.result.kind === 'incremental') {
          const steps = r.result.steps;
          const patched = this.patched(z, steps);
          if (patched) return { kind: 'IXFR', records: [], touched: undefined, patched };
          const touched = new Set(
            steps.flatMap((st) => [...st.removed, ...st.added].map((x) => x.key)),
          );
          return { kind: 'IXFR', records: applyIxfr(this.heldRecords(z), steps), touched };
        }
        if (r.result.kind === 'full')
          return { kind: 'AXFR', records: [...r.result.records], touched: undefined };
      } catch (e) {
        if (!(e instanceof XfrReadError) || !FALLBACK_OK.has(e.code)) throw e;
        this.log.info('xfr_in_ixfr_fallback', {
          zone: z.origin,
          primary: peerText(p),
          code: e.code,
          error: e.message,
        });
      }
    }
    const r = await this.exchange(z, p, TYPE_AXFR, deadline);
    if (r.result?.kind !== 'full') throw new XfrReadError('XFR_NO_SOA', 'AXFR without records');
    return { kind: 'AXFR', records: [...r.result.records], touched: undefined };
  }

  /** The IXFR's steps applied by difference; undefined when the zone cannot (a signed one is rebuilt). */
  private patched(z: ZoneState, steps: readonly XfrStep[]): Patched | undefined {
    const from = this.target.zoneOfFile(z.file);
    if (from === undefined || this.target.applyDifference === undefined) return undefined;
    let zone: Zone = from;
    let indexed: IndexedZone | undefined;
    for (const st of steps) {
      const at = soaTimers(soaRecord(zone).rdata).serial;
      const to = soaTimers(st.to.rdata).serial;
      if (at !== soaTimers(st.from.rdata).serial)
        throw new XfrReadError(
          'XFR_IXFR_SEQUENCE',
          `a step from serial ${soaTimers(st.from.rdata).serial}, the zone has ${at}`,
        );
      const inClass = (rs: readonly XfrRr[]) => rs.filter((r) => r.cls === 1).map(modelRecord);
      const changes = {
        soa: modelRecord(st.to),
        removed: inClass(st.removed),
        added: inClass(st.added),
      };
      const r = zoneFromDifference(zone, changes);
      if (r.kind === 'unsupported') {
        this.log.debug('xfr_in_ixfr_whole', { zone: z.origin, serial: to, why: r.message });
        return undefined;
      }
      if (r.kind === 'mismatch')
        throw new XfrReadError('XFR_IXFR_MISMATCH', `serial ${to}: ${r.message}`);
      if (r.kind === 'refused') {
        this.lintLog(z, r.diagnostics);
        throw new XfrReadError(
          'XFR_ZONE_REJECTED',
          `serial ${to}: the changed names do not pass the zone checks (${r.diagnostics.map((d) => d.code).join(', ')})`,
        );
      }
      this.lintLog(z, r.diagnostics);
      zone = r.zone;
      indexed = r.indexed;
    }
    if (indexed === undefined) return undefined;
    const diffs = steps.map((st) => ({
      fromSoa: st.from,
      toSoa: st.to,
      removed: st.removed.filter((r) => r.cls === 1),
      added: st.added.filter((r) => r.cls === 1),
    }));
    // Several steps: one difference, the versions between were never served here.
    const diff = diffs.length === 1 ? diffs[0]! : condenseDiffs(diffs);
    return { from, zone, indexed, diff, diffs };
  }

  private lintLog(z: ZoneState, ds: readonly ZoneDiagnostic[]): void {
    for (const d of ds)
      this.log.warn('xfr_in_lint', {
        zone: z.origin,
        code: d.code,
        message: d.message,
        severity: d.severity,
      });
  }

  /** Swap in a zone changed by difference; its file is rewritten after, off the answer's path. */
  private async installPatched(
    z: ZoneState,
    p: PrimaryAddress,
    t: Patched,
    how: { trigger: string; started: number },
  ): Promise<void> {
    const received = performance.now();
    if (!(await this.target.applyDifference!(z.file, t.from, t, t.diff)))
      throw new XfrReadError(
        'XFR_ZONE_REJECTED',
        'the zone was reloaded while the IXFR was applied; checked again at the next refresh',
      );
    this.counted(z, 'ixfr');
    this.log.info('xfr_in', {
      zone: z.origin,
      primary: peerText(p),
      kind: 'IXFR',
      applied: 'difference',
      serial: soaTimers(soaRecord(t.zone).rdata).serial,
      records: t.zone.size,
      trigger: how.trigger,
      ms: Math.round(performance.now() - how.started),
      transferMs: Math.round(received - how.started),
      applyMs: Math.round(performance.now() - received),
    });
    this.keepOnDisk(z, t);
    await this.refreshed(z);
    this.onInstalled?.(z.origin);
  }

  /** Off the answer's path: the differences journaled, or past `compactAfter` the file rewritten whole. */
  private keepOnDisk(z: ZoneState, t: Patched): void {
    const write = async () => {
      try {
        if (z.journalRecords + sequenceRecords(t.diffs) > compactAfter(t.zone.size))
          return await this.compact(z, t.zone);
        await appendJournal(z.file, z.journalDiffs, t.diffs);
        z.journalDiffs += t.diffs.length;
        z.journalRecords += sequenceRecords(t.diffs);
      } catch (e) {
        this.log.error('xfr_in_write_failed', {
          zone: z.origin,
          file: z.file,
          error: (e as Error).message,
        });
      }
    };
    z.writing = (z.writing ?? Promise.resolve()).then(write);
  }

  /** The file written whole, its journal removed; skipped when a newer version was swapped in since. */
  private async compact(z: ZoneState, zone: Zone): Promise<void> {
    const current = () => this.target.zoneOfFile(z.file) === zone;
    if (!current()) return;
    const tmp = tmpName(z.file);
    const t0 = performance.now();
    try {
      await writeZoneFile(tmp, zone);
      if (!current()) return void (await unlink(tmp));
      await rename(tmp, z.file);
      await removeJournal(z.file);
      z.journalDiffs = 0;
      z.journalRecords = 0;
      await this.target.fileWritten?.(z.file, zone);
      this.log.info('xfr_in_file_written', {
        zone: z.origin,
        records: zone.size,
        ms: Math.round(performance.now() - t0),
      });
    } catch (e) {
      await unlink(tmp).catch(() => undefined);
      throw e;
    }
  }

  /** At start: the file's journal applied and swapped in; one that does not apply is dropped (logged). */
  private async replay(z: ZoneState, zone: Zone): Promise<Zone> {
    try {
      const diffs = await readJournal(z.file);
      if (diffs.length === 0 || this.target.applyDifference === undefined) return zone;
      const steps = diffs.map((d) => ({
        from: inClassRr(d.fromSoa),
        to: inClassRr(d.toSoa),
        removed: d.removed.map(inClassRr),
        added: d.added.map(inClassRr),
      }));
      const t = this.patched(z, steps);
      if (t === undefined || !(await this.target.applyDifference(z.file, t.from, t, t.diff)))
        throw new Error('the zone cannot take it by difference');
      z.journalDiffs = diffs.length;
      z.journalRecords = sequenceRecords(diffs);
      this.log.info('xfr_in_journal_replayed', {
        zone: z.origin,
        differences: diffs.length,
        serial: soaTimers(soaRecord(t.zone).rdata).serial,
      });
      return t.zone;
    } catch (e) {
      this.log.warn('xfr_in_journal_dropped', {
        zone: z.origin,
        file: z.file,
        error: (e as Error).message,
        serving: soaTimers(soaRecord(zone).rdata).serial,
      });
      await removeJournal(z.file);
      return zone;
    }
  }

  /** The records written as a zone file, linted (after an IXFR: owners touched), loaded by the reloader. */
  private async installRecords(
    z: ZoneState,
    p: PrimaryAddress,
    records: readonly XfrRr[],
    how: {
      kind: 'AXFR' | 'IXFR';
      touched: ReadonlySet<string> | undefined;
      trigger: string;
      started: number;
    },
  ): Promise<void> {
    const { kind, touched, trigger, started } = how;
    const received = performance.now();
    await z.writing;
    const { text, rrs, inClass } = zoneText(z.origin, records);
    const lintSet = touched ? rrs.filter((_, i) => touched.has(inClass[i]!.key)) : rrs;
    this.lintLog(z, lintNaptrRecords(lintSet));
    const linted = performance.now();
    const tmp = tmpName(z.file);
    await writeFile(tmp, text);
    const written = performance.now();
    const ok = await this.target.install(z.file, tmp);
    if (!ok) {
      await unlink(tmp).catch(() => undefined);
      throw new XfrReadError(
        'XFR_ZONE_REJECTED',
        `the transferred zone (${rrs.length} records) did not load; see zone_diagnostic`,
      );
    }
    await removeJournal(z.file);
    z.journalDiffs = 0;
    z.journalRecords = 0;
    // The transfer's large garbage: one collection once idle, not marking during the next applies.
    if (rrs.length >= COLLECT_AFTER_RECORDS) collectWhenIdle();
    const serial = soaTimers(records[0]!.rdata).serial;
    this.counted(z, kind === 'IXFR' ? 'ixfr' : 'axfr');
    this.log.info('xfr_in', {
      zone: z.origin,
      primary: peerText(p),
      kind,
      serial,
      records: rrs.length,
      trigger,
      ms: Math.round(performance.now() - started),
      transferMs: Math.round(received - started),
      lintMs: Math.round(linted - received),
      writeMs: Math.round(written - linted),
      loadMs: Math.round(performance.now() - written),
    });
    await this.refreshed(z);
    this.onInstalled?.(z.origin);
  }

  /** The held version's records (SOA first), for IXFR. */
  private heldRecords(z: ZoneState): XfrRr[] {
    const zone = this.target.zoneOfFile(z.file)!;
    return [soaRecord(zone), ...zoneBodyRecords(zone)].map(inClassRr);
  }

  private keyOf(p: PrimaryAddress): TsigKey | undefined {
    if (p.key === undefined) return undefined;
    const k = this.o.keys.get(nameWireKey(p.key));
    if (k === undefined)
      throw new XfrReadError('XFR_TSIG_MISSING', `the key ${p.key} is not defined (tsigKeys)`);
    return k;
  }

  /** One request over TCP and its whole answer, verified, within the zone's limits. */
  private exchange(z: ZoneState, p: PrimaryAddress, qtype: number, deadline: number, held?: XfrRr) {
    const key = this.keyOf(p);
    const id = randomInt(0, 65536);
    let request = transferRequest(z.key, qtype, id, held);
    let verifier: TsigStreamVerifier | undefined;
    if (key !== undefined) {
      request = new TsigSigner(key, nodeHmac, nowSeconds(), undefined).sign(request);
      const t = readTsig(request);
      if (t === undefined || t === 'FORMERR') throw new Error('signing the request failed');
      verifier = new TsigStreamVerifier(key, nodeHmac, t.mac, nowSeconds());
    }
    const reader = new XfrReader(
      z.key,
      id,
      qtype === TYPE_SOA ? TYPE_AXFR : qtype,
      held && soaTimers(held.rdata).serial,
      z.limits.maxRecords,
    );
    const bounds = {
      idleMs: this.o.timeoutMs ?? 10_000,
      deadline,
      maxBytes: z.limits.maxBytes,
    };
    return tcpExchange(p, request, bounds, this.sockets, (msg, index) => {
      let fault = verifier?.check(msg, index);
      if (fault) throw new XfrReadError(fault.code, fault.message);
      // An SOA answer is one message.
      const done = reader.push(msg) || qtype === TYPE_SOA;
      fault = done ? verifier?.finish() : undefined;
      if (fault) throw new XfrReadError(fault.code, fault.message);
      return done;
    }).then(() => {
      const result = qtype === TYPE_SOA ? undefined : reader.result();
      if (result) return { soa: result.soa, result };
      const soa = reader.firstSoa;
      if (soa === undefined) throw new XfrReadError('XFR_NO_SOA', 'the SOA answer holds no SOA');
      return { soa, result: undefined };
    });
  }
}

/** An IXFR applied by difference: the zone it was applied to, the result and its index, its steps. */
interface Patched {
  readonly from: Zone;
  readonly zone: Zone;
  readonly indexed: IndexedZone;
  /** The steps' difference, condensed (for the history of the zone served on). */
  readonly diff: ZoneDiff;
  /** Every step's difference, records of class IN (for the journal). */
  readonly diffs: readonly ZoneDiff[];
}

/** A plain record as a transfer's (class IN). */
function inClassRr(r: PlainRecord): XfrRr {
  return { key: r.key, type: r.type, cls: 1, ttl: r.ttl, rdata: r.rdata };
}

/** A whole transfer of at least this many records is followed by a collection (`collectWhenIdle`). */
const COLLECT_AFTER_RECORDS = 100_000;

const tmpName = (file: string) => `${file}.${process.pid}.${randomInt(1 << 30)}.tmp`;

function modelRecord(r: XfrRr): ResourceRecord {
  return { owner: keyToName(r.key), type: r.type, class: r.cls, ttl: r.ttl, rdata: r.rdata };
}

/** Records (SOA first) as a zone file's text; those of class IN only. */
function zoneText(origin: string, records: readonly XfrRr[]) {
  const inClass = records.filter((r) => r.cls === 1);
  const rrs = inClass.map(modelRecord);
  return { text: `$ORIGIN ${origin}\n${writeZone(rrs)}`, rrs, inClass };
}

const OPCODE_NOTIFY = 4;

/** The question of a NOTIFY: name key, type, and where it ends. */
function notifyQuestion(msg: Uint8Array): { key: string; end: number; qtype: number } {
  if (((msg[4]! << 8) | msg[5]!) !== 1) throw new Error('one question');
  const [wire, end] = readWireName(msg, 12);
  if (end + 4 > msg.length) throw new Error('short');
  return { key: wireKey(wire), end: end + 4, qtype: (msg[end]! << 8) | msg[end + 1]! };
}

/** An answer of header and question only (a signed NOTIFY's TSIG left behind): QR and AA set, opcode kept, `rcode`. */
function answerHeader(msg: Uint8Array, questionEnd: number, rcode: number): Uint8Array {
  return answerHead(msg, questionEnd, rcode, (msg[2]! & 0x78) | 0x04);
}

/** The same IP address (an IPv4-mapped IPv6 source counts as its IPv4 address). */
function sameAddress(a: string, b: string): boolean {
  const norm = (x: string) => x.replace(/^::ffff:/i, '').toLowerCase();
  return norm(a) === norm(b);
}
