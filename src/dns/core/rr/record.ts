/**
 * The typed record model: one discriminated union of decoded resource
 * records, what the client's response decoder (`core/wire/response.ts`)
 * yields and what the DDDS core reads. `type` is the mnemonic of
 * `core/rr/types.ts` and tells the variant; `code` is the type code.
 *
 * - A, AAAA: `address`, the address as text (IPv6 with the first run of
 *   zero groups compressed).
 * - NS, CNAME, DNAME, PTR: `target`, the one domain name of the RDATA.
 * - MX, SRV, NAPTR, SOA: the fields of RFC 1035 section 3.3.9, RFC 2782,
 *   RFC 3403 section 4.1 and RFC 1035 section 3.3.13, named as there.
 * - TXT: `strings`, the character-strings as octets (RFC 1035 section
 *   3.3.14: TXT is not text of any encoding).
 * - OPT: the EDNS fields of RFC 6891 section 6.1.
 * - any other type (DS, DNSKEY, RRSIG, NSEC and the rest): the opaque
 *   variant, `type: 'unknown'`, with the type's mnemonic in `typeName` and
 *   the RDATA octets in `rdata` (RFC 3597: names in the RDATA of the types
 *   that may be compressed are expanded).
 *
 * Names are written as the message spells them: labels joined by `.`, no
 * escaping, case kept, no final dot, the root as `.` (SOA RNAME writes a `.`
 * inside its first label as `\.`). One exception, for the DDDS: NAPTR
 * REPLACEMENT, the next domain name to query (RFC 3403 section 4.1: "a
 * fully qualified domain-name"), is written with its final dot, and the root
 * (no replacement) as `.`. So a NAPTR record of this model is a DDDS
 * `NaptrRecord` as it is, and an SRV record an `SrvRecord`: the client hands
 * the records of a lookup to the DDDS walk without converting them.
 *
 * Pure: the decoder that fills them is `core/wire/response.ts` (over
 * `core/rr/naptr.ts` for NAPTR); here are the types and two readers.
 */

/** Fields every record has. */
export interface RecordHead {
  /** The owner name. */
  readonly name: string;
  /** The type code (`code` of `core/rr/types.ts`'s table). */
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
