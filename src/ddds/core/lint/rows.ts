/** The records the NAPTR lint reads, by row: a list of records, or a loaded zone store's columns. */
import type { ResourceRecord, SourcePosition } from '../../../dns/core/zone/model.ts';
import { REC_OUT_OF_ZONE, type ZoneStore } from '../../../dns/core/zone/store.ts';
import { TYPE_NAPTR } from '../../../dns/core/rr/types.ts';
import { fnv1aText } from '../../../kit/core/hash.ts';

export interface NaptrRows {
  readonly count: number;
  /** Whether row k is a NAPTR record the lint reads (the others are passed over). */
  isNaptr(k: number): boolean;
  /** A number (>= 0, below about `count`) shared by the rows of one owner and only by them. */
  ownerKey(k: number): number;
  ownerName(k: number): string;
  /** The octets holding row k's RDATA, which starts at `rdataStart(k)`. */
  rdataBlock(k: number): Uint8Array;
  rdataStart(k: number): number;
  rdataLength(k: number): number;
  source(k: number): SourcePosition | undefined;
}

/** Rows over a list of records. */
export function recordRows(records: readonly ResourceRecord[]): NaptrRows {
  const owners = new OwnerTable();
  let lastName: string | undefined;
  let lastKey = -1;
  // A record's `rdata` may be a getter that makes a view: read once per row.
  let rdataRow = -1;
  let rdata: Uint8Array = new Uint8Array(0);
  const rdataOf = (k: number): Uint8Array => {
    if (k !== rdataRow) {
      rdata = records[k]!.rdata;
      rdataRow = k;
    }
    return rdata;
  };
  return {
    count: records.length,
    isNaptr: (k) => records[k]!.type === TYPE_NAPTR,
    ownerKey(k) {
      const name = records[k]!.owner;
      if (name !== lastName) {
        lastName = name;
        lastKey = owners.index(name);
      }
      return lastKey;
    },
    ownerName: (k) => records[k]!.owner,
    rdataBlock: rdataOf,
    rdataStart: () => 0,
    rdataLength: (k) => rdataOf(k).length,
    source: (k) => records[k]!.source,
  };
}

/** Rows over a zone store's records in file order (out-of-zone records passed over, as `recordViews`). */
export function storeRows(store: ZoneStore): NaptrRows {
  return {
    count: store.recordCount,
    isNaptr: (k) =>
      store.recordType(k) === TYPE_NAPTR && (store.recordFlags(k) & REC_OUT_OF_ZONE) === 0,
    ownerKey: (k) => store.recordNode(k),
    ownerName: (k) => store.name(store.recordNode(k)),
    rdataBlock: (k) => store.rdataBlock(k),
    rdataStart: (k) => store.rdataStart(k),
    rdataLength: (k) => store.rdataLength(k),
    source: (k) => store.source(k),
  };
}

/** Owner names -> index in order of first appearance: open addressing over typed arrays. */
class OwnerTable {
  private ids = new Int32Array(16).fill(-1);
  private hashes = new Int32Array(16);
  private readonly names: string[] = [];

  index(name: string): number {
    const h = fnv1aText(name);
    const mask = this.ids.length - 1;
    let i = h & mask;
    for (;;) {
      const id = this.ids[i]!;
      if (id < 0) break;
      if (this.hashes[i] === h && this.names[id] === name) return id;
      i = (i + 1) & mask;
    }
    const id = this.names.length;
    this.ids[i] = id;
    this.hashes[i] = h;
    this.names.push(name);
    if (2 * this.names.length > this.ids.length) this.grow();
    return id;
  }

  private grow(): void {
    const size = 2 * this.ids.length;
    const ids = new Int32Array(size).fill(-1);
    const hashes = new Int32Array(size);
    const mask = size - 1;
    for (let k = 0; k < this.ids.length; k++) {
      const id = this.ids[k]!;
      if (id < 0) continue;
      let j = this.hashes[k]! & mask;
      while (ids[j]! >= 0) j = (j + 1) & mask;
      ids[j] = id;
      hashes[j] = this.hashes[k]!;
    }
    this.ids = ids;
    this.hashes = hashes;
  }
}
