/**
 * `lexroute zone explain`: the routing table that NAPTR rules implement.
 * Each REGEXP's ERE tree (the client's parser) is read back into a prefix
 * (`^urn:lex:<literal>[<boundary>].*$`, maybe one group), everything
 * (`^.*$`, `^(.*)$`, empty REGEXP), or a pattern. Warnings:
 * ROUTE_NEVER_MATCHES, ROUTE_SHADOWED (RFC 3403 section 4.1),
 * ROUTE_DOUBLY_CLAIMED (one ORDER, different targets, shared URNs).
 */
import { absoluteLowerName } from '../../kit/core/names.ts';
import { parseFlags, parseServices, type NaptrRecord } from '../../ddds/core/naptr.ts';
import { parseSubstitution, type ReplPart } from '../../ddds/core/subst.ts';
import type { EreNode } from '../../ddds/core/ere.ts';
import { sortRecords } from '../../ddds/core/step.ts';
import type { SourcePosition } from '../../dns/core/zone/model.ts';
import { canonicalPart, covers, overlaps, type MatchSet, type PrefixLevel } from './prefix.ts';

export type RuleMatch =
  | {
      readonly kind: 'prefix';
      readonly prefix: string;
      readonly level: PrefixLevel;
      readonly boundary: string | undefined;
    }
  | { readonly kind: 'any' }
  | { readonly kind: 'pattern'; readonly literal: string; readonly regexp: string }
  | { readonly kind: 'never'; readonly reason: string };

export type RuleTarget =
  | { readonly kind: 'zone'; readonly name: string }
  | { readonly kind: 'copy'; readonly template: string }
  | (Offer & { readonly kind: 'U'; readonly template: string })
  | (Offer & { readonly kind: 'S' | 'A'; readonly name: string })
  | (Offer & { readonly kind: 'P'; readonly output: string })
  | { readonly kind: 'dropped'; readonly flags: string };

/** A terminal rule's protocol and services. */
interface Offer {
  readonly protocol: string;
  readonly services: readonly string[];
}

/** One explained route: one or more records of an owner. */
export interface ExplainedRoute {
  readonly owner: string;
  readonly order: number;
  readonly preferences: readonly number[];
  readonly match: RuleMatch;
  readonly target: RuleTarget;
  /** 1-based positions of the records in the owner's RRset, in processing order. */
  readonly rules: readonly number[];
  readonly positions: readonly SourcePosition[];
}

export interface ExplainFinding {
  readonly code: 'ROUTE_NEVER_MATCHES' | 'ROUTE_SHADOWED' | 'ROUTE_DOUBLY_CLAIMED';
  readonly severity: 'warning';
  readonly message: string;
  readonly owner: string;
  readonly rule: number;
  readonly position?: SourcePosition;
}

export interface Explanation {
  readonly routes: readonly ExplainedRoute[];
  readonly findings: readonly ExplainFinding[];
}

export interface ExplainInput extends NaptrRecord {
  readonly owner: string;
  readonly source?: SourcePosition;
}

const HEAD = 'urn:lex:';

/** The literal string of a run of literal nodes, and where the run ends. */
function literalRun(nodes: readonly EreNode[], from: number): { text: string; next: number } {
  let text = '';
  let i = from;
  while (i < nodes.length && nodes[i]!.type === 'literal') {
    text += String.fromCodePoint((nodes[i] as { codePoint: number }).codePoint);
    i++;
  }
  return { text, next: i };
}

function isDotStar(n: EreNode | undefined): boolean {
  return n?.type === 'repeat' && n.min === 0 && n.max === undefined && n.body.type === 'any';
}

/** Read `^urn:lex:<literal>[<boundary>].*$` (or `^.*$`) out of an ERE body. */
function readShape(nodes: readonly EreNode[], ci: boolean, regexp: string): RuleMatch {
  const lit = literalRun(nodes, 0);
  let i = lit.next;
  let boundary: string | undefined;
  const b = nodes[i];
  if (b?.type === 'bracket' && !b.negated && b.items.every((x) => x.type === 'char')) {
    boundary = b.items
      .map((x) => String.fromCodePoint((x as { codePoint: number }).codePoint))
      .join('');
    i++;
  }
  const shaped = isDotStar(nodes[i]) && i + 1 === nodes.length;
  if (!shaped) return { kind: 'pattern', literal: lit.text, regexp };
  if (lit.text === '' && boundary === undefined) return { kind: 'any' };
  const text = ci ? lit.text.toLowerCase() : lit.text;
  if (!text.startsWith(HEAD)) {
    return HEAD.startsWith(text)
      ? { kind: 'pattern', literal: lit.text, regexp }
      : {
          kind: 'never',
          reason: `the pattern needs ${JSON.stringify(lit.text)} at the start: no LEX AUS (urn:lex:...) has it`,
        };
  }
  const prefix = lit.text.slice(HEAD.length);
  if (!ci && canonicalPart(prefix) !== prefix) {
    return {
      kind: 'never',
      reason: `without the i flag ${JSON.stringify(prefix)} never meets the AUS, which is normalised (${canonicalPart(prefix)})`,
    };
  }
  const colons = prefix.split(':').length - 1;
  const level: PrefixLevel = colons === 0 ? 'jurisdiction' : colons === 1 ? 'authority' : 'measure';
  return { kind: 'prefix', prefix: canonicalPart(prefix), level, boundary };
}

