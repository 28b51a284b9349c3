/**
 * Answers encoded before their first query: for the hot set, the load worker encodes the bodies
 * the engine would, in one arena with a row index. A body is kept only when it depends on this
 * zone alone (not on a name outside it or in a zone below it, `others`); the engine drops them
 * when the zones below are no longer `others`.
 */
import { encodeBody, planResponse, type EncodedBody } from './answer.ts';
import { KeyedNodes } from './key-index.ts';
import { lookupInZone, makeZoneSet, findZoneFor, type IndexedZone } from './zone-lookup.ts';
import { TYPE_ANY, TYPE_DS } from '../../dns/core/rr/types.ts';
import { keyIsSubdomain } from '../../dns/core/wire/name.ts';

/** Added to the type of a DNSSEC (DO) body in a name's slots (types are 16-bit). */
export const DO_KEY = 0x10000;
/** At most this many bodies per name (its slots beyond are encoded on first query). */
const MAX_PER_NAME = 255;

export interface PackedAnswers {
  /** Per node row of the zone's store: 1 + offset of its bodies in `data`; 0: none. */
  readonly at: Int32Array;
  /** Per name with bodies, its row; at its offset: body count (1 octet), index (4), the bodies. */
  readonly rows: Int32Array;
  readonly data: Uint8Array;
  /** Names that have bodies. */
  readonly names: number;
  /** The lookup keys of the zones served below this one when the bodies were encoded, sorted. */
  readonly others: readonly string[];
}

/**
 * The names to encode ahead, flat so that posting them is cheap: `keys` is each lookup key after
 * one length character; `slots` per name its slot count then the slots (qtype, or qtype + DO_KEY).
 */
export interface HotNames {
  readonly keys: string;
  readonly slots: Int32Array;
  readonly count: number;
  /** The lookup keys of the zones served: at least every one below the zone loaded (its own may be there). */
  readonly origins: readonly string[];
  /** The engine's CNAME/DNAME chain bound. */
  readonly maxChain: number;
}

interface RowBodies {
  readonly row: number;
  readonly bodies: readonly { readonly slot: number; readonly body: EncodedBody }[];
}

const bodySize = (b: EncodedBody) => 4 + 1 + 1 + 6 + 2 + b.ends.length * 9 + 4 + b.bytes.length;

function writeBody(v: DataView, out: Uint8Array, o: number, slot: number, b: EncodedBody): number {
  v.setUint32(o, slot, true);
  v.setUint8(o + 4, b.rcode);
  v.setUint8(o + 5, b.aa ? 1 : 0);
  v.setUint16(o + 6, b.ancount, true);
  v.setUint16(o + 8, b.nscount, true);
  v.setUint16(o + 10, b.arcount, true);
  v.setUint16(o + 12, b.ends.length, true);
  o += 14;
  for (let i = 0; i < b.ends.length; i++) {
    v.setUint32(o, b.ends[i]!, true);
    v.setUint8(o + 4, b.sections[i]!);
    v.setUint16(o + 5, b.counts[i]!, true);
    v.setUint8(o + 7, b.required[i] ? 1 : 0);
    v.setUint8(o + 8, b.attached[i] ? 1 : 0);
    o += 9;
  }
  v.setUint32(o, b.bytes.length, true);
  out.set(b.bytes, o + 4);
  return o + 4 + b.bytes.length;
}

/** The hot set built name by name, so a caller can spread the work over several turns. */
export class HotNamesBuilder {
  private keys = '';
  private readonly slots: number[] = [];
  count = 0;

  add(key: string, types: Iterable<number>): void {
    this.keys += String.fromCharCode(key.length) + key;
    const at = this.slots.length;
    this.slots.push(0);
    for (const t of types) this.slots.push(t);
    this.slots[at] = this.slots.length - at - 1;
    this.count++;
  }

  finish(origins: readonly string[], maxChain: number): HotNames {
    const { keys, count } = this;
    return { keys, slots: Int32Array.from(this.slots), count, origins, maxChain };
  }
}

/** The hot set in its flat form (see `HotNames`). */
export function hotNames(
  names: Iterable<readonly [string, Iterable<number>]>,
  origins: readonly string[],
  maxChain: number,
): HotNames {
  const b = new HotNamesBuilder();
  for (const [key, types] of names) b.add(key, types);
  return b.finish(origins, maxChain);
}

