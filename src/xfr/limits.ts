/**
 * The limits of a transfer in (as BIND's `max-records`,
 * `max-transfer-time-in`): records and octets of one answer, and the seconds
 * of a whole refresh. Records and octets at 0 come from V8's
 * `heap_size_limit` (a quarter of it), so the zone can still be swapped in.
 */
import v8 from 'node:v8';
import type { SecondaryZoneConfig, TransferConfig } from '../config/server.ts';

/** Heap octets a received record costs while the transfer is read (object, owner key, RDATA). */
export const HEAP_PER_RECORD = 700;

export interface TransferInLimits {
  /** Records one answer may carry, its SOAs included (and records the zone an IXFR makes may hold). */
  readonly maxRecords: number;
  /** Octets of messages one answer may carry. */
  readonly maxBytes: number;
  /** Seconds the whole refresh (SOA query, IXFR, AXFR fallback) may take. */
  readonly maxSeconds: number;
}

/** The heap this process may grow to, in octets. */
export function heapLimit(): number {
  return v8.getHeapStatistics().heap_size_limit;
}

/** A zone's limits: its own, else the serve-wide ones; 0 (records, octets) derived from `heap`. */
export function transferInLimits(
  t: Pick<TransferConfig, 'inMaxRecords' | 'inMaxBytes' | 'inMaxSeconds'>,
  zone: Pick<SecondaryZoneConfig, 'maxRecords' | 'maxBytes' | 'maxSeconds'>,
  heap = heapLimit(),
): TransferInLimits {
  const share = Math.floor(heap / 4);
  const records = zone.maxRecords ?? t.inMaxRecords;
  const bytes = zone.maxBytes ?? t.inMaxBytes;
  return {
    maxRecords: records > 0 ? records : Math.floor(share / HEAP_PER_RECORD),
    maxBytes: bytes > 0 ? bytes : share,
    maxSeconds: zone.maxSeconds ?? t.inMaxSeconds,
  };
}
