/**
 * `lexroute zone build`: a routing table -> the zone file that implements it
 * (the same table, the same bytes).
 * - ORDER follows the table (100, 110, ...; the default a round hundred
 *   above): a match locks its ORDER (RFC 3403 section 4.1), so a more
 *   specific route listed first locks out the catch-all. PREFERENCE ranks
 *   one route's records (one per service).
 * - A prefix REGEXP is anchored, escaped, closed by a `[;:]`-like bracket,
 *   flag `i`; no bracket ends in `-` (BIND refuses `[0-9-]`) or starts `[:`.
 * - Each route gets a `; expect` line for its example URN.
 */
import { absoluteLowerName } from '../../kit/core/names.ts';
import { formatSubstitution, type ReplPart } from '../../ddds/core/subst.ts';
import { quoteEre } from '../../ddds/core/ere.ts';
import {
  defaultOrder,
  routeOrder,
  type Route,
  type RouteTarget,
  type RoutingTable,
  type TableDiagnostic,
  type TablePosition,
} from './model.ts';
import { BOUNDARY, prefixUrn, type LexPrefix } from './prefix.ts';
import { isBelowZone } from './validate.ts';
import type { TableCode } from './codes.ts';
import { fail, ok, type Failure, type Result } from '../../kit/core/result.ts';
import type { NaptrData } from '../../dns/core/rr/record.ts';
import {
  indexOwner,
  INDEX_BUDGET,
  INDEX_LABEL,
  type IndexChecks,
  MESSAGE_BUDGET,
  naptrAnswerSize,
  planIndex,
  siblingParent,
  type IndexNode,
} from './route-index.ts';

/** One NAPTR record as fields (wire values); `replacement` `.` when the REGEXP gives the output. */
export type BuiltNaptr = NaptrData;

export interface BuildResult {
  readonly text: string;
  readonly diagnostics: readonly TableDiagnostic[];
}

const DELIMITERS = ['!', '#', '@', ',', '=', '&', '_'];

const absolute = absoluteLowerName;

function bare(name: string): string {
  const n = name.toLowerCase();
  return n.endsWith('.') ? n.slice(0, -1) : n;
}

/** The ERE of a route: `^urn:lex:<quoted prefix>[<boundary>].*$`, grouped when the output copies the AUS. */
export function routeEre(prefix: LexPrefix | undefined, group: boolean): string {
  if (prefix === undefined) return group ? '^(.*)$' : '^.*$';
  const body = `${quoteEre(prefixUrn(prefix))}[${BOUNDARY[prefix.level]}].*`;
  return group ? `^(${body})$` : `^${body}$`;
}

/** A template with `{urn}` (back-reference 1) and `{service}` as replacement parts. */
function templateParts(template: string, service: string): ReplPart[] {
  const parts: ReplPart[] = [];
  const pieces = template.replaceAll('{service}', service).split('{urn}');
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0) parts.push({ kind: 'backref', group: 1, span: { start: 0, end: 0 } });
    if (pieces[i] !== '') parts.push({ kind: 'text', text: pieces[i]! });
  }
  return parts;
}

/** The REGEXP field for an ERE and replacement parts: the first delimiter neither uses. */
function substitution(
  ere: string,
  repl: readonly ReplPart[],
  caseInsensitive: boolean,
): Result<string, Failure<'TABLE_UNREPRESENTABLE'>> {
  const text = repl.map((p) => (p.kind === 'text' ? p.text : '')).join('');
  for (const d of DELIMITERS) {
    if (ere.includes(d) || text.includes(d)) continue;
    const f = formatSubstitution({ delimiter: d, ere, repl, caseInsensitive });
    if (f.ok) return f;
    return fail('TABLE_UNREPRESENTABLE', `${f.error.code} ${f.error.message}`);
  }
  return fail(
    'TABLE_UNREPRESENTABLE',
    `every delimiter (${DELIMITERS.join(' ')}) occurs in the output`,
  );
}

function servicesField(protocol: string, services: readonly string[]): string {
  return [protocol, ...services].join('+');
}

/**
 * The NAPTR records of one route at `order`: the output in the REGEXP, or in
 * REPLACEMENT for a default delegation, S or A route (matching every AUS).
 */
