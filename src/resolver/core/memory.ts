/**
 * An in-memory catalogue reader: the reference implementation of the
 * `CatalogueReader` contract, used by the matching tables and usable for
 * small catalogues that fit in memory.
 */
import type {
  CandidateName,
  CandidateQuery,
  CatalogueReader,
  CatalogueWork,
  ExpressionKey,
  MutableWork,
  WorkKey,
} from './model.ts';
import type { CatalogueRow } from './row.ts';
import { EMPTY_MANIFESTATION, expressionUrn, manifestationUrn } from './compose.ts';
import { sameManifestation } from './match.ts';

/** True when a catalogued name is a candidate for the query, per the `CatalogueReader.candidates` contract. */
export function isCandidateName(key: WorkKey, q: CandidateQuery): boolean {
  if (key.jurisdiction !== q.jurisdiction) return false;
  if (q.numbers.length > 0) return q.numbers.some((n) => key.numbers.includes(n));
  const year = key.dates[0]?.slice(0, 4) ?? key.period;
  if (q.year !== null) {
    return year === q.year && (key.authority === q.authority || key.measure === q.measure);
  }
  return key.dates.length === 0 && key.period !== null && key.period === q.period;
}

export class MemoryCatalogue implements CatalogueReader {
  readonly #byName = new Map<string, CatalogueWork>();
  readonly #byJurisdiction = new Map<string, CatalogueWork[]>();
  readonly #byId = new Map<number, CatalogueWork>();

  constructor(works: Iterable<CatalogueWork>) {
    for (const w of works) {
      this.#byId.set(w.id, w);
      const jurisdictions = new Set<string>();
      for (const n of w.names) {
        this.#byName.set(n.urn, w);
        jurisdictions.add(n.key.jurisdiction);
      }
      for (const j of jurisdictions) {
        const list = this.#byJurisdiction.get(j) ?? [];
        list.push(w);
        this.#byJurisdiction.set(j, list);
      }
    }
  }

  byName(workUrn: string): CatalogueWork | undefined {
    return this.#byName.get(workUrn);
  }

  candidates(query: CandidateQuery): readonly CandidateName[] {
    const out: CandidateName[] = [];
    let works = 0;
    for (const w of this.#byJurisdiction.get(query.jurisdiction) ?? []) {
      if (works >= query.limit) break;
      if (!w.names.some((n) => isCandidateName(n.key, query))) continue;
      works++;
      for (const name of w.names) out.push({ workId: w.id, name });
    }
    return out;
  }

  work(id: number): CatalogueWork | undefined {
    return this.#byId.get(id);
  }
}

/** Build works from validated import rows, with the same merge rules as the catalogue writer. */
export function worksFromRows(rows: Iterable<CatalogueRow>): CatalogueWork[] {
  const works: MutableWork[] = [];
  const byName = new Map<string, MutableWork>();
  for (const row of rows) {
    let work = byName.get(row.work.urn);
    if (!work) {
      work = { id: works.length + 1, urn: row.work.urn, title: null, names: [], expressions: [] };
      work.names.push({ urn: row.work.urn, key: row.work.key, alias: false });
      byName.set(row.work.urn, work);
      works.push(work);
    }
    if (row.title !== null) work.title = row.title;
    for (const a of row.aliases) {
      if (byName.has(a.urn)) continue;
      work.names.push({ urn: a.urn, key: a.key, alias: true });
      byName.set(a.urn, work);
    }
    if (row.expression === null && row.manifestation === null && row.item === null) continue;
    const ek: ExpressionKey = row.expression ?? {
      version: null,
      versionDate: null,
      language: null,
    };
    let ex = work.expressions.find(
      (e) => e.key.version === ek.version && e.key.language === ek.language,
    );
    if (!ex) {
      ex = { urn: expressionUrn(work.urn, ek), key: ek, inForce: null, manifestations: [] };
      work.expressions.push(ex);
    }
    if (row.inForce !== null) ex.inForce = row.inForce;
    if (row.manifestation === null && row.item === null) continue;
    const mk = row.manifestation ?? EMPTY_MANIFESTATION;
    let man = ex.manifestations.find((m) => sameManifestation(m.key, mk));
    if (!man) {
      man = { urn: manifestationUrn(ex.urn, mk), key: mk, items: [], partitionDepth: null };
      ex.manifestations.push(man);
    }
    // As inForce: a row that gives a depth sets it, a later one replaces it.
    if (row.partitionDepth !== null) man.partitionDepth = row.partitionDepth;
    if (row.item === null) continue;
    const item = row.item;
    const existing = man.items.findIndex((i) => i.url === item.url);
    if (existing >= 0) man.items[existing] = item;
    else man.items.push(item);
  }
  return works;
}
