/**
 * The records of a zone in transfer order (RFC 5936 section 2.2: SOA, all
 * other records, SOA), through a cursor that fills one reused object.
 */
import { zoneDataTtl, type Zone } from '../../dns/core/zone/model.ts';
import { NODE_OUT_OF_ZONE, type ZoneStore } from '../../dns/core/zone/store.ts';
import { StoreZone } from '../../dns/core/zone/views.ts';
import { nameKey } from '../../dns/core/wire/name.ts';

import { TYPE_SOA } from '../../dns/core/rr/types.ts';

export { TYPE_SOA };

/** One record for the wire: owner key (lowercased wire name), type, TTL, RDATA octets. */
export interface XfrRecord {
  key: string;
  type: number;
  ttl: number;
  /** RDATA is `block[start, start + len)`. */
  block: Uint8Array;
  start: number;
  len: number;
}

export function newXfrRecord(): XfrRecord {
  return { key: '', type: 0, ttl: 0, block: new Uint8Array(0), start: 0, len: 0 };
}

/** A source of records: `next(out)` fills `out` and returns true, or returns false at the end. */
export interface RecordCursor {
  next(out: XfrRecord): boolean;
}

/** Records of a plain array (for differences and tests). */
export interface PlainRecord {
  readonly key: string;
  readonly type: number;
  readonly ttl: number;
  readonly rdata: Uint8Array;
}

export function arrayCursor(records: readonly PlainRecord[]): RecordCursor {
  let i = 0;
  return {
    next(out) {
      const r = records[i++];
      if (r === undefined) return false;
      out.key = r.key;
      out.type = r.type;
      out.ttl = r.ttl;
      out.block = r.rdata;
      out.start = 0;
      out.len = r.rdata.length;
      return true;
    },
  };
}

export function soaRecord(zone: Zone): PlainRecord {
  const rr = zone.soa.records[0]!;
  return { key: nameKey(zone.origin), type: TYPE_SOA, ttl: zone.soa.ttl, rdata: rr.rdata };
}

const KEY_SCRATCH = new Uint16Array(256);

/** `nameKey` of a canonical name without its intermediate arrays (one per name of a zone sent). */
export function canonicalNameKey(name: string): string {
  if (name === '.' || name.length > 254 || name.includes('\\')) return nameKey(name);
  const k = KEY_SCRATCH;
  let out = 1;
  let lenAt = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x2e) {
      k[lenAt] = out - lenAt - 1;
      lenAt = out++;
    } else k[out++] = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
  }
  k[lenAt] = 0;
  return String.fromCharCode.apply(null, k.subarray(0, out) as unknown as number[]);
}

/** Every record but the apex SOA, straight from the store's columns. */
function storeCursor(zone: StoreZone): RecordCursor {
  const st: ZoneStore = zone.store;
  const apex = st.findName(zone.origin);
  let n = -1;
  let s = -1;
  let r = -1;
  let key = '';
  return {
    next(out) {
      for (;;) {
        if (r >= 0) {
          out.key = key;
          out.type = st.rrsetType(s);
          out.ttl = st.dataTtl(s, r);
          out.block = st.rdataBlock(r);
          out.start = st.rdataStart(r);
          out.len = st.rdataLength(r);
          r = st.nextRecord(r);
          return true;
        }
        s = s >= 0 ? st.nextRRset(s) : -1;
        while (s < 0) {
          if (++n >= st.nameCount) return false;
          if (st.nameFlags(n) & NODE_OUT_OF_ZONE) continue;
          s = st.firstRRset(n);
          if (s >= 0) key = canonicalNameKey(st.name(n));
        }
        if (n === apex && st.rrsetType(s) === TYPE_SOA) continue;
        r = st.firstRecord(s);
      }
    },
  };
}

/** Every record but the apex SOA, through the model's interfaces. */
function modelCursor(zone: Zone): RecordCursor {
  const list: PlainRecord[] = [];
  for (const name of zone.names) {
    const node = zone.nodes.get(name)!;
    const key = nameKey(name);
    for (const set of node.rrsets.values()) {
      if (name === zone.origin && set.type === TYPE_SOA) continue;
      for (const rr of set.records)
        list.push({ key, type: set.type, ttl: zoneDataTtl(set, rr), rdata: rr.rdata });
    }
  }
  return arrayCursor(list);
}

/** The zone's records without the apex SOA. */
export function zoneBodyCursor(zone: Zone): RecordCursor {
  return zone instanceof StoreZone ? storeCursor(zone) : modelCursor(zone);
}

export function chainCursors(cursors: readonly RecordCursor[]): RecordCursor {
  let i = 0;
  return {
    next(out) {
      while (i < cursors.length) {
        if (cursors[i]!.next(out)) return true;
        i++;
      }
      return false;
    },
  };
}

/** The zone's records without the apex SOA, RDATA copied. */
export function zoneBodyRecords(zone: Zone): PlainRecord[] {
  const out: PlainRecord[] = [];
  const cur = zoneBodyCursor(zone);
  const r = newXfrRecord();
  while (cur.next(r))
    out.push({
      key: r.key,
      type: r.type,
      ttl: r.ttl,
      rdata: r.block.slice(r.start, r.start + r.len),
    });
  return out;
}

/** RFC 5936 section 2.2: SOA, the rest of the zone, SOA. */
export function axfrCursor(zone: Zone): RecordCursor {
  const soa = soaRecord(zone);
  return chainCursors([arrayCursor([soa]), zoneBodyCursor(zone), arrayCursor([soa])]);
}
