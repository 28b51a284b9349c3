/**
 * Column storage for a zone: what the parser streams records into and what a
 * built Zone reads from. A zone may hold millions of records, so nothing here
 * is an object per record:
 *
 * - RDATA octets live in one arena of 1 MiB blocks; a record is an offset and
 *   a length in it (an RRset's duplicate points at the first copy).
 * - Records, RRsets and names are rows of typed-array columns; an RRset links
 *   its records (`recNext`), a name links its RRsets (`setNext`).
 * - Owner names are interned once per name (one string, shared by the name
 *   index, the canonical name list and every view).
 *
 * `ResourceRecord`, `RRset` and `ZoneNode` objects are views made on access
 * (`views.ts`): the model's interfaces stay as they are for their consumers.
 */
import { fnv1aBytes, fnv1aText } from '../kit/hash.ts';
import type { ZoneDiagnostic } from './model.ts';
import { TYPE_RRSIG } from '../rr/types.ts';

/** Where the parser delivers records. */
export interface RecordSink {
  /**
   * One record. `rdata[0, len)` is copied (the caller reuses its buffer).
   * `line` 0 means no source position.
   */
  add(
    owner: string,
    type: number,
    cls: number,
    ttl: number,
    rdata: Uint8Array,
    len: number,
    line: number,
    file: string,
  ): void;
}

const BLOCK_BITS = 20;
/** Arena block size: RDATA is at most 65535 octets, so a record never spans blocks. */
const BLOCK = 1 << BLOCK_BITS;
const BLOCK_MASK = BLOCK - 1;
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

function growI32(a: Int32Array<ArrayBuffer>, n: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(n);
  b.set(a);
  return b;
}
function growU32(a: Uint32Array<ArrayBuffer>, n: number): Uint32Array<ArrayBuffer> {
  const b = new Uint32Array(n);
  b.set(a);
  return b;
}
function growU16(a: Uint16Array<ArrayBuffer>, n: number): Uint16Array<ArrayBuffer> {
  const b = new Uint16Array(n);
  b.set(a);
  return b;
}
function growU8(a: Uint8Array<ArrayBuffer>, n: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(n);
  b.set(a);
  return b;
}

/** A diagnostic raised while records arrive, with the record it is about. */
interface PendingDiagnostic {
  readonly rec: number;
  readonly diagnostic: ZoneDiagnostic;
}

export class ZoneStore implements RecordSink {
  // Records, in file order.
  recCount = 0;
  recNode = new Int32Array(1024);
  recType = new Uint16Array(1024);
  recTtl = new Uint32Array(1024);
  recOff = new Uint32Array(1024);
  recLen = new Uint16Array(1024);
  recLine = new Uint32Array(1024);
  /** Next record of the same RRset (-1 at the end). */
  recNext = new Int32Array(1024);
  recFlags = new Uint8Array(1024);
  /** File index per record; absent while every record comes from files[0]. */
  recFile: Uint32Array<ArrayBuffer> | undefined;
  /** Class per record where it differs from `zoneClass` (rare: the parser refuses mixed classes). */
  otherClass: Map<number, number> | undefined;
  zoneClass = 0;
  readonly files: string[] = [];

  // RDATA arena.
  readonly blocks: Uint8Array[] = [];
  private block: Uint8Array = new Uint8Array(0);
  private used = 0;

  // Names: their text (canonical presentation, ASCII) in an arena like RDATA,
  // found through an open-addressing table in a typed array. No name is a
  // JavaScript string until asked for (`name(n)`): a million strings and Map
  // entries would live on the heap and make V8 grow its young generation.
  nodeCount = 0;
  nodeNameOff = new Uint32Array(1024);
  nodeNameLen = new Uint16Array(1024);
  nodeHash = new Uint32Array(1024);
  nodeFirstSet = new Int32Array(1024);
  nodeFlags = new Uint8Array(1024);
  readonly nameBlocks: Uint8Array[] = [];
  private nameBlock: Uint8Array = new Uint8Array(0);
  private nameUsed = 0;
  /** Name table: row + 1 per slot, 0 = free; at most half full. */
  private slots = new Int32Array(2048);
  private cachedNode = -1;
  private cachedName = '';

