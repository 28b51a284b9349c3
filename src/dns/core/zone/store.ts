/**
 * Column storage for a zone: what the parser streams records into and a
 * built Zone reads from, with no object per record: RDATA in arena blocks,
 * records, RRsets and names as rows of typed-array columns linked by index,
 * owner names interned once. The model's objects are views (`views.ts`).
 *
 * The columns are private, read through the store's methods. They are
 * TypeScript `private` fields, not `#` fields, and `add` has no default
 * parameter: either slows the load (bench/zone-load.ts).
 */
import { fnv1aBytes, fnv1aText, FNV_OFFSET_BASIS, FNV_PRIME } from '../../../kit/core/hash.ts';
import type { SourcePosition, ZoneDiagnostic } from './model.ts';
import { TYPE_RRSIG } from '../rr/types.ts';

/** Where the parser delivers records. */
export interface RecordSink {
  /** One record; `rdata[0, len)` is copied. `line` 0: no source position. */
  add(
    owner: string,
    type: number,
    cls: number,
    ttl: number,
    rdata: Uint8Array,
    len: number,
    line: number,
    file: string,
    column?: number,
  ): void;
}

const BLOCK_BITS = 20;
/** Arena block size: RDATA is at most 65535 octets, so a record never spans blocks. */
const BLOCK = 1 << BLOCK_BITS;
const BLOCK_MASK = BLOCK - 1;
/** The first size of an arena block, grown 4x (copied, keeping its index) up to BLOCK. */
const FIRST_BLOCK = 4096;
/** First capacity of the columns (doubled as they fill); a new store's are empty. */
const FIRST_ROWS = 32;
/** Stores of at most this many records are packed into one ArrayBuffer when built (`compact`). */
const COMPACT_RECORDS = 4096;

/** The block to write `len` more octets into: `last`, `last` grown while under BLOCK, or a new one. */
function roomFor(blocks: Uint8Array[], last: Uint8Array, used: number, len: number): Uint8Array {
  if (used + len <= last.length) return last;
  if (blocks.length > 0 && last.length < BLOCK && used + len <= BLOCK) {
    let size = Math.max(last.length * 4, FIRST_BLOCK);
    while (size < used + len) size *= 4;
    const grown = new Uint8Array(Math.min(size, BLOCK));
    grown.set(last.subarray(0, used));
    blocks[blocks.length - 1] = grown;
    return grown;
  }
  const fresh = new Uint8Array(blocks.length === 0 ? Math.max(FIRST_BLOCK, len) : BLOCK);
  blocks.push(fresh);
  return fresh;
}
/** RRsets with at least this many records check duplicates with a hash set. */
const BIG_SET = 32;

/** Record flags. */
export const REC_DUPLICATE = 1;
export const REC_OUT_OF_ZONE = 2;

/** Name flags. */
export const NODE_ENT = 1;
export const NODE_DELEGATION = 2;
export const NODE_BELOW_CUT = 4;
export const NODE_OUT_OF_ZONE = 8;

/** Set flags. */
const SET_MIXED_REPORTED = 1;

/** Octets a canonical name writes as themselves inside a label: `a-z`, `0-9`, `-`, `_`, `*`. */
const CANON = new Uint8Array(256);
for (let c = 0x30; c <= 0x39; c++) CANON[c] = 1;
for (let c = 0x61; c <= 0x7a; c++) CANON[c] = 1;
CANON[0x2d] = 1;
CANON[0x5f] = 1;
CANON[0x2a] = 1;
const fnvStep = (h: number, c: number) => Math.imul(h ^ c, FNV_PRIME);

/** Whether `text` is a name in the canonical spelling (see CANON; `\DDD` only for the other octets). */
function isCanonicalName(text: string): boolean {
  const len = text.length;
  if (len === 0 || text.charCodeAt(len - 1) !== 0x2e) return false;
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2e || (c < 256 && CANON[c])) continue;
    if (c !== 0x5c || i + 3 >= len) return false;
    const d1 = text.charCodeAt(i + 1) - 0x30;
    const d2 = text.charCodeAt(i + 2) - 0x30;
    const d3 = text.charCodeAt(i + 3) - 0x30;
    if (d1 >>> 0 > 9 || d2 >>> 0 > 9 || d3 >>> 0 > 9) return false;
    const v = d1 * 100 + d2 * 10 + d3;
    if (v > 255 || CANON[v] || (v >= 0x41 && v <= 0x5a)) return false;
    i += 3;
  }
  return true;
}

/** A copy of column `a` with room for `n` rows. */
function grow<T extends Int32Array | Uint32Array | Uint16Array | Uint8Array>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}

/** The columns of a store without rows: shared, never written (a column grows before its first row). */
const NONE_I32 = new Int32Array(0);
const NONE_U32 = new Uint32Array(0);
const NONE_U16 = new Uint16Array(0);
const NONE_U8 = new Uint8Array(0);
/** The name table of a store without names (grown before the first is placed). */
const NO_SLOTS = new Int32Array(1);
/** Whether `b` is one of the shared arrays above (never listed for transfer: that would detach it). */
const sharedEmpty = (b: ArrayBufferLike) =>
  b === NONE_I32.buffer ||
  b === NONE_U32.buffer ||
  b === NONE_U16.buffer ||
  b === NONE_U8.buffer ||
  b === NO_SLOTS.buffer;

