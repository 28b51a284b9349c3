/**
 * The zone model, between the parser that builds it and its users. A Zone is
 * an immutable snapshot; a reload builds a new one. Names are absolute,
 * lowercased presentation names (`\DDD` escapes that are not LDH stay
 * escaped, so one name has one spelling). RDATA is uncompressed wire bytes
 * (RFC 3597), copied into answers as it is.
 */
import type { Diagnostic } from '../../../kit/core/diagnostics.ts';
import type { ZoneDiagnosticCode } from './codes.ts';
import { TYPE_RRSIG } from '../rr/types.ts';

/** Where a record or diagnostic came from in the master file (1-based line and column). */
export interface SourcePosition {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * A loaded zone's records are views made on access (`views.ts`) whose
 * `rdata` and `source` are accessors: copy a record field by field, not with
 * object spread, and do not rely on a view's identity. Plain objects work too.
 */
export interface ResourceRecord {
  readonly owner: string;
  readonly type: number;
  readonly class: number;
  readonly ttl: number;
  readonly rdata: Uint8Array;
  readonly source?: SourcePosition;
}

/**
 * The TTL of a record of `set` in zone data (AXFR, IXFR, `zone print`): the
 * RRset's, but an RRSIG its own: the RRSIGs of one owner are one RRset with
 * the smallest TTL, yet each must carry the TTL of the RRset it covers
 * (RFC 4034 section 3).
 */
export function zoneDataTtl(set: RRset, rr: ResourceRecord): number {
  return set.type === TYPE_RRSIG ? rr.ttl : set.ttl;
}

/** All records of one owner and type. RFC 2181 section 5.2: one TTL per RRset (the smallest). */
export interface RRset {
  readonly owner: string;
  readonly type: number;
  readonly ttl: number;
  /** In file order, duplicates removed. */
  readonly records: readonly ResourceRecord[];
}

/** One name in the zone tree. Empty non-terminals exist as nodes with no RRsets. */
export interface ZoneNode {
  readonly name: string;
  readonly rrsets: ReadonlyMap<number, RRset>;
  /** True for a name that owns no data but has descendants (RFC 4592 / RFC 8020 ENT). */
  readonly emptyNonTerminal: boolean;
  /** True when this node is below the apex and owns NS: a zone cut (delegation point). */
  readonly isDelegation: boolean;
  /** True for names at or below a zone cut (only glue and the cut's NS live there). */
  readonly belowCut: boolean;
}

/** A zone diagnostic: a core Diagnostic with its source position. */
export interface ZoneDiagnostic extends Diagnostic {
  /** A zone code (ZONE_CODES) or, for the NAPTR lint's findings, a lint code. */
  readonly code: ZoneDiagnosticCode;
  readonly position?: SourcePosition;
  /** The offending token, as written. */
  readonly token?: string;
}

export interface Zone {
  readonly origin: string;
  readonly class: number;
  readonly soa: RRset;
  /** Every node (apex, owners, empty non-terminals), keyed by lowercased absolute name. */
  readonly nodes: ReadonlyMap<string, ZoneNode>;
  /** Node names in DNSSEC canonical order (RFC 4034 section 6.1); a loaded zone makes the strings on first access. */
  readonly names: readonly string[];
  /** Names of zone cuts below the apex (owners of NS that are not the apex). */
  readonly cuts: readonly string[];
  readonly size: number;
}
