/**
 * The earliest RRSIG expiration of a served zone (`ctl status ZONE`,
 * `lexroute_dns_zone_signature_expiry_seconds`), one pass per zone version (cached by the zone).
 */
import type { Zone } from '../dns/core/zone/model.ts';
import { earliestSignatureExpiration } from '../dnssec/core/resign-difference.ts';

const cache = new WeakMap<Zone, number | null>();

/** The earliest RRSIG expiration of a zone (RFC 4034 section 3.1.5, seconds since 1970 mod 2^32), or undefined when unsigned. */
export function earliestExpiration(zone: Zone): number | undefined {
  const hit = cache.get(zone);
  if (hit !== undefined) return hit ?? undefined;
  // Read from the store's columns for a loaded or patched zone (no view per record).
  const earliest = earliestSignatureExpiration(zone);
  cache.set(zone, earliest ?? null);
  return earliest;
}

/** Seconds from `nowMs` to the zone's earliest signature expiration (negative: expired), or undefined. */
export function secondsToExpiry(zone: Zone, nowMs: number): number | undefined {
  const exp = earliestExpiration(zone);
  if (exp === undefined) return undefined;
  const now = Math.floor(nowMs / 1000) >>> 0;
  return (exp - now) | 0;
}
