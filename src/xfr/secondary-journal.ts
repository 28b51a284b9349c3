/**
 * What a secondary keeps on disk of the IXFRs it applied by difference: the
 * zone file as last written whole, and a journal beside it (`FILE.jnl`,
 * `core/journal.ts`) of the differences since, replayed at restart. Past a
 * tenth of the zone (`compactAfter`) the file is rewritten whole. A journal
 * that does not decode or continue from the file's SOA is dropped.
 */
import { open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import type { Zone } from '../dns/core/zone/model.ts';
import { zoneDataTtl } from '../dns/core/zone/model.ts';
import { rrToPresentation } from '../dns/core/zone/writer.ts';
import { TYPE_SOA } from '../dns/core/rr/types.ts';
import { decodeJournal, encodeJournal } from './core/journal.ts';
import type { ZoneDiff } from './core/diff.ts';

export function journalOf(file: string): string {
  return `${file}.jnl`;
}

/** Journal records past which the zone is written whole again: a tenth of the zone, at least 1,000. */
export function compactAfter(zoneSize: number): number {
  return Math.max(1000, Math.floor(zoneSize / 10));
}

/** The journal's differences, oldest first; [] when there is none. Throws `JournalError` when it does not decode. */
export async function readJournal(file: string): Promise<ZoneDiff[]> {
  const b = await readFile(journalOf(file)).catch(() => undefined);
  return b === undefined ? [] : decodeJournal(new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
}

/** Append differences, then raise the count (`count` before): a crash midway leaves it undecodable. */
export async function appendJournal(
  file: string,
  count: number,
  diffs: readonly ZoneDiff[],
): Promise<void> {
  const bytes = encodeJournal(diffs);
  if (count === 0) {
    await writeFile(`${journalOf(file)}.tmp`, bytes);
    return rename(`${journalOf(file)}.tmp`, journalOf(file));
  }
  const fh = await open(journalOf(file), 'r+');
  try {
    const { size } = await fh.stat();
    await fh.write(bytes, 8, bytes.length - 8, size);
    const header = new Uint8Array(4);
    new DataView(header.buffer).setUint32(0, count + diffs.length);
    await fh.write(header, 0, 4, 4);
  } finally {
    await fh.close();
  }
}

export async function removeJournal(file: string): Promise<void> {
  await unlink(journalOf(file)).catch(() => undefined);
}

/** Lines per slice of `writeZoneFile` (the event loop runs between slices). */
const SLICE_LINES = 4096;

/** The zone as a zone file (SOA first, no sort), written in slices so queries are answered between them. */
export async function writeZoneFile(path: string, zone: Zone): Promise<void> {
  const fh = await open(path, 'w');
  try {
    let lines = [`$ORIGIN ${zone.origin}`];
    for (const rr of zone.soa.records) lines.push(rrToPresentation(rr, zone.soa.ttl));
    for (const node of zone.nodes.values()) {
      for (const set of node.rrsets.values()) {
        if (set.type === TYPE_SOA && node.name === zone.origin) continue;
        for (const rr of set.records) lines.push(rrToPresentation(rr, zoneDataTtl(set, rr)));
      }
      if (lines.length >= SLICE_LINES) {
        await fh.write(`${lines.join('\n')}\n`);
        lines = [];
      }
    }
    if (lines.length > 0) await fh.write(`${lines.join('\n')}\n`);
  } finally {
    await fh.close();
  }
}
