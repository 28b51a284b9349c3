/**
 * The resolution page's script (bundled for browsers with the client by
 * `resolver-http/page.ts`): a person types or pastes a `urn:lex:` URN (or
 * follows `/?urn=...`), the browser resolves it through DNS over HTTPS with
 * `lexroute/client`'s browser build, and the page shows each DDDS step
 * (`trace-view.ts`, from the structured trace), the links, or the error with
 * its code; the trace as `lexroute resolve --trace` prints it stays in a
 * <details> below. Plain DOM; no framework.
 */
import {
  BrowserLexClient,
  formatTrace,
  ResolveError,
  type ResolveResult,
  type Trace,
} from '../client/portable.ts';
import type { Service } from '../ddds/core/trace.ts';
import { traceView } from './trace-view.ts';

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;

const form = $<HTMLFormElement>('resolve');
const urnInput = $<HTMLInputElement>('urn');
const dohInput = $<HTMLInputElement>('doh');
const serviceInput = $<HTMLSelectElement>('service');
const status = $<HTMLElement>('status');
const links = $<HTMLUListElement>('links');
const traceOut = $<HTMLPreElement>('trace');
const stepsOut = $<HTMLElement>('steps');
const errorOut = $<HTMLElement>('error');

let client: BrowserLexClient | undefined;
let clientDoh = '';

function clientFor(doh: string): BrowserLexClient {
  if (client === undefined || clientDoh !== doh) {
    client = new BrowserLexClient({ doh });
    clientDoh = doh;
  }
  return client;
}

function link(href: string, text: string): HTMLAnchorElement {
  const a = document.createElement('a');
  a.href = href;
  a.textContent = text;
  return a;
}

function item(...children: (Node | string)[]): HTMLLIElement {
  const li = document.createElement('li');
  li.append(...children);
  return li;
}

function showResult(r: ResolveResult): void {
  if (r.kind === 'handoff') {
    links.append(item(`hand-off: ${r.handoff.protocol} ${r.handoff.output}`));
    return;
  }
  for (const u of r.urls) links.append(item(link(u, u)));
  if (r.description) {
    const pre = document.createElement('pre');
    pre.textContent = r.description.body;
    links.append(item(`description (${r.description.contentType}):`, pre));
  }
  if (r.resolverUrl !== '') {
    const n2c = r.resolverUrl.replace(/\/uri-res\/[NI]2Ls?\?/i, '/uri-res/N2C?');
    links.append(item('resolver: ', link(r.resolverUrl, r.resolverUrl)));
    if (n2c !== r.resolverUrl) links.append(item('catalogue description: ', link(n2c, n2c)));
  }
}

function showTrace(t: Trace): void {
  stepsOut.replaceChildren(...traceView(t));
  traceOut.textContent = formatTrace(t);
}

async function run(urn: string, doh: string, service: Service): Promise<void> {
  links.replaceChildren();
  stepsOut.replaceChildren();
  traceOut.textContent = '';
  errorOut.textContent = '';
  errorOut.removeAttribute('data-code');
  errorOut.hidden = true;
  delete status.dataset.state;
  status.textContent = `resolving ${urn} through ${doh} ...`;
  form.setAttribute('aria-busy', 'true');
  try {
    const r = await clientFor(doh).resolve(urn, { service });
    showResult(r);
    showTrace(r.trace);
    status.textContent = r.kind === 'resolved' ? `resolved (${r.urls.length} link(s))` : 'hand-off';
    status.dataset.state = 'resolved';
  } catch (e) {
    const code = e instanceof ResolveError ? e.code : 'INTERNAL';
    errorOut.hidden = false;
    errorOut.dataset.code = code;
    errorOut.textContent = `${code}: ${e instanceof Error ? e.message : String(e)}`;
    if (e instanceof ResolveError) showTrace(e.trace);
    status.textContent = `failed: ${code}`;
    status.dataset.state = 'failed';
  } finally {
    form.removeAttribute('aria-busy');
  }
}

form.addEventListener('submit', (ev) => {
  ev.preventDefault();
  const urn = urnInput.value.trim();
  const doh = dohInput.value.trim();
  if (urn === '' || doh === '') return;
  const params = new URLSearchParams(location.search);
  params.set('urn', urn);
  history.replaceState(null, '', `?${params.toString()}`);
  void run(urn, doh, serviceInput.value as Service);
});

const params = new URLSearchParams(location.search);
const given = params.get('urn');
const givenDoh = params.get('doh');
if (givenDoh) dohInput.value = givenDoh;
const givenService = params.get('service');
if (givenService === 'N2Ls' || givenService === 'N2C') serviceInput.value = givenService;
if (given) {
  urnInput.value = given;
  form.requestSubmit();
}
document.documentElement.dataset.ready = 'true';