/** Typed arrays carved one after another out of one ArrayBuffer (`ZoneStore.compact`). */
class Carver {
  private readonly buffer: ArrayBuffer;
  private at = 0;
  constructor(octets: number) {
    this.buffer = new ArrayBuffer(octets);
  }
  /** A view of `rows` elements of `from`'s type here, holding `from`'s first rows (zeros past its end). */
  take<T extends Int32Array | Uint32Array | Uint16Array | Uint8Array>(from: T, rows: number): T {
    const View = from.constructor as new (b: ArrayBuffer, at: number, rows: number) => T;
    const view = new View(this.buffer, this.at, rows);
    view.set(from.length > rows ? from.subarray(0, rows) : from);
    this.at += rows * from.BYTES_PER_ELEMENT;
    return view;
  }
}

/** A diagnostic raised while records arrive, with the record it is about. */
export interface PendingDiagnostic {
  readonly rec: number;
  readonly diagnostic: ZoneDiagnostic;
}

/** The store as plain data between threads (`toTransfer`, `fromTransfer`); only `store.ts` reads its layout. */
export interface StoreTransfer {
  readonly recCount: number;
  readonly recNode: Int32Array;
  readonly recType: Uint16Array;
  readonly recTtl: Uint32Array;
  readonly recOff: Uint32Array;
  readonly recLen: Uint16Array;
  readonly recLine: Uint32Array;
  readonly recNext: Int32Array;
  readonly recFlags: Uint8Array;
  readonly recFile: Uint32Array | undefined;
  readonly recColumn: Uint32Array | undefined;
  readonly otherClass: Map<number, number> | undefined;
  readonly zoneClass: number;
  readonly files: readonly string[];
  readonly blocks: readonly Uint8Array[];
  readonly used: number;
  readonly nodeCount: number;
  readonly nodeNameOff: Uint32Array;
  readonly nodeNameLen: Uint16Array;
  readonly nodeHash: Uint32Array;
  readonly nodeFirstSet: Int32Array;
  readonly nodeFlags: Uint8Array;
  readonly nameBlocks: readonly Uint8Array[];
  readonly nameUsed: number;
  readonly slots: Int32Array;
  readonly nonCanonical: boolean;
  readonly setCount: number;
  readonly setNode: Int32Array;
  readonly setType: Uint16Array;
  readonly setTtl: Uint32Array;
  readonly setFirst: Int32Array;
  readonly setLast: Int32Array;
  readonly setSize: Uint32Array;
  readonly setNext: Int32Array;
  readonly setFlags: Uint8Array;
}

/**
 * Records, RRsets and names as rows of private columns, read through small
 * methods the JIT inlines: record r in file order; an RRset's records from
 * `firstRecord(s)` along `nextRecord(r)`; a name's RRsets from
 * `firstRRset(n)` along `nextRRset(s)`. A chain ends at -1. Rows are not checked.
 */
export class ZoneStore implements RecordSink {
  // Records, in file order.
  private recCount = 0;
  private recNode: Int32Array = NONE_I32;
  private recType: Uint16Array = NONE_U16;
  private recTtl: Uint32Array = NONE_U32;
  private recOff: Uint32Array = NONE_U32;
  private recLen: Uint16Array = NONE_U16;
  private recLine: Uint32Array = NONE_U32;
  /** Next record of the same RRset (-1 at the end). */
  private recNext: Int32Array = NONE_I32;
  private recFlags: Uint8Array = NONE_U8;
  /** File index per record; absent while every record comes from files[0]. */
  private recFile: Uint32Array | undefined;
  /** Column of each record's first token; absent while every record starts in column 1. */
  private recColumn: Uint32Array | undefined;
  /** Class per record where it differs from `zoneClass` (rare: the parser refuses mixed classes). */
  private otherClass: Map<number, number> | undefined;
  private firstClass = 0;
  private files: string[] = [];

  // RDATA arena.
  private blocks: Uint8Array[] = [];
  private block: Uint8Array = NONE_U8;
  private used = 0;

  // Names: canonical text in an arena, found through an open-addressing table;
  // no name is a JavaScript string until asked for (`name(n)`).
  private nodeCount = 0;
  private nodeNameOff: Uint32Array = NONE_U32;
  private nodeNameLen: Uint16Array = NONE_U16;
  private nodeHash: Uint32Array = NONE_U32;
  private nodeFirstSet: Int32Array = NONE_I32;
  private nodeFlags: Uint8Array = NONE_U8;
  private nameBlocks: Uint8Array[] = [];
  private nameBlock: Uint8Array = NONE_U8;
  private nameUsed = 0;
  /** Name table: row + 1 per slot, 0 = free; at most half full (its size a power of 2). */
  private slots: Int32Array = NO_SLOTS;
  /** Some name is not in the canonical spelling (a record made by hand): `findKey` cannot be used. */
  private nonCanonical = false;
  private cachedNode = -1;
  private cachedName = '';

