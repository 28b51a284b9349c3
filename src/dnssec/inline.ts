/**
 * Inline signing for `lexroute serve` (`--keys DIR`, the `dnssec` block of
 * the configuration): a zone whose keys (`K<zone>+<alg>+<tag>.private`) are
 * in the key folder is signed right after it is loaded, in the thread that
 * loaded it (the reload worker in `serve`), and the signed zone is what gets
 * served. The SOA serial of the signed version goes up on every signing
 * (the file's serial when that is later, else the served one plus 1), and the
 * result says when the signatures need refreshing: `refresh` seconds before
 * the earliest expiration (validity minus the largest jitter).
 *
 * A failure (unreadable key, a key that does not match its name, a zone
 * that does not build once signed) is a diagnostic with a code and
 * severity error: the server keeps the version it serves.
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ResourceRecord, Zone, ZoneDiagnostic } from '../dns/core/zone/model.ts';
import type { ZoneDiagnosticCode } from '../dns/core/zone/codes.ts';
import { buildZone } from '../dns/core/zone/build.ts';
import { signingPlan, soaSerial } from './core/sign-zone.ts';
import { KeyError, readZoneKeys } from './keys.ts';
import { zoneRecords } from './sign.ts';
import { signChunks } from './parallel-sign.ts';

/** What `serve` signs with (the `dnssec` block of the server configuration, folder resolved). */
export interface InlineSigning {
  /** Folder of the zones' BIND key files. */
  readonly keysDir: string;
  readonly nsec3: boolean;
  readonly optOut: boolean;
  /** Signature validity, seconds. */
  readonly validity: number;
  /** Re-sign this many seconds before the earliest signature expiration. */
  readonly refresh: number;
}

export interface InlineSignResult {
  /** The signed zone, or the zone as loaded when the folder has no key for it. */
  readonly zone?: Zone;
  readonly diagnostics: readonly ZoneDiagnostic[];
  /** Present when the zone was signed. */
  readonly signed?: {
    readonly keys: readonly string[];
    readonly rrsets: number;
    readonly serial: number;
    /** Epoch milliseconds at which the zone should be signed again. */
    readonly refreshAt: number;
    readonly ms: number;
  };
}

/** The largest random reduction of an expiration (as `signZone`'s default). */
export function signatureJitter(validity: number): number {
  return Math.floor(validity / 8);
}

/**
 * A short fingerprint of the key files in the folder (names, sizes, mtimes):
 * part of a zone's content hash, so that a new or changed key makes an
 * otherwise unchanged file be signed again.
 */
export async function keysFingerprint(dir: string): Promise<string> {
  const h = createHash('sha256');
  let names: string[];
  try {
    names = (await readdir(dir)).filter((f) => /^K.*\.(key|private)$/.test(f)).sort();
  } catch (e) {
    return `unreadable:${(e as NodeJS.ErrnoException).code ?? 'error'}`;
  }
  for (const f of names) {
    try {
      const st = await stat(path.join(dir, f));
      h.update(`${f}\0${st.size}\0${st.mtimeMs}\n`);
    } catch {
      h.update(`${f}\0gone\n`);
    }
  }
  return h.digest('hex').slice(0, 16);
}

/** RFC 1982: `a` when it is later than `b`, else `b`. */
function laterSerial(a: number, b: number): number {
  const d = (a - b) >>> 0;
  return d !== 0 && d < 0x80000000 ? a : b;
}

function failure(code: ZoneDiagnosticCode, message: string): InlineSignResult {
  return { diagnostics: [{ code, message, severity: 'error' }] };
}

/**
 * Sign a loaded zone with its keys from the folder. `previousSerial` is the
 * serial of the version being served (the new one goes past it); `now` is in
 * seconds since the epoch.
 */
export async function signLoadedZone(
  zone: Zone,
  o: InlineSigning,
  previousSerial: number | undefined,
  now = Math.floor(Date.now() / 1000),
): Promise<InlineSignResult> {
  const t0 = performance.now();
  let keys;
  try {
    keys = await readZoneKeys(o.keysDir, zone.origin);
  } catch (e) {
    const code = e instanceof KeyError ? e.code : 'DNSSEC_KEYS_UNREADABLE';
    return failure(code, `signing ${zone.origin}: ${(e as Error).message}`);
  }
  if (keys.length === 0) {
    const message = `no K${zone.origin}+*.private key in ${o.keysDir}: ${zone.origin} is served as the file has it (unsigned unless signed already)`;
    return { zone, diagnostics: [{ code: 'DNSSEC_NO_KEYS', message, severity: 'warning' }] };
  }
  const fileSerial = soaSerial(zone.soa.records[0]!.rdata);
  const serial =
    previousSerial === undefined ? fileSerial : laterSerial(fileSerial, (previousSerial + 1) >>> 0);
  let built;
  try {
    const plan = signingPlan(zoneRecords(zone), {
      origin: zone.origin,
      keys,
      denial: o.nsec3 ? 'nsec3' : 'nsec',
      optOut: o.optOut,
      now,
      validity: o.validity,
      random: Math.random,
      serial,
    });
    const records: ResourceRecord[] = [];
    const signed = await signChunks(plan, keys, (rrs) => {
      for (const r of rrs) records.push(r);
    });
    built = { ...buildZone(records, { origin: zone.origin }), rrsets: signed };
  } catch (e) {
    return failure('DNSSEC_SIGN_FAILED', `signing ${zone.origin}: ${(e as Error).message}`);
  }
  const errors = built.diagnostics.filter((d) => d.severity === 'error');
  if (!built.zone || errors.length > 0)
    return failure(
      'DNSSEC_SIGN_FAILED',
      `the signed ${zone.origin} does not build: ${errors.map((d) => `${d.code} ${d.message}`).join('; ')}`,
    );
  const refreshAt = (now + o.validity - signatureJitter(o.validity) - o.refresh) * 1000;
  return {
    zone: built.zone,
    diagnostics: [],
    signed: {
      keys: keys.map((k) => k.basename),
      rrsets: built.rrsets,
      serial,
      refreshAt,
      ms: Math.round(performance.now() - t0),
    },
  };
}
