/**
 * A route index: many sibling routes (one per municipality) spread over
 * owners inside the zone so no NAPTR answer outgrows 1,232 octets (RFC 6891
 * section 6.2.5; 853 routes at one owner would be about 85,000). With
 * `index: true` the routes are sorted by last unit and cut into runs, each at
 * `d<depth>-<first unit>.lex-route-index.<owner>`, reached by one rule
 * matching the starts that tell it from its neighbours; every owner ends with
 * the default. Runs are disjoint, so ORDER between them means nothing.
 */
import type { BuiltNaptr } from './build.ts';
import type { Route } from './model.ts';

/** NAPTR octets an owner may hold so that its answer fits in 1,232 (header, question, OPT and a margin aside). */
export const INDEX_BUDGET = 1100;

/** What a DNS message holds at most, less a header and question. */
export const MESSAGE_BUDGET = 65_000;

/** Wire size of NAPTR records in an answer (owner compressed to a pointer). */
export function naptrAnswerSize(records: readonly BuiltNaptr[]): number {
  const enc = new TextEncoder();
  let n = 0;
  for (const r of records) {
    const replacement = r.replacement === '.' ? 1 : enc.encode(r.replacement).length + 1;
    const strings = [r.flags, r.services, r.regexp].reduce(
      (s, f) => s + 1 + enc.encode(f).length,
      0,
    );
    n += 2 + 10 + 4 + strings + replacement;
  }
  return n;
}

/** The common parent (`br;minas.gerais`) of sibling jurisdiction routes; undefined if not siblings. */
export function siblingParent(routes: readonly Route[]): string | undefined {
  let parent: string | undefined;
  for (const r of routes) {
    const p = r.prefix;
    if (p === undefined || p.level !== 'jurisdiction' || p.jurisdiction.length < 2)
      return undefined;
    const up = p.jurisdiction.slice(0, -1).join(';');
    if (parent !== undefined && up !== parent) return undefined;
    parent = up;
  }
  return parent;
}

/** One owner of an index: the routes decided there, or the groups below it. */
export interface IndexNode {
  /** The node's label below `lex-route-index.<owner>` ('' at the table's owner). */
  readonly label: string;
  /** The ERE that what follows `<parent>;` matches, for the rule that leads here ('' at the top). */
  readonly pattern: string;
  readonly routes: readonly Route[];
  readonly children: readonly IndexNode[];
}

/** Groups an owner holds at most. */
export const FAN_OUT = 8;

/** The label under which an index lives, below the table's owner. */
export const INDEX_LABEL = 'lex-route-index';

/** The last unit of a sibling route: what follows `<parent>;`. */
const lastUnit = (r: Route): string => r.prefix!.jurisdiction.at(-1)!;

const lcp = (a: string, b: string | undefined): number => {
  if (b === undefined) return 0;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

/**
 * The starts that tell a run of sorted units from its neighbours: each
 * unit's shortest start neither neighbour shares (else the whole unit),
 * minus those a shorter one covers.
 */
export function distinguish(
  units: readonly string[],
  before: string | undefined,
  after: string | undefined,
): { starts: string[]; exact: string[] } {
  const starts: string[] = [];
  const exact: string[] = [];
  for (const u of units) {
    const n = 1 + Math.max(lcp(u, before), lcp(u, after));
    if (n > u.length) exact.push(u);
    else if (!starts.some((p) => u.startsWith(p))) starts.push(u.slice(0, n));
  }
  return { starts, exact };
}

/**
 * The ERE that follows `<parent>;` for a run: a unit that begins with one
 * of the starts, or is one of the exact units, then the end of the unit.
 * `(cab|cae)[^;:]*[;:]`, `((cab|cae)[^;:]*|sao)[;:]`.
 */
export function runPattern(
  d: { starts: readonly string[]; exact: readonly string[] },
  quote: (s: string) => string,
): string {
  const group = (xs: readonly string[]) => (xs.length === 1 ? xs[0]! : `(${xs.join('|')})`);
  const alts = [
    ...(d.starts.length > 0 ? [`${group(d.starts.map(quote))}[^;:]*`] : []),
    ...d.exact.map(quote),
  ];
  return `${group(alts)}[;:]`;
}

/** A label from a unit: letters and digits, every run of others one `-`, at most 40 octets. */
function unitLabel(unit: string): string {
  const l = unit
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return l === '' ? 'x' : l;
}

/** What the builder checks as the index is planned (sizes of answers and of REGEXP fields). */
export interface IndexChecks {
  /** Routes an owner may hold with the default. */
  readonly fits: (routes: readonly Route[]) => boolean;
  /** One index rule's pattern fits a REGEXP field. */
  readonly fitsRule: (pattern: string) => boolean;
  /** Index rules (one per pattern) an owner may hold with the default. */
  readonly fitsIndex: (patterns: readonly string[]) => boolean;
}

/**
 * Spread sorted sibling routes over index owners: a node holds its routes if
 * they fit, else cuts them into about equal runs (at most FAN_OUT, more only
 * where a pattern would not fit one REGEXP), one child each.
 */
export function planIndex(
  routes: readonly Route[],
  checks: IndexChecks,
  quote: (s: string) => string,
): IndexNode {
  const sorted = [...routes].sort((a, b) => (lastUnit(a) < lastUnit(b) ? -1 : 1));
  const used = new Set<string>();
  const label = (first: Route, depth: number) => {
    const base = `d${depth}-${unitLabel(lastUnit(first))}`;
    let l = base;
    for (let i = 2; used.has(l); i++) l = `${base}-${i}`;
    used.add(l);
    return l;
  };
  const runsOf = (rs: readonly Route[], count: number) => {
    const runs: { rs: readonly Route[]; pattern: string }[] = [];
    const cut = (from: number, to: number) => {
      const neighbour = (i: number) => (rs[i] === undefined ? undefined : lastUnit(rs[i]));
      const units = rs.slice(from, to).map(lastUnit);
      const pattern = runPattern(distinguish(units, neighbour(from - 1), neighbour(to)), quote);
      if (to - from > 1 && !checks.fitsRule(pattern)) {
        const mid = from + Math.floor((to - from) / 2);
        cut(from, mid);
        cut(mid, to);
      } else runs.push({ rs: rs.slice(from, to), pattern });
    };
    const size = Math.ceil(rs.length / count);
    for (let i = 0; i < rs.length; i += size) cut(i, Math.min(rs.length, i + size));
    return runs;
  };
  const node = (rs: readonly Route[], pattern: string, name: string, depth: number): IndexNode => {
    if (rs.length <= 1 || checks.fits(rs))
      return { label: name, pattern, routes: rs, children: [] };
    let runs = runsOf(rs, FAN_OUT);
    for (let n = FAN_OUT - 1; n >= 2 && !checks.fitsIndex(runs.map((r) => r.pattern)); n--) {
      runs = runsOf(rs, n);
    }
    const children = runs.map((r) => node(r.rs, r.pattern, label(r.rs[0]!, depth + 1), depth + 1));
    return { label: name, pattern, routes: [], children };
  };
  return node(sorted, '', '', 0);
}

/** The owner name of an index node below the table's owner (absolute). */
export function indexOwner(node: IndexNode, owner: string): string {
  return `${node.label}.${INDEX_LABEL}.${owner}`;
}