  // RRsets.
  private setCount = 0;
  private setNode: Int32Array = NONE_I32;
  private setType: Uint16Array = NONE_U16;
  private setTtl: Uint32Array = NONE_U32;
  private setFirst: Int32Array = NONE_I32;
  private setLast: Int32Array = NONE_I32;
  private setSize: Uint32Array = NONE_U32;
  /** Next RRset of the same name (-1 at the end). */
  private setNext: Int32Array = NONE_I32;
  private setFlags: Uint8Array = NONE_U8;

  /** RDATA seen per RRset of BIG_SET records or more, while loading (made on the first such set). */
  private bigSets: Map<number, Set<string>> | undefined;
  private readonly pending: PendingDiagnostic[] = [];
  private lastOwner: string | undefined;
  private lastNode = -1;
  private lastFile: string | undefined;
  private lastFileIndex = 0;

  // --- Moving between threads.

  /** The store as plain data for `postMessage(data, buffers)`; unusable once they are transferred. */
  toTransfer(): { readonly data: StoreTransfer; readonly buffers: ArrayBuffer[] } {
    const data: StoreTransfer = {
      recCount: this.recCount,
      recNode: this.recNode,
      recType: this.recType,
      recTtl: this.recTtl,
      recOff: this.recOff,
      recLen: this.recLen,
      recLine: this.recLine,
      recNext: this.recNext,
      recFlags: this.recFlags,
      recFile: this.recFile,
      recColumn: this.recColumn,
      otherClass: this.otherClass,
      zoneClass: this.firstClass,
      files: this.files,
      blocks: this.blocks,
      used: this.used,
      nodeCount: this.nodeCount,
      nodeNameOff: this.nodeNameOff,
      nodeNameLen: this.nodeNameLen,
      nodeHash: this.nodeHash,
      nodeFirstSet: this.nodeFirstSet,
      nodeFlags: this.nodeFlags,
      nameBlocks: this.nameBlocks,
      nameUsed: this.nameUsed,
      slots: this.slots,
      nonCanonical: this.nonCanonical,
      setCount: this.setCount,
      setNode: this.setNode,
      setType: this.setType,
      setTtl: this.setTtl,
      setFirst: this.setFirst,
      setLast: this.setLast,
      setSize: this.setSize,
      setNext: this.setNext,
      setFlags: this.setFlags,
    };
    const buffers = new Set<ArrayBuffer>();
    for (const v of Object.values(data)) {
      const list: unknown[] = Array.isArray(v) ? v : [v];
      for (const x of list)
        if (ArrayBuffer.isView(x) && x.buffer instanceof ArrayBuffer && !sharedEmpty(x.buffer))
          buffers.add(x.buffer);
    }
    return { data, buffers: [...buffers] };
  }

  /** A store around received data (`toTransfer` on the other side): nothing is copied. */
  static fromTransfer(d: StoreTransfer): ZoneStore {
    const st = new ZoneStore();
    // Every other field of StoreTransfer is the store's field of the same name.
    const { zoneClass, files, blocks, nameBlocks, ...columns } = d;
    Object.assign(st, columns);
    st.firstClass = zoneClass;
    st.files = [...files];
    st.blocks = [...blocks];
    st.block = st.blocks.at(-1) ?? NONE_U8;
    st.nameBlocks = [...nameBlocks];
    st.nameBlock = st.nameBlocks.at(-1) ?? NONE_U8;
    return st;
  }

  /**
   * Pack a small store (one arena block of each kind) into one ArrayBuffer,
   * columns trimmed to their rows, the name table to the smallest size at
   * most half full. Stores with shared columns are left as they are.
   */
  compact(): void {
    const nc = this.nodeCount;
    if (this.recCount > COMPACT_RECORDS || this.blocks.length > 1 || this.nameBlocks.length > 1)
      return;
    if (!(this.recNode.buffer instanceof ArrayBuffer)) return;
    let slotCount = 1;
    while (slotCount < 2 * nc) slotCount *= 2;
    const cut = this.carve(this.recCount, nc, this.setCount, slotCount, this.used + this.nameUsed);
    if (this.blocks.length === 1) this.block = this.blocks[0] = cut.take(this.block, this.used);
    if (this.nameBlocks.length === 1)
      this.nameBlock = this.nameBlocks[0] = cut.take(this.nameBlock, this.nameUsed);
  }

