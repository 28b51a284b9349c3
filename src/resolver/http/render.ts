/**
 * The last part of the request path: what the match found, as the answer of
 * the service asked, one renderer per media type (Accept picks; the first is
 * the default). RFC 2169 section 3.1 (N2L: 303, 302 to HTTP/1.0); RFC 2483
 * section 5 (text/uri-list: the first line a comment giving the URI).
 */
import type { CatalogueExpression, CatalogueManifestation, CatalogueWork } from '../core/model.ts';
import { effectiveDate, type Found, type Location, type Resolution } from '../core/match.ts';
import { chooseMediaType } from '../core/negotiate.ts';
import type { Matched } from './match-request.ts';
import { REASONS, type Responder } from './respond.ts';
import type { AppRequest, AppResponse, Service } from './types.ts';
import { HTTP_STATUS } from './codes.ts';

/** What a renderer gets: the found work, the request and the response builder. */
export interface RenderContext {
  readonly found: Found;
  readonly req: AppRequest;
  readonly accept: string | null;
  readonly out: Responder;
}

/** One representation of a service's answer. */
export interface Renderer {
  /** The media type it produces, as negotiated against Accept. */
  readonly type: string;
  render(ctx: RenderContext): AppResponse;
}

/** 200 with the service's body, the negotiated headers and the `found` cache policy. */
function ok(ctx: RenderContext, contentType: string, body: string): AppResponse {
  const { out } = ctx;
  return out.send(
    200,
    { 'content-type': contentType, ...out.vary },
    body,
    out.config.cacheControl.found,
  );
}

const N2L_REDIRECT: Renderer = {
  type: '*/*',
  render(ctx) {
    const { found, req, out } = ctx;
    const best = found.locations[0] as Location;
    const status = req.httpVersion === '1.0' ? 302 : 303;
    return out.send(
      status,
      { location: best.url, 'content-type': 'text/plain; charset=utf-8', ...out.vary },
      `${REASONS[status]}: ${best.url}\n`,
      out.config.cacheControl.found,
    );
  },
};

const N2LS_URI_LIST: Renderer = {
  type: 'text/uri-list',
  render: (ctx) => ok(ctx, 'text/uri-list', uriList(ctx.found)),
};

const N2LS_JSON: Renderer = {
  type: 'application/json',
  render(ctx) {
    const { found } = ctx;
    const body = {
      urn: found.query.urn,
      work: found.work.urn,
      expression: found.expression.urn,
      score: found.score,
      exact: found.exact,
      reasons: found.reasons,
      locations: found.locations.map(locationJson),
    };
    return ok(ctx, 'application/json', `${JSON.stringify(body, null, 2)}\n`);
  },
};

const N2LS_HTML: Renderer = {
  type: 'text/html',
  render(ctx) {
    const { found } = ctx;
    const body =
      `<!doctype html>\n<title>${escapeHtml(found.query.urn)}</title>\n<ul>\n` +
      found.locations
        .map((l) => `<li><a href="${escapeHtml(l.url)}">${escapeHtml(l.url)}</a></li>\n`)
        .join('') +
      '</ul>\n';
    return ok(ctx, 'text/html; charset=utf-8', body);
  },
};

const N2LS_TEXT: Renderer = {
  type: 'text/plain',
  render: (ctx) => ok(ctx, 'text/plain; charset=utf-8', uriList(ctx.found)),
};

const N2C_JSON: Renderer = {
  type: 'application/json',
  render: (ctx) => ok(ctx, 'application/json', `${JSON.stringify(describe(ctx.found), null, 2)}\n`),
};

/**
 * N2C for people (preferring text/html): title, best link, then each
 * expression with its formats and links; the selected expression first, in
 * the answer's location order, the others in the catalogue's order.
 */