export function routeRecords(
  route: Route,
  order: number,
): Result<BuiltNaptr[], Failure<'TABLE_UNREPRESENTABLE'>> {
  const t = route.target;
  const records: BuiltNaptr[] = [];
  const add = (
    preference: number,
    flags: string,
    services: string,
    out: ReplPart[] | string,
  ): string | undefined => {
    if (typeof out === 'string' && route.prefix === undefined) {
      records.push({ order, preference, flags, services, regexp: '', replacement: absolute(out) });
      return undefined;
    }
    const repl: ReplPart[] = typeof out === 'string' ? [{ kind: 'text', text: out }] : out;
    const grouped = repl.some((p) => p.kind === 'backref');
    const s = substitution(routeEre(route.prefix, grouped), repl, route.prefix !== undefined);
    if (!s.ok) return s.error.message;
    records.push({ order, preference, flags, services, regexp: s.value, replacement: '.' });
    return undefined;
  };
  let problem: string | undefined;
  switch (t.kind) {
    case 'zone':
      problem = add(10, '', '', bare(t.name));
      break;
    case 'U':
      t.services.forEach((svc, i) => {
        problem ??= add(
          10 * (i + 1),
          'u',
          servicesField(t.protocol, [svc]),
          templateParts(t.template, svc),
        );
      });
      break;
    case 'S':
    case 'A':
      problem = add(10, t.kind.toLowerCase(), servicesField(t.protocol, t.services), bare(t.name));
      break;
    case 'P':
      problem = add(10, 'p', servicesField(t.protocol, t.services), templateParts(t.output, ''));
      break;
  }
  return problem === undefined ? ok(records) : fail('TABLE_UNREPRESENTABLE', problem);
}

/** A URN under the routes' common jurisdiction code that no route takes. */
export function unroutedExample(routes: readonly Route[]): string {
  const codes = new Set(routes.map((r) => r.prefix!.jurisdiction[0]));
  const code = codes.size === 1 ? [...codes][0]! : 'xx';
  for (const unit of ['', ';other', ';other.unit', ';zz']) {
    const urn = `urn:lex:${code}${unit}:authority:act:2000-01-01;1`;
    if (!routes.some((r) => urn.startsWith(`urn:lex:${r.prefix!.text}`))) return urn;
  }
  return 'urn:lex:xx:authority:act:2000-01-01;1';
}

/** The zone-file form of a <character-string>: quoted, `\` and `"` escaped, others as \DDD. */
export function quoteString(value: string): string {
  let out = '"';
  for (const b of new TextEncoder().encode(value)) {
    if (b === 0x5c || b === 0x22) out += `\\${String.fromCharCode(b)}`;
    else if (b < 0x20 || b >= 0x7f) out += `\\${String(b).padStart(3, '0')}`;
    else out += String.fromCharCode(b);
  }
  return `${out}"`;
}

function naptrLine(owner: string, r: BuiltNaptr): string {
  return `${owner} IN NAPTR ${r.order} ${r.preference} ${quoteString(r.flags)} ${quoteString(r.services)} ${quoteString(r.regexp)} ${r.replacement}`;
}

/** What the client's step gives for the route's example URN (the `; expect` result). */
export function expectedResult(route: Route, aus: string): string {
  const t = route.target;
  if (t.kind === 'zone') return absolute(t.name);
  // The step takes a rule that lists no service, or N2L (I2L).
  const n2l = t.services.find((x) => /^[in]2l$/i.test(x));
  if (t.services.length > 0 && n2l === undefined) return 'fail';
  if (t.kind === 'U')
    return `U ${t.template.replaceAll('{service}', n2l!).replaceAll('{urn}', aus)}`;
  if (t.kind === 'P') return `P ${t.output.replaceAll('{urn}', aus)}`;
  return `${t.kind} ${absolute(t.name)}`;
}

export function describeTarget(t: RouteTarget): string {
  switch (t.kind) {
    case 'zone':
      return `zone ${absolute(t.name)}`;
    case 'U':
      return `U ${t.template} (${t.services.join(' ')})`;
    case 'S':
    case 'A':
      return `${t.kind} ${absolute(t.name)} (${t.protocol} ${t.services.join(' ')})`;
    case 'P':
      return `P ${t.output} (${t.protocol} ${t.services.join(' ')})`;
  }
}

function ownerText(name: string, zone: string): string {
  return absolute(name) === absolute(zone) ? '@' : absolute(name);
}

function inZone(name: string, zone: string): boolean {
  const n = absolute(name);
  const z = absolute(zone);
  return n === z || n.endsWith(`.${z}`) || z === '.';
}

function addressLines(name: string, addresses: readonly string[], zone: string): string[] {
  if (!inZone(name, zone)) return [];
  return addresses.map((a) => `${ownerText(name, zone)} IN ${a.includes(':') ? 'AAAA' : 'A'} ${a}`);
}

/**
 * The records a target adds beside its rules: SRV and addresses of S and A
 * targets in the zone, and the cut of a delegation below the table's zone
 * (issue 30; RFC 1034 section 4.2.1): NS, DS when given, glue.
 */