  // RRsets.
  setCount = 0;
  setNode = new Int32Array(1024);
  setType = new Uint16Array(1024);
  setTtl = new Uint32Array(1024);
  setFirst = new Int32Array(1024);
  setLast = new Int32Array(1024);
  setSize = new Uint32Array(1024);
  /** Next RRset of the same name (-1 at the end). */
  setNext = new Int32Array(1024);
  setFlags = new Uint8Array(1024);

  private readonly bigSets = new Map<number, Set<string>>();
  private readonly pending: PendingDiagnostic[] = [];
  private lastOwner: string | undefined;
  private lastNode = -1;
  private lastFile: string | undefined;
  private lastFileIndex = 0;

  /** The RDATA of record r (a view into the arena). */
  rdata(r: number): Uint8Array {
    if (this.recLen[r] === 0) return new Uint8Array(0);
    const off = this.recOff[r]!;
    const start = off & BLOCK_MASK;
    return this.blocks[off >>> BLOCK_BITS]!.subarray(start, start + this.recLen[r]!);
  }

  /** Record r's octet k of RDATA (no view made). */
  rdataBlock(r: number): Uint8Array {
    return this.blocks[this.recOff[r]! >>> BLOCK_BITS]!;
  }

  rdataStart(r: number): number {
    return this.recOff[r]! & BLOCK_MASK;
  }

  classOf(r: number): number {
    return this.otherClass?.get(r) ?? this.zoneClass;
  }

