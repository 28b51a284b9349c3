/**
 * Open the catalogue a resolver serves, creating it from the sample rows in
 * the repository when the file does not exist yet (so `lexroute resolver`
 * works on a fresh clone with no other step).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyseLexUrn } from '../core/catalogue/from-urn.ts';
import { importFile, type ImportRowError, type ImportSummary } from './import.ts';
import { CatalogueError, SqliteCatalogue } from './store.ts';

/** The sample rows shipped with lexroute (`data/sample-catalogue.jsonl`). */
export const BUNDLED_SAMPLE = fileURLToPath(
  new URL('../../data/sample-catalogue.jsonl', import.meta.url),
);

export interface EnsureResult {
  readonly store: SqliteCatalogue;
  /** Set when the file was created from the sample. */
  readonly seeded?: {
    readonly from: string;
    readonly summary: ImportSummary;
    readonly errors: readonly ImportRowError[];
  };
}

/**
 * Open `path`; when it does not exist, create it and import `samplePath`
 * (relative to `cwd`, falling back to the bundled sample).
 */
export async function ensureCatalogue(
  path: string,
  samplePath: string,
  cwd: string,
): Promise<EnsureResult> {
  const file = isAbsolute(path) ? path : resolve(cwd, path);
  if (existsSync(file)) return { store: new SqliteCatalogue(file) };
  let sample = isAbsolute(samplePath) ? samplePath : resolve(cwd, samplePath);
  if (!existsSync(sample)) sample = BUNDLED_SAMPLE;
  if (!existsSync(sample)) {
    throw new CatalogueError(
      'CATALOGUE_NO_SAMPLE',
      `${file} does not exist and there is no sample catalogue to create it from`,
    );
  }
  const store = new SqliteCatalogue(file);
  const errors: ImportRowError[] = [];
  try {
    const summary = await importFile(store, sample, {
      analyse: analyseLexUrn,
      onError: (e) => errors.push(e),
    });
    return { store, seeded: { from: sample, summary, errors } };
  } catch (e) {
    store.close();
    throw e;
  }
}
