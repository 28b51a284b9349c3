/**
 * `lexroute/catalogue`: the resolver's catalogue. The pure URN-to-URL
 * matching (RFC 9676 section 10.3) over any `CatalogueReader`, an in-memory
 * catalogue, and the SQLite catalogue (`node:sqlite`) with import and export
 * (JSON Lines, CSV).
 */
export * from '../core/index.ts';
export { SqliteCatalogue, CatalogueError, CatalogueWriter, type OpenOptions } from './store.ts';
export {
  importFile,
  type ImportOptions,
  type ImportRowError,
  type ImportSummary,
  type RowFormat,
} from './import.ts';
export { exportCatalogue, exportRows } from './export.ts';
export { ensureCatalogue, BUNDLED_SAMPLE } from './open.ts';
