/**
 * Inline signing for `lexroute serve` (`--keys DIR`, the `dnssec` block): a
 * zone with keys (`K<zone>+<alg>+<tag>.private`) in the folder is signed in
 * the thread that loaded it, and served signed. The serial goes up on every
 * signing; the result says when to re-sign (`refresh` seconds before the
 * earliest expiration). A failure is an error diagnostic: the server keeps
 * the version it serves.
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import type { Zone, ZoneDiagnostic } from '../dns/core/zone/model.ts';
import type { ZoneDiagnosticCode } from '../dns/core/zone/codes.ts';
import { buildStoreZone } from '../dns/core/zone/build.ts';
import { ZoneStore } from '../dns/core/zone/store.ts';
import { StoreZone } from '../dns/core/zone/views.ts';
import type { SignZoneOptions } from './core/sign-zone.ts';
import { zoneSigningPlan } from './core/sign-store.ts';
import { soaSerialOf } from '../dns/core/rr/soa.ts';
import { resignByDifference } from './core/resign-difference.ts';
import { KeyError, readZoneKeys, type LoadedKey } from './keys.ts';
import { signChunks } from './parallel-sign.ts';
import { loadZoneFile, type LoadOptions } from '../authority/zones/load.ts';
import { hashFile } from '../authority/zones/version.ts';
import { signedSerial } from '../xfr/core/served-state.ts';
import { keepSigned, signedFile, startSigned } from '../xfr/served-state.ts';
import { keptSignatures } from './core/keep-signatures.ts';
import { earliestExpiration } from '../authority/zone-signatures.ts';
import {
  dataDigest,
  digestChanges,
  signChangedNames,
  type DataDigest,
  type ResignedName,
} from './core/resign-digest.ts';

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
  /** The state folder (`transfer.stateDir`) where each signed version is kept (`xfr/served-state.ts`). */
  readonly stateDir?: string | undefined;
}

export interface InlineSignResult {
  /** The signed zone, or the zone as loaded when the folder has no key for it. */
  readonly zone?: Zone;
  readonly diagnostics: readonly ZoneDiagnostic[];
  /** Signed against `servedToken`: the names re-signed, to put over the version served. */
  readonly resigned?: readonly ResignedName[];
  /** Signed against a token, and more than content changed: load again with the signed version served. */
  readonly needBefore?: true;
  /** Present when the zone was signed. */
  readonly signed?: {
    readonly keys: readonly string[];
    readonly rrsets: number;
    /** Of `rrsets`, those whose signatures from the previous signed version were kept. */
    readonly kept?: number;
    readonly serial: number;
    /** Epoch milliseconds at which the zone should be signed again. */
    readonly refreshAt: number;
    readonly ms: number;
    /** The signed version kept in the state folder was served again (nothing signed). */
    readonly resumed?: boolean;
    /** Names this version for this thread's next signing of the zone (`servedToken`). */
    readonly token?: string;
  };
}

/** Per origin, the last version this thread signed (a reload with its token signs against it). */
interface LastSigned {
  readonly token: string;
  readonly digest: DataDigest;
  readonly facts: string;
  readonly earliest: number;
}
const lastSigned = new Map<string, LastSigned>();
let tokenCount = 0;
/** A token no other thread makes (a load thread started again counts from 1 again). */
const newToken = (origin: string) => `${origin}#${threadId}.${++tokenCount}`;

/** What a signature depends on beside the data: the keys and the denial. */
function signingFacts(o: SignZoneOptions): string {
  const keys = o.keys.map(
    (k) => `${k.flags}/${k.algorithm}/${Buffer.from(k.publicKey).toString('hex')}`,
  );
  const salt = Buffer.from(o.salt ?? []).toString('hex');
  return `${keys.sort().join(',')} ${o.denial} ${o.optOut ? 1 : 0} ${salt} ${o.iterations ?? 0}`;
}

/** Remember a version just signed from `zone` (unsigned); its token. */
function remember(zone: Zone, o: SignZoneOptions, earliest: number): string | undefined {
  const digest = zone instanceof StoreZone ? dataDigest(zone) : undefined;
  if (digest === undefined) {
    lastSigned.delete(zone.origin);
    return undefined;
  }
  const token = newToken(zone.origin);
  lastSigned.set(zone.origin, { token, digest, facts: signingFacts(o), earliest });
  return token;
}

/** What `signed` says of a version signed (re-signing `refresh` seconds before `d.earliest`). */
function signedInfo(
  keys: readonly LoadedKey[],
  d: { rrsets: number; kept: number; earliest: number; token: string | undefined },
  serial: number,
  refresh: number,
  now: number,
  t0: number,
): NonNullable<InlineSignResult['signed']> {
  const refreshAt = (now + ((d.earliest - now) | 0) - refresh) * 1000;
  const ms = Math.round(performance.now() - t0);
  const { rrsets, kept, token } = d;
  const info = { keys: keys.map((k) => k.basename), rrsets, kept, serial, refreshAt, ms };
  return token === undefined ? info : { ...info, token };
}