/** Pack the bodies of some rows of a store of `rows` rows. */
export function packAnswers(
  rows: number,
  entries: readonly RowBodies[],
  others: readonly string[],
): PackedAnswers {
  let size = 0;
  for (const e of entries) for (const { body } of e.bodies) size += bodySize(body);
  const data = new Uint8Array(size + entries.length * ENTRY_HEAD);
  const view = new DataView(data.buffer);
  const at = new Int32Array(rows);
  const rowOf = new Int32Array(entries.length);
  let o = 0;
  entries.forEach((e, i) => {
    at[e.row] = o + 1;
    rowOf[i] = e.row;
    data[o] = e.bodies.length;
    view.setUint32(o + 1, i, true);
    o += ENTRY_HEAD;
    for (const { slot, body } of e.bodies) o = writeBody(view, data, o, slot, body);
  });
  return { at, rows: rowOf, data, names: entries.length, others: [...others].sort() };
}

/** A name's head in `data`: the number of its bodies, its index in `rows`. */
const ENTRY_HEAD = 5;

/** Where row's bodies start in `p.data` (after the head), or -1 when it has none. */
function entryAt(p: PackedAnswers, row: number): number {
  const start = row >= 0 && row < p.at.length ? p.at[row]! : 0;
  return start === 0 ? -1 : start - 1;
}

/** The body after the one at `o` (bodies are laid out back to back). */
function nextBody(d: Uint8Array, o: number): number {
  const sets = d[o + 12]! | (d[o + 13]! << 8);
  const at = o + 14 + sets * 9;
  return at + 4 + (d[at]! | (d[at + 1]! << 8) | (d[at + 2]! << 16) | (d[at + 3]! << 24));
}

/** Where row's body for `slot` starts in `p.data`, or -1. */
export function findPacked(p: PackedAnswers, row: number, slot: number): number {
  const e = entryAt(p, row);
  if (e < 0) return -1;
  const d = p.data;
  let o = e + ENTRY_HEAD;
  for (let k = d[e]!; k > 0; k--, o = nextBody(d, o))
    if ((d[o]! | (d[o + 1]! << 8) | (d[o + 2]! << 16) | (d[o + 3]! << 24)) >>> 0 === slot) return o;
  return -1;
}

/** Row's index in `p.rows` (0 to names - 1), or -1 when it has no bodies. */
export function packedIndex(p: PackedAnswers, row: number): number {
  const e = entryAt(p, row);
  if (e < 0) return -1;
  const d = p.data;
  return (d[e + 1]! | (d[e + 2]! << 8) | (d[e + 3]! << 16) | (d[e + 4]! << 24)) >>> 0;
}

/** The slots row has bodies for. */
export function packedSlots(p: PackedAnswers, row: number): number[] {
  const e = entryAt(p, row);
  const out: number[] = [];
  if (e < 0) return out;
  const d = p.data;
  let o = e + ENTRY_HEAD;
  for (let k = d[e]!; k > 0; k--, o = nextBody(d, o))
    out.push((d[o]! | (d[o + 1]! << 8) | (d[o + 2]! << 16) | (d[o + 3]! << 24)) >>> 0);
  return out;
}

/** A packed body read in place: one object re-pointed by `read` (nothing outlives the query). */
export class PackedBody implements EncodedBody {
  rcode = 0;
  aa = false;
  ancount = 0;
  nscount = 0;
  arcount = 0;
  bytes: Uint8Array = new Uint8Array(0);
  private data: Uint8Array = new Uint8Array(0);
  private view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
  private sets = 0;
  private setsAt = 0;

  /** Point at the body at `o` of `p.data` (`findPacked`). */
  read(p: PackedAnswers, o: number): this {
    const d = p.data;
    if (this.data !== d) {
      this.data = d;
      this.view = new DataView(d.buffer, d.byteOffset, d.byteLength);
    }
    const v = this.view;
    this.rcode = d[o + 4]!;
    this.aa = d[o + 5] === 1;
    this.ancount = v.getUint16(o + 6, true);
    this.nscount = v.getUint16(o + 8, true);
    this.arcount = v.getUint16(o + 10, true);
    this.sets = v.getUint16(o + 12, true);
    this.setsAt = o + 14;
    const lenAt = this.setsAt + this.sets * 9;
    this.bytes = d.subarray(lenAt + 4, lenAt + 4 + v.getUint32(lenAt, true));
    return this;
  }

