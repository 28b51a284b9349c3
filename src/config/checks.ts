/** Checks of single configuration values shared by the config readers (server.ts, zone-transfer.ts). */
import { ipVersion, type HostPortError } from '../kit/core/host-port.ts';
import { parseCidr } from './cidr.ts';

export interface ConfigError {
  readonly code: string;
  /** JSON path of the offending key, e.g. `tcp.maxConnections`. */
  readonly path: string;
  readonly message: string;
  /** What the address parser found, for a bad `ADDR:PORT` (`HOST_PORT_*`). */
  readonly cause?: HostPortError;
}

/** Push a `code` error at `path`; undefined, for `return fail(...)`. */
export function fail(
  errors: ConfigError[],
  code: string,
  path: string,
  message: string,
): undefined {
  errors.push({ code, path, message });
  return undefined;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** An IPv4 or IPv6 address, optionally with `/BITS`. */
export function isPrefix(text: string): boolean {
  return typeof parseCidr(text) !== 'string';
}

/** An integer key: `fallback` when absent; CONFIG_BAD_NUMBER naming `path` when out of `min`..`max`. */
export function intIn(
  errors: ConfigError[],
  path: string,
  v: unknown,
  min: number,
  max: number,
  fallback: number,
): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    errors.push({
      code: 'CONFIG_BAD_NUMBER',
      path,
      message: `${path} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`,
    });
    return fallback;
  }
  return v;
}

/** `intIn` over one section's keys: `int(key, min, max)` reads `section.key`, its default from `d`. */
export function sectionInts<D>(
  errors: ConfigError[],
  section: string,
  o: Record<string, unknown>,
  d: D,
) {
  return (k: keyof D & string, min: number, max: number): number =>
    intIn(errors, `${section}.${k}`, o[k], min, max, d[k] as number);
}

/** A boolean key: `fallback` when absent; CONFIG_BAD_BOOLEAN naming `path` when not a boolean. */
export function boolIn(
  errors: ConfigError[],
  path: string,
  v: unknown,
  fallback: boolean,
): boolean {
  if (v === undefined) return fallback;
  if (typeof v === 'boolean') return v;
  errors.push({ code: 'CONFIG_BAD_BOOLEAN', path, message: `${path} must be true or false` });
  return fallback;
}

/** One of `words`: `fallback` when absent; CONFIG_BAD_ENUM naming `path` otherwise. */
export function enumIn<T extends string, F>(
  errors: ConfigError[],
  path: string,
  v: unknown,
  words: readonly T[],
  fallback: F,
): T | F {
  if (v === undefined) return fallback;
  if (words.includes(v as T)) return v as T;
  fail(errors, 'CONFIG_BAD_ENUM', path, `${path} must be one of ${words.join(', ')}`);
  return fallback;
}

/** `transfer.notifySource` (and a zone's): an IP address; undefined when absent or invalid (error pushed). */
export function notifySourceIn(
  errors: ConfigError[],
  path: string,
  v: unknown,
): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string' && ipVersion(v) !== 0) return v;
  errors.push({
    code: 'CONFIG_BAD_LISTEN',
    path,
    message: `${path} must be an IP address (the source of the NOTIFYs), got ${JSON.stringify(v)}`,
  });
  return undefined;
}
