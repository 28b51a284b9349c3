/** Open the catalogue a resolver serves, created from the sample rows when missing (a fresh clone just works). */
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyseLexUrn } from '../core/from-urn.ts';
import { importFile, type ImportRowError, type ImportSummary } from './import.ts';
import { CatalogueError, SqliteCatalogue, type Counts } from './store.ts';
import { isPostgresUrl, PgCatalogue } from './pg.ts';

/** The sample rows shipped with lexroute (`data/sample-catalogue.jsonl`). */
export const BUNDLED_SAMPLE = fileURLToPath(
  new URL('../../../data/sample-catalogue.jsonl', import.meta.url),
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

/** A catalogue of either kind, opened. */
export type OpenedCatalogue =
  | { readonly kind: 'sqlite'; readonly store: SqliteCatalogue; readonly label: string }
  | { readonly kind: 'postgres'; readonly store: PgCatalogue; readonly label: string };

export interface OpenCatalogueOptions {
  /** Never write: no creation, no migration (the resolver). */
  readonly readOnly?: boolean;
  /** Create a catalogue where there is none (default true unless read-only). */
  readonly create?: boolean;
}

/** Open a `postgres://` URL or a SQLite file (read-only and missing: CATALOGUE_MISSING; writable: created). */
export async function openCatalogue(
  location: string,
  cwd: string,
  options: OpenCatalogueOptions = {},
): Promise<OpenedCatalogue> {
  const create = options.create ?? !options.readOnly;
  if (isPostgresUrl(location)) {
    const store = await PgCatalogue.open(location, { readOnly: !create });
    return { kind: 'postgres', store, label: store.label };
  }
  const file = isAbsolute(location) ? location : resolve(cwd, location);
  if (!create && !existsSync(file)) {
    throw new CatalogueError(
      'CATALOGUE_MISSING',
      `${location}: no such catalogue (create one with lexroute catalogue import --catalogue ${location} <rows.jsonl>)`,
    );
  }
  const store = new SqliteCatalogue(file, {
    readOnly: options.readOnly ?? false,
    create,
  });
  return { kind: 'sqlite', store, label: location };
}

/** Close either kind. */
export async function closeCatalogue(c: OpenedCatalogue): Promise<void> {
  await c.store.close();
}

/** The running counts of either kind. */
export async function catalogueCounts(c: OpenedCatalogue): Promise<Counts> {
  return c.store.counts();
}