  private column<T>(get: (o: number) => T): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.sets; i++) out.push(get(this.setsAt + i * 9));
    return out;
  }
  get ends(): readonly number[] {
    return this.column((o) => this.view.getUint32(o, true));
  }
  get sections(): readonly number[] {
    return this.column((o) => this.data[o + 4]!);
  }
  get counts(): readonly number[] {
    return this.column((o) => this.view.getUint16(o + 5, true));
  }
  get required(): readonly boolean[] {
    return this.column((o) => this.data[o + 7] === 1);
  }
  get attached(): readonly boolean[] {
    return this.column((o) => this.data[o + 8] === 1);
  }
}

/** The bodies of one row (views into `data`, nothing copied), or undefined. */
export function readAnswers(
  p: PackedAnswers,
  row: number,
): { slot: number; body: EncodedBody }[] | undefined {
  const e = entryAt(p, row);
  if (e < 0) return undefined;
  const d = p.data;
  const v = new DataView(d.buffer, d.byteOffset, d.byteLength);
  let o = e + ENTRY_HEAD;
  const n = d[e]!;
  const out: { slot: number; body: EncodedBody }[] = [];
  for (let k = 0; k < n; k++) {
    const slot = v.getUint32(o, true);
    const sets = v.getUint16(o + 12, true);
    const head = { rcode: d[o + 4]!, aa: d[o + 5] === 1 };
    const counts3 = [v.getUint16(o + 6, true), v.getUint16(o + 8, true), v.getUint16(o + 10, true)];
    o += 14;
    const ends: number[] = [];
    const sections: number[] = [];
    const counts: number[] = [];
    const required: boolean[] = [];
    const attached: boolean[] = [];
    for (let i = 0; i < sets; i++, o += 9) {
      ends.push(v.getUint32(o, true));
      sections.push(d[o + 4]!);
      counts.push(v.getUint16(o + 5, true));
      required.push(d[o + 7] === 1);
      attached.push(d[o + 8] === 1);
    }
    const len = v.getUint32(o, true);
    const bytes = d.subarray(o + 4, o + 4 + len);
    o += 4 + len;
    const [ancount, nscount, arcount] = counts3 as [number, number, number];
    const body = { ...head, bytes, ancount, nscount, arcount, ends, sections, counts };
    out.push({ slot, body: { ...body, required, attached } });
  }
  return out;
}

/** Encode the hot names' bodies in a loaded zone as the engine would (not ANY, not apex DS). */
export function precomputeAnswers(z: IndexedZone, hot: HotNames): PackedAnswers | undefined {
  if (!(z.nodes instanceof KeyedNodes)) return undefined;
  const nodes = z.nodes;
  const own = z.originKey;
  const deeper = hot.origins.filter((o) => o !== own && keyIsSubdomain(o, own));
  const ours = (key: string) =>
    keyIsSubdomain(key, own) && !deeper.some((o) => keyIsSubdomain(key, o));
  const set = makeZoneSet([z]);
  const dep = { foreign: false };
  const zoneFor = (key: string, qtype: number) => {
    if (!ours(key)) {
      dep.foreign = true;
      return undefined;
    }
    return findZoneFor(set, key, qtype);
  };
  const opts = { maxChain: hot.maxChain, any: 'minimal' as const, zoneFor };
  const entries: RowBodies[] = [];
  let k = 0;
  let s = 0;
  for (let i = 0; i < hot.count; i++) {
    const len = hot.keys.charCodeAt(k);
    const key = hot.keys.slice(k + 1, k + 1 + len);
    k += 1 + len;
    const slots = hot.slots.subarray(s + 1, s + 1 + hot.slots[s]!);
    s += 1 + slots.length;
    const row = ours(key) ? nodes.row(key) : -1;
    if (row < 0) continue;
    const bodies: { slot: number; body: EncodedBody }[] = [];
    for (const slot of slots) {
      const qtype = slot & 0xffff;
      const signed = slot >= DO_KEY;
      if (qtype === TYPE_ANY || (qtype === TYPE_DS && key === own)) continue;
      if (signed && z.dnssec === undefined) continue;
      dep.foreign = false;
      const body = encodeBody(key, planResponse(lookupInZone(z, key, qtype, opts), qtype, signed));
      if (!dep.foreign && bodies.length < MAX_PER_NAME) bodies.push({ slot, body });
    }
    if (bodies.length > 0) entries.push({ row, bodies });
  }
  return packAnswers(nodes.rows, entries, deeper);
}