  fileOf(r: number): string {
    return this.files[this.recFile ? this.recFile[r]! : 0] ?? '';
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

  /** Index of the name, created when new. Names are ASCII (canonical presentation). */
  node(name: string): number {
    const found = this.findName(name);
    if (found >= 0) return found;
    const len = name.length;
    const n = this.newRow(len);
    const b = this.nameBlock;
    const o = this.nameUsed;
    for (let k = 0; k < len; k++) b[o + k] = name.charCodeAt(k);
    this.nameUsed = o + len;
    this.index(n, o, len);
    return n;
  }

  /**
   * The parent of name row n (its name without the first label), created
   * when new (with no RRsets); -1 for the root. Canonical names write a dot inside a label as
   * `\046`, so the first `.` ends the first label.
   */
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
    const n = this.nodeCount++;
    if (n === this.nodeFirstSet.length) {
      const cap = n * 2;
      this.nodeFirstSet = growI32(this.nodeFirstSet, cap);
      this.nodeFlags = growU8(this.nodeFlags, cap);
      this.nodeNameOff = growU32(this.nodeNameOff, cap);
      this.nodeNameLen = growU16(this.nodeNameLen, cap);
      this.nodeHash = growU32(this.nodeHash, cap);
    }
    this.nodeFirstSet[n] = -1;
    this.nodeFlags[n] = 0;
    if (this.nameUsed + len > this.nameBlock.length) {
      this.nameBlock = new Uint8Array(BLOCK);
      this.nameBlocks.push(this.nameBlock);
      this.nameUsed = 0;
    }
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

  /** The RRset of `type` at name n, or -1. */
  findSet(n: number, type: number): number {
    let s = this.nodeFirstSet[n]!;
    while (s >= 0 && this.setType[s] !== type) s = this.setNext[s]!;
    return s;
  }

  private growRecords(): void {
    const cap = this.recNode.length * 2;
    this.recNode = growI32(this.recNode, cap);
    this.recType = growU16(this.recType, cap);
    this.recTtl = growU32(this.recTtl, cap);
    this.recOff = growU32(this.recOff, cap);
    this.recLen = growU16(this.recLen, cap);
    this.recLine = growU32(this.recLine, cap);
    this.recNext = growI32(this.recNext, cap);
    this.recFlags = growU8(this.recFlags, cap);
    if (this.recFile) this.recFile = growU32(this.recFile, cap);
  }

  private growSets(): void {
    const cap = this.setNode.length * 2;
    this.setNode = growI32(this.setNode, cap);
    this.setType = growU16(this.setType, cap);
    this.setTtl = growU32(this.setTtl, cap);
    this.setFirst = growI32(this.setFirst, cap);
    this.setLast = growI32(this.setLast, cap);
    this.setSize = growU32(this.setSize, cap);
    this.setNext = growI32(this.setNext, cap);
    this.setFlags = growU8(this.setFlags, cap);
  }

  /** Copy `len` octets into the arena; returns the record offset. */
  private store(src: Uint8Array, len: number): number {
    if (len === 0) return 0;
    if (this.used + len > this.block.length) {
      this.block = new Uint8Array(BLOCK);
      this.blocks.push(this.block);
      this.used = 0;
    }
    const start = this.used;
    for (let k = 0; k < len; k++) this.block[start + k] = src[k]!;
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

  private position(r: number): ZoneDiagnostic['position'] {
    return { file: this.fileOf(r), line: this.recLine[r]!, column: 1 };
  }

  /** `{ position }` of record r, or nothing for a record without a source. */
  at(r: number): { position?: ZoneDiagnostic['position'] } {
    if (r < 0 || this.recLine[r] === 0) return {};
    return { position: this.position(r) };
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
  ): void {
    const n = owner === this.lastOwner ? this.lastNode : this.node(owner);
    this.lastOwner = owner;
    this.lastNode = n;
    if (this.recCount === this.recNode.length) this.growRecords();
    const r = this.recCount++;
    const fi = this.fileIndex(file);
    if (this.recFile) this.recFile[r] = fi;
    if (this.zoneClass === 0) this.zoneClass = cls;
    else if (cls !== this.zoneClass) (this.otherClass ??= new Map()).set(r, cls);
    this.recNode[r] = n;
    this.recType[r] = type;
    this.recTtl[r] = ttl;
    this.recLen[r] = len;
    this.recLine[r] = line;
    this.recNext[r] = -1;
    this.recFlags[r] = 0;

    let last = -1;
    let s = this.nodeFirstSet[n]!;
    while (s >= 0 && this.setType[s] !== type) {
      last = s;
      s = this.setNext[s]!;
    }
    if (s < 0) {
      if (this.setCount === this.setNode.length) this.growSets();
      s = this.setCount++;
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
      this.recOff[r] = this.store(rdata, len);
      return;
    }
    // Duplicates: RFC 2181 section 5: "it is meaningless for two RRs of an
    // RRset to have the same RDATA"; the copy is dropped.
    let dupOf = -1;
    const size = this.setSize[s]!;
    if (size < BIG_SET) {
      for (let q = this.setFirst[s]!; q >= 0; q = this.recNext[q]!)
        if (this.sameAs(q, rdata, len)) {
          dupOf = q;
          break;
        }
    } else {
      let seen = this.bigSets.get(s);
      if (seen === undefined) {
        seen = new Set();
        for (let q = this.setFirst[s]!; q >= 0; q = this.recNext[q]!)
          seen.add(bytesKey(this.rdata(q), this.recLen[q]!));
        this.bigSets.set(s, seen);
      }
      const k = bytesKey(rdata, len);
      if (seen.has(k)) {
        for (let q = this.setFirst[s]!; q >= 0; q = this.recNext[q]!)
          if (this.sameAs(q, rdata, len)) {
            dupOf = q;
            break;
          }
      } else seen.add(k);
    }
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
    // RRSIGs at one owner cover different types: each covered type is its own
    // RRset for TTL purposes (RFC 4034 section 3: "the RRSIG RR's TTL is equal
    // to the TTL of the RRset"), so differing TTLs among them are no fault.
    if (ttl !== this.setTtl[s] && type === TYPE_RRSIG) {
      if (ttl < this.setTtl[s]!) this.setTtl[s] = ttl;
    } else if (ttl !== this.setTtl[s]) {
      // RFC 2181 section 5.2: "the TTLs of all RRs in an RRSet must be the same";
      // a client treats differing TTLs as the smallest; so does this server.
      if (!(this.setFlags[s]! & SET_MIXED_REPORTED)) {
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
    this.recOff[r] = this.store(rdata, len);
    this.recNext[this.setLast[s]!] = r;
    this.setLast[s] = r;
    this.setSize[s] = size + 1;
  }

  /**
   * Diagnostics raised while records arrived (duplicates, mixed TTLs), except
   * those of out-of-zone records, merged in record order with `more` (which
   * must be in record order too).
   */
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
    this.bigSets.clear();
    return out;
  }
}

function bytesKey(a: Uint8Array, len: number): string {
  let s = '';
  for (let i = 0; i < len; i++) s += String.fromCharCode(a[i]!);
  return s;
}
