/**
 * Stable codes of the catalogue store, its import and the LexML registry
 * (`CatalogueError.code`; a refused row has a ROW_ code of core/codes.ts).
 * Codes are never renamed or reused (test/codes.test.ts; docs/codes.md is generated).
 */
export const CATALOGUE_CODES = {
  CATALOGUE_MISSING: 'no catalogue at the location given (create one with catalogue import)',
  CATALOGUE_NO_SAMPLE: 'the catalogue file does not exist and there is no sample to create it from',
  CATALOGUE_OPEN: 'the catalogue (SQLite file or PostgreSQL database) cannot be opened',
  CATALOGUE_PG_DRIVER:
    'a postgres:// catalogue without the PostgreSQL driver installed (npm install pg pg-copy-streams)',
  CATALOGUE_SCHEMA: 'not a lexroute catalogue, or a schema version this release cannot use',
  CATALOGUE_CORRUPT: 'the catalogue names a work it does not store',
  CATALOGUE_UNAVAILABLE: 'the resolver cannot read the catalogue (503)',
  ALIAS_CONFLICT: 'an alias already names another work of the catalogue',
  IMPORT_UNREADABLE: 'the file to import cannot be read',
  CSV_BAD_HEADER: 'the CSV header is missing, malformed, has an unknown column or no urn column',
  CSV_COLUMN_COUNT: 'a CSV line with another number of fields than the header',
  CSV_BAD_QUOTE: 'a misplaced quote in a CSV field',
  CSV_UNTERMINATED: 'a quoted CSV field not closed before the end of the file',
  REGISTRY_UNREADABLE: 'a LexML registry file cannot be read',
  REGISTRY_BAD_FILE: 'a LexML registry file without its header line or a needed column',
} as const;

export type CatalogueCode = keyof typeof CATALOGUE_CODES;

/** A catalogue problem at the storage edge; here, not in store.ts, so reporting it does not load `node:sqlite`. */
export class CatalogueError extends Error {
  readonly code: CatalogueCode;
  constructor(code: CatalogueCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CatalogueError';
    this.code = code;
  }
}
