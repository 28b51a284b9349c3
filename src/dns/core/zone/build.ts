/**
 * Build an immutable Zone snapshot from the records of a `ZoneStore` (what
 * the parser streams into), with the structural validation of `validate.ts`.
 */
import type { ResourceRecord, ZoneDiagnostic } from './model.ts';
import { canonicalSortKey, nameToText, nameToWire } from './names.ts';
import {
  NODE_BELOW_CUT,
  NODE_DELEGATION,
  NODE_ENT,
  NODE_OUT_OF_ZONE,
  REC_DUPLICATE,
  REC_OUT_OF_ZONE,
  ZoneStore,
} from './store.ts';
import { TYPE_NS, TYPE_SOA } from '../rr/types.ts';
import { validateStore } from './validate.ts';
import { RRsetView, StoreZone } from './views.ts';

export interface BuildOptions {
  /** Zone apex (absolute; a missing trailing dot is added). */
  readonly origin: string;
}

export interface BuildResult {
  /** Undefined when an error makes the zone unusable (no SOA, ...). */
  readonly zone?: StoreZone;
  readonly diagnostics: ZoneDiagnostic[];
}

function normalizeOrigin(origin: string): string | undefined {
  try {
    const abs = origin.endsWith('.') ? origin : origin + '.';
    return nameToText(nameToWire(abs), 0, true);
  } catch {
    return undefined;
  }
}

/** Build a zone from records (any source: the parser's, or made by hand). */
export function buildZone(records: readonly ResourceRecord[], options: BuildOptions): BuildResult {
  const store = new ZoneStore();
  const refused: ZoneDiagnostic[] = [];
  for (const rr of records) {
    const rd = rr.rdata;
    const src = rr.source;
    const at = src ? { position: src } : {};
    // Records made by hand may break what the parser guarantees.
    if (rd.length > 65535) {
      refused.push({
        code: 'ZONE_RDATA_TOO_LONG',
        message: `RDATA of ${rd.length} octets at ${rr.owner}: at most 65535 (RFC 1035 section 3.2.1)`,
        severity: 'error',
        ...at,
        token: rr.owner,
      });
      continue;
    }
    if (!/^[\x21-\x7e]+$/.test(rr.owner) || !rr.owner.endsWith('.')) {
      refused.push({
        code: 'ZONE_BAD_NAME',
        message: `owner ${JSON.stringify(rr.owner)} is not an absolute name in the model's spelling (printable ASCII, \\DDD escapes, trailing dot)`,
        severity: 'error',
        ...at,
        token: rr.owner,
      });
      continue;
    }
    store.add(
      rr.owner,
      rr.type,
      rr.class,
      rr.ttl,
      rd,
      rd.length,
      src?.line ?? 0,
      src?.file ?? '',
      src?.column ?? 1,
    );
  }
  const built = buildStoreZone(store, options);
  if (refused.length === 0) return built;
  return { diagnostics: [...refused, ...built.diagnostics] };
}

/**
 * Finish a store into a zone: out-of-zone records ignored (with a warning),
 * empty non-terminals, zone cuts, canonical order, validation.
 */
