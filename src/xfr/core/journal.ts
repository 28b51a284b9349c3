/**
 * The on-disk form of a zone's IXFR history (a restart then needs no full
 * transfers). Binary; a file that does not decode whole is rejected
 * (`JOURNAL_CORRUPT`, with the offset), never half used:
 *
 *   "LXJ1"  u32 count  then per difference:
 *     record fromSoa, record toSoa, u32 n, n records (deleted), u32 m, m records (added)
 *   record: u8 key length, key octets, u16 type, u32 TTL, u16 RDATA length, RDATA
 */
import type { ZoneDiff } from './diff.ts';
import type { PlainRecord } from './records.ts';

const MAGIC = [0x4c, 0x58, 0x4a, 0x31]; // LXJ1

export class JournalError extends Error {
  readonly code = 'JOURNAL_CORRUPT';
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(`${message} at octet ${offset}`);
    this.name = 'JournalError';
    this.offset = offset;
  }
}

function recordSize(r: PlainRecord): number {
  return 1 + r.key.length + 8 + r.rdata.length;
}

export function encodeJournal(diffs: readonly ZoneDiff[]): Uint8Array {
  let size = 8;
  for (const d of diffs) {
    size += recordSize(d.fromSoa) + recordSize(d.toSoa) + 8;
    for (const r of d.removed) size += recordSize(r);
    for (const r of d.added) size += recordSize(r);
  }
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  out.set(MAGIC, 0);
  v.setUint32(4, diffs.length);
  let o = 8;
  const rec = (r: PlainRecord) => {
    out[o++] = r.key.length;
    for (let i = 0; i < r.key.length; i++) out[o++] = r.key.charCodeAt(i);
    v.setUint16(o, r.type);
    v.setUint32(o + 2, r.ttl >>> 0);
    v.setUint16(o + 6, r.rdata.length);
    o += 8;
    out.set(r.rdata, o);
    o += r.rdata.length;
  };
  for (const d of diffs) {
    rec(d.fromSoa);
    rec(d.toSoa);
    v.setUint32(o, d.removed.length);
    o += 4;
    d.removed.forEach(rec);
    v.setUint32(o, d.added.length);
    o += 4;
    d.added.forEach(rec);
  }
  return out;
}

export function decodeJournal(bytes: Uint8Array): ZoneDiff[] {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 8 || MAGIC.some((m, i) => bytes[i] !== m)) {
    throw new JournalError('not a lexroute IXFR journal (magic LXJ1)', 0);
  }
  let o = 8;
  const need = (n: number) => {
    if (o + n > bytes.length) throw new JournalError('truncated', o);
  };
  const rec = (): PlainRecord => {
    need(1);
    const kl = bytes[o]!;
    need(1 + kl + 8);
    let key = '';
    for (let i = 0; i < kl; i++) key += String.fromCharCode(bytes[o + 1 + i]!);
    o += 1 + kl;
    const type = v.getUint16(o);
    const ttl = v.getUint32(o + 2);
    const len = v.getUint16(o + 6);
    o += 8;
    need(len);
    const rdata = bytes.slice(o, o + len);
    o += len;
    return { key, type, ttl, rdata };
  };
  const list = (): PlainRecord[] => {
    need(4);
    const n = v.getUint32(o);
    o += 4;
    const out: PlainRecord[] = [];
    for (let i = 0; i < n; i++) out.push(rec());
    return out;
  };
  const count = v.getUint32(4);
  const diffs: ZoneDiff[] = [];
  // In the order they are written (properties are evaluated left to right).
  for (let i = 0; i < count; i++)
    diffs.push({ fromSoa: rec(), toSoa: rec(), removed: list(), added: list() });
  if (o !== bytes.length) throw new JournalError('octets after the last difference', o);
  return diffs;
}
