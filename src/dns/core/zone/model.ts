/**
 * The zone model: the contract between the zone-file parser (which builds it)
 * and its users (the server's lookup and answer builder, `zone check`,
 * `zone print`). A Zone is an immutable snapshot; reload builds a new one and
 * swaps it atomically.
 *
 * Conventions:
 * - Names are absolute, in presentation form with a trailing dot, lowercased
 *   (`br.lex-nameserver.nic.it.`); the root is `.`. Non-ASCII is never seen:
 *   zone files carry A-labels, and `\DDD` escapes that are not LDH stay escaped
 *   in presentation (`a\046b.example.`), so one name has one spelling.
 * - RDATA is held as uncompressed wire bytes (RFC 3597 / RFC 3403 section 4.1:
 *   NAPTR REPLACEMENT is never compressed), so the server can copy it into
 *   answers as it is, and any type (known or `TYPEnnn`) is handled the same way.
 *   Structured views of known types come from `decodeRdata` in the parser module.
 */
import type { Diagnostic } from '../../../kit/core/diagnostics.ts';
import type { ZoneDiagnosticCode } from './codes.ts';
import { TYPE_RRSIG } from '../rr/types.ts';

/** DNS CLASS IN. Other classes are parsed but only IN zones are served. */
export const CLASS_IN = 1;

/** Where a record or diagnostic came from in the master file (1-based line and column). */
export interface SourcePosition {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * A zone built by the loader keeps its records in columns (`store.ts`);
 * records, RRsets and nodes handed out are views made on access
 * (`views.ts`), whose `rdata` and `source` are accessors: copy a record
 * field by field, not with object spread, and do not rely on the identity of
 * a view (two `get`s give two equal objects). Plain objects that follow these
 * interfaces work everywhere too (tests build zones from them).
 */
export interface ResourceRecord {
  /** Absolute lowercased owner name with trailing dot. */
  readonly owner: string;
  /** RR type code (1 = A, 35 = NAPTR, ...). */
  readonly type: number;
  readonly class: number;
  readonly ttl: number;
  /** Uncompressed wire-format RDATA. */
  readonly rdata: Uint8Array;
  readonly source?: SourcePosition;
}

/**
 * The TTL a record of `set` carries when the zone leaves as zone data (AXFR,
 * IXFR, the secondary's copy, `zone print`): its RRset's, but an RRSIG its
 * own. The RRSIGs of one owner are kept as one RRset whose TTL is the
 * smallest among them, yet each covers another RRset and takes that RRset's
 * TTL.
 * @see RFC 2181 section 5.2: "the TTLs of all RRs in an RRSet must be the same".
 * @see RFC 4034 section 3: "The TTL value of an RRSIG RR MUST match the TTL
 * value of the RRset it covers."
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
  /** Apex name, absolute, lowercased, trailing dot. */
  readonly origin: string;
  readonly class: number;
  readonly soa: RRset;
  /** Every node (apex, owners, empty non-terminals), keyed by lowercased absolute name. */
  readonly nodes: ReadonlyMap<string, ZoneNode>;
  /** Node names in DNSSEC canonical order (RFC 4034 section 6.1); a loaded zone makes the strings on first access. */
  readonly names: readonly string[];
  /** Names of zone cuts below the apex (owners of NS that are not the apex). */
  readonly cuts: readonly string[];
  /** Total number of records. */
  readonly size: number;
}