export function buildStoreZone(store: ZoneStore, options: BuildOptions): BuildResult {
  const diagnostics: ZoneDiagnostic[] = [];
  const origin = normalizeOrigin(options.origin);
  if (origin === undefined) {
    diagnostics.push({
      code: 'ZONE_BAD_ORIGIN',
      message: `origin ${JSON.stringify(options.origin)} is not a valid domain name`,
      severity: 'error',
      token: options.origin,
    });
    return { diagnostics };
  }
  const owners = store.nameCount;
  for (const d of ignoreOutOfZone(store, origin, owners)) diagnostics.push(d);
  let size = 0;
  for (let r = 0, count = store.recordCount; r < count; r++)
    if (!(store.recordFlags(r) & (REC_DUPLICATE | REC_OUT_OF_ZONE))) size++;
  const apex = store.node(origin);
  const parent = parentsWithEnts(store, apex, owners);
  const anyCut = markCuts(store, apex, owners, parent);

  // Canonical order (RFC 4034 section 6.1).
  const order = canonicalOrder(store, apex, parent);
  const cuts: string[] = [];
  if (anyCut)
    for (let i = 0; i < order.length; i++)
      if (store.hasNameFlag(order[i]!, NODE_DELEGATION)) cuts.push(store.name(order[i]!));

  for (const d of validateStore(store, origin, owners)) diagnostics.push(d);
  const soaSet = store.findSet(apex, TYPE_SOA);
  // Like BIND, a zone with any error is not loaded (a bad file never replaces a good zone).
  if (soaSet < 0 || diagnostics.some((d) => d.severity === 'error')) return { diagnostics };
  // Complete: a small zone's columns are packed into one buffer (issue 30).
  store.compact();
  const zone = new StoreZone(store, origin, new RRsetView(store, soaSet), order, cuts, size);
  return { zone, diagnostics };
}

/**
 * As BIND ("ignoring out-of-zone data"): a record outside the zone is
 * reported and left out, and the zone loads. Returns the store's pending
 * findings with these warnings merged in, in record order.
 */
function ignoreOutOfZone(store: ZoneStore, origin: string, owners: number): ZoneDiagnostic[] {
  let outside = 0;
  for (let n = 0; n < owners; n++)
    if (!store.isUnder(n, origin)) {
      store.markName(n, NODE_OUT_OF_ZONE);
      outside++;
    }
  const ignored: { rec: number; diagnostic: ZoneDiagnostic }[] = [];
  if (outside > 0)
    for (let r = 0, count = store.recordCount; r < count; r++) {
      if (!store.hasNameFlag(store.recordNode(r), NODE_OUT_OF_ZONE)) continue;
      store.markRecord(r, REC_OUT_OF_ZONE);
      const owner = store.name(store.recordNode(r));
      ignored.push({
        rec: r,
        diagnostic: {
          code: 'ZONE_OUT_OF_ZONE',
          message: `ignoring out-of-zone data: ${owner} is not in the zone ${origin}`,
          severity: 'warning',
          ...store.at(r),
          token: owner,
        },
      });
    }
  return store.takePending(ignored);
}

/**
 * Every name's parent, with the empty non-terminals between each owner and
 * the apex made on the way (and marked as such, the apex too when it has no data).
 */
function parentsWithEnts(store: ZoneStore, apex: number, owners: number): Int32Array {
  let parent = new Int32Array(store.nameCount + 64);
  for (let n = 0; n < store.nameCount; n++) {
    if (n === apex || store.hasNameFlag(n, NODE_OUT_OF_ZONE)) continue;
    const p = store.parentOf(n);
    if (store.nameCount > parent.length) {
      const grown = new Int32Array(store.nameCount * 2);
      grown.set(parent);
      parent = grown;
    }
    parent[n] = p;
  }
  parent[apex] = -1;
  for (let n = owners, count = store.nameCount; n < count; n++) store.markName(n, NODE_ENT);
  return parent;
}

/** Zone cuts: NS below the apex. Names under a cut are glue or occluded. True when there is a cut. */
function markCuts(store: ZoneStore, apex: number, owners: number, parent: Int32Array): boolean {
  let anyCut = false;
  for (let n = 0; n < owners; n++) {
    if (store.hasNameFlag(n, NODE_OUT_OF_ZONE) || n === apex) continue;
    if (store.findSet(n, TYPE_NS) >= 0) {
      store.markName(n, NODE_DELEGATION);
      anyCut = true;
    }
  }
  if (anyCut) {
    for (let n = 0, count = store.nameCount; n < count; n++) {
      if (store.hasNameFlag(n, NODE_OUT_OF_ZONE)) continue;
      for (let p = parent[n]!; p >= 0 && p !== apex; p = parent[p]!)
        if (store.hasNameFlag(p, NODE_DELEGATION)) {
          store.markName(n, NODE_BELOW_CUT);
          break;
        }
    }
  }
  return anyCut;
}

