/**
 * The served serial in the state folder (`serve --state-dir`): per zone
 * `<origin>serial` (JSON) and, signed inline, `<origin>signed` (a zone
 * file), each written whole then renamed over the old one.
 */
import { mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Zone } from '../dns/core/zone/model.ts';
import { writeZone } from '../dns/core/zone/writer.ts';
import { PatchedZone } from '../dns/core/zone/patch.ts';
import { StoreZone } from '../dns/core/zone/views.ts';
import {
  earliestSignatureExpiration,
  overlayRecords,
  patchedWith,
} from '../dnssec/core/resign-difference.ts';
import type { Logger } from '../authority/log.ts';
import type { SerialPolicy } from './core/serial.ts';
import { soaRecord } from './core/records.ts';
import { soaSerialOf } from '../dns/core/rr/soa.ts';
import {
  decodeServedState,
  encodeServedState,
  servedNow,
  signingStart,
  startWarning,
  type ServedState,
  type SigningStart,
} from './core/served-state.ts';

export type { ServedState };

/** A zone's file in the state directory: the origin, with anything but [a-z0-9.-] as %XX, then `suffix`. */
export function stateFile(dir: string, origin: string, suffix: string): string {
  const safe = origin.replace(
    /[^a-z0-9.-]/g,
    (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return path.join(dir, `${safe === '.' ? 'root.' : safe}${suffix}`);
}

export function serialFile(dir: string, origin: string): string {
  return stateFile(dir, origin, 'serial');
}

/** The signed version of a zone signed inline, as served. */
export function signedFile(dir: string, origin: string): string {
  return stateFile(dir, origin, 'signed');
}

/** Write `text` to `file` whole: a temporary file renamed over it. */
export async function replaceFile(file: string, text: string | Uint8Array): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
}

/** The state of every zone in the folder, by origin (empty without a folder). */
export async function readServedStates(
  dir: string | undefined,
  log: Logger,
): Promise<Map<string, ServedState>> {
  const out = new Map<string, ServedState>();
  if (dir === undefined) return out;
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.endsWith('.serial'))) {
    const s = await readOne(path.join(dir, name), log);
    if (s) out.set(s.origin, s);
  }
  return out;
}

async function readOne(file: string, log: Logger | undefined): Promise<ServedState | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const r = decodeServedState(text);
  if (r.ok) return r.value;
  log?.warn('serial_state_unreadable', { file, code: r.error.code, error: r.error.message });
  return undefined;
}

/** What a swap tells the state of one zone (`SwapInfo` of the reloader). */
export interface SwappedZone {
  /** Content hash of the version (undefined: the loader gave none; nothing is kept). */
  readonly hash?: string | undefined;
  readonly signed?: boolean | undefined;
  readonly policy?: SerialPolicy | undefined;
}

/** The state folder as the reload path sees it: start warnings, and the state after each swap. */
export class ServedStates {
  private readonly dir: string | undefined;
  private readonly log: Logger;
  private states: Promise<Map<string, ServedState>> | undefined;

  constructor(dir: string | undefined, log: Logger) {
    this.dir = dir;
    this.log = log;
  }

  private all(): Promise<Map<string, ServedState>> {
    this.states ??= readServedStates(this.dir, this.log);
    return this.states;
  }

  /** A version was swapped in: warn at a first load if secondaries may hold more; keep its serial. */
  async swapped(zone: Zone, info: SwappedZone, first: boolean): Promise<void> {
    const serial = soaSerialOf(soaRecord(zone).rdata);
    const states = await this.all();
    const before = states.get(zone.origin);
    if (first) this.warnAtStart(zone, info, serial, before);
    if (this.dir === undefined || info.hash === undefined) return;
    const now = servedNow(before, zone.origin, serial, info.hash, info.signed === true);
    // A start with nothing changed writes nothing (thousands of zones, one file each).
    if (before !== undefined && encodeServedState(before) === encodeServedState(now)) return;
    states.set(zone.origin, now);
    const file = serialFile(this.dir, zone.origin);
    try {
      await replaceFile(file, encodeServedState(now));
    } catch (e) {
      this.log.warn('serial_state_write_failed', {
        zone: zone.origin,
        file,
        error: (e as Error).message,
      });
    }
  }