/** `zone` signed against the version served (by token): the names changed, or undefined. */
function signAgainstDigest(
  zone: Zone,
  token: string,
  o: SignZoneOptions,
  due: number,
): { resigned: ResignedName[]; rrsets: number; earliest: number; token: string } | undefined {
  const last = lastSigned.get(zone.origin);
  if (last?.token !== token || last.facts !== signingFacts(o)) return undefined;
  if (((last.earliest - o.now - due) | 0) <= 0 || !(zone instanceof StoreZone)) return undefined;
  const digest = dataDigest(zone);
  const names = digest && digestChanges(last.digest, digest, zone);
  const r = names && signChangedNames(zone, names, o);
  if (!r || !digest) return undefined;
  const e = r.earliest;
  const earliest = e === undefined || ((last.earliest - e) | 0) < 0 ? last.earliest : e;
  const next = newToken(zone.origin);
  lastSigned.set(zone.origin, { ...last, token: next, digest, earliest });
  return { resigned: r.names, rrsets: r.rrsets, earliest, token: next };
}

/** The largest random reduction of an expiration (as `signZone`'s default). */
export function signatureJitter(validity: number): number {
  return Math.floor(validity / 8);
}

/** A fingerprint of the key files (names, sizes, mtimes): a changed key signs an unchanged file. */
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

function failure(code: ZoneDiagnosticCode, message: string): InlineSignResult {
  return { diagnostics: [{ code, message, severity: 'error' }] };
}

/** Signatures due this soon after the earliest are refreshed with it: about four slices over the jitter. */
export function refreshSlice(validity: number): number {
  return Math.max(60, Math.floor(signatureJitter(validity) / 4));
}

/** The zone's keys from the folder, or why it is not signed (none there: served as loaded). */
async function keysOf(zone: Zone, o: InlineSigning): Promise<LoadedKey[] | InlineSignResult> {
  let keys;
  try {
    keys = await readZoneKeys(o.keysDir, zone.origin);
  } catch (e) {
    const code = e instanceof KeyError ? e.code : 'DNSSEC_KEYS_UNREADABLE';
    return failure(code, `signing ${zone.origin}: ${(e as Error).message}`);
  }
  if (keys.length > 0) return keys;
  const message = `no K${zone.origin}+*.private key in ${o.keysDir}: ${zone.origin} is served as the file has it (unsigned unless signed already)`;
  return { zone, diagnostics: [{ code: 'DNSSEC_NO_KEYS', message, severity: 'warning' }] };
}

/**
 * Sign a loaded zone with its keys, past `previousSerial`. With `previous`
 * (the signed version served), unchanged RRsets keep their signatures unless
 * due; with `servedToken`, the changed names are signed against this
 * thread's digest (`resigned`), or `needBefore`.
 */
export async function signLoadedZone(
  zone: Zone,
  o: InlineSigning,
  previousSerial: number | undefined,
  now = Math.floor(Date.now() / 1000),
  previous?: Zone,
  servedToken?: string,
): Promise<InlineSignResult> {
  const t0 = performance.now();
  const keys = await keysOf(zone, o);
  if (!Array.isArray(keys)) return keys;
  const serial = signedSerial(soaSerialOf(zone.soa.records[0]!.rdata), previousSerial);
  const due = o.refresh + refreshSlice(o.validity);
  const options: SignZoneOptions = {
    origin: zone.origin,
    keys,
    denial: o.nsec3 ? 'nsec3' : 'nsec',
    optOut: o.optOut,
    now,
    validity: o.validity,
    random: Math.random,
    serial,
    canonicalOrder: false,
    ...(previous ? { kept: keptSignatures(previous, now, due) } : {}),
  };
  if (servedToken !== undefined && previous === undefined) {
    const d = signAgainstDigest(zone, servedToken, options, due);
    if (!d) return { diagnostics: [], needBefore: true };
    return {
      diagnostics: [],
      resigned: d.resigned,
      signed: signedInfo(keys, { ...d, kept: 0 }, serial, o.refresh, now, t0),
    };
  }
  let built;
  try {
    const diff = previous && resignByDifference(zone, previous, options, due);
    built = diff ? { ...diff, diagnostics: [] } : await signWhole(zone, options, keys);
  } catch (e) {
    return failure('DNSSEC_SIGN_FAILED', `signing ${zone.origin}: ${(e as Error).message}`);
  }
  const errors = built.diagnostics.filter((d) => d.severity === 'error');
  if (!built.zone || errors.length > 0)
    return failure(
      'DNSSEC_SIGN_FAILED',
      `the signed ${zone.origin} does not build: ${errors.map((d) => `${d.code} ${d.message}`).join('; ')}`,
    );
  // The earliest expiration, kept signatures included (RFC 4034 section 3.1.5 arithmetic).
  const earliest = built.earliest ?? earliestExpiration(built.zone) ?? now + o.validity;
  const token = remember(zone, options, earliest);
  const d = { rrsets: built.rrsets, kept: built.kept, earliest, token };
  return {
    zone: built.zone,
    diagnostics: [],
    signed: signedInfo(keys, d, serial, o.refresh, now, t0),
  };
}