/** The match of a record and whether group 1 is the whole AUS. */
function readMatch(r: NaptrRecord): {
  match: RuleMatch;
  repl: readonly ReplPart[] | undefined;
  whole: boolean;
} {
  const never = (reason: string) => ({
    match: { kind: 'never', reason } as const,
    repl: undefined,
    whole: false,
  });
  const hasReplacement = r.replacement !== '.' && r.replacement !== '';
  if (r.regexp === '')
    return hasReplacement
      ? { match: { kind: 'any' }, repl: undefined, whole: false }
      : never('REGEXP empty and REPLACEMENT "."');
  if (hasReplacement)
    return never(
      'REGEXP and REPLACEMENT are both set: clients ignore the record (RFC 3403 section 4.1)',
    );
  const p = parseSubstitution(r.regexp);
  if (!p.ok) return never(`${p.error.code} ${p.error.message}`);
  const repl = p.value.repl;
  const pattern = (literal: string) => ({
    match: { kind: 'pattern', literal, regexp: r.regexp } as const,
    repl,
    whole: false,
  });
  const ast = p.value.ere.ast;
  let nodes = ast.branches[0]!;
  if (ast.branches.length !== 1 || nodes[0]?.type !== 'anchor' || nodes[0].kind !== 'start')
    return pattern('');
  nodes = nodes.slice(1);
  const last = nodes[nodes.length - 1];
  if (last?.type === 'anchor' && last.kind === 'end') nodes = nodes.slice(0, -1);
  else if (!isDotStar(last)) return pattern(literalRun(nodes, 0).text);
  let whole = false;
  const g = nodes[0];
  if (nodes.length === 1 && g?.type === 'group' && g.index === 1 && g.body.branches.length === 1) {
    nodes = g.body.branches[0]!;
    whole = true;
  }
  return { match: readShape(nodes, p.value.caseInsensitive, r.regexp), repl, whole };
}

/** Replacement parts as a template: `\1` is `{urn}` when group 1 is the whole AUS, else `{1}`. */
function templateOf(repl: readonly ReplPart[], whole: boolean): { text: string; copies: boolean } {
  let text = '';
  let copies = false;
  for (const part of repl) {
    if (part.kind === 'text') text += part.text;
    else if (whole && part.group === 1) text += '{urn}';
    else {
      text += `{${part.group}}`;
      copies = true;
    }
  }
  return { text, copies };
}

const absolute = absoluteLowerName;

function readTarget(
  r: NaptrRecord,
  repl: readonly ReplPart[] | undefined,
  whole: boolean,
): RuleTarget {
  const flags = parseFlags(r.flags);
  if (flags.kind === 'unusable') return { kind: 'dropped', flags: r.flags };
  const sv = parseServices(r.services);
  const protocol = sv.ok ? (sv.value.protocol ?? '').toLowerCase() : '';
  const services = sv.ok ? sv.value.services : [];
  const t = repl ? templateOf(repl, whole) : { text: r.replacement, copies: false };
  if (flags.kind === 'non-terminal') {
    return t.copies || t.text.includes('{urn}')
      ? { kind: 'copy', template: t.text }
      : { kind: 'zone', name: absolute(t.text) };
  }
  switch (flags.flag) {
    case 'U': {
      const svc = services.length === 1 ? services[0]! : undefined;
      const template =
        svc !== undefined && t.text.includes(svc) ? t.text.replace(svc, '{service}') : t.text;
      return { kind: 'U', template, protocol, services };
    }
    case 'S':
    case 'A':
      return { kind: flags.flag, name: absolute(t.text), protocol, services };
    default:
      return { kind: 'P', output: t.text, protocol, services };
  }
}

function mergeable(a: RuleTarget, b: RuleTarget): boolean {
  if (a.kind !== 'U' || b.kind !== 'U') return false;
  return a.template === b.template && a.protocol === b.protocol && a.template.includes('{service}');
}

/** The set of URNs a route takes, when it is known. */
export function routeMatchSet(m: RuleMatch): MatchSet | undefined {
  if (m.kind === 'any') return { literal: '', boundary: undefined };
  if (m.kind === 'prefix') return { literal: `${HEAD}${m.prefix}`, boundary: m.boundary };
  return undefined;
}

