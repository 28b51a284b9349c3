/**
 * What a reload means for transfers: each changed zone's difference goes
 * into its bounded IXFR history, journaled in the state folder (kept at
 * start when it ends at the SOA loaded), and secondaries are notified.
 */
import { readFile } from 'node:fs/promises';
import type { Zone } from '../dns/core/zone/model.ts';
import { diffBytes, diffFromSerial, diffToSerial, diffZones, type ZoneDiff } from './core/diff.ts';
import { decodeJournal, encodeJournal } from './core/journal.ts';
import { soaRecord } from './core/records.ts';
import { soaSerialOf } from '../dns/core/rr/soa.ts';
import { serialCompare } from './core/serial.ts';
import type { Logger } from '../authority/log.ts';
import { notifyAll, type NotifyOptions, type NotifyTarget } from './notify.ts';
import type { Transfers } from './out.ts';
import type { SwapInfo } from '../authority/reload.ts';
import { replaceFile, ServedStates, stateFile } from './served-state.ts';
import { sameBytes } from '../kit/core/bytes.ts';

export interface HistoryOptions {
  /** Differences kept per zone. 0: no IXFR history (IXFR answered in full). */
  readonly count: number;
  /** Octets of differences kept per zone. */
  readonly bytes: number;
  /** Directory of the journal files; undefined: history in memory only. */
  readonly stateDir: string | undefined;
  /** Whom to NOTIFY of a zone's new version (and the TSIG key of each). */
  readonly notify: (zone: Zone) => readonly NotifyTarget[];
  readonly notifyOptions: NotifyOptions;
}

export function journalFile(dir: string, origin: string): string {
  return stateFile(dir, origin, 'ixfr');
}

/** Drop the oldest differences beyond the bounds. */
export function boundHistory(diffs: ZoneDiff[], count: number, bytes: number): ZoneDiff[] {
  const out = diffs.slice(Math.max(0, diffs.length - count));
  let total = out.reduce((n, d) => n + diffBytes(d), 0);
  while (out.length > 0 && total > bytes) total -= diffBytes(out.shift()!);
  return out;
}

export class TransferHistory {
  private readonly o: HistoryOptions;
  private readonly transfers: Transfers;
  private readonly log: Logger;
  private readonly abort = new AbortController();
  private readonly pending = new Set<Promise<void>>();
  /** The serial served for each content, kept in the state folder (start warnings too). */
  private readonly served: ServedStates;

  constructor(options: HistoryOptions, transfers: Transfers, log: Logger) {
    this.o = options;
    this.transfers = transfers;
    this.log = log;
    this.served = new ServedStates(options.stateDir, log);
  }

  /** Called by the reloader after each swap with the zones served before and after, by origin. */
  async changed(
    before: ReadonlyMap<string, Zone>,
    after: ReadonlyMap<string, Zone>,
    loaded: ReadonlyMap<string, SwapInfo> = new Map(),
  ): Promise<void> {
    for (const [origin, zone] of after) {
      const old = before.get(origin);
      if (old === zone) continue;
      const info = loaded.get(origin);
      await this.served.swapped(zone, info ?? {}, old === undefined);
      if (old === undefined) {
        // First load (start, or a new zone): the journal on disk, and a NOTIFY as BIND sends at start.
        await this.restore(zone);
        this.notify(zone, soaSerialOf(soaRecord(zone).rdata));
        continue;
      }
      const from = soaSerialOf(soaRecord(old).rdata);
      const to = soaSerialOf(soaRecord(zone).rdata);
      if (serialCompare(to, from) > 0) {
        await this.record(old, zone, info?.version);
        // Every answering thread has the new history before a secondary is told to ask.
        await this.transfers.synced();
        this.notify(zone, to);
      } else {
        // The serial did not go up: the history cannot continue from it (checkSerial logs why).
        this.transfers.setHistory(origin, []);
        await this.persist(origin, []);
      }
    }
    for (const origin of before.keys())
      if (!after.has(origin)) this.transfers.setHistory(origin, []);
  }

  private notify(zone: Zone, serial: number): void {
    const o = this.o;
    const p = notifyAll(zone, serial, o.notify(zone), o.notifyOptions, this.log, this.abort.signal);
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  /** A new version into the history: its difference as the loader computed it, else computed here. */
  private async record(old: Zone, zone: Zone, loaded: SwapInfo['version']): Promise<void> {
    if (this.o.count === 0) return;
    const t0 = performance.now();
    const computed = loaded?.diff;
    const diff = computed ?? diffZones(old, zone);
    const ms = Math.round(computed ? loaded!.ms : performance.now() - t0);
    const history = boundHistory(
      [...this.transfers.history(zone.origin), diff],
      this.o.count,
      this.o.bytes,
    );
    this.transfers.setHistory(zone.origin, history);
    this.log.info('ixfr_difference', {
      zone: zone.origin,
      from: diffFromSerial(diff),
      to: diffToSerial(diff),
      removed: diff.removed.length,
      added: diff.added.length,
      kept: history.length,
      ms,
      where: computed ? 'at load' : 'after the swap',
    });
    await this.persist(zone.origin, history);
  }

  private async persist(origin: string, history: readonly ZoneDiff[]): Promise<void> {
    const dir = this.o.stateDir;
    if (dir === undefined) return;
    const file = journalFile(dir, origin);
    try {
      await replaceFile(file, encodeJournal(history));
    } catch (e) {
      this.log.warn('journal_write_failed', { zone: origin, file, error: (e as Error).message });
    }
  }

  /** At a zone's first load: the journal on disk, when it ends at the version loaded. */
  private async restore(zone: Zone): Promise<void> {
    const dir = this.o.stateDir;
    if (dir === undefined || this.o.count === 0) return;
    const file = journalFile(dir, zone.origin);
    const bytes = await readFile(file).catch(() => undefined);
    if (bytes === undefined) return;
    try {
      const diffs = decodeJournal(bytes);
      const last = diffs.at(-1);
      if (last === undefined) return;
      if (!sameBytes(last.toSoa.rdata, soaRecord(zone).rdata)) {
        this.log.info('journal_stale', {
          zone: zone.origin,
          file,
          ends: diffToSerial(last),
          note: 'the zone changed while the server was down: IXFR from older serials is answered in full',
        });
        return;
      }
      const kept = boundHistory(diffs, this.o.count, this.o.bytes);
      this.transfers.setHistory(zone.origin, kept);
      this.log.info('journal_loaded', { zone: zone.origin, file, differences: kept.length });
    } catch (e) {
      const err = e as Error & { code?: string };
      this.log.warn('journal_unreadable', {
        zone: zone.origin,
        file,
        code: err.code,
        error: err.message,
      });
    }
  }

  /** Stop retrying NOTIFYs and wait for the ones under way. */
  async close(): Promise<void> {
    this.abort.abort();
    await Promise.all([...this.pending]);
  }
}