/** The whole zone signed, each owner's records going into the new zone's columns as they come. */
async function signWhole(zone: Zone, options: SignZoneOptions, keys: readonly LoadedKey[]) {
  const plan = zoneSigningPlan(zone, options);
  const store = new ZoneStore();
  let kept = 0;
  const counted = function* () {
    for (const c of plan) {
      kept += c.kept ?? 0;
      yield c;
    }
  };
  const signed = await signChunks(counted(), keys, (rrs) => {
    for (const r of rrs) store.add(r.owner, r.type, r.class, r.ttl, r.rdata, r.rdata.length, 0, '');
  });
  return {
    ...buildStoreZone(store, { origin: zone.origin }),
    rrsets: signed,
    kept,
    earliest: undefined,
  };
}

/** A zone file's content hash for the reload: its SHA-256, with inline signing the keys' fingerprint. */
export async function contentHash(
  file: string,
  sign: InlineSigning | undefined,
): Promise<string | undefined> {
  const hash = await hashFile(file);
  if (hash === undefined || sign === undefined) return hash;
  return `${hash}+keys:${await keysFingerprint(sign.keysDir)}`;
}

/** A first load with a state folder: the kept version (`resumed`), else the serial to pass. */
async function fromState(
  file: string,
  zone: Zone,
  sign: InlineSigning & { readonly stateDir: string },
  loadOptions: LoadOptions,
): Promise<{ resumed?: InlineSignResult; previous?: number }> {
  const t0 = performance.now();
  const load = (f: string) => loadPlain(f, zone.origin, loadOptions);
  const hash = await contentHash(file, sign);
  const { start, kept } = await startSigned(sign.stateDir, zone.origin, hash, load, sign.refresh);
  if (kept === undefined)
    return start.kind === 'sign' && start.previous !== undefined
      ? { previous: start.previous }
      : {};
  const ms = Math.round(performance.now() - t0);
  const { serial, refreshAt } = kept;
  const signed = { keys: [], rrsets: 0, serial, refreshAt, ms, resumed: true };
  return { resumed: { zone: kept.zone, diagnostics: [], signed } };
}

/** A kept version read without the caller's hooks (its hash is not the file's); undefined on errors. */
async function loadPlain(
  file: string,
  origin: string,
  loadOptions: LoadOptions,
): Promise<Zone | undefined> {
  const { onBlock: _block, onProgress: _progress, ...plain } = loadOptions;
  const r = await loadZoneFile(file, { ...plain, origin }).catch(() => undefined);
  if (!r?.zone || r.diagnostics.some((d) => d.severity === 'error')) return undefined;
  return r.zone;
}

/** Keep a signed version in the state folder; a failure is a warning (a restart then signs again). */
async function keep(dir: string, zone: Zone): Promise<ZoneDiagnostic[]> {
  try {
    await keepSigned(dir, zone);
    return [];
  } catch (e) {
    const message = `the signed ${zone.origin} could not be kept in ${dir} (${(e as Error).message}): a restart signs it again, with a new serial`;
    return [{ code: 'DNSSEC_STATE_WRITE', message, severity: 'warning' }];
  }
}

/**
 * Inline signing with the served serial kept across restarts: a first load
 * starts from the state folder, each signed version is kept there; kept
 * signatures come from `signedBefore`, else the kept version.
 */
export async function signWithState(
  file: string,
  zone: Zone,
  o: InlineSigning,
  previousSerial: number | undefined,
  loadOptions: LoadOptions,
  signedBefore?: Zone,
  servedToken?: string,
): Promise<InlineSignResult> {
  const stateDir = o.stateDir;
  // Signed against a token: the thread that serves the version keeps the names re-signed (`keepSignedJournal`).
  if (servedToken !== undefined && signedBefore === undefined && previousSerial !== undefined)
    return signLoadedZone(zone, o, previousSerial, undefined, undefined, servedToken);
  let previous = previousSerial;
  if (previous === undefined && stateDir !== undefined) {
    const st = await fromState(file, zone, { ...o, stateDir }, loadOptions);
    if (st.resumed) return st.resumed;
    previous = st.previous;
  }
  const before =
    signedBefore?.origin === zone.origin
      ? signedBefore
      : stateDir === undefined
        ? undefined
        : await loadPlain(signedFile(stateDir, zone.origin), zone.origin, loadOptions);
  const s = await signLoadedZone(zone, o, previous, undefined, before);
  if (!s.zone || !s.signed || stateDir === undefined) return s;
  return { ...s, diagnostics: [...s.diagnostics, ...(await keep(stateDir, s.zone))] };
}
