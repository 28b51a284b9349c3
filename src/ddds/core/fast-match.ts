/**
 * Fast paths for `^`-anchored single-branch EREs on ASCII input, derived
 * from the AST. The engine stays the reference: a path answers only where its
 * answer is provably the engine's, in one forward scan, else hands over.
 *
 * 1. Literal prefix: the leading one-character atoms. `^` matches only at
 *    offset 0 (no MULTILINE), so an input outside those sets cannot match.
 * 2. Deterministic plan: the pattern is one-character atoms with quantifiers
 *    (in unquantified single-branch groups, optionally ending with `$`), and
 *    every variable-length atom X is disjoint from the atoms that can follow
 *    it (up to the first mandatory one). Then the greedy scan is the only
 *    parse reaching the longest extent, i.e. the engine's longest match: if
 *    X took fewer than min(run, max) characters, the next one is in X's set,
 *    the rest cannot consume it, and the parse ends short (induction on atoms).
 *
 * Case folding: RE2 with CASE_INSENSITIVE closes literals, bracket items and
 * classes under simple case folding, then negates. An ASCII character's orbit
 * is its two cases, plus U+212A KELVIN SIGN for k/K and U+017F LONG S for s/S.
 * test/ddds/fast-match.test.ts checks sets and paths against the engine.
 */
import type { EreAlternation, EreNode, PosixClassName } from './ere.ts';

/** Membership of the 128 ASCII characters (1 = in the set). */
export type AsciiSet = Uint8Array;

export interface FastItem {
  readonly set: AsciiSet;
  readonly min: number;
  /** Infinity when unbounded. */
  readonly max: number;
}

export interface FastPlan {
  readonly items: readonly FastItem[];
  /** The pattern ends with `$`: the match must reach the end of the input. */
  readonly anchoredEnd: boolean;
  /** Group g's start and end item indices at `[2g]`, `[2g + 1]` (g = 0: the whole match). */
  readonly groupBounds: Int32Array;
}

export interface EreFastPath {
  /** Sets the first characters of any match must belong to, in order (may be empty). */
  readonly prefix: readonly AsciiSet[];
  /** The deterministic plan, when the whole pattern has that shape. */
  readonly plan: FastPlan | undefined;
}

/** Result of `fastMatch`: the group boundaries (pairs of offsets), no match, or "ask the engine". */
export type FastOutcome = Int32Array | false | undefined;

const KELVIN = 0x212a;
const LONG_S = 0x17f;

function posixClass(name: PosixClassName, cp: number): boolean {
  if (cp > 0x7f) return false;
  const upper = cp >= 0x41 && cp <= 0x5a;
  const lower = cp >= 0x61 && cp <= 0x7a;
  const digit = cp >= 0x30 && cp <= 0x39;
  switch (name) {
    case 'alnum':
      return upper || lower || digit;
    case 'alpha':
      return upper || lower;
    case 'blank':
      return cp === 0x20 || cp === 0x09;
    case 'cntrl':
      return cp < 0x20 || cp === 0x7f;
    case 'digit':
      return digit;
    case 'graph':
      return cp >= 0x21 && cp <= 0x7e;
    case 'lower':
      return lower;
    case 'print':
      return cp >= 0x20 && cp <= 0x7e;
    case 'punct':
      return cp >= 0x21 && cp <= 0x7e && !upper && !lower && !digit;
    case 'space':
      return cp === 0x20 || (cp >= 0x09 && cp <= 0x0d);
    case 'upper':
      return upper;
    case 'xdigit':
      return digit || (cp >= 0x41 && cp <= 0x46) || (cp >= 0x61 && cp <= 0x66);
  }
}

/** The ASCII characters whose fold orbit holds `cp` (RE2 simple case folding). */
function foldedInto(cp: number): readonly number[] {
  if (cp >= 0x41 && cp <= 0x5a) return [cp, cp + 0x20];
  if (cp >= 0x61 && cp <= 0x7a) return [cp - 0x20, cp];
  if (cp === KELVIN) return [0x4b, 0x6b];
  if (cp === LONG_S) return [0x53, 0x73];
  return cp < 0x80 ? [cp] : [];
}

/** The set matched by `.` (compiled with DOTALL: every character). Shared, never written. */
const ANY_SET: AsciiSet = new Uint8Array(128).fill(1);

