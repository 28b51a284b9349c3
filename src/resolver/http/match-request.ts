/**
 * The match part of the request path: the URN (one layer of percent-encoding
 * undone) looked up exactly or parsed, then matched, through the registries'
 * rewrites when they help. Answers only the URN's own errors (400).
 */
import type { CatalogueReader, MatchQuery, UrnAnalyser } from '../core/model.ts';
import {
  resolveQuery,
  type MatchOptions,
  type MatchReason,
  type Resolution,
} from '../core/match.ts';
import type { Registry, RegistryResult } from '../core/registry.ts';
import { exactLookup } from '../core/exact.ts';
import type { ResolverConfig } from '../../config/resolver.ts';
import type { Responder } from './respond.ts';
import type { AppRequest, AppResponse, Service } from './types.ts';

export interface Matcher {
  readonly analyse: UrnAnalyser;
  readonly matching: ResolverConfig['matching'];
  /** Look a plain canonical work URN up before parsing it. */
  readonly exactFastPath: boolean;
  readonly registry?: Registry | undefined;
}

/** What the catalogue says about a request's URN, with the registries' notes. */
export interface Matched {
  readonly r: Resolution;
  readonly notes: RegistryResult | null;
}

/** Match a request's URN: what the catalogue holds for it, or the 400 answer for a bad URN. */
export function matchRequest(
  m: Matcher,
  req: AppRequest,
  service: Service,
  rawUrn: string,
  reader: CatalogueReader,
  out: Responder,
): Matched | AppResponse {
  let text = rawUrn;
  // A client that percent-encoded the whole URN (urn%3Alex%3A...): undo that one layer.
  if (/^urn%3a/i.test(text)) {
    try {
      text = decodeURIComponent(text);
    } catch {
      return out.problem('INVALID_URN', 'the URN is percent-encoded but does not decode as UTF-8', {
        urn: rawUrn,
      });
    }
  }
  // A work named exactly as catalogued skips the URN parser (core/match/exact.ts).
  const exact = m.exactFastPath ? exactLookup(text, reader) : undefined;
  let query = exact?.query ?? null;
  if (query === null) {
    const a = m.analyse(text);
    if (!a.ok) {
      const e = a.error;
      return out.problem('INVALID_URN', e.message, {
        urn: text,
        urnCode: e.code,
        ...(e.span ? { position: { start: e.span.start, end: e.span.end } } : {}),
      });
    }
    query = a.value;
  }
  return match(m.registry, query, exact?.reader ?? reader, {
    accept: service === 'N2L' ? (req.header('accept') ?? null) : null,
    acceptLanguage: req.header('accept-language') ?? null,
    minScore: m.matching.minScore,
    ambiguityMargin: m.matching.ambiguityMargin,
    maxCandidates: m.matching.maxCandidates,
  });
}

/**
 * Match; when not an exact name and the registries rewrite some elements,
 * match the rewritten query too: it wins when it finds a work (with
 * REGISTRY_REWRITE reasons), or is ambiguous where the original found nothing.
 */
function match(
  registry: Registry | undefined,
  query: MatchQuery,
  reader: CatalogueReader,
  opts: MatchOptions,
): Matched {
  const r = resolveQuery(query, reader, opts);
  if (registry === undefined || (r.kind === 'found' && r.exact)) return { r, notes: null };
  const notes = registry.rewrite(query);
  if (notes.rewrites.length === 0) return { r, notes };
  const r2 = resolveQuery(notes.query, reader, opts);
  if (r2.kind === 'found') {
    const reasons: MatchReason[] = notes.rewrites.map((w) => ({
      code: 'REGISTRY_REWRITE',
      message: w.message,
      penalty: 0,
    }));
    return { r: { ...r2, reasons: [...reasons, ...r2.reasons] }, notes };
  }
  if (r2.kind === 'ambiguous' && r.kind === 'not-found') return { r: r2, notes };
  return { r, notes };
}