/** The match set a pattern's URNs all belong to (its literal start). */
function withinSet(m: RuleMatch): MatchSet | undefined {
  if (m.kind === 'pattern') return { literal: m.literal.toLowerCase(), boundary: undefined };
  return routeMatchSet(m);
}

function groupOwner(owner: string, records: readonly ExplainInput[]): ExplainedRoute[] {
  const routes: ExplainedRoute[] = [];
  const sorted = sortRecords(records);
  sorted.forEach((r, k) => {
    const { match, repl, whole } = readMatch(r);
    const target = readTarget(r, repl, whole);
    const position = r.source;
    const prev = routes.at(-1);
    if (
      prev?.order === r.order &&
      JSON.stringify(prev.match) === JSON.stringify(match) &&
      mergeable(prev.target, target)
    ) {
      const t = prev.target as Extract<RuleTarget, { kind: 'U' }>;
      routes[routes.length - 1] = {
        ...prev,
        target: { ...t, services: [...t.services, ...(target as typeof t).services] },
        preferences: [...prev.preferences, r.preference],
        rules: [...prev.rules, k + 1],
        positions: position ? [...prev.positions, position] : prev.positions,
      };
      return;
    }
    const route: ExplainedRoute = {
      owner,
      order: r.order,
      preferences: [r.preference],
      match:
        target.kind === 'dropped'
          ? {
              kind: 'never',
              reason: `flags ${JSON.stringify(r.flags)} are not one known flag: clients drop the record (RFC 3404 section 4.3)`,
            }
          : match,
      target,
      rules: [k + 1],
      positions: position ? [position] : [],
    };
    routes.push(route);
  });
  return routes;
}

function describeMatch(m: RuleMatch): string {
  switch (m.kind) {
    case 'prefix':
      return `${HEAD}${m.prefix}`;
    case 'any':
      return 'any URN';
    case 'pattern':
      return `pattern ${m.regexp}`;
    case 'never':
      return 'nothing';
  }
}

function findingsOf(routes: readonly ExplainedRoute[]): ExplainFinding[] {
  const out: ExplainFinding[] = [];
  const add = (code: ExplainFinding['code'], r: ExplainedRoute, message: string) =>
    out.push({
      code,
      severity: 'warning',
      message,
      owner: r.owner,
      rule: r.rules[0]!,
      ...(r.positions[0] ? { position: r.positions[0] } : {}),
    });
  routes.forEach((r, j) => {
    if (r.match.kind === 'never') {
      add(
        'ROUTE_NEVER_MATCHES',
        r,
        `rule ${r.rules[0]} of ${r.owner} (ORDER ${r.order}) never matches: ${r.match.reason}`,
      );
      return;
    }
    const mine = withinSet(r.match);
    if (!mine) return;
    for (let i = 0; i < j; i++) {
      const e = routes[i]!;
      const theirs = routeMatchSet(e.match);
      if (!theirs) continue;
      if (e.order < r.order && covers(theirs, mine)) {
        add(
          'ROUTE_SHADOWED',
          r,
          `rule ${r.rules[0]} of ${r.owner} (ORDER ${r.order}, ${describeMatch(r.match)}) is never used: rule ${e.rules[0]} (ORDER ${e.order}, ${describeMatch(e.match)}) takes every URN it takes`,
        );
        return;
      }
      const targetsDiffer = JSON.stringify(e.target) !== JSON.stringify(r.target);
      const mineKnown = routeMatchSet(r.match);
      if (e.order === r.order && targetsDiffer && mineKnown && overlaps(theirs, mineKnown)) {
        add(
          'ROUTE_DOUBLY_CLAIMED',
          r,
          `rule ${r.rules[0]} of ${r.owner} (${describeMatch(r.match)}) and rule ${e.rules[0]} (${describeMatch(e.match)}) have the same ORDER ${r.order}, different targets, and take some of the same URNs`,
        );
        return;
      }
    }
  });
  return out;
}

/** Explain the NAPTR rules of a zone (records of every owner, in file order). */
export function explainRules(records: readonly ExplainInput[]): Explanation {
  const byOwner = new Map<string, ExplainInput[]>();
  for (const r of records) {
    let list = byOwner.get(r.owner);
    if (!list) byOwner.set(r.owner, (list = []));
    list.push(r);
  }
  const routes: ExplainedRoute[] = [];
  const findings: ExplainFinding[] = [];
  for (const [owner, list] of byOwner) {
    const mine = groupOwner(owner, list);
    routes.push(...mine);
    findings.push(...findingsOf(mine));
  }
  return { routes, findings };
}
