/**
 * The resolver's fast path for its most common request: a plain work name in
 * canonical form. Stored names are canonical (RFC 9676 section 10.3), so a
 * request equal to one needs no parse: its key is the stored name's. The
 * matcher gets a reader answering that name (or its absence) from memory.
 */
import type { CatalogueReader, MatchQuery } from './model.ts';

/**
 * Text that can only be a work-level LEX name: lowercase ASCII letters,
 * digits and the separators of the work part. `@`, `$`, `~`, `?`, `#`, `%`,
 * upper case and non-ASCII take the full analysis.
 */
const PLAIN = /^urn:lex:[a-z0-9.;:,+_-]+$/;

/** Whether `text` can only be a plain work-level name (`exactLookup` looks it up as it stands). */
export function isPlainWorkName(text: string): boolean {
  return PLAIN.test(text);
}

export interface ExactLookup {
  /** The analysis of the text (the stored name's key); null when it is not a stored name. */
  readonly query: MatchQuery | null;
  /** The reader to match with: answers `byName(text)` from this lookup. */
  readonly reader: CatalogueReader;
}

/**
 * Look `text` up as a stored name when it can only be a plain work-level
 * name; undefined when it cannot (the caller analyses it and matches with
 * its own reader).
 */
export function exactLookup(text: string, reader: CatalogueReader): ExactLookup | undefined {
  if (!PLAIN.test(text)) return undefined;
  const work = reader.byName(text);
  // A reader that answers this one name from what was already read.
  const one: CatalogueReader = {
    byName: (urn) => (urn === text ? work : reader.byName(urn)),
    candidates: (query) => reader.candidates(query),
    work: (id) => reader.work(id),
  };
  const key = work?.names.find((n) => n.urn === text)?.key;
  // Not catalogued (a found work always has the name it was found by).
  if (key === undefined) return { query: null, reader: one };
  return {
    query: {
      urn: text,
      workUrn: text,
      work: key,
      expression: null,
      manifestation: null,
      partition: null,
      qComponent: null,
    },
    reader: one,
  };
}