  private warnAtStart(
    zone: Zone,
    info: SwappedZone,
    serial: number,
    before: ServedState | undefined,
  ): void {
    const rewrites = info.signed === true || (info.policy ?? 'keep') !== 'keep';
    const w = startWarning(this.dir !== undefined, before, serial, rewrites);
    if (w?.kind === 'no-state')
      this.log.warn('serial_not_remembered', {
        code: 'SERIAL_NOT_REMEMBERED',
        zone: zone.origin,
        serial,
        note: `${info.signed ? 'inline signing' : `serial policy ${info.policy}`} raises the serial past the file's, but without a state folder (--state-dir, transfer.stateDir) the serial served is not kept: after a restart the zone starts again from its file's serial, which may be below the one secondaries hold (they then keep their version)`,
      });
    else if (w?.kind === 'below-served')
      this.log.warn('zone_serial_below_served', {
        code: 'SERIAL_BELOW_SERVED',
        zone: zone.origin,
        serial,
        highest: w.highest,
        note: 'the file serial is below one served before (RFC 1982): secondaries that hold it will not transfer this version; raise the serial in the file past it, or use a serial policy',
      });
  }
}

/** The signed version kept for a zone, with its serial and when its signatures need refreshing. */
export interface KeptSigned {
  readonly zone: Zone;
  readonly serial: number;
  /** Epoch ms: the earliest RRSIG expiration less the refresh margin. */
  readonly refreshAt: number;
}

/**
 * How inline signing starts `origin` in this process: the kept signed version
 * when the state names its content and keys and nothing is due, else sign
 * past the highest serial served. `load` checks the kept file as any file.
 */
export async function startSigned(
  dir: string,
  origin: string,
  hash: string | undefined,
  load: (file: string) => Promise<Zone | undefined>,
  refreshSeconds: number,
  nowMs = Date.now(),
): Promise<{ start: SigningStart; kept?: KeptSigned }> {
  const state = await readOne(serialFile(dir, origin), undefined);
  let kept: KeptSigned | undefined;
  const whole = state?.signed
    ? await load(signedFile(dir, origin)).catch(() => undefined)
    : undefined;
  const zone = whole && (await withJournal(dir, whole, load));
  if (zone !== undefined && zone.origin === origin) {
    const exp = earliestSignatureExpiration(zone);
    if (exp !== undefined) {
      const serial = soaSerialOf(soaRecord(zone).rdata);
      kept = { zone, serial, refreshAt: (exp - refreshSeconds) * 1000 };
    }
  }
  const start = signingStart(state, hash, kept, nowMs);
  return { start, ...(kept && start.kind === 'resume' ? { kept } : {}) };
}

/** Keep a signed version before it is served (re-signed by difference: its names, as a journal). */
export async function keepSigned(dir: string, zone: Zone): Promise<void> {
  if (zone instanceof PatchedZone && (await keepSignedJournal(dir, zone))) return;
  await replaceFile(signedFile(dir, zone.origin), writeZone(zone));
  await rm(journalFile(dir, zone.origin), { force: true });
}

/** A patched version kept as the journal over the kept whole version, when that is its base. */
export async function keepSignedJournal(dir: string, zone: PatchedZone): Promise<boolean> {
  const records = overlayRecords(zone);
  const base = soaSerialOf(soaRecord(zone.base).rdata);
  if (records === undefined || (await keptSerial(signedFile(dir, zone.origin))) !== base)
    return false;
  await replaceFile(journalFile(dir, zone.origin), `${JOURNAL_HEAD}${base}\n${writeZone(records)}`);
  return true;
}

/** The first line of a journal, before the serial of the whole version it goes over. */
const JOURNAL_HEAD = '; changes over the signed version of serial ';

/** The changed names kept over the whole signed version (`keepSigned`). */
function journalFile(dir: string, origin: string): string {
  return stateFile(dir, origin, 'signed.journal');
}

/** The SOA serial of a signed version kept whole (its SOA is its first record), or undefined. */
async function keptSerial(file: string): Promise<number | undefined> {
  let fh;
  try {
    fh = await open(file, 'r');
    const { bytesRead, buffer } = await fh.read(Buffer.alloc(4096), 0, 4096, 0);
    const m = /\sSOA\s+\S+\s+\S+\s+(\d+)\s/.exec(buffer.toString('latin1', 0, bytesRead));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  } finally {
    await fh?.close();
  }
}

/** The kept version with its journal applied, when the journal goes over it; else as it is. */
async function withJournal(
  dir: string,
  zone: Zone,
  load: (file: string) => Promise<Zone | undefined>,
): Promise<Zone> {
  const file = journalFile(dir, zone.origin);
  const head = (await readFile(file, 'latin1').catch(() => undefined))?.slice(0, 200);
  if (head === undefined) return zone;
  const serial = soaSerialOf(soaRecord(zone).rdata);
  if (!(zone instanceof StoreZone) || !head.startsWith(`${JOURNAL_HEAD}${serial}\n`)) return zone;
  const overlay = await load(file).catch(() => undefined);
  return (overlay && patchedWith(zone, overlay)) ?? zone;
}
