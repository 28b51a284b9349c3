/**
 * An in-memory catalogue reader: the reference implementation of the
 * `CatalogueReader` contract, used by the matching tables and usable for
 * small catalogues that fit in memory.
 */
import type { CandidateQuery, CatalogueReader, CatalogueWork, WorkKey } from './model.ts';

/** True when a catalogued name is a candidate for the query, per the `CatalogueReader.candidates` contract. */
export function isCandidateName(key: WorkKey, q: CandidateQuery): boolean {
  if (key.jurisdiction !== q.jurisdiction) return false;
  if (q.numbers.some((n) => key.numbers.includes(n))) return true;
  const year = key.dates[0]?.slice(0, 4) ?? key.period;
  if (q.year !== null) {
    return year === q.year && (key.authority === q.authority || key.measure === q.measure);
  }
  if (q.numbers.length === 0) return key.authority === q.authority && key.measure === q.measure;
  return false;
}

export class MemoryCatalogue implements CatalogueReader {
  readonly #byName = new Map<string, CatalogueWork>();
  readonly #byJurisdiction = new Map<string, CatalogueWork[]>();

  constructor(works: Iterable<CatalogueWork>) {
    for (const w of works) {
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

  candidates(query: CandidateQuery): readonly CatalogueWork[] {
    const out: CatalogueWork[] = [];
    for (const w of this.#byJurisdiction.get(query.jurisdiction) ?? []) {
      if (w.names.some((n) => isCandidateName(n.key, query))) out.push(w);
      if (out.length >= query.limit) break;
    }
    return out;
  }
}