function targetRecordLines(t: RouteTarget, zone: string): string[] {
  if (t.kind === 'A') return addressLines(t.name, t.addresses, zone);
  if (t.kind === 'S' && inZone(t.name, zone)) {
    const owner = ownerText(t.name, zone);
    return [
      ...t.srv.map(
        (s) => `${owner} IN SRV ${s.priority} ${s.weight} ${s.port} ${absolute(s.target)}`,
      ),
      ...t.srv.flatMap((s) => addressLines(s.target, s.addresses, zone)),
    ];
  }
  if (t.kind !== 'zone' || t.ns === undefined || !isBelowZone(absolute(t.name), zone)) return [];
  const child = absolute(t.name);
  return [
    ...t.ns.map((ns) => `${child} IN NS ${absolute(ns.name)}`),
    ...(t.ds ?? []).map((ds) => `${child} IN DS ${ds}`),
    ...t.ns.flatMap((ns) => addressLines(ns.name, ns.addresses, zone)),
  ];
}

function commentLines(text: string | undefined): string[] {
  if (text === undefined || text.trim() === '') return [];
  return text
    .replace(/\s+$/, '')
    .split('\n')
    .map((l) => (l.trim() === '' ? ';' : `; ${l.replace(/\s+$/, '')}`));
}

/** What the writers of one table's rules share: route labels, the AUS of an example, the findings. */
interface Build {
  readonly labels: ReadonlyMap<Route, string>;
  readonly canonical: (urn: string) => string;
  /** Adds an error at `position`. */
  readonly error: (code: TableCode, message: string, position?: TablePosition) => void;
}

/** One route's rules at an owner, as the zone file writes them. */
interface RuleEntry {
  readonly route: Route;
  readonly order: number;
  readonly label: string;
}

/** The lines of one route's rules at `owner` (a comment, the records, the `; expect` line) and its records. */
function routeLines(
  owner: string,
  e: RuleEntry,
  b: Build,
): { lines: string[]; records: BuiltNaptr[] } {
  const { route, order, label } = e;
  const built = routeRecords(route, order);
  if (!built.ok) {
    const message = `${label}: the rule cannot be written: ${built.error.message}`;
    b.error(built.error.code, message, route.position);
    return { lines: [], records: [] };
  }
  const lines = [`; ${label} -> ${describeTarget(route.target)}`, ...commentLines(route.comment)];
  for (const r of built.value) {
    for (const f of [r.flags, r.services, r.regexp])
      if (new TextEncoder().encode(f).length > 255)
        b.error(
          'TABLE_FIELD_TOO_LONG',
          `${label}: a NAPTR field is over 255 octets: ${f.slice(0, 40)}...`,
          route.position,
        );
    lines.push(naptrLine(owner, r));
  }
  const aus = b.canonical(route.example);
  lines.push(`; expect ${aus} -> ${expectedResult(route, aus)}`);
  return { lines, records: built.value };
}

/** The first route of an index node, depth first (its example pins the index rule). */
function firstRoute(node: IndexNode): Route {
  return node.routes[0] ?? firstRoute(node.children[0]!);
}

/**
 * The rules of a table with `index: true` (`route-index.ts`): at each owner
 * of the index, its own routes, one rule per group below, the default.
 */