  /**
   * Every column carved from one new ArrayBuffer, `rc`, `nc` and `sc` rows of
   * records, names and RRsets holding the current rows, with a name table of
   * `slotCount` slots; `arena` octets are left for the caller to take.
   */
  private carve(rc: number, nc: number, sc: number, slotCount: number, arena: number): Carver {
    const optional = (this.recFile ? rc : 0) + (this.recColumn ? rc : 0);
    const words = rc * 5 + optional + nc * 3 + sc * 6 + slotCount;
    const halves = rc * 2 + nc + sc;
    // 4-octet columns first, then 2, then 1: each view is aligned.
    const cut = new Carver(words * 4 + halves * 2 + rc + nc + sc + arena);
    this.recNode = cut.take(this.recNode, rc);
    this.recTtl = cut.take(this.recTtl, rc);
    this.recOff = cut.take(this.recOff, rc);
    this.recLine = cut.take(this.recLine, rc);
    this.recNext = cut.take(this.recNext, rc);
    if (this.recFile) this.recFile = cut.take(this.recFile, rc);
    if (this.recColumn) this.recColumn = cut.take(this.recColumn, rc);
    this.nodeNameOff = cut.take(this.nodeNameOff, nc);
    this.nodeHash = cut.take(this.nodeHash, nc);
    this.nodeFirstSet = cut.take(this.nodeFirstSet, nc);
    this.setNode = cut.take(this.setNode, sc);
    this.setTtl = cut.take(this.setTtl, sc);
    this.setFirst = cut.take(this.setFirst, sc);
    this.setLast = cut.take(this.setLast, sc);
    this.setSize = cut.take(this.setSize, sc);
    this.setNext = cut.take(this.setNext, sc);
    this.slots = cut.take(NONE_I32, slotCount);
    for (let n = 0; n < this.nodeCount; n++) this.place(n);
    this.recType = cut.take(this.recType, rc);
    this.recLen = cut.take(this.recLen, rc);
    this.nodeNameLen = cut.take(this.nodeNameLen, nc);
    this.setType = cut.take(this.setType, sc);
    this.recFlags = cut.take(this.recFlags, rc);
    this.nodeFlags = cut.take(this.nodeFlags, nc);
    this.setFlags = cut.take(this.setFlags, sc);
    return cut;
  }

  // --- Records.

  get recordCount(): number {
    return this.recCount;
  }
  /** The name row of record r. */
  recordNode(r: number): number {
    return this.recNode[r]!;
  }
  recordType(r: number): number {
    return this.recType[r]!;
  }
  recordTtl(r: number): number {
    return this.recTtl[r]!;
  }
  /** The next record of r's RRset, or -1. */
  nextRecord(r: number): number {
    return this.recNext[r]!;
  }
  /** `REC_*` flags of record r. */
  recordFlags(r: number): number {
    return this.recFlags[r]!;
  }
  /** Add `REC_*` flags to record r. */
  markRecord(r: number, flags: number): void {
    this.recFlags[r] = this.recFlags[r]! | flags;
  }
  /** Record r's line in its file (0: no source). */
  recordLine(r: number): number {
    return this.recLine[r]!;
  }
  /** Record r's column (of its first token; 1 when not known). */
  recordColumn(r: number): number {
    return this.recColumn ? this.recColumn[r]! : 1;
  }
  /** The length of record r's RDATA. */
  rdataLength(r: number): number {
    return this.recLen[r]!;
  }

  /** The RDATA of record r (a view into the arena). */
  rdata(r: number): Uint8Array {
    if (this.recLen[r] === 0) return new Uint8Array(0);
    const off = this.recOff[r]!;
    const start = off & BLOCK_MASK;
    return this.blocks[off >>> BLOCK_BITS]!.subarray(start, start + this.recLen[r]!);
  }

  /** The arena block holding record r's RDATA (no view made); it starts at `rdataStart(r)`. */
  rdataBlock(r: number): Uint8Array {
    return this.blocks[this.recOff[r]! >>> BLOCK_BITS]!;
  }

  rdataStart(r: number): number {
    return this.recOff[r]! & BLOCK_MASK;
  }

  /** Record r of this store and record q of `other` have the same RDATA. */
  sameRdata(r: number, other: ZoneStore, q: number): boolean {
    const len = this.recLen[r]!;
    if (len !== other.recLen[q]) return false;
    const ba = this.rdataBlock(r);
    const oa = this.rdataStart(r);
    const bb = other.rdataBlock(q);
    const ob = other.rdataStart(q);
    for (let i = 0; i < len; i++) if (ba[oa + i] !== bb[ob + i]) return false;
    return true;
  }

  classOf(r: number): number {
    return this.otherClass?.get(r) ?? this.firstClass;
  }

  /** The class of the zone's records (0 while empty). */
  get zoneClass(): number {
    return this.firstClass;
  }

  fileOf(r: number): string {
    return this.files[this.recFile ? this.recFile[r]! : 0] ?? '';
  }

  /** Where record r was read, or undefined for a record without a source. */
  source(r: number): SourcePosition | undefined {
    if (r < 0 || this.recLine[r] === 0) return undefined;
    return { file: this.fileOf(r), line: this.recLine[r]!, column: this.recordColumn(r) };
  }

  /** `{ position }` of record r, or nothing for a record without a source. */
  at(r: number): { position?: ZoneDiagnostic['position'] } {
    const position = this.source(r);
    return position ? { position } : {};
  }

  // --- RRsets.

