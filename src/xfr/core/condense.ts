/**
 * Condensed IXFR (RFC 1995 section 6): consecutive differences merged into
 * one, from the oldest version to the newest. A record added then deleted
 * does not appear, nor one deleted and added back with the same TTL.
 */
import type { ZoneDiff } from './diff.ts';
import type { PlainRecord } from './records.ts';
import { latin1 } from '../../kit/core/bytes.ts';

/** A record's identity for condensing: owner, type and RDATA (the TTL aside). */
function identity(r: PlainRecord): string {
  return `${r.key}\u0001${r.type}\u0001${latin1(r.rdata)}`;
}

/** Records of a sequence of differences: SOAs and the records each deletes and adds (as a journal of them holds). */
export function sequenceRecords(diffs: readonly ZoneDiff[]): number {
  let n = 0;
  for (const d of diffs) n += 2 + d.removed.length + d.added.length;
  return n;
}

/** One difference with the net effect of consecutive `diffs` (records in the order first named). */
export function condenseDiffs(diffs: readonly ZoneDiff[]): ZoneDiff {
  const first = diffs[0];
  const last = diffs.at(-1);
  if (first === undefined || last === undefined) throw new Error('no difference to condense');
  if (diffs.length === 1) return first;
  // A record deleted from the oldest version, and one added that the newest still has.
  const removed = new Map<string, PlainRecord>();
  const added = new Map<string, PlainRecord>();
  for (const d of diffs) {
    for (const r of d.removed) {
      const id = identity(r);
      // Added within the sequence, then deleted: the oldest version did not have it.
      if (added.has(id)) added.delete(id);
      else removed.set(id, r);
    }
    for (const r of d.added) {
      const id = identity(r);
      const was = removed.get(id);
      // Deleted and put back as it was: no change at all.
      if (was !== undefined && was.ttl === r.ttl) removed.delete(id);
      else added.set(id, r);
    }
  }
  return {
    fromSoa: first.fromSoa,
    toSoa: last.toSoa,
    removed: [...removed.values()],
    added: [...added.values()],
  };
}

/** The condensed difference when it has fewer records than the sequence, else the sequence. */
export function condenseWhenSmaller(diffs: readonly ZoneDiff[]): readonly ZoneDiff[] {
  if (diffs.length < 2) return diffs;
  const c = condenseDiffs(diffs);
  return sequenceRecords([c]) < sequenceRecords(diffs) ? [c] : diffs;
}
