/**
 * The per-zone transfer keys of a `zones` entry and the `serial` key. A
 * zone's own lists add to the serve-wide `allowTransfer` and `secondaries`.
 */
import { enumIn, isPrefix, notifySourceIn, type ConfigError } from './checks.ts';
import { parseHostPort, type HostPort } from '../kit/core/host-port.ts';
import type { SerialPolicy } from '../xfr/core/serial.ts';

export const SERIAL_POLICIES = ['keep', 'date', 'increment', 'auto'] as const;
/** As written in the config: `auto` is `date`. */
export type SerialSetting = (typeof SERIAL_POLICIES)[number];

export function serialPolicy(s: SerialSetting): SerialPolicy {
  return s === 'auto' ? 'date' : s;
}

/** A NOTIFY target, with the TSIG key to sign with (a key of `tsigKeys`). */
export interface NotifyTarget extends HostPort {
  readonly key?: string;
}

/** What a `zones` entry may say about transfers, besides its file and origin. */
export interface ZoneTransferOptions {
  /** SOA serial policy of this zone (default: the serve-wide `serial`). */
  readonly serial?: SerialSetting;
  /** Who may transfer this zone, besides the serve-wide `allowTransfer`. */
  readonly allowTransfer?: readonly string[];
  /** NOTIFY targets of this zone, besides the serve-wide `secondaries`. */
  readonly secondaries?: readonly NotifyTarget[];
  /** `ns`: NOTIFY the zone's NS hosts too (addresses from in-zone glue), but the SOA MNAME. */
  readonly notify?: 'listed' | 'ns';
  /** The address this zone's NOTIFYs are sent from (default: `transfer.notifySource`). */
  readonly notifySource?: string;
}

export const ZONE_TRANSFER_KEYS = [
  'serial',
  'allowTransfer',
  'secondaries',
  'notify',
  'notifySource',
] as const;

/** A `serial` value (serve-wide or per zone); undefined when absent, a problem pushed when invalid. */
export function serialSetting(
  errors: ConfigError[],
  path: string,
  v: unknown,
): SerialSetting | undefined {
  return enumIn(errors, path, v, SERIAL_POLICIES, undefined);
}

/** An `allowTransfer` list (serve-wide or per zone). */
export function allowTransferList(errors: ConfigError[], path: string, v: unknown): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((e) => typeof e !== 'string')) {
    errors.push({
      code: 'CONFIG_BAD_PREFIX',
      path,
      message: `${path} must be an array of addresses, prefixes ("192.0.2.0/24") or "key NAME"`,
    });
    return [];
  }
  const list = v as string[];
  list.forEach((e, i) => {
    if (!isPrefix(e) && !/^key [A-Za-z0-9._-]+\.?$/.test(e)) {
      errors.push({
        code: 'CONFIG_BAD_PREFIX',
        path: `${path}[${i}]`,
        message: `${path}[${i}]: "${e}" is not an address, an ADDR/BITS prefix or "key NAME"`,
      });
    }
  });
  return list;
}

/** A zone's `secondaries`: "ADDR:PORT" or {"address": "ADDR:PORT", "key": NAME}. */
function notifyTargets(errors: ConfigError[], path: string, v: unknown): NotifyTarget[] {
  const shape = 'must be "ADDR:PORT" or {"address": "ADDR:PORT", "key": NAME}';
  if (!Array.isArray(v)) {
    errors.push({
      code: 'CONFIG_BAD_LISTEN',
      path,
      message: `${path} must be an array of "ADDR:PORT" or {"address": "ADDR:PORT", "key": NAME}`,
    });
    return [];
  }
  const out: NotifyTarget[] = [];
  v.forEach((e: unknown, i: number) => {
    const p = `${path}[${i}]`;
    const o = typeof e === 'object' && e !== null ? (e as Record<string, unknown>) : undefined;
    const text = typeof e === 'string' ? e : o?.address;
    const key = o?.key;
    const extra = o ? Object.keys(o).filter((k) => k !== 'address' && k !== 'key') : [];
    const r = typeof text === 'string' ? parseHostPort(text) : undefined;
    if (r !== undefined && !r.ok) {
      const cause = r.error;
      errors.push({
        code: 'CONFIG_BAD_LISTEN',
        path: p,
        message: `${p} ${shape}: ${cause.message}`,
        cause,
      });
    } else if (
      r === undefined ||
      extra.length > 0 ||
      (key !== undefined && typeof key !== 'string')
    ) {
      const why = r === undefined ? ': not "ADDR:PORT"' : '';
      errors.push({ code: 'CONFIG_BAD_LISTEN', path: p, message: `${p} ${shape}${why}` });
    } else {
      out.push({ ...r.value, ...(typeof key === 'string' ? { key } : {}) });
    }
  });
  return out;
}

/** The transfer keys of the `zones[i]` object `z` (the other keys are checked by the caller). */
export function zoneTransferOptions(
  errors: ConfigError[],
  path: string,
  z: Record<string, unknown>,
): ZoneTransferOptions {
  const serial = serialSetting(errors, `${path}.serial`, z.serial);
  const notifySource = notifySourceIn(errors, `${path}.notifySource`, z.notifySource);
  let notify: ZoneTransferOptions['notify'];
  if (z.notify !== undefined) {
    if (z.notify === 'ns' || z.notify === 'listed') notify = z.notify;
    else
      errors.push({
        code: 'CONFIG_BAD_ENUM',
        path: `${path}.notify`,
        message: `${path}.notify must be "listed" (the secondaries only) or "ns" (also the zone's NS hosts)`,
      });
  }
  return {
    ...(serial !== undefined ? { serial } : {}),
    ...(z.allowTransfer !== undefined
      ? {
          allowTransfer: allowTransferList(errors, `${path}.allowTransfer`, z.allowTransfer),
        }
      : {}),
    ...(z.secondaries !== undefined
      ? { secondaries: notifyTargets(errors, `${path}.secondaries`, z.secondaries) }
      : {}),
    ...(notify !== undefined ? { notify } : {}),
    ...(notifySource !== undefined ? { notifySource } : {}),
  };
}