/** Sets of single literals (index: code point * 2 + case-insensitive), made on first use and shared. */
const literalSets: (AsciiSet | undefined)[] = [];

function literalSet(cp: number, caseInsensitive: boolean): AsciiSet {
  const k = cp < 0x80 ? cp * 2 + (caseInsensitive ? 1 : 0) : -1;
  if (k >= 0) {
    const hit = literalSets[k];
    if (hit !== undefined) return hit;
  }
  const set = new Uint8Array(128);
  if (caseInsensitive) for (const c of foldedInto(cp)) set[c] = 1;
  else if (cp < 0x80) set[cp] = 1;
  if (k >= 0) literalSets[k] = set;
  return set;
}

/**
 * The ASCII part of the set a one-character atom matches (folded: raw items
 * marked, then each one's orbit), or undefined for other nodes. Sets of `.`
 * and of literals are shared: callers never write them.
 */
export function asciiSetOf(node: EreNode, caseInsensitive: boolean): AsciiSet | undefined {
  switch (node.type) {
    case 'any':
      return ANY_SET;
    case 'literal':
      return literalSet(node.codePoint, caseInsensitive);
    case 'bracket':
      break;
    default:
      return undefined;
  }
  const raw = new Uint8Array(128);
  let kelvin = false;
  let longS = false;
  for (const item of node.items) {
    if (item.type === 'char') {
      const cp = item.codePoint;
      if (cp < 0x80) raw[cp] = 1;
      else if (cp === KELVIN) kelvin = true;
      else if (cp === LONG_S) longS = true;
    } else if (item.type === 'range') {
      for (let c = item.from; c <= item.to && c < 0x80; c++) raw[c] = 1;
      if (item.from <= KELVIN && item.to >= KELVIN) kelvin = true;
      if (item.from <= LONG_S && item.to >= LONG_S) longS = true;
    } else {
      for (let c = 0; c < 0x80; c++) if (posixClass(item.name, c)) raw[c] = 1;
    }
  }
  let set = raw;
  if (caseInsensitive) {
    set = new Uint8Array(128);
    for (let c = 0; c < 0x80; c++) {
      if (raw[c] !== 1) continue;
      for (const d of foldedInto(c)) set[d] = 1;
    }
    if (kelvin) set[0x4b] = set[0x6b] = 1;
    if (longS) set[0x53] = set[0x73] = 1;
  }
  if (node.negated) for (let c = 0; c < 0x80; c++) set[c] = set[c] === 1 ? 0 : 1;
  return set;
}

interface Flat {
  items: FastItem[];
  /** Group index -> [start item, end item]; only groups fully flattened. */
  groups: Map<number, [number, number]>;
  anchoredEnd: boolean;
  /** False when a construct outside the shapes above stopped the walk. */
  complete: boolean;
}

function flatten(nodes: readonly EreNode[], ci: boolean, out: Flat, top: boolean): boolean {
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i] as EreNode;
    switch (node.type) {
      case 'literal':
      case 'any':
      case 'bracket':
        out.items.push({ set: asciiSetOf(node, ci) as AsciiSet, min: 1, max: 1 });
        break;
      case 'repeat': {
        const set = asciiSetOf(node.body, ci);
        if (set === undefined) return false;
        out.items.push({ set, min: node.min, max: node.max ?? Number.POSITIVE_INFINITY });
        break;
      }
      case 'group': {
        if (node.body.branches.length !== 1) return false;
        const start = out.items.length;
        if (!flatten(node.body.branches[0] as readonly EreNode[], ci, out, false)) return false;
        out.groups.set(node.index, [start, out.items.length]);
        break;
      }
      case 'anchor':
        // `$` only as the last node of the top-level branch; `^` only first (handled by the caller).
        if (node.kind === 'end' && top && i === nodes.length - 1) {
          out.anchoredEnd = true;
          break;
        }
        return false;
    }
  }
  return true;
}

function disjoint(a: AsciiSet, b: AsciiSet): boolean {
  for (let c = 0; c < 128; c++) if (a[c] === 1 && b[c] === 1) return false;
  return true;
}