const N2C_HTML: Renderer = {
  type: 'text/html',
  render(ctx) {
    const { found } = ctx;
    const w = found.work;
    const title = w.title ? w.title : w.urn;
    const best = found.locations[0]?.url ?? '';
    const selected = w.expressions.filter((e) => e.urn === found.expression.urn);
    const others = w.expressions.filter((e) => e.urn !== found.expression.urn);
    const expressions = [...selected, ...others].map((e) => expressionHtml(found, e)).join('');
    const body =
      `<!doctype html>\n<html lang="en">\n<meta charset="utf-8">\n` +
      `<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
      `<title>${escapeHtml(title)}</title>\n${PAGE_STYLE}` +
      `<main>\n<h1>${escapeHtml(title)}</h1>\n<p>Work <code>${escapeHtml(w.urn)}</code>, ` +
      `asked as <code>${escapeHtml(found.query.urn)}</code></p>\n` +
      `<p>Best link: <a id="best" href="${escapeHtml(best)}">${escapeHtml(best)}</a></p>\n` +
      `${expressions}</main>\n</html>\n`;
    return ok(ctx, 'text/html; charset=utf-8', body);
  },
};

const PAGE_STYLE =
  `<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem}` +
  `a,code{overflow-wrap:anywhere}.selected{border-left:4px solid #1a5fb4;padding-left:0.75rem}</style>\n`;

/** An expression's date: "in force from" for a catalogued in-force date, else the effective date, said as such. */
function dateFact(w: CatalogueWork, e: CatalogueExpression): string {
  if (e.inForce !== null) return `in force from ${e.inForce}`;
  const effective = effectiveDate(w, e);
  return effective === null ? '' : `dated ${effective} (no in-force date catalogued)`;
}

/** One expression: its facts and its formats, best first. */
function expressionHtml(found: Found, e: CatalogueExpression): string {
  const selected = e.urn === found.expression.urn;
  const facts = [
    e.key.version ? `version ${e.key.version}` : 'original version',
    e.key.language ? `language ${e.key.language}` : '',
    dateFact(found.work, e),
    selected ? 'selected' : '',
  ].filter((f) => f !== '');
  const rank = (m: CatalogueManifestation): number => {
    const at = selected ? found.locations.findIndex((l) => l.manifestation === m.urn) : -1;
    // Items are stored by priority: the first is the manifestation's best.
    return at >= 0 ? at : found.locations.length + (m.items[0]?.priority ?? 65536);
  };
  const formats = [...e.manifestations]
    .sort((a, b) => rank(a) - rank(b))
    .map((m) => {
      const name = [m.key.format, m.key.editor, m.key.component, m.key.feature]
        .filter((x) => x)
        .join(', ');
      const items = m.items
        .map((i) => `<a href="${escapeHtml(i.url)}">${escapeHtml(i.url)}</a>`)
        .join('<br>');
      return `<li><span class="format">${escapeHtml(name || m.urn)}</span>: ${items}</li>\n`;
    })
    .join('');
  return (
    `<section${selected ? ' class="selected" aria-current="true"' : ''}>\n` +
    `<h2><code>${escapeHtml(e.urn)}</code></h2>\n<p>${escapeHtml(facts.join(' · '))}</p>\n` +
    `<ul>\n${formats}</ul>\n</section>\n`
  );
}

const N2NS_URI_LIST: Renderer = {
  type: 'text/uri-list',
  render(ctx) {
    const { found } = ctx;
    const lines = [`# ${found.query.urn}`, ...found.work.names.map((n) => n.urn)];
    return ok(ctx, 'text/uri-list', `${lines.join('\r\n')}\r\n`);
  },
};

/** Each service's representations, the default first. */
export const RENDERERS: Record<Service, readonly Renderer[]> = {
  N2L: [N2L_REDIRECT],
  N2Ls: [N2LS_URI_LIST, N2LS_JSON, N2LS_HTML, N2LS_TEXT],
  N2C: [N2C_JSON, N2C_HTML],
  N2Ns: [N2NS_URI_LIST],
};

/** The renderer Accept prefers among the service's, else the service's default. */
export function chooseRenderer(service: Service, accept: string | null): Renderer {
  const offered = RENDERERS[service];
  const first = offered[0] as Renderer;
  if (offered.length === 1) return first;
  const type = chooseMediaType(
    accept,
    offered.map((r) => r.type),
  );
  return offered.find((r) => r.type === type) ?? first;
}

/** The answer to a matched request: the service's representation, or the problem. */
export function render(
  matched: Matched,
  service: Service,
  req: AppRequest,
  out: Responder,
): AppResponse {
  const { r, notes } = matched;
  const accept = req.header('accept') ?? null;
  switch (r.kind) {
    case 'invalid':
      return out.problem(r.code, r.message, { urn: r.query.urn });
    case 'not-found': {
      const registry =
        notes && (notes.rewrites.length > 0 || notes.ambiguous.length > 0)
          ? { registry: { rewrites: notes.rewrites, ambiguous: notes.ambiguous } }
          : {};
      return out.problem(
        r.code,
        r.message,
        { urn: r.query.urn, ...(r.work ? { work: r.work.urn } : {}), ...registry },
        out.vary,
      );
    }
    case 'ambiguous':
      return ambiguous(r, accept, out);
    case 'found':
      return chooseRenderer(service, accept).render({ found: r, req, accept, out });
  }
}

interface ProblemBody {
  readonly title?: string;
  readonly status?: number;
  readonly code?: string;
  readonly detail?: string;
  readonly urn?: string;
  readonly candidates?: readonly { urn: string; title: string | null; url: string | null }[];
}

/**
 * A problem about a URN as a page, for a request preferring `text/html`:
 * same status, code, detail and candidates, and a link back to the page.
 * Other clients keep problem+json (RFC 9457); both carry `Vary: Accept`.
 */
export function problemForPeople(res: AppResponse, req: AppRequest, out: Responder): AppResponse {
  if (res.headers['content-type'] !== 'application/problem+json') return res;
  const type = chooseMediaType(req.header('accept') ?? null, [
    'application/problem+json',
    'application/json',
    'text/html',
  ]);
  if (type !== 'text/html') return { ...res, headers: { ...res.headers, ...out.vary } };
  const p = JSON.parse(res.body) as ProblemBody;
  const title = `${res.status} ${p.title ?? ''}`.trim();
  const candidates = (p.candidates ?? [])
    .map((c) => {
      const link = c.url ? ` <a href="${escapeHtml(c.url)}">${escapeHtml(c.url)}</a>` : '';
      const name = c.title ? ` ${escapeHtml(c.title)}` : '';
      return `<li><code>${escapeHtml(c.urn)}</code>${name}${link}</li>\n`;
    })
    .join('');
  const body =
    `<!doctype html>\n<html lang="en">\n<meta charset="utf-8">\n` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `<title>${escapeHtml(title)}</title>\n${PAGE_STYLE}<main>\n<h1>${escapeHtml(title)}</h1>\n` +
    (p.urn !== undefined ? `<p>URN <code>${escapeHtml(p.urn)}</code></p>\n` : '') +
    `<p id="detail">${escapeHtml(p.detail ?? '')}</p>\n` +
    (candidates !== '' ? `<ul id="candidates">\n${candidates}</ul>\n` : '') +
    `<p>Code <code id="code">${escapeHtml(p.code ?? '')}</code>. ` +
    `<a href="/">Resolve another URN</a></p>\n</main>\n</html>\n`;
  const headers = { ...res.headers, 'content-type': 'text/html; charset=utf-8', ...out.vary };
  return out.send(res.status, headers, body, res.headers['cache-control'] ?? '', res.code);
}

/** 300 Multiple Choices: the candidates as text/uri-list, or problem+json. */
function ambiguous(
  r: Extract<Resolution, { kind: 'ambiguous' }>,
  accept: string | null,
  out: Responder,
): AppResponse {
  const type = chooseMediaType(accept, [
    'application/problem+json',
    'application/json',
    'text/uri-list',
  ]);
  if (type === 'text/uri-list') {
    const lines = [`# ${r.query.urn}`];
    for (const c of r.candidates) {
      lines.push(
        `# ${c.work.urn} (score ${c.score}${c.work.title ? `, ${c.work.title.replace(/[\r\n]/g, ' ')}` : ''})`,
      );
      if (c.best) lines.push(c.best.url);
    }
    return out.send(
      HTTP_STATUS.AMBIGUOUS_URN,
      { 'content-type': 'text/uri-list', ...out.vary },
      `${lines.join('\r\n')}\r\n`,
      out.config.cacheControl.ambiguous,
      'AMBIGUOUS_URN',
    );
  }
  return out.problem(
    'AMBIGUOUS_URN',
    `${r.query.urn} matches ${r.candidates.length} catalogued works equally well; choose one`,
    {
      urn: r.query.urn,
      candidates: r.candidates.map((c) => ({
        urn: c.work.urn,
        title: c.work.title,
        score: c.score,
        matchedName: c.matchedName,
        reasons: c.reasons,
        url: c.best?.url ?? null,
      })),
    },
    out.vary,
  );
}

/** text/uri-list: the URN as a comment, then the URLs, CRLF line ends. */
function uriList(found: Found): string {
  return `${[`# ${found.query.urn}`, ...found.locations.map((l) => l.url)].join('\r\n')}\r\n`;
}

/** One location in N2Ls JSON and N2C (`partitionApplied`: see `PartitionApplied`). */
function locationJson(l: Location): Record<string, unknown> {
  return {
    url: l.url,
    fragment: l.fragment,
    partitionApplied: l.partitionApplied,
    partitionDepth: l.partitionDepth,
    manifestation: l.manifestation,
    mediaType: l.mediaType,
    format: l.format,
    editor: l.editor,
    component: l.component,
    feature: l.feature,
    language: l.language,
    priority: l.priority,
  };
}

/** The N2C description: what the catalogue holds for the work and what was selected. */
export function describe(found: Found): Record<string, unknown> {
  const w: CatalogueWork = found.work;
  return {
    urn: found.query.urn,
    partition: found.query.partition,
    match: {
      exact: found.exact,
      score: found.score,
      matchedName: found.matchedName,
      reasons: found.reasons,
    },
    work: {
      urn: w.urn,
      title: w.title,
      aliases: w.names.filter((n) => n.alias).map((n) => n.urn),
      expressions: w.expressions.map((e) => ({
        urn: e.urn,
        version: e.key.version,
        language: e.key.language,
        inForce: e.inForce,
        effective: effectiveDate(w, e),
        manifestations: e.manifestations.map((m) => ({
          urn: m.urn,
          editor: m.key.editor,
          format: m.key.format,
          component: m.key.component,
          feature: m.key.feature,
          partitionDepth: m.partitionDepth,
          items: m.items.map((i) => ({ url: i.url, priority: i.priority })),
        })),
      })),
    },
    selected: {
      expression: found.expression.urn,
      locations: found.locations.map(locationJson),
    },
  };
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
