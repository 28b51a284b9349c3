/**
 * The resolution page: plain HTML and its script (`src/page/main.ts`),
 * bundled by esbuild on first request in a checkout, else the built
 * `dist/browser/lexroute-page.js`.
 */
import { readFile } from 'node:fs/promises';
import { chooseMediaType } from '../core/negotiate.ts';
import { escapeHtml } from './render.ts';
import type { Responder } from './respond.ts';
import type { AppRequest, AppResponse } from './types.ts';

export const PAGE_SCRIPT_PATH = '/lexroute-page.js';

export interface PageOptions {
  /** The DoH URL the page uses unless the person types another (empty: they must). */
  readonly doh: () => string;
  /** The bundled script (see `pageScript`). */
  readonly script: () => Promise<string>;
  /** Trust anchors (DS or DNSKEY records, zone-file form): with some, the page validates by default. */
  readonly trustAnchors?: () => string;
}

/** The page's style sheet (readable on a phone; focus always visible). */
const PAGE_STYLE = `  body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 60rem; padding: 1rem; }
  label { display: block; font-weight: 600; margin-top: 0.75rem; }
  input, select, button { font: inherit; max-width: 100%; box-sizing: border-box; }
  input[type=text], input[type=url], textarea { width: 100%; padding: 0.4rem; box-sizing: border-box; font: 0.85rem monospace; }
  label:has(#validate) { font-weight: 400; }
  button { margin-top: 0.75rem; padding: 0.4rem 1.2rem; }
  :focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f4f4f4; padding: 0.75rem; font-size: 0.85rem; }
  #links li { overflow-wrap: anywhere; margin: 0.25rem 0; }
  #error { color: #a51d2d; font-weight: 600; }
  #status { color: #555; }
  code { font-size: 0.9em; overflow-wrap: anywhere; }
  dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.1rem 0.75rem; margin: 0.5rem 0; }
  dl.facts dt { font-weight: 600; }
  dl.facts dd { margin: 0; overflow-wrap: anywhere; }
  ol.steps { list-style: none; padding: 0; }
  li.step { border: 1px solid #ccc; border-left: 4px solid #1a5fb4; border-radius: 4px; padding: 0.5rem 0.75rem; margin: 0.75rem 0; }
  li.step h3 { font-size: 1rem; margin: 0; overflow-wrap: anywhere; }
  li.step h4 { font-size: 0.95rem; margin: 0.5rem 0 0.25rem; }
  ol.records { padding-left: 1.25rem; }
  ol.records li { margin: 0.35rem 0; overflow-wrap: anywhere; }
  ol.records li[data-fate=skipped] { color: #555; }
  .fate { font-weight: 600; margin-right: 0.25rem; }
  li[data-fate=used] .fate { color: #26a269; }
  .reason { display: block; font-size: 0.9rem; }
  .outcome, .punycode { margin: 0.4rem 0; overflow-wrap: anywhere; }
  .step-error { color: #a51d2d; }
  summary { cursor: pointer; margin-top: 1rem; }
  @media (max-width: 30rem) { dl.facts { grid-template-columns: 1fr; } dl.facts dd { margin-left: 0.75rem; } }
`;

