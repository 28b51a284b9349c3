/**
 * The stored form of one work: a compact JSON document holding everything
 * the matcher reads (names with their parts, expressions, manifestations,
 * items), so an exact match is one primary-key lookup and one `JSON.parse`.
 *
 *     [title, names, expressions]
 *     names:          [[urn, alias (0|1), jurisdiction, authority, measure, dates[], period, numbers[], annexes[]], ...]
 *                     the canonical name first, then the aliases in the order they were added
 *     expressions:    [[version, versionDate, language, inForce, manifestations], ...]   in insertion order
 *     manifestations: [[editor, format, component, feature, items, partitionDepth?], ...] in insertion order
 *     items:          [url, priority, url, priority, ...]                               by priority, then URL
 *
 * Absent parts are JSON `null`; expression and manifestation URNs are
 * composed on decoding. `partitionDepth` is written only when known (older
 * documents decode as null: no schema bump).
 */
import type {
  CatalogueExpression,
  CatalogueItem,
  CatalogueManifestation,
  CatalogueName,
  CatalogueWork,
  ExpressionKey,
  ManifestationKey,
  MutableExpression,
  MutableManifestation,
  MutableWork,
  WorkKey,
} from '../core/model.ts';
import { expressionUrn, manifestationUrn } from '../core/compose.ts';
import { isServableUrl } from '../core/row.ts';

type Str = string | null;
type NameDoc = [string, 0 | 1, string, string, string, string[], Str, string[], string[]];
type ManDoc =
  [Str, Str, Str, Str, (string | number)[]] | [Str, Str, Str, Str, (string | number)[], number];
type ExprDoc = [Str, Str, Str, Str, ManDoc[]];
type WorkDoc = [Str, NameDoc[], ExprDoc[]];

/**
 * Order of SQLite's BINARY collation (UTF-8 bytes, i.e. code points) for two
 * JS strings: UTF-16 order except that surrogates sort after U+E000-U+FFFF.
 */
export function compareBinary(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

function nameOf(n: NameDoc): CatalogueName {
  const key: WorkKey = {
    jurisdiction: n[2],
    authority: n[3],
    measure: n[4],
    dates: n[5],
    period: n[6],
    numbers: n[7],
    annexes: n[8],
  };
  return { urn: n[0], key, alias: n[1] === 1 };
}

/**
 * Decode a stored work: the canonical name, then the aliases by URN (or, with
 * `insertionOrder`, the writer's merge, as added). For serving, an item
 * failing `isServableUrl` (written by other means) is left out.
 */
export function decodeWork(id: number, text: string, insertionOrder = false): MutableWork {
  const d = JSON.parse(text) as WorkDoc;
  const nd = d[1];
  let names: CatalogueName[] = new Array<CatalogueName>(nd.length);
  for (let i = 0; i < nd.length; i++) names[i] = nameOf(nd[i] as NameDoc);
  if (names.length > 2 && !insertionOrder) {
    const aliases = names.slice(1).sort((a, b) => compareBinary(a.urn, b.urn));
    aliases.unshift(names[0] as CatalogueName);
    names = aliases;
  }
  const urn = (names[0] as CatalogueName).urn;
  const ed = d[2];
  const expressions: MutableExpression[] = new Array<MutableExpression>(ed.length);
  for (let i = 0; i < ed.length; i++) {
    const e = ed[i] as ExprDoc;
    const key: ExpressionKey = { version: e[0], versionDate: e[1], language: e[2] };
    const eUrn = expressionUrn(urn, key);
    const md = e[4];
    const manifestations: MutableManifestation[] = new Array<MutableManifestation>(md.length);
    for (let j = 0; j < md.length; j++) {
      const m = md[j] as ManDoc;
      const mKey: ManifestationKey = { editor: m[0], format: m[1], component: m[2], feature: m[3] };
      const flat = m[4];
      const items = decodeItems(flat, insertionOrder);
      const depth = m.length > 5 ? m[5] : undefined;
      manifestations[j] = {
        urn: manifestationUrn(eUrn, mKey),
        key: mKey,
        items,
        partitionDepth: typeof depth === 'number' ? depth : null,
      };
    }
    expressions[i] = { urn: eUrn, key, inForce: e[3], manifestations };
  }
  return { id, urn, title: d[0], names, expressions };
}

function decodeItems(flat: (string | number)[], all: boolean): CatalogueItem[] {
  const items: CatalogueItem[] = [];
  for (let k = 0; k < flat.length; k += 2) {
    const url = flat[k] as string;
    if (all || isServableUrl(url)) items.push({ url, priority: flat[k + 1] as number });
  }
  return items;
}

/** Encode a work for storage (the inverse of `decodeWork`, ids aside). */
export function encodeWork(w: CatalogueWork | MutableWork): string {
  const names: NameDoc[] = w.names.map((n) => {
    const k = n.key;
    return [
      n.urn,
      n.alias ? 1 : 0,
      k.jurisdiction,
      k.authority,
      k.measure,
      k.dates as string[],
      k.period,
      k.numbers as string[],
      k.annexes as string[],
    ];
  });
  const expressions: ExprDoc[] = w.expressions.map((e: CatalogueExpression) => [
    e.key.version,
    e.key.versionDate,
    e.key.language,
    e.inForce,
    e.manifestations.map((m: CatalogueManifestation): ManDoc => {
      const flat: (string | number)[] = [];
      for (const i of m.items) flat.push(i.url, i.priority);
      return m.partitionDepth === null
        ? [m.key.editor, m.key.format, m.key.component, m.key.feature, flat]
        : [m.key.editor, m.key.format, m.key.component, m.key.feature, flat, m.partitionDepth];
    }),
  ]);
  const doc: WorkDoc = [w.title, names, expressions];
  return JSON.stringify(doc);
}
