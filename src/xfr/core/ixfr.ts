/**
 * What to answer an IXFR query from a zone's history, and its records (RFC
 * 1995 section 2: newer serial, the current SOA; section 4: else the zone).
 */
import type { Zone } from '../../dns/core/zone/model.ts';
import { diffFromSerial, diffToSerial, type ZoneDiff } from './diff.ts';
import {
  arrayCursor,
  axfrCursor,
  soaRecord,
  type PlainRecord,
  type RecordCursor,
} from './records.ts';
import { soaSerialOf } from '../../dns/core/rr/soa.ts';
import { serialCompare } from './serial.ts';
import { TYPE_SOA } from '../../dns/core/rr/types.ts';
import { skipName } from '../../dns/core/wire/query.ts';

export type IxfrPlan =
  | { readonly kind: 'current' }
  | { readonly kind: 'incremental'; readonly diffs: readonly ZoneDiff[] }
  | { readonly kind: 'full' };

/** The differences leading from `serial` to the zone's current serial, when the history has them all. */
export function planIxfr(history: readonly ZoneDiff[], serial: number, zone: Zone): IxfrPlan {
  const current = soaSerialOf(soaRecord(zone).rdata);
  // Same or newer (a serial "in the future" included): the single current SOA.
  if (serialCompare(serial, current) >= 0) return { kind: 'current' };
  let i = history.findIndex((d) => diffFromSerial(d) === serial >>> 0);
  if (i < 0) return { kind: 'full' };
  const diffs: ZoneDiff[] = [];
  let at = serial >>> 0;
  for (; i < history.length; i++) {
    const d = history[i]!;
    if (diffFromSerial(d) !== at) return { kind: 'full' };
    diffs.push(d);
    at = diffToSerial(d);
  }
  return at === current ? { kind: 'incremental', diffs } : { kind: 'full' };
}

/** The records of the answer: current SOA, then per difference old SOA, deletions, new SOA, additions, then current SOA. */
export function ixfrCursor(plan: IxfrPlan, zone: Zone): RecordCursor {
  const soa = soaRecord(zone);
  if (plan.kind === 'current') return arrayCursor([soa]);
  if (plan.kind === 'full') return axfrCursor(zone);
  const list: PlainRecord[] = [soa];
  for (const d of plan.diffs) list.push(d.fromSoa, ...d.removed, d.toSoa, ...d.added);
  list.push(soa);
  return arrayCursor(list);
}

/** The client's serial in an IXFR query's authority SOA (RFC 1995 section 3), if any. */
export function ixfrQuerySerial(msg: Uint8Array, questionEnd: number): number | undefined {
  const ancount = (msg[6]! << 8) | msg[7]!;
  const nscount = (msg[8]! << 8) | msg[9]!;
  let off = questionEnd;
  for (let i = 0; i < ancount + nscount; i++) {
    off = skipName(msg, off, msg.length);
    if (off < 0 || off + 10 > msg.length) return undefined;
    const type = (msg[off]! << 8) | msg[off + 1]!;
    const rdlen = (msg[off + 8]! << 8) | msg[off + 9]!;
    const end = off + 10 + rdlen;
    if (end > msg.length) return undefined;
    if (i >= ancount && type === TYPE_SOA && rdlen >= 22)
      return soaSerialOf(msg.subarray(off + 10, end));
    off = end;
  }
  return undefined;
}