/** The page's HTML, with the DoH URL and trust anchors filled in. */
export function pageHtml(doh: string, anchors = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>lexroute: resolve a LEX URN</title>
<style>
${PAGE_STYLE}</style>
</head>
<body>
<main>
<h1>Resolve a LEX URN</h1>
<p>Your browser walks the DDDS chain itself: NAPTR lookups over DNS over HTTPS
(RFC 8484), then the jurisdiction resolver over THTTP (RFC 2169).</p>
<form id="resolve">
  <label for="urn">URN</label>
  <input id="urn" name="urn" type="text" required autofocus spellcheck="false" autocomplete="off"
    placeholder="urn:lex:it:stato:legge:2000-04-03;56~art1">
  <label for="service">Service</label>
  <select id="service" name="service">
    <option value="N2L">N2L: the best URL</option>
    <option value="N2Ls">N2Ls: all URLs</option>
    <option value="N2C">N2C: the catalogue description</option>
  </select>
  <label for="doh">DNS over HTTPS URL</label>
  <input id="doh" name="doh" type="url" required value="${escapeHtml(doh)}"
    placeholder="https://dns.example/dns-query">
  <label><input id="validate" name="validate" type="checkbox"${anchors.trim() !== '' ? ' checked' : ''}>
    Validate DNSSEC here (WebCrypto), from the trust anchors below</label>
  <details id="anchors-box"${anchors.trim() !== '' ? ' data-given="true"' : ''}>
  <summary>Trust anchors (empty: the root's keys, KSK-2017 and KSK-2024)</summary>
  <textarea id="anchors" name="anchors" rows="3" spellcheck="false"
    aria-label="Trust anchors: DS or DNSKEY records">${escapeHtml(anchors.trim())}</textarea>
  </details>
  <button type="submit">Resolve</button>
</form>
<p id="status" role="status" aria-live="polite"></p>
<p id="dnssec" hidden></p>
<p id="error" role="alert" hidden></p>
<h2>Links</h2>
<ul id="links"></ul>
<h2>Steps</h2>
<section id="steps" aria-label="DDDS steps"></section>
<details id="trace-text">
<summary>The trace as text (as <code>lexroute resolve --trace</code> prints it)</summary>
<pre id="trace" tabindex="0" aria-label="DDDS trace as text"></pre>
</details>
</main>
<script src="${PAGE_SCRIPT_PATH}" defer></script>
</body>
</html>
`;
}

let bundled: Promise<string> | undefined;

/** The page's script: bundled once in a checkout (this module runs as .ts), else the built file. */
export function pageScript(): Promise<string> {
  bundled ??= (
    import.meta.url.endsWith('.ts')
      ? bundleFromSources()
      : readFile(new URL('../../browser/lexroute-page.js', import.meta.url), 'utf8')
  ).catch((e: unknown) => {
    bundled = undefined;
    throw e;
  });
  return bundled;
}

/** esbuild the page script and the browser client into one minified IIFE. */
export async function bundleFromSources(outfile?: string): Promise<string> {
  const { build } = await import('esbuild');
  const r = await build({
    entryPoints: [new URL('../../page/main.ts', import.meta.url).pathname],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    conditions: ['lexroute-source'],
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    write: outfile !== undefined,
    ...(outfile !== undefined ? { outfile } : {}),
    logLevel: 'silent',
  });
  return outfile !== undefined ? readFile(outfile, 'utf8') : (r.outputFiles?.[0]?.text ?? '');
}

/** The page's routes: `/` for a request preferring HTML, and the script; undefined for the rest. */
export function pageRoute(
  req: AppRequest,
  out: Responder,
  page: PageOptions,
): AppResponse | Promise<AppResponse> | undefined {
  const method = req.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  const q = req.target.indexOf('?');
  const path = q < 0 ? req.target : req.target.slice(0, q);
  if (path === '/') {
    if (chooseMediaType(req.header('accept'), ['text/plain', 'text/html']) !== 'text/html') {
      return undefined;
    }
    return out.send(
      200,
      { 'content-type': 'text/html; charset=utf-8', vary: 'Accept' },
      pageHtml(page.doh(), page.trustAnchors?.() ?? ''),
      'no-cache',
    );
  }
  if (path !== PAGE_SCRIPT_PATH) return undefined;
  return page.script().then(
    (js) => out.send(200, { 'content-type': 'text/javascript; charset=utf-8' }, js, 'no-cache'),
    (e: unknown) =>
      out.problem(
        'PAGE_UNAVAILABLE',
        `the page's script is not available: ${e instanceof Error ? e.message : String(e)}`,
      ),
  );
}