/**
 * The names in DNSSEC canonical order (RFC 4034 section 6.1): the preorder of
 * the name tree with siblings sorted by their first label (no key per name).
 */
function canonicalOrder(store: ZoneStore, apex: number, parent: Int32Array): Int32Array {
  const count = store.nameCount;
  const first = new Int32Array(count + 1);
  let inZone = 0;
  for (let n = 0; n < count; n++) {
    if (store.hasNameFlag(n, NODE_OUT_OF_ZONE)) continue;
    inZone++;
    if (n !== apex) first[parent[n]! + 1]!++;
  }
  for (let n = 0; n < count; n++) first[n + 1]! += first[n]!;
  const kids = new Int32Array(first[count]!);
  const fill = first.slice(0, count);
  for (let n = 0; n < count; n++) {
    if (n === apex || store.hasNameFlag(n, NODE_OUT_OF_ZONE)) continue;
    kids[fill[parent[n]!]!++] = n;
  }
  const cmp = (a: number, b: number) => compareFirstLabels(store, a, b);
  for (let n = 0; n < count; n++) {
    const s = first[n]!;
    const e = first[n + 1]!;
    if (e - s > 1) kids.subarray(s, e).sort(cmp);
  }
  // Preorder walk, iterative: a stack of (name, next child position).
  const order = new Int32Array(inZone);
  let k = 0;
  const stackNode = new Int32Array(256);
  const stackNext = new Int32Array(256);
  let top = 0;
  order[k++] = apex;
  stackNode[0] = apex;
  stackNext[0] = first[apex]!;
  while (top >= 0) {
    const n = stackNode[top]!;
    const i = stackNext[top]!;
    if (i >= first[n + 1]!) {
      top--;
      continue;
    }
    stackNext[top] = i + 1;
    const c = kids[i]!;
    order[k++] = c;
    top++;
    stackNode[top] = c;
    stackNext[top] = first[c]!;
  }
  return order;
}

/** Canonical order of two sibling names (rows of the store) by their first labels. */
function compareFirstLabels(store: ZoneStore, a: number, b: number): number {
  const x = store.nameBlockOf(a);
  const y = store.nameBlockOf(b);
  const xo = store.nameStart(a);
  const yo = store.nameStart(b);
  for (let i = 0; ; i++) {
    let ca = x[xo + i]!;
    let cb = y[yo + i]!;
    if (ca === cb) {
      if (ca === 0x2e) return 0;
      if (ca !== 0x5c) continue;
    }
    if (ca === 0x5c || cb === 0x5c) return compareDecoded(store.name(a), store.name(b));
    // The end of a label sorts before any octet.
    if (ca === 0x2e) ca = -1;
    if (cb === 0x2e) cb = -1;
    return ca - cb;
  }
}

/** Canonical order of the first labels of two names (`\\DDD` decoded; a canonical name escapes its dots). */
function compareDecoded(a: string, b: string): number {
  const x = canonicalSortKey(a.slice(0, a.indexOf('.') + 1));
  const y = canonicalSortKey(b.slice(0, b.indexOf('.') + 1));
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Names sorted in DNSSEC canonical order, the given strings themselves: each
 * key ends with four NULs and the name's index, which changes no order
 * (labels are never empty and an octet 0 is written \0\1).
 */
export function sortCanonical(names: readonly string[]): string[] {
  const keyed: string[] = new Array<string>(names.length);
  for (let i = 0; i < names.length; i++)
    keyed[i] =
      canonicalSortKey(names[i]!) +
      '\u0000\u0000\u0000\u0000' +
      String.fromCharCode(i >>> 16, i & 0xffff);
  keyed.sort();
  const out: string[] = new Array<string>(names.length);
  for (let i = 0; i < keyed.length; i++) {
    const k = keyed[i]!;
    out[i] = names[(k.charCodeAt(k.length - 2) << 16) | k.charCodeAt(k.length - 1)]!;
  }
  return out;
}