function indexLines(table: RoutingTable, parent: string, b: Build): string[] {
  const z = absolute(table.zone);
  const top = absolute(table.owner);
  const dflt = table.default ? routeRecords(table.default, 0) : undefined;
  const withDefault = (records: BuiltNaptr[]) =>
    naptrAnswerSize(dflt?.ok ? [...records, ...dflt.value] : records) <= INDEX_BUDGET;
  const ereOf = (pattern: string) => `^${quoteEre(`urn:lex:${parent};`)}${pattern}.*$`;
  const indexRule = (pattern: string, order: number, to: string): BuiltNaptr => {
    const s = substitution(ereOf(pattern), [{ kind: 'text', text: bare(to) }], true);
    // Unit characters, quoted: always representable (an empty REGEXP would fail zone check).
    const regexp = s.ok ? s.value : '';
    return { order, preference: 10, flags: '', services: '', regexp, replacement: '.' };
  };
  // The longest label a child gets (d9- and 40 octets) stands for every child's.
  const longest = `d9-${'x'.repeat(40)}.${INDEX_LABEL}.${top}`;
  const checks: IndexChecks = {
    fits: (routes) =>
      withDefault(
        routes.flatMap((r, i) => {
          const b = routeRecords(r, routeOrder(i));
          return b.ok ? b.value : [];
        }),
      ),
    fitsRule: (pattern) => ereOf(pattern).length <= 200,
    fitsIndex: (patterns) =>
      withDefault(patterns.map((p, i) => indexRule(p, routeOrder(i), longest))),
  };
  const lines: string[] = [];
  const visit = (node: IndexNode, ownerName: string) => {
    const owner = ownerText(ownerName, z);
    let i = 0;
    for (const route of node.routes) {
      const e = { route, order: routeOrder(i++), label: b.labels.get(route)! };
      lines.push(...routeLines(owner, e, b).lines);
    }
    for (const child of node.children) {
      const to = absolute(indexOwner(child, top));
      const aus = b.canonical(firstRoute(child).example);
      const rule = indexRule(child.pattern, routeOrder(i++), to);
      lines.push(`; index -> ${to}`, naptrLine(owner, rule), `; expect ${aus} -> ${to}`);
    }
    if (table.default) {
      const e = { route: table.default, order: defaultOrder(i), label: 'default: any other URN' };
      lines.push(...routeLines(owner, e, b).lines);
    }
    for (const child of node.children) visit(child, indexOwner(child, top));
  };
  visit(planIndex(table.routes, checks, quoteEre), table.owner);
  return lines;
}

/** The rules of a table at its owner, one after the other, with a diagnostic when their answer is too big. */
function flatLines(table: RoutingTable, b: Build): string[] {
  const owner = ownerText(table.owner, absolute(table.zone));
  const all: RuleEntry[] = table.routes.map((r, i) => ({
    route: r,
    order: routeOrder(i),
    label: b.labels.get(r)!,
  }));
  if (table.default) {
    const order = defaultOrder(table.routes.length);
    all.push({ route: table.default, order, label: 'default: any other URN' });
  }
  const lines: string[] = [];
  const records: BuiltNaptr[] = [];
  for (const e of all) {
    const r = routeLines(owner, e, b);
    lines.push(...r.lines);
    records.push(...r.records);
  }
  const size = naptrAnswerSize(records);
  if (size > MESSAGE_BUDGET) {
    const hint =
      siblingParent(table.routes) === undefined
        ? ''
        : '; index: true spreads them over owners that each fit';
    b.error(
      'TABLE_RRSET_TOO_LARGE',
      `the ${records.length} rules at ${absolute(table.owner)} make a NAPTR answer of about ${size} octets, more than a DNS message holds (65,535): no lookup there can be answered${hint}`,
    );
  }
  if (!table.default) {
    lines.push('; default: none (any other URN fails here)');
    if (table.routes.length > 0) lines.push(`; expect ${unroutedExample(table.routes)} -> fail`);
  }
  return lines;
}

/** The zone file of a table; `canonical` turns an example URN into the client's AUS. */
export function buildZone(table: RoutingTable, canonical: (urn: string) => string): BuildResult {
  const diagnostics: TableDiagnostic[] = [];
  const z = absolute(table.zone);
  const s = table.soa;
  const lines: string[] = [
    ...commentLines(table.comment),
    '; Written by `lexroute zone build` from a routing table: edit the table and build again.',
    `$ORIGIN ${z}`,
    `$TTL ${table.ttl}`,
    `@ IN SOA ${absolute(s.mname)} ${absolute(s.rname)} ${s.serial} ${s.refresh} ${s.retry} ${s.expire} ${s.minimum}`,
  ];
  for (const ns of table.ns) lines.push(`@ IN NS ${absolute(ns.name)}`);
  for (const ns of table.ns) lines.push(...addressLines(ns.name, ns.addresses, z));
  const b: Build = {
    labels: new Map(table.routes.map((r, i) => [r, `route ${i + 1}: ${prefixUrn(r.prefix!)}`])),
    canonical,
    error: (code, message, position = { line: 1, column: 1 }) =>
      diagnostics.push({ code, message, severity: 'error', position }),
  };
  const parent = table.index ? siblingParent(table.routes) : undefined;
  if (table.index && parent === undefined)
    b.error(
      'TABLE_INDEX_NOT_SIBLINGS',
      'index: true needs routes that are all one level below one jurisdiction (br;minas.gerais;<city>...)',
      table.indexPosition,
    );
  lines.push(...(parent === undefined ? flatLines(table, b) : indexLines(table, parent, b)));
  const routes = table.default ? [...table.routes, table.default] : table.routes;
  // The targets' records, each line once.
  lines.push(...new Set(routes.flatMap((r) => targetRecordLines(r.target, z))));
  return { text: lines.join('\n') + '\n', diagnostics };
}