  /** The name row of RRset s. */
  rrsetNode(s: number): number {
    return this.setNode[s]!;
  }
  rrsetType(s: number): number {
    return this.setType[s]!;
  }
  /** The RRset's TTL (the smallest of its records'). */
  rrsetTtl(s: number): number {
    return this.setTtl[s]!;
  }
  /** Record r of RRset s as zone data: the RRset's TTL, an RRSIG its own (`zoneDataTtl` in model.ts). */
  dataTtl(s: number, r: number): number {
    return this.setType[s] === TYPE_RRSIG ? this.recTtl[r]! : this.setTtl[s]!;
  }
  /** Records in the RRset (duplicates not counted). */
  rrsetSize(s: number): number {
    return this.setSize[s]!;
  }
  /** The RRset's first record (in file order). */
  firstRecord(s: number): number {
    return this.setFirst[s]!;
  }
  /** The next RRset of s's name, or -1. */
  nextRRset(s: number): number {
    return this.setNext[s]!;
  }

  /** The RRset of `type` at name n, or -1. */
  findSet(n: number, type: number): number {
    let s = this.nodeFirstSet[n]!;
    while (s >= 0 && this.setType[s] !== type) s = this.setNext[s]!;
    return s;
  }

  // --- Names.

  get nameCount(): number {
    return this.nodeCount;
  }
  /** The first RRset of name n, or -1 (an empty non-terminal has none). */
  firstRRset(n: number): number {
    return this.nodeFirstSet[n]!;
  }
  /** `NODE_*` flags of name n. */
  nameFlags(n: number): number {
    return this.nodeFlags[n]!;
  }
  /** Whether name n has any of the `NODE_*` flags in `flags`. */
  hasNameFlag(n: number, flags: number): boolean {
    return (this.nodeFlags[n]! & flags) !== 0;
  }
  /** Add `NODE_*` flags to name n. */
  markName(n: number, flags: number): void {
    this.nodeFlags[n] = this.nodeFlags[n]! | flags;
  }
  /** Octets of name n's text (canonical presentation). */
  nameLength(n: number): number {
    return this.nodeNameLen[n]!;
  }

  /** The name of row n (the canonical presentation string). */
  name(n: number): string {
    if (n === this.cachedNode) return this.cachedName;
    const off = this.nodeNameOff[n]!;
    const start = off & BLOCK_MASK;
    const bytes = this.nameBlocks[off >>> BLOCK_BITS]!.subarray(
      start,
      start + this.nodeNameLen[n]!,
    );
    const s = String.fromCharCode.apply(null, bytes as unknown as number[]);
    this.cachedNode = n;
    this.cachedName = s;
    return s;
  }

  /** The block holding row n's name text, and where it starts in it. */
  nameBlockOf(n: number): Uint8Array {
    return this.nameBlocks[this.nodeNameOff[n]! >>> BLOCK_BITS]!;
  }

  nameStart(n: number): number {
    return this.nodeNameOff[n]! & BLOCK_MASK;
  }

  /** Row n of this store and row m of `other` carry the same name (hash, length, octets). */
  sameName(n: number, other: ZoneStore, m: number): boolean {
    const len = this.nodeNameLen[n]!;
    if (this.nodeHash[n] !== other.nodeHash[m] || len !== other.nodeNameLen[m]) return false;
    const x = this.nameBlockOf(n);
    const ox = this.nameStart(n);
    const y = other.nameBlockOf(m);
    const oy = other.nameStart(m);
    for (let k = 0; k < len; k++) if (x[ox + k] !== y[oy + k]) return false;
    return true;
  }

