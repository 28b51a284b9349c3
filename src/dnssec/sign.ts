/**
 * `lexroute zone sign`: a zone file in, a signed zone file out, with the
 * zone's keys from a folder of BIND key files. The SOA serial is raised on
 * each signing (above the input's and the previous output's).
 */
import { existsSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import type { SigningChunk } from './core/sign-zone.ts';
import { zoneSigningPlan } from './core/sign-store.ts';
import { soaSerialOf } from '../dns/core/rr/soa.ts';
import { rrToPresentation } from '../dns/core/zone/writer.ts';
import { loadZoneFile } from '../authority/zones/load.ts';
import { KeyError, readZoneKeys, type LoadedKey } from './keys.ts';
import { signChunks } from './parallel-sign.ts';
import { laterSerial } from '../xfr/core/served-state.ts';

export interface SignFileOptions {
  readonly keysDir: string;
  readonly out: string;
  readonly origin?: string;
  readonly nsec3: boolean;
  readonly optOut: boolean;
  /** Seconds since the epoch (default: now). */
  readonly now?: number;
  readonly validityDays?: number;
  /** Signing threads (default: the cores available; 1 signs in this thread). */
  readonly threads?: number;
  /** [0, 1), for the expiration jitter (default Math.random). */
  readonly random?: () => number;
}

export interface SignFileResult {
  readonly origin: string;
  readonly serial: number;
  readonly keys: readonly string[];
  readonly rrsets: number;
  readonly records: number;
}

/** Sign and write owner by owner into a temporary file renamed over `out` at the end. */
async function writeSigned(
  out: string,
  plan: Iterable<SigningChunk>,
  keys: readonly LoadedKey[],
  threads: number | undefined,
): Promise<{ signed: number; records: number }> {
  const tmp = `${out}.${process.pid}.tmp`;
  const fh = await open(tmp, 'w');
  let text = '';
  let records = 0;
  try {
    const signed = await signChunks(
      plan,
      keys,
      async (rrs) => {
        for (const rr of rrs) text += rrToPresentation(rr) + '\n';
        records += rrs.length;
        if (text.length < 1 << 20) return;
        const t = text;
        text = '';
        await fh.write(t);
      },
      threads !== undefined ? { threads } : {},
    );
    await fh.write(text);
    await fh.close();
    await rename(tmp, out);
    return { signed, records };
  } catch (e) {
    await fh.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw e;
  }
}

export async function signZoneFile(file: string, o: SignFileOptions): Promise<SignFileResult> {
  const loaded = await loadZoneFile(file, o.origin !== undefined ? { origin: o.origin } : {});
  const bad = loaded.diagnostics.find((d) => d.severity === 'error');
  if (!loaded.zone || bad)
    throw new KeyError(
      'ZONE_INVALID',
      `${file}: the zone does not load${bad ? `: ${bad.code} ${bad.message}` : ''}`,
    );
  const zone = loaded.zone;
  const keys = await readZoneKeys(o.keysDir, zone.origin);
  if (keys.length === 0)
    throw new KeyError('KEY_NONE', `no K${zone.origin}+*.private keys in ${o.keysDir}`);
  let serial = soaSerialOf(zone.soa.records[0]!.rdata);
  if (existsSync(o.out)) {
    const prev = await loadZoneFile(o.out, { origin: zone.origin });
    if (prev.zone) serial = laterSerial(serial, soaSerialOf(prev.zone.soa.records[0]!.rdata));
  }
  serial = (serial + 1) >>> 0;
  const now = o.now ?? Math.floor(Date.now() / 1000);
  const plan = zoneSigningPlan(zone, {
    origin: zone.origin,
    keys,
    denial: o.nsec3 ? 'nsec3' : 'nsec',
    optOut: o.optOut,
    now,
    validity: (o.validityDays ?? 30) * 86400,
    random: o.random ?? Math.random,
    serial,
  });
  const written = await writeSigned(o.out, plan, keys, o.threads);
  return {
    origin: zone.origin,
    serial,
    keys: keys.map((k) => k.basename),
    rrsets: written.signed,
    records: written.records,
  };
}
