/**
 * The resolution page's script (bundled by `resolver-http/page.ts`): the
 * browser resolves a typed URN (or `/?urn=`) over DoH with the client's
 * browser build and shows each DDDS step, the links or the coded error, and
 * the text trace in a <details>. Plain DOM.
 */
import {
  dohTransport,
  formatTrace,
  LexClient,
  ResolveError,
  type ClientOptions,
  type ResolveResult,
  type Trace,
} from '../client/portable.ts';
import type { Service, TraceStep } from '../ddds/core/trace.ts';
import { parseTrustAnchors } from '../dnssec/core/validate/anchors.ts';
import { dohServesSignedRoot } from './dnssec-probe.ts';
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
const validateInput = $<HTMLInputElement>('validate');
const anchorsInput = $<HTMLTextAreaElement>('anchors');
const dnssecOut = $<HTMLElement>('dnssec');

let client: LexClient | undefined;
let clientKey = '';

/**
 * The client for a DoH URL; anchors typed (or given) replace the root's keys.
 * A text holding no anchor throws (shown as DNSSEC_TRUST_ANCHOR).
 */
function clientFor(doh: string, validate: boolean, anchorsText: string): LexClient {
  const key = JSON.stringify([doh, validate, validate ? anchorsText : '']);
  if (client !== undefined && clientKey === key) return client;
  let options: ClientOptions = {};
  if (validate && anchorsText.trim() !== '') {
    const r = parseTrustAnchors(anchorsText, 'trust anchors', Date.now() / 1000);
    if ('problem' in r) throw new Error(`DNSSEC_TRUST_ANCHOR: ${r.problem.message}`);
    options = { validate: { trustAnchors: r.anchors, rootAnchors: false } };
  } else if (validate) options = { validate: { trustAnchors: [] } };
  client = new LexClient({ ...options, transport: dohTransport({ doh }) });
  clientKey = key;
  return client;
}

/** The chain's verdict: bogus if a step is, else insecure if one is, else secure. */
function chainVerdict(steps: readonly TraceStep[]): { status: string; text: string } {
  const verdicts = steps.flatMap((s) =>
    'validation' in s && s.validation !== undefined ? [{ s, v: s.validation }] : [],
  );
  if (verdicts.length === 0) return { status: 'none', text: '' };
  const bogus = verdicts.find((x) => x.v.status === 'bogus');
  if (bogus && bogus.v.status === 'bogus')
    return { status: 'bogus', text: `DNSSEC: bogus (${bogus.v.code}: ${bogus.v.detail})` };
  const insecure = verdicts.find((x) => x.v.status === 'insecure');
  if (insecure && insecure.v.status === 'insecure')
    return {
      status: 'insecure',
      text: `DNSSEC: insecure (${insecure.v.code}: ${insecure.v.detail})`,
    };
  const anchors = [...new Set(verdicts.map((x) => (x.v.status === 'secure' ? x.v.anchor : '')))];
  return {
    status: 'secure',
    text: `DNSSEC: secure, every one of the ${verdicts.length} lookups validated here from the trust anchor at ${anchors.map((a) => (a === '.' ? 'the root (.)' : a)).join(', ')}`,
  };
}

/** The chain's verdict under the status line (`#dnssec`), or nothing when the page did not validate. */
function showVerdict(steps: readonly TraceStep[] | undefined, failure?: ResolveError): void {
  const v = steps ? chainVerdict(steps) : undefined;
  const bogus = failure?.code === 'DNSSEC_BOGUS';
  if (v === undefined || (v.status === 'none' && !bogus)) {
    dnssecOut.hidden = true;
    delete dnssecOut.dataset.verdict;
    return;
  }
  dnssecOut.hidden = false;
  dnssecOut.dataset.verdict = bogus ? 'bogus' : v.status;
  dnssecOut.textContent =
    bogus && v.status !== 'bogus' ? `DNSSEC: bogus (${failure.message})` : v.text;
}

/** Whether to validate: the touched checkbox, else with a server anchor or a signed root. */
async function validateByDefault(doh: string): Promise<boolean> {
  if (validateInput.checked || validateInput.dataset.touched === 'true') {
    return validateInput.checked;
  }
  if (anchorsInput.value.trim() !== '' || !(await dohServesSignedRoot(doh))) return false;
  validateInput.checked = true;
  return true;
}

validateInput.addEventListener('change', () => {
  validateInput.dataset.touched = 'true';
});

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

/** The newest resolution: an older one still in flight shows nothing when it ends. */
let generation = 0;

async function run(urn: string, doh: string, service: Service): Promise<void> {
  const gen = ++generation;
  links.replaceChildren();
  stepsOut.replaceChildren();
  traceOut.textContent = '';
  errorOut.textContent = '';
  errorOut.removeAttribute('data-code');
  errorOut.hidden = true;
  delete status.dataset.state;
  status.textContent = `resolving ${urn} through ${doh} ...`;
  form.setAttribute('aria-busy', 'true');
  showVerdict(undefined);
  try {
    const c = clientFor(doh, await validateByDefault(doh), anchorsInput.value);
    const r = await c.resolve(urn, { service });
    if (gen !== generation) return;
    showResult(r);
    showTrace(r.trace);
    showVerdict(r.trace.steps);
    status.textContent = r.kind === 'resolved' ? `resolved (${r.urls.length} link(s))` : 'hand-off';
    status.dataset.state = 'resolved';
  } catch (e) {
    if (gen !== generation) return;
    const code = e instanceof ResolveError ? e.code : 'INTERNAL';
    errorOut.hidden = false;
    errorOut.dataset.code = code;
    errorOut.textContent = `${code}: ${e instanceof Error ? e.message : String(e)}`;
    if (e instanceof ResolveError) {
      showTrace(e.trace);
      showVerdict(e.trace.steps, e);
    }
    status.textContent = `failed: ${code}`;
    status.dataset.state = 'failed';
  } finally {
    if (gen === generation) form.removeAttribute('aria-busy');
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
