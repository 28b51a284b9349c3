/**
 * A routing table: a zone's ordered routes (prefix -> target) and a default
 * (or explicitly none). `build.ts` writes its NAPTR records, `explain.ts`
 * reads it back.
 */
import type { LexPrefix } from './prefix.ts';
import type { TableCode } from './codes.ts';
import type { SoaData } from '../../dns/core/rr/record.ts';

/** 1-based line and column in the table file. */
export interface TablePosition {
  readonly line: number;
  readonly column: number;
}

export interface SrvTarget {
  readonly priority: number;
  readonly weight: number;
  readonly port: number;
  /** Absolute host name. */
  readonly target: string;
  /** Addresses (A/AAAA) written for the target when it lies inside the zone. */
  readonly addresses: readonly string[];
}

/**
 * Where a route goes: `zone` (a delegation, with `ns`/`ds` a cut below the
 * table's zone), `U` (a URL template with `{urn}`, `{service}`), `S` (an SRV
 * owner), `A` (a THTTP host), `P` (a hand-off).
 */
export type RouteTarget =
  | {
      readonly kind: 'zone';
      readonly name: string;
      /** The child zone's name servers, written as NS (and glue) at the cut when it lies below the table's zone. */
      readonly ns?: readonly NameServer[];
      /** The child's DS RDATA (zone-file text), written at the cut beside the NS. */
      readonly ds?: readonly string[];
    }
  | (Offer & { readonly kind: 'U'; readonly template: string })
  | (Offer & { readonly kind: 'S'; readonly name: string; readonly srv: readonly SrvTarget[] })
  | (Offer & { readonly kind: 'A'; readonly name: string; readonly addresses: readonly string[] })
  | (Offer & { readonly kind: 'P'; readonly output: string });

/** What a terminal route offers: its resolution services and protocol. */
interface Offer {
  readonly services: readonly string[];
  readonly protocol: string;
}

export interface Route {
  /** undefined for the default route (matches every URN). */
  readonly prefix: LexPrefix | undefined;
  readonly target: RouteTarget;
  /** A URN this route must take (its `; expect` line). */
  readonly example: string;
  readonly comment?: string;
  readonly position?: TablePosition;
}

/** The SOA of a routing table's zone: the record model's (`core/rr/record.ts`). */
export type Soa = SoaData;

export interface NameServer {
  readonly name: string;
  readonly addresses: readonly string[];
}

export interface RoutingTable {
  /** Absolute zone apex, lowercased. */
  readonly zone: string;
  readonly ttl: number;
  readonly soa: Soa;
  readonly ns: readonly NameServer[];
  /** Owner of the NAPTR rules (absolute); the apex unless the table says otherwise. */
  readonly owner: string;
  readonly routes: readonly Route[];
  /** The catch-all route, or null for "no route" (every other URN fails). */
  readonly default: Route | null;
  /** Comment lines written at the top of the zone file. */
  readonly comment?: string;
  /** Spread sibling routes over index owners (`route-index.ts`). */
  readonly index?: boolean;
  /** Where the table says `index`. */
  readonly indexPosition?: TablePosition;
}

/** A table problem, with the table's line and column. */
export interface TableDiagnostic {
  readonly code: TableCode;
  readonly message: string;
  readonly severity: 'error' | 'warning';
  readonly position: TablePosition;
}

/** ORDER of the i-th route (0-based) and of the default, from the table's order. */
export function routeOrder(index: number): number {
  return 100 + 10 * index;
}

export function defaultOrder(routeCount: number): number {
  if (routeCount === 0) return routeOrder(0);
  return Math.max(200, Math.ceil((100 + 10 * routeCount) / 100) * 100);
}

/** The resolution services of RFC 2483 (N2x for URNs, I2x generic, L2x for URLs). */
export const KNOWN_SERVICES: readonly string[] = [
  'N2L',
  'N2Ls',
  'N2R',
  'N2Rs',
  'N2C',
  'N2Ns',
  'I2L',
  'I2Ls',
  'I2R',
  'I2Rs',
  'I2C',
  'I2Ns',
  'L2R',
  'L2Ns',
  'L2Ls',
  'L2C',
];

/** Protocols a terminal S/A rule may name (the ones the client speaks). */
export const THTTP_PROTOCOLS: readonly string[] = ['thttp', 'http', 'https'];