  /** The row of a name, or -1. */
  findName(name: string): number {
    const h = fnv1aText(name) >>> 0;
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const v = slots[i]!;
      if (v === 0) return -1;
      const n = v - 1;
      if (this.nodeHash[n] !== h || this.nodeNameLen[n] !== name.length) continue;
      const b = this.nameBlockOf(n);
      const o = this.nameStart(n);
      let k = 0;
      while (k < name.length && b[o + k] === name.charCodeAt(k)) k++;
      if (k === name.length) return n;
    }
  }

  /** The row of the name `bytes[start, start + len)`, or -1. */
  private findNameBytes(bytes: Uint8Array, start: number, len: number, h: number): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const v = slots[i]!;
      if (v === 0) return -1;
      const n = v - 1;
      if (this.nodeHash[n] !== h || this.nodeNameLen[n] !== len) continue;
      const b = this.nameBlockOf(n);
      const o = this.nameStart(n);
      let k = 0;
      while (k < len && b[o + k] === bytes[start + k]) k++;
      if (k === len) return n;
    }
  }

  /** Every name is in the canonical spelling (as the parser writes them): `findKey` works. */
  get canonicalNames(): boolean {
    return !this.nonCanonical;
  }

  /**
   * The row of the name whose lookup key is `key`, or -1, by the hash of the
   * key's canonical spelling (no string made). Only when `canonicalNames`.
   */
  findKey(key: string): number {
    const klen = key.length;
    let h = FNV_OFFSET_BASIS;
    let tlen = 0;
    if (klen === 1) {
      h = fnvStep(h, 0x2e);
      tlen = 1;
    } else {
      for (let p = 0; p < klen;) {
        const l = key.charCodeAt(p);
        if (l === 0) break;
        const end = p + 1 + l;
        for (let k = p + 1; k < end; k++) {
          const c = key.charCodeAt(k);
          if (c > 255) return -1;
          if (CANON[c]) {
            h = fnvStep(h, c);
            tlen++;
          } else {
            h = fnvStep(h, 0x5c);
            h = fnvStep(h, 0x30 + ((c / 100) | 0));
            h = fnvStep(h, 0x30 + (((c / 10) | 0) % 10));
            h = fnvStep(h, 0x30 + (c % 10));
            tlen += 4;
          }
        }
        h = fnvStep(h, 0x2e);
        tlen++;
        p = end;
      }
    }
    h >>>= 0;
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const v = slots[i]!;
      if (v === 0) return -1;
      const n = v - 1;
      if (this.nodeHash[n] === h && this.nodeNameLen[n] === tlen && this.textIsKey(n, key))
        return n;
    }
  }

  /** Row n's canonical text spells the lookup key `key`. */
  private textIsKey(n: number, key: string): boolean {
    const b = this.nameBlockOf(n);
    let t = this.nameStart(n);
    const klen = key.length;
    if (klen === 1) return b[t] === 0x2e;
    for (let p = 0; p < klen;) {
      const l = key.charCodeAt(p);
      if (l === 0) return true;
      const end = p + 1 + l;
      for (let k = p + 1; k < end; k++) {
        const c = key.charCodeAt(k);
        if (CANON[c]) {
          if (b[t++] !== c) return false;
        } else {
          if (b[t] !== 0x5c) return false;
          const v = (b[t + 1]! - 0x30) * 100 + (b[t + 2]! - 0x30) * 10 + (b[t + 3]! - 0x30);
          if (v !== c) return false;
          t += 4;
        }
      }
      if (b[t++] !== 0x2e) return false;
      p = end;
    }
    return true;
  }

  /** Index of the name, created when new. Names are ASCII (canonical presentation). */
  node(name: string): number {
    const found = this.findName(name);
    if (found >= 0) return found;
    if (!this.nonCanonical && !isCanonicalName(name)) this.nonCanonical = true;
    const len = name.length;
    const n = this.newRow(len);
    const b = this.nameBlock;
    const o = this.nameUsed;
    for (let k = 0; k < len; k++) b[o + k] = name.charCodeAt(k);
    this.nameUsed = o + len;
    this.index(n, o, len);
    return n;
  }

  /** The parent of name row n, created when new; -1 for the root (a dot inside a label is `\046`). */
  parentOf(n: number): number {
    const len = this.nodeNameLen[n]!;
    const b = this.nameBlockOf(n);
    const o = this.nameStart(n);
    if (len <= 1) return -1;
    let dot = 0;
    while (b[o + dot] !== 0x2e) dot++;
    // `a.` -> `.` (the root is the one name whose text is a dot alone).
    const ps = dot + 1 === len ? o + dot : o + dot + 1;
    const pl = dot + 1 === len ? 1 : len - dot - 1;
    const h = fnv1aBytes(b, ps, ps + pl) >>> 0;
    const found = this.findNameBytes(b, ps, pl, h);
    if (found >= 0) return found;
    const row = this.newRow(pl);
    // newRow may have started a new block: copy from the (unchanged) old one.
    const nb = this.nameBlock;
    const no = this.nameUsed;
    for (let k = 0; k < pl; k++) nb[no + k] = b[ps + k]!;
    this.nameUsed = no + pl;
    this.index(row, no, pl);
    return row;
  }

  /** True when row n is `ancestor` or below it (`ancestor` canonical). */
  isUnder(n: number, ancestor: string): boolean {
    if (ancestor === '.') return true;
    const len = this.nodeNameLen[n]!;
    const al = ancestor.length;
    if (len < al) return false;
    const b = this.nameBlockOf(n);
    const o = this.nameStart(n);
    const d = o + len - al;
    for (let k = 0; k < al; k++) if (b[d + k] !== ancestor.charCodeAt(k)) return false;
    return len === al || b[d - 1] === 0x2e;
  }

  /** A new name row with room for `len` octets of text in the current block. */
  private newRow(len: number): number {
    // A new store's first columns come from one ArrayBuffer, one allocation
    // where there were two dozen, for the thousands of small zones a server loads.
    if (this.nodeFirstSet.length === 0 && this.recNode.length === 0 && this.setNode.length === 0)
      this.carve(FIRST_ROWS, FIRST_ROWS, FIRST_ROWS, 2 * FIRST_ROWS, 0);
    const n = this.nodeCount++;
    if (n === this.nodeFirstSet.length) {
      const cap = Math.max(n * 2, FIRST_ROWS);
      this.nodeFirstSet = grow(this.nodeFirstSet, cap);
      this.nodeFlags = grow(this.nodeFlags, cap);
      this.nodeNameOff = grow(this.nodeNameOff, cap);
      this.nodeNameLen = grow(this.nodeNameLen, cap);
      this.nodeHash = grow(this.nodeHash, cap);
    }
    this.nodeFirstSet[n] = -1;
    this.nodeFlags[n] = 0;
    const blocks = this.nameBlocks.length;
    this.nameBlock = roomFor(this.nameBlocks, this.nameBlock, this.nameUsed, len);
    if (this.nameBlocks.length !== blocks) this.nameUsed = 0;
    return n;
  }

  /** Put row n (text at `start` of the current block, `len` octets) in the name table. */
  private index(n: number, start: number, len: number): void {
    this.nodeNameOff[n] = (this.nameBlocks.length - 1) * BLOCK + start;
    this.nodeNameLen[n] = len;
    const b = this.nameBlock;
    const h = fnv1aBytes(b, start, start + len) >>> 0;
    this.nodeHash[n] = h;
    if (this.nodeCount * 2 > this.slots.length) {
      const old = this.slots;
      this.slots = new Int32Array(old.length * 2);
      for (let i = 0; i < old.length; i++) if (old[i] !== 0) this.place(old[i]! - 1);
    }
    this.place(n);
  }

  private place(n: number): void {
    const slots = this.slots;
    const mask = slots.length - 1;
    let i = this.nodeHash[n]! & mask;
    while (slots[i] !== 0) i = (i + 1) & mask;
    slots[i] = n + 1;
  }

  // --- Filling.

  private growRecords(): void {
    const cap = Math.max(this.recNode.length * 2, FIRST_ROWS);
    this.recNode = grow(this.recNode, cap);
    this.recType = grow(this.recType, cap);
    this.recTtl = grow(this.recTtl, cap);
    this.recOff = grow(this.recOff, cap);
    this.recLen = grow(this.recLen, cap);
    this.recLine = grow(this.recLine, cap);
    this.recNext = grow(this.recNext, cap);
    this.recFlags = grow(this.recFlags, cap);
    if (this.recFile) this.recFile = grow(this.recFile, cap);
    if (this.recColumn) this.recColumn = grow(this.recColumn, cap);
  }

  private growSets(): void {
    const cap = Math.max(this.setNode.length * 2, FIRST_ROWS);
    this.setNode = grow(this.setNode, cap);
    this.setType = grow(this.setType, cap);
    this.setTtl = grow(this.setTtl, cap);
    this.setFirst = grow(this.setFirst, cap);
    this.setLast = grow(this.setLast, cap);
    this.setSize = grow(this.setSize, cap);
    this.setNext = grow(this.setNext, cap);
    this.setFlags = grow(this.setFlags, cap);
  }

  /** Copy `len` octets into the arena; returns the record offset. */
  private store(src: Uint8Array, len: number): number {
    if (len === 0) return 0;
    const blocks = this.blocks.length;
    this.block = roomFor(this.blocks, this.block, this.used, len);
    if (this.blocks.length !== blocks) this.used = 0;
    const start = this.used;
    const block = this.block;
    for (let k = 0; k < len; k++) block[start + k] = src[k]!;
    this.used = start + len;
    return (this.blocks.length - 1) * BLOCK + start;
  }

  private sameAs(r: number, src: Uint8Array, len: number): boolean {
    if (this.recLen[r] !== len) return false;
    const b = this.rdataBlock(r);
    const o = this.rdataStart(r);
    for (let k = 0; k < len; k++) if (b[o + k] !== src[k]) return false;
    return true;
  }

  private fileIndex(file: string): number {
    if (file === this.lastFile) return this.lastFileIndex;
    let i = this.files.indexOf(file);
    if (i < 0) {
      i = this.files.length;
      this.files.push(file);
    }
    if (i > 0 && this.recFile === undefined) this.recFile = new Uint32Array(this.recNode.length);
    this.lastFile = file;
    this.lastFileIndex = i;
    return i;
  }

  /** Record the column of record r (the column is kept only once one differs from 1). */
  private setColumn(r: number, column: number): void {
    if (this.recColumn === undefined) {
      if (column === 1) return;
      this.recColumn = new Uint32Array(this.recNode.length).fill(1);
    }
    this.recColumn[r] = column;
  }

  add(
    owner: string,
    type: number,
    cls: number,
    ttl: number,
    rdata: Uint8Array,
    len: number,
    line: number,
    file: string,
    column?: number,
  ): void {
    const n = owner === this.lastOwner ? this.lastNode : this.node(owner);
    this.lastOwner = owner;
    this.lastNode = n;
    const r = this.newRecord(n, type, cls, ttl, len, line, file, column);
    let last = -1;
    let s = this.nodeFirstSet[n]!;
    while (s >= 0 && this.setType[s] !== type) {
      last = s;
      s = this.setNext[s]!;
    }
    if (s < 0) {
      this.newSet(n, last, type, ttl, r);
      this.recOff[r] = this.store(rdata, len);
      return;
    }
    // Duplicate RDATA in an RRset is dropped (RFC 2181 section 5).
    const dupOf =
      this.setSize[s]! < BIG_SET ? this.findIn(s, rdata, len) : this.findInBig(s, rdata, len);
    if (dupOf >= 0) {
      this.recFlags[r] = REC_DUPLICATE;
      this.recOff[r] = this.recOff[dupOf]!;
      this.pending.push({
        rec: r,
        diagnostic: {
          code: 'ZONE_DUPLICATE_RECORD',
          message: `duplicate record for ${owner}; the copy is ignored (RFC 2181 section 5)`,
          severity: 'warning',
          ...this.at(r),
          token: owner,
        },
      });
      return;
    }
    if (ttl !== this.setTtl[s]) this.mergeTtl(s, r, type, ttl, owner);
    this.recOff[r] = this.store(rdata, len);
    this.recNext[this.setLast[s]!] = r;
    this.setLast[s] = r;
    this.setSize[s] = this.setSize[s]! + 1;
  }

  /** A new record row of name n (its RDATA offset and RRset links are `add`'s to set). */
  private newRecord(
    n: number,
    type: number,
    cls: number,
    ttl: number,
    len: number,
    line: number,
    file: string,
    column: number | undefined,
  ): number {
    if (this.recCount === this.recNode.length) this.growRecords();
    const r = this.recCount++;
    const fi = this.fileIndex(file);
    if (this.recFile) this.recFile[r] = fi;
    if ((column !== undefined && column !== 1) || this.recColumn) this.setColumn(r, column ?? 1);
    if (this.firstClass === 0) this.firstClass = cls;
    else if (cls !== this.firstClass) (this.otherClass ??= new Map()).set(r, cls);
    this.recNode[r] = n;
    this.recType[r] = type;
    this.recTtl[r] = ttl;
    this.recLen[r] = len;
    this.recLine[r] = line;
    this.recNext[r] = -1;
    this.recFlags[r] = 0;
    return r;
  }

  /** A new RRset of `type` at name n holding record r, linked after RRset `last` (-1: n's first). */
  private newSet(n: number, last: number, type: number, ttl: number, r: number): void {
    if (this.setCount === this.setNode.length) this.growSets();
    const s = this.setCount++;
    this.setNode[s] = n;
    this.setType[s] = type;
    this.setTtl[s] = ttl;
    this.setFirst[s] = r;
    this.setLast[s] = r;
    this.setSize[s] = 1;
    this.setNext[s] = -1;
    this.setFlags[s] = 0;
    if (last < 0) this.nodeFirstSet[n] = s;
    else this.setNext[last] = s;
  }

  /** The record of RRset s whose RDATA is `rdata[0, len)`, or -1 (a walk along the set). */
  private findIn(s: number, rdata: Uint8Array, len: number): number {
    for (let q = this.setFirst[s]!; q >= 0; q = this.recNext[q]!)
      if (this.sameAs(q, rdata, len)) return q;
    return -1;
  }

  /** `findIn` for an RRset of BIG_SET records or more: a hash set of its RDATA says when to walk. */
  private findInBig(s: number, rdata: Uint8Array, len: number): number {
    const sets = (this.bigSets ??= new Map());
    let seen = sets.get(s);
    if (seen === undefined) {
      seen = new Set();
      for (let q = this.setFirst[s]!; q >= 0; q = this.recNext[q]!)
        seen.add(bytesKey(this.rdata(q), this.recLen[q]!));
      sets.set(s, seen);
    }
    const k = bytesKey(rdata, len);
    if (seen.has(k)) return this.findIn(s, rdata, len);
    seen.add(k);
    return -1;
  }

  /** Record r joins RRset s with a TTL `ttl` that differs from the set's. */
  private mergeTtl(s: number, r: number, type: number, ttl: number, owner: string): void {
    // RRSIGs covering different types may differ in TTL (RFC 4034 section 3);
    // otherwise an RRset has one TTL, the smallest (RFC 2181 section 5.2).
    if (type !== TYPE_RRSIG && !(this.setFlags[s]! & SET_MIXED_REPORTED)) {
      this.setFlags[s] = this.setFlags[s]! | SET_MIXED_REPORTED;
      this.pending.push({
        rec: r,
        diagnostic: {
          code: 'ZONE_MIXED_TTL',
          message: `RRset ${owner} has records with different TTLs (${this.setTtl[s]} and ${ttl}); the smallest is used (RFC 2181 section 5.2)`,
          severity: 'warning',
          ...this.at(r),
          token: String(ttl),
        },
      });
    }
    if (ttl < this.setTtl[s]!) this.setTtl[s] = ttl;
  }

  /** Diagnostics raised while records arrived (out-of-zone ones left out), merged in record order with `more`. */
  takePending(more: PendingDiagnostic[]): ZoneDiagnostic[] {
    const kept = this.pending.filter((p) => !(this.recFlags[p.rec]! & REC_OUT_OF_ZONE));
    const out: ZoneDiagnostic[] = [];
    let i = 0;
    let j = 0;
    while (i < kept.length || j < more.length) {
      if (j >= more.length || (i < kept.length && kept[i]!.rec <= more[j]!.rec))
        out.push(kept[i++]!.diagnostic);
      else out.push(more[j++]!.diagnostic);
    }
    this.pending.length = 0;
    this.bigSets = undefined;
    return out;
  }
}

function bytesKey(a: Uint8Array, len: number): string {
  let s = '';
  for (let i = 0; i < len; i++) s += String.fromCharCode(a[i]!);
  return s;
}
