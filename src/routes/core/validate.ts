/**
 * Checks of a routing table as a whole: routes that overlap in a way the
 * table's order makes useless, examples that another route would take, and
 * delegations back to the zone itself.
 */
import type { Route, RoutingTable, TableDiagnostic } from './model.ts';
import type { TableCode } from './codes.ts';
import { covers, prefixMatchSet, prefixUrn, type MatchSet } from './prefix.ts';

/** Does the rule whose match set is `set` take this URN (canonical form)? */
export function matchesUrn(set: MatchSet, urn: string): boolean {
  const u = urn.toLowerCase();
  const l = set.literal.toLowerCase();
  if (!u.startsWith(l)) return false;
  if (set.boundary === undefined) return true;
  return u.length > l.length && set.boundary.includes(u[l.length]!);
}

/**
 * TABLE_ROUTE_DUPLICATE, TABLE_ROUTE_SHADOWED, TABLE_EXAMPLE_ELSEWHERE,
 * TABLE_ROUTE_LOOP, TABLE_CUT_NO_NS (warning) and TABLE_CUT_OUTSIDE.
 */
export function validateRoutes(
  table: RoutingTable,
  canonical: (urn: string) => string,
): TableDiagnostic[] {
  const out: TableDiagnostic[] = [];
  const report = (
    code: TableCode,
    message: string,
    route: Route,
    severity: TableDiagnostic['severity'] = 'error',
  ) => out.push({ code, message, severity, position: route.position ?? { line: 1, column: 1 } });
  const sets = table.routes.map((r) => prefixMatchSet(r.prefix!));
  for (let j = 0; j < sets.length; j++) {
    for (let i = 0; i < j; i++) {
      if (!covers(sets[i]!, sets[j]!)) continue;
      const same = sets[i]!.literal === sets[j]!.literal;
      const at = table.routes[i]!.position;
      report(
        same ? 'TABLE_ROUTE_DUPLICATE' : 'TABLE_ROUTE_SHADOWED',
        same
          ? `route ${j + 1} repeats the prefix ${prefixUrn(table.routes[j]!.prefix!)} of route ${i + 1}${at ? ` (line ${at.line})` : ''}`
          : `route ${j + 1} (${prefixUrn(table.routes[j]!.prefix!)}) is never used: route ${i + 1} (${prefixUrn(table.routes[i]!.prefix!)}${at ? `, line ${at.line}` : ''}) comes first and takes every URN it takes; list the more specific prefix first`,
        table.routes[j]!,
      );
      break;
    }
  }
  const all = table.default ? [...table.routes, table.default] : table.routes;
  all.forEach((route, k) => {
    const urn = canonical(route.example);
    const taker = sets.findIndex((s) => matchesUrn(s, urn));
    const own = k < sets.length ? k : -1;
    if (taker !== own)
      report(
        'TABLE_EXAMPLE_ELSEWHERE',
        `example ${urn} ${taker < 0 ? 'is not taken by this route' : `is taken by route ${taker + 1} (${prefixUrn(table.routes[taker]!.prefix!)})`}${own >= 0 ? `, not by route ${own + 1}` : ', not by the default'}`,
        route,
      );
    const t = route.target;
    if (t.kind !== 'zone') return;
    const below = isBelowZone(t.name, table.zone);
    if (t.ns !== undefined && !below)
      report(
        'TABLE_CUT_OUTSIDE',
        `ns is written at a zone cut below ${table.zone}, and ${t.name} is not below it: its NS belong in its own parent zone`,
        route,
      );
    if (t.ns === undefined && below)
      report(
        'TABLE_CUT_NO_NS',
        `the route delegates to ${t.name}, below ${table.zone}, without ns: no zone cut is written, so a secondary holding only ${table.zone} answers NXDOMAIN for it (add ns: [{ name: ..., address: ... }] to the route)`,
        route,
        'warning',
      );
    if (t.name === table.owner)
      report(
        'TABLE_ROUTE_LOOP',
        `the route delegates to ${t.name}, the owner of these rules: the client would ask the same rules again (DDDS_LOOP)`,
        route,
      );
  });
  return out;
}

/** Is `name` strictly below `zone` (both absolute, lowercased)? */
export function isBelowZone(name: string, zone: string): boolean {
  return name !== zone && (zone === '.' || name.endsWith(`.${zone}`));
}
