/**
 * The counters of SOA RDATA (RFC 1035 section 3.3.13: MNAME, RNAME, then
 * SERIAL, REFRESH, RETRY, EXPIRE, MINIMUM as 32-bit integers). Zone and
 * transfer RDATA holds its names uncompressed, so the counters are always
 * its last 20 octets: the one place that reads them.
 */
import { readU32 } from '../wire/bytes.ts';

/** The SOA fields a secondary's timers run on, in seconds. */
export interface SoaTimers {
  readonly serial: number;
  readonly refresh: number;
  readonly retry: number;
  readonly expire: number;
  readonly minimum: number;
}

/** Counter `i` (0 SERIAL ... 4 MINIMUM) of SOA RDATA. */
function counter(rdata: Uint8Array, i: number): number {
  return readU32(rdata, rdata.length - 20 + 4 * i);
}

/** The serial of SOA RDATA. */
export function soaSerialOf(rdata: Uint8Array): number {
  return counter(rdata, 0);
}

export function soaTimers(rdata: Uint8Array): SoaTimers {
  const at = (i: number) => counter(rdata, i);
  return { serial: at(0), refresh: at(1), retry: at(2), expire: at(3), minimum: at(4) };
}
