/**
 * The sample catalogue (`data/sample-catalogue.jsonl`) in a fresh SQLite
 * file, and a resolver app over it: the set-up the resolver tests share.
 */
import { join } from 'node:path';
import { ensureCatalogue } from '../../src/resolver/catalogue/open.ts';
import type { SqliteCatalogue } from '../../src/resolver/catalogue/store.ts';
import { DEFAULT_RESOLVER_CONFIG, type ResolverConfig } from '../../src/config/resolver.ts';
import { analyseReference } from '../../src/resolver/core/from-urn.ts';
import { createResolverApp, type ResolverApp } from '../../src/resolver/http/app.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

/** The sample rows imported into `dir/file` (a new file each time). */
export async function sampleCatalogue(
  dir: string,
  file = 'catalogue.sqlite',
): Promise<SqliteCatalogue> {
  const opened = await ensureCatalogue(
    join(dir, file),
    join(ROOT, 'data/sample-catalogue.jsonl'),
    ROOT,
  );
  return opened.store;
}

/** The resolver app over `store`, with the URN analyser and the default (or given) configuration. */
export function sampleApp(
  store: SqliteCatalogue,
  config: ResolverConfig = DEFAULT_RESOLVER_CONFIG,
): ResolverApp {
  return createResolverApp({ reader: store, analyse: analyseReference, config });
}

/** GET `target` from `app` over HTTP/1.1, with an Accept header when given. */
export function getFrom(app: ResolverApp, target: string, accept?: string): Promise<Response> {
  return app.fetch(
    new Request(`http://resolver.test${target}`, { headers: accept ? { accept } : {} }),
    { httpVersion: '1.1' },
  );
}
