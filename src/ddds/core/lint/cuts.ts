/**
 * Delegations without a zone cut (issue 30): a non-terminal rule whose next
 * key is below the apex where the zone has neither NAPTR records nor a cut.
 * A server holding parent and child hides it; a secondary holding only this
 * zone answers NXDOMAIN (RFC 1034 section 4.2.1: a child exists for the
 * parent's servers only through the NS RRset at the cut).
 */
import type { SourcePosition, Zone, ZoneDiagnostic } from '../../../dns/core/zone/model.ts';
import { TYPE_NAPTR } from '../../../dns/core/rr/types.ts';
import { NAPTR_REGEXP, NAPTR_REPLACEMENT, naptrLayout } from '../../../dns/core/rr/naptr.ts';
import { naptrFields } from './naptr-lint.ts';
import { parseSubstitution } from '../subst.ts';
import { absoluteLowerName } from '../../../kit/core/names.ts';
import type { NaptrRows } from './rows.ts';

const at = (position: SourcePosition | undefined) => (position ? { position } : {});

/** The next key a non-terminal rule gives whatever the AUS: the REPLACEMENT, or a REGEXP without back-references. */
export function fixedNextKey(regexp: string, replacement: string): string | undefined {
  if (replacement !== '.' && replacement !== '') return absoluteLowerName(replacement);
  if (/\\[0-9]/.test(regexp)) return undefined;
  const s = parseSubstitution(regexp);
  if (!s.ok || s.value.repl.some((p) => p.kind !== 'text')) return undefined;
  const text = s.value.repl.map((p) => (p.kind === 'text' ? p.text : '')).join('');
  return text === '' ? undefined : absoluteLowerName(text);
}

/** A rule with no fixed next key, from its octets: REPLACEMENT root, a back-reference in REGEXP. */
function backReferenceToRoot(b: Uint8Array, start: number, end: number, at: Int32Array): boolean {
  if (naptrLayout(b, start, end, at) >= 0) return false;
  const p = at[NAPTR_REPLACEMENT]!;
  if (p + 1 !== end || b[p] !== 0) return false;
  const re = at[NAPTR_REGEXP]!;
  for (let i = re + 1; i + 1 < p; i++)
    if (b[i] === 0x5c && b[i + 1]! >= 0x30 && b[i + 1]! <= 0x39) return true;
  return false;
}

/** Is `name` at or below one of `cuts` (walking up its labels to `origin`)? */
function underCut(cuts: ReadonlySet<string>, name: string, origin: string): boolean {
  for (let n = name; n !== origin && n.length > origin.length; n = n.slice(n.indexOf('.') + 1)) {
    if (cuts.has(n)) return true;
  }
  return false;
}

/**
 * NAPTR_DELEGATION_NO_CUT warnings for `zone` (one per owner and target);
 * terminal rules are passed over on their FLAGS length octet.
 */
export function lintDelegationCuts(zone: Zone, naptr: NaptrRows): ZoneDiagnostic[] {
  const out: ZoneDiagnostic[] = [];
  const seen = new Set<string>();
  const origin = zone.origin;
  const cuts = new Set(zone.cuts);
  const targets = new Map<string, string | undefined>();
  const layout = new Int32Array(4);
  for (let k = 0; k < naptr.count; k++) {
    if (!naptr.isNaptr(k)) continue;
    // RDATA: ORDER (2), PREFERENCE (2), then FLAGS as a <character-string>: non-empty = terminal.
    const start = naptr.rdataStart(k);
    const length = naptr.rdataLength(k);
    const block = naptr.rdataBlock(k);
    if (length < 5 || block[start + 4] !== 0) continue;
    if (backReferenceToRoot(block, start, start + length, layout)) continue;
    const f = naptrFields(block.subarray(start, start + length));
    if (f === undefined || f.flags !== '') continue;
    const rule = `${f.regexp}\u0000${f.replacement}`;
    let next = targets.get(rule);
    if (!targets.has(rule)) {
      next = fixedNextKey(f.regexp, f.replacement);
      if (targets.size < 100_000) targets.set(rule, next);
    }
    if (next === undefined || next === origin || !next.endsWith(`.${origin}`)) continue;
    const owner = absoluteLowerName(naptr.ownerName(k));
    if (seen.has(`${owner} ${next}`) || underCut(cuts, owner, origin)) continue;
    seen.add(`${owner} ${next}`);
    if (underCut(cuts, next, origin) || zone.nodes.get(next)?.rrsets.has(TYPE_NAPTR)) continue;
    out.push({
      code: 'NAPTR_DELEGATION_NO_CUT',
      severity: 'warning',
      message: `${owner} delegates to ${next}, below the apex, but this zone has no NAPTR records there and no zone cut (NS): a server holding only ${origin} answers NXDOMAIN for it (give the route ns: in the routing table, or add NS and glue at ${next})`,
      ...at(naptr.source(k)),
    });
  }
  return out;
}