/** Derive the fast paths of a parsed ERE (see the module comment). */
export function buildFastPath(
  ast: EreAlternation,
  groupCount: number,
  caseInsensitive: boolean,
): EreFastPath {
  const none: EreFastPath = { prefix: [], plan: undefined };
  if (ast.branches.length !== 1) return none;
  const nodes = ast.branches[0] as readonly EreNode[];
  let first = 0;
  while (first < nodes.length) {
    const n = nodes[first] as EreNode;
    if (n.type !== 'anchor' || n.kind !== 'start') break;
    first++;
  }
  if (first === 0) return none;
  const flat: Flat = { items: [], groups: new Map(), anchoredEnd: false, complete: true };
  flat.complete = flatten(nodes.slice(first), caseInsensitive, flat, true);
  const prefix: AsciiSet[] = [];
  for (const item of flat.items) {
    if (item.min !== 1 || item.max !== 1) break;
    prefix.push(item.set);
  }
  if (!flat.complete || flat.groups.size !== groupCount) return { prefix, plan: undefined };
  const items = flat.items;
  for (let i = 0; i < items.length; i++) {
    const x = items[i] as FastItem;
    if (x.min === x.max) continue;
    for (let j = i + 1; j < items.length; j++) {
      const y = items[j] as FastItem;
      if (!disjoint(x.set, y.set)) return { prefix, plan: undefined };
      if (y.min > 0) break;
    }
  }
  const groupBounds = new Int32Array(2 * (groupCount + 1));
  groupBounds[1] = items.length;
  for (const [g, [s, e]] of flat.groups) {
    groupBounds[2 * g] = s;
    groupBounds[2 * g + 1] = e;
  }
  return { prefix, plan: { items, anchoredEnd: flat.anchoredEnd, groupBounds } };
}

/** True when every UTF-16 unit of `text` is ASCII. */
export function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Item boundaries of the last match (scratch, grown on demand; the core is synchronous). */
// eslint-disable-next-line no-restricted-syntax -- module state: a scratch buffer, used within one synchronous call.
let scratch = new Int32Array(64);

/**
 * Match ASCII `input` with the fast paths, writing group offsets into `out`
 * (`[start0, end0, start1, end1, ...]`): 1 match, 0 certainly none, -1 ask the engine.
 */
export function fastMatchInto(fast: EreFastPath, input: string, out: Int32Array): 1 | 0 | -1 {
  const n = input.length;
  const plan = fast.plan;
  if (plan === undefined) {
    const prefix = fast.prefix;
    if (prefix.length > n) return 0;
    for (let i = 0; i < prefix.length; i++) {
      if ((prefix[i] as AsciiSet)[input.charCodeAt(i)] !== 1) return 0;
    }
    return -1;
  }
  const items = plan.items;
  const m = items.length;
  if (scratch.length <= m) scratch = new Int32Array(2 * (m + 1));
  const at = scratch;
  let pos = 0;
  for (let i = 0; i < m; i++) {
    const item = items[i] as FastItem;
    at[i] = pos;
    const set = item.set;
    if (item.max === 1 && item.min === 1) {
      if (pos >= n || set[input.charCodeAt(pos)] !== 1) return 0;
      pos++;
      continue;
    }
    const limit = item.max >= n - pos ? n : pos + item.max;
    let p = pos;
    while (p < limit && set[input.charCodeAt(p)] === 1) p++;
    if (p - pos < item.min) return 0;
    pos = p;
  }
  at[m] = pos;
  if (plan.anchoredEnd && pos !== n) return 0;
  const bounds = plan.groupBounds;
  for (let k = 0; k < bounds.length; k++) out[k] = at[bounds[k] as number] as number;
  return 1;
}

/** `fastMatchInto` returning a fresh array, `false` (no match) or `undefined` (ask the engine). */
export function fastMatch(fast: EreFastPath, input: string): FastOutcome {
  const out = new Int32Array(fast.plan?.groupBounds.length ?? 2);
  const r = fastMatchInto(fast, input, out);
  return r === 1 ? out : r === 0 ? false : undefined;
}

/** The prefix test on any input: true when it certainly does not match (undecided past non-ASCII). */
export function prefixRejects(fast: EreFastPath, input: string): boolean {
  const prefix = fast.prefix;
  // A string has at most as many code points as UTF-16 units.
  if (prefix.length > input.length) return true;
  for (let i = 0; i < prefix.length; i++) {
    const c = input.charCodeAt(i);
    if (c > 0x7f) return false;
    if ((prefix[i] as AsciiSet)[c] !== 1) return true;
  }
  return false;
}
