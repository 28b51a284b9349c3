/**
 * The catalogue contract's two stores side by side: SQLite (a file in a
 * temporary folder) and PostgreSQL (a database on a server the harness
 * starts, see ../helpers/postgres.ts), opened and read the same way.
 */
import { join } from 'node:path';
import { analyseReference } from '../../src/resolver/core/from-urn.ts';
import { resolveQuery, type MatchOptions, type Resolution } from '../../src/resolver/core/match.ts';
import { exportCatalogue, exportWorks } from '../../src/resolver/catalogue/export.ts';
import { openCatalogue, type OpenedCatalogue } from '../../src/resolver/catalogue/open.ts';
import { withScratch } from '../../src/resolver/catalogue/prefetch.ts';
import { DEFAULT_RESOLVER_CONFIG } from '../../src/config/resolver.ts';
import { createResolverApp, type ResolverApp } from '../../src/resolver/http/app.ts';
import type { TestPostgres } from '../helpers/postgres.ts';

export type StoreKind = 'sqlite' | 'postgres';

let databases = 0;

/** A new, empty catalogue of this kind. */
export async function freshCatalogue(
  kind: StoreKind,
  dir: string,
  pg: TestPostgres | undefined,
): Promise<{ opened: OpenedCatalogue; location: string }> {
  const name = `c${databases++}`;
  const location =
    kind === 'sqlite'
      ? join(dir, `${name}.sqlite`)
      : await (pg as TestPostgres).createDatabase(`lexroute_${name}`);
  return { opened: await openCatalogue(location, dir), location };
}

/** Resolve a URN against either store, as the resolver does. */
export async function resolveIn(
  c: OpenedCatalogue,
  urn: string,
  options: MatchOptions = {},
): Promise<Resolution | { kind: 'bad-urn'; code: string }> {
  const a = analyseReference(urn);
  if (!a.ok) return { kind: 'bad-urn', code: a.error.code };
  const q = a.value;
  if (c.kind === 'sqlite') return resolveQuery(q, c.store, options);
  return withScratch(c.store, (r) => resolveQuery(q, r, options));
}

/** The export of either store as JSON Lines text. */
export async function exportText(c: OpenedCatalogue): Promise<string> {
  let text = '';
  const write = (l: string) => {
    text += l;
  };
  if (c.kind === 'sqlite') exportCatalogue(c.store, 'jsonl', write);
  else await exportWorks(c.store.works(), 'jsonl', write);
  return text;
}

/** The resolver's HTTP app over either store (no answer cache). */
export function appFor(c: OpenedCatalogue): ResolverApp {
  return c.kind === 'sqlite'
    ? createResolverApp({
        reader: c.store,
        analyse: analyseReference,
        config: DEFAULT_RESOLVER_CONFIG,
      })
    : createResolverApp({
        source: c.store,
        analyse: analyseReference,
        config: DEFAULT_RESOLVER_CONFIG,
      });
}

/** GET through the app. */
export async function get(
  app: ResolverApp,
  target: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; location?: string; body: string }> {
  const r = await app.respond({
    method: 'GET',
    target,
    header: (h) => headers[h],
    httpVersion: '1.1',
  });
  return { status: r.status, location: r.headers.location, body: r.body };
}

/** A comparable summary of a resolution (work ids differ between stores). */
export function summary(r: Awaited<ReturnType<typeof resolveIn>>): unknown {
  switch (r.kind) {
    case 'bad-urn':
      return r;
    case 'found':
      return {
        kind: r.kind,
        work: r.work.urn,
        score: r.score,
        exact: r.exact,
        matched: r.matchedName,
        reasons: r.reasons.map((x) => x.code),
        urls: r.locations.map((l) => l.url),
      };
    case 'ambiguous':
      return { kind: r.kind, candidates: r.candidates.map((c) => [c.work.urn, c.score]) };
    case 'not-found':
      return { kind: r.kind, code: r.code, work: r.work?.urn ?? null };
    case 'invalid':
      return { kind: r.kind, code: r.code };
  }
}

/**
 * A generated catalogue with every shape of row: works alone, expressions
 * without manifestation, manifestations with and without expression, with
 * several items, aliases, several numbers, periods, partition depths.
 */
export function shapesRows(n: number): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const date = `${1990 + (i % 30)}-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`;
    const w = `urn:lex:br;rio.de.janeiro:estadual:lei:${date};${5000 + i}`;
    switch (i % 6) {
      case 0:
        rows.push({ urn: w, title: `Lei ${i}` });
        rows.push({ urn: `${w}$alerj.rj.gov.br:text-html`, url: `https://alerj.example/${i}` });
        break;
      case 1:
        rows.push({ urn: `${w}@2010-01-01:pt`, inForce: '2010-02-01' });
        rows.push({
          urn: `${w}@original:pt$alerj.rj.gov.br:text-html`,
          url: `https://alerj.example/${i}/o`,
          partitionDepth: 1,
        });
        rows.push({
          urn: `${w}@2010-01-01:pt$alerj.rj.gov.br:text-html`,
          url: `https://alerj.example/${i}/2010`,
        });
        break;
      case 2:
        rows.push({
          urn: `${w}$doerj.rj.gov.br:application-pdf`,
          url: `https://doerj.example/${i}.pdf`,
          priority: 20,
          aliases: [`urn:lex:br;rio.de.janeiro:assembleia.legislativa:lei:${date};${5000 + i}`],
        });
        rows.push({
          urn: `${w}$doerj.rj.gov.br:application-pdf`,
          url: `https://mirror.example/${i}.pdf`,
          priority: 30,
        });
        break;
      case 3:
        rows.push({
          urn: `urn:lex:br;rio.de.janeiro:tribunal.justica:acordao:${date};${i},${i + 100000}$tjrj.jus.br:text-html`,
          url: `https://tjrj.example/${i}`,
          partitionDepth: 0,
        });
        break;
      case 4:
        rows.push({
          urn: `urn:lex:br;rio.de.janeiro:estadual:resolucao:${1990 + (i % 30)};${i}.legislatura@original:pt$alerj.rj.gov.br:text-html`,
          url: `https://alerj.example/res/${i}`,
        });
        break;
      default:
        rows.push({
          urn: `${w}@2015-05-05:en$alerj.rj.gov.br:text-html`,
          url: `https://alerj.example/${i}/en`,
        });
        rows.push({
          urn: `${w}$alerj.rj.gov.br:text-html:anexo.1`,
          url: `https://alerj.example/${i}/anexo`,
        });
    }
  }
  return rows;
}
