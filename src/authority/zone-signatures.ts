/**
 * Signature expiry per zone (issue 30, per-zone visibility): the earliest
 * RRSIG expiration of a served zone, for `ctl status ZONE` and
 * `lexroute_dns_zone_signature_expiry_seconds`. One pass over the zone's
 * records, once per zone version (cached by the zone object, which a reload
 * replaces).
 */
import type { Zone } from '../dns/core/zone/model.ts';

const RRSIG = 46;
const cache = new WeakMap<Zone, number | null>();

/** The earliest RRSIG expiration of a zone (RFC 4034 section 3.1.5, seconds since 1970 mod 2^32), or undefined when unsigned. */
export function earliestExpiration(zone: Zone): number | undefined {
  const hit = cache.get(zone);
  if (hit !== undefined) return hit ?? undefined;
  let earliest: number | undefined;
  // Serial arithmetic (RFC 4034 section 3.1.5): compared through a reference, the first one seen.
  for (const node of zone.nodes.values()) {
    const set = node.rrsets.get(RRSIG);
    if (!set) continue;
    for (const r of set.records) {
      const d = r.rdata;
      if (d.length < 12) continue;
      const exp = ((d[8]! << 24) | (d[9]! << 16) | (d[10]! << 8) | d[11]!) >>> 0;
      if (earliest === undefined || ((exp - earliest) | 0) < 0) earliest = exp;
    }
  }
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
