/** The loaded zone against the version served, where it was loaded; and a zone file's hash. */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { unpackZone, type PackedZone } from './transfer.ts';
import { prepareVersion } from '../../xfr/core/version.ts';
import type { SerialPolicy } from '../../xfr/core/serial.ts';
import type { ZoneDiff } from '../../xfr/core/diff.ts';
import type { Zone } from '../../dns/core/zone/model.ts';

/** The version served, as the worker receives it (columns shared, not copied), and the serial policy. */
export interface WorkerVersionRequest {
  readonly policy: SerialPolicy;
  readonly diff: boolean;
  /** Today as YYYYMMDD. */
  readonly date: number;
  readonly before?: PackedZone;
  /** Before a restart, by origin: the serial served and the content hash it was served for. */
  readonly restored?: ReadonlyMap<string, RestoredServed>;
}

/** What the state folder says of a zone served before a restart (`xfr/served-state.ts`). */
export interface RestoredServed {
  readonly serial: number;
  readonly hash: string;
  /** The highest serial ever served (a changed content goes past it). */
  readonly highest?: number;
}

/** What comparing with the served version gave. */
export interface VersionOutcome {
  readonly fileSerial: number;
  readonly serial: number;
  /** The served serial differs from the file's. */
  readonly rewritten: boolean;
  /** Raised by this load (content changed, the file's serial did not go up). */
  readonly raised: boolean;
  /** The records differ from the served version (absent: no version to compare with). */
  readonly changed?: boolean;
  readonly diff?: ZoneDiff;
  /** Time the comparison took. */
  readonly ms: number;
}

/** SHA-256 of a regular file (undefined when it is not one or cannot be read: the load reports why). */
export async function hashFile(file: string): Promise<string | undefined> {
  let fh;
  try {
    fh = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = await fh.stat();
    if (!st.isFile()) return undefined;
    const h = createHash('sha256');
    // Sized to the file plus one octet: a short read of a regular file is its end.
    const buf = Buffer.allocUnsafe(Math.min(st.size + 1, 1 << 20));
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead > 0) h.update(buf.subarray(0, bytesRead));
      if (bytesRead < buf.length) break;
    }
    return h.digest('hex');
  } catch {
    return undefined;
  } finally {
    await fh?.close();
  }
}

/** The loaded zone against the version served: IXFR difference and serial (not for inline signing). */
export function compareVersion(
  zone: Zone,
  v: WorkerVersionRequest,
  hash: string | undefined,
  signed: boolean,
): VersionOutcome {
  const t0 = performance.now();
  // A file that now holds another zone: nothing to compare with.
  const before = v.before && v.before.origin === zone.origin ? unpackZone(v.before) : undefined;
  const rest = before === undefined ? v.restored?.get(zone.origin) : undefined;
  const p = prepareVersion(zone, {
    policy: signed ? 'keep' : v.policy,
    date: v.date,
    diff: v.diff,
    ...(before ? { before } : {}),
    ...(rest ? { restored: restoredServed(rest, hash) } : {}),
  });
  return {
    fileSerial: p.fileSerial,
    ...p.choice,
    ...(p.changed !== undefined ? { changed: p.changed } : {}),
    ...(p.diff ? { diff: p.diff } : {}),
    ms: performance.now() - t0,
  };
}

/**
 * The serial a restart compares with: the one served for an unchanged content (served again), the
 * highest ever served for a changed one (the new version goes past every serial served, RFC 1982).
 */
function restoredServed(rest: RestoredServed, hash: string | undefined) {
  const changed = hash !== rest.hash;
  return { serial: changed ? (rest.highest ?? rest.serial) : rest.serial, changed };
}
