/**
 * The synchronous matcher over a store behind a round trip (PostgreSQL): a
 * `ScratchReader` answers from what one request has fetched and throws
 * `CatalogueMiss` for the rest; the caller fetches it and matches again
 * (cheaper than the round trips it saves: one for an exact name, two for a
 * partial match). Each document comes whole from one query, never half
 * before and half after an import's commit.
 */
import type {
  CandidateName,
  CandidateQuery,
  CatalogueReader,
  CatalogueWork,
} from '../core/model.ts';

export type CatalogueNeed =
  | { readonly kind: 'name'; readonly urn: string }
  | { readonly kind: 'candidates'; readonly key: string; readonly query: CandidateQuery }
  | { readonly kind: 'work'; readonly id: number };

/** Thrown by a `ScratchReader` for data not fetched yet; no stack trace (it would cost more than the match). */
export class CatalogueMiss extends Error {
  readonly need: CatalogueNeed;
  constructor(need: CatalogueNeed) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(`catalogue data not fetched yet: ${need.kind}`);
    Error.stackTraceLimit = limit;
    this.name = 'CatalogueMiss';
    this.need = need;
  }
}

function candidateKey(q: CandidateQuery): string {
  return JSON.stringify([
    q.jurisdiction,
    q.authority,
    q.measure,
    q.year,
    q.period,
    q.numbers,
    q.limit,
  ]);
}

/** One request's view of the catalogue: what was fetched for it, and `CatalogueMiss` for the rest. */
export class ScratchReader implements CatalogueReader {
  readonly names = new Map<string, CatalogueWork | null>();
  readonly candidateLists = new Map<string, readonly CandidateName[]>();
  readonly works = new Map<number, CatalogueWork | null>();

  byName(workUrn: string): CatalogueWork | undefined {
    const w = this.names.get(workUrn);
    if (w === undefined) throw new CatalogueMiss({ kind: 'name', urn: workUrn });
    return w ?? undefined;
  }

  candidates(query: CandidateQuery): readonly CandidateName[] {
    const key = candidateKey(query);
    const c = this.candidateLists.get(key);
    if (c === undefined) throw new CatalogueMiss({ kind: 'candidates', key, query });
    return c;
  }

  work(id: number): CatalogueWork | undefined {
    const w = this.works.get(id);
    if (w === undefined) throw new CatalogueMiss({ kind: 'work', id });
    return w ?? undefined;
  }

  /** Record fetched works (by id and by each of their names). */
  addWork(w: CatalogueWork): void {
    this.works.set(w.id, w);
    for (const n of w.names) this.names.set(n.urn, w);
  }
}

/** A store that fills a `ScratchReader` asynchronously (PostgreSQL). */
export interface AsyncCatalogueSource {
  /** Fetch what `need` asks for into `into` (a name not found is recorded as null). */
  fill(into: ScratchReader, need: CatalogueNeed): Promise<void>;
}

/** Most round trips one request may take (an exact miss, the candidates, a stray work). */
export const MAX_FILLS = 6;

/** Run `attempt` over a scratch reader until it needs nothing more (at most `MAX_FILLS` fills; `first` fetched before). */
export async function withScratch<T>(
  source: AsyncCatalogueSource,
  attempt: (reader: ScratchReader) => T,
  first?: CatalogueNeed,
): Promise<T> {
  const scratch = new ScratchReader();
  if (first !== undefined) await source.fill(scratch, first);
  for (let i = first === undefined ? 0 : 1; ; i++) {
    try {
      return attempt(scratch);
    } catch (e) {
      if (!(e instanceof CatalogueMiss) || i >= MAX_FILLS) throw e;
      await source.fill(scratch, e.need);
    }
  }
}
