/**
 * The typed record model the client's response decoder (`core/wire/response.ts`)
 * yields and the DDDS reads: a union discriminated by `type` (the mnemonic);
 * types not taken apart are `type: 'unknown'` with their RDATA octets (names
 * expanded, RFC 3597). Names are written as the message spells them: no
 * escaping, case kept, no final dot, the root as `.`; except NAPTR
 * REPLACEMENT, fully qualified with its final dot (RFC 3403 section 4.1), so
 * a NAPTR or SRV record here is the DDDS walk's record as it is.
 */

/** Fields every record has. */
export interface RecordHead {
  readonly name: string;
  readonly code: number;
  /** CLASS as on the wire (16 bits: in mDNS the top bit is the cache-flush flag). */
  readonly class: number;
  readonly ttl: number;
}

/** NAPTR RDATA (RFC 3403 section 4.1); also the DDDS step's `NaptrRecord`. */
export interface NaptrData {
  readonly order: number;
  readonly preference: number;
  readonly flags: string;
  readonly services: string;
  readonly regexp: string;
  /** A fully qualified domain name with its final dot; `.` (or ``) means "no replacement". */
  readonly replacement: string;
}

/** SRV RDATA (RFC 2782); also the DDDS `SrvRecord`. */
export interface SrvData {
  readonly priority: number;
  readonly weight: number;
  readonly port: number;
  /** The target host, without a final dot (`.` or `` : the service is not offered). */
  readonly target: string;
}

/** SOA RDATA (RFC 1035 section 3.3.13). */
export interface SoaData {
  readonly mname: string;
  readonly rname: string;
  readonly serial: number;
  readonly refresh: number;
  readonly retry: number;
  readonly expire: number;
  readonly minimum: number;
}

export interface ARecord extends RecordHead {
  readonly type: 'A';
  readonly address: string;
}
export interface AaaaRecord extends RecordHead {
  readonly type: 'AAAA';
  readonly address: string;
}
export interface NameRecord extends RecordHead {
  readonly type: 'NS' | 'CNAME' | 'DNAME' | 'PTR';
  readonly target: string;
}
export interface MxRecord extends RecordHead {
  readonly type: 'MX';
  readonly preference: number;
  readonly exchange: string;
}
export interface SrvRr extends RecordHead, SrvData {
  readonly type: 'SRV';
}
export interface NaptrRr extends RecordHead, NaptrData {
  readonly type: 'NAPTR';
}
export interface SoaRecord extends RecordHead, SoaData {
  readonly type: 'SOA';
}
export interface TxtRecord extends RecordHead {
  readonly type: 'TXT';
  readonly strings: readonly Uint8Array[];
}

/** One EDNS option (RFC 6891 section 6.1.2). */
export interface EdnsOption {
  readonly code: number;
  readonly value: Uint8Array;
}

/** The OPT pseudo-record (RFC 6891 section 6.1): CLASS and TTL carry EDNS fields. */
export interface OptRecord extends RecordHead {
  readonly type: 'OPT';
  readonly udpPayloadSize: number;
  readonly extendedRcode: number;
  readonly ednsVersion: number;
  /** The 16 flag bits of the TTL field; DO is the top one. */
  readonly flags: number;
  readonly dnssecOk: boolean;
  readonly options: readonly EdnsOption[];
}

/** A record of a type the model does not take apart: its RDATA's octets. */
export interface OpaqueRecord extends RecordHead {
  readonly type: 'unknown';
  /** The type's mnemonic (`RRSIG`, `DS`, ...) or `TYPEnnn` (RFC 3597 section 5). */
  readonly typeName: string;
  readonly rdata: Uint8Array;
}

/** A decoded resource record. */
export type DnsRecord =
  | ARecord
  | AaaaRecord
  | NameRecord
  | MxRecord
  | SrvRr
  | NaptrRr
  | SoaRecord
  | TxtRecord
  | OptRecord
  | OpaqueRecord;

/** The mnemonic of a record's type (`typeName` for the opaque variant). */
export function recordTypeName(r: DnsRecord): string {
  return r.type === 'unknown' ? r.typeName : r.type;
}

/** The records of `type` in `records`: the same array when they all are (a lookup's answer). */
export function recordsOfType<T extends DnsRecord['type']>(
  records: readonly DnsRecord[],
  type: T,
): readonly Extract<DnsRecord, { type: T }>[] {
  for (const r of records) {
    if (r.type !== type)
      return records.filter((x) => x.type === type) as Extract<DnsRecord, { type: T }>[];
  }
  return records as readonly Extract<DnsRecord, { type: T }>[];
}

/** A question (RFC 1035 section 4.1.2), type and class by mnemonic. */
export interface DnsQuestion {
  readonly name: string;
  readonly type: string;
  readonly class: string;
}
