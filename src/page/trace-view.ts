/**
 * The resolution page's view of a trace, step by step, from the structured
 * `Trace` (not its text): plain DOM elements with `data-` attributes a test
 * or a stylesheet can select.
 */
import type { Trace, TraceStep } from '../client/portable.ts';
import { naptrText } from '../ddds/core/step.ts';
import type { RecordFate, StepOutcome } from '../ddds/core/step.ts';
import type { HttpTraceStep, LookupTraceStep, NaptrTraceStep } from '../ddds/core/trace.ts';
import { verdictLine, type Verdict } from '../dnssec/core/validate/verdict.ts';

type Child = Node | string;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

const code = (text: string, attrs: Record<string, string> = {}) => el('code', attrs, text);

/** A definition list of [term, description] pairs. */
function facts(rows: readonly (readonly [string, ...Child[]])[]): HTMLDListElement {
  const dl = el('dl', { class: 'facts' });
  for (const [term, ...desc] of rows) dl.append(el('dt', {}, term), el('dd', {}, ...desc));
  return dl;
}

function recordItem(f: RecordFate): HTMLLIElement {
  return el(
    'li',
    { 'data-fate': f.fate, 'data-code': f.code, 'data-index': String(f.index) },
    el('span', { class: 'fate' }, f.fate === 'used' ? 'used' : 'skipped'),
    ' ',
    code(naptrText(f.record), { class: 'rr' }),
    el('span', { class: 'reason' }, code(f.code), ` ${f.reason}`),
  );
}

function outcomeView(o: StepOutcome): HTMLParagraphElement {
  const p = el('p', { class: 'outcome', 'data-outcome': o.kind });
  switch (o.kind) {
    case 'next':
      p.append('Rewritten to ', code(o.rewritten), '; next key ', code(o.key, { class: 'key' }));
      break;
    case 'terminal':
      p.append(
        `Terminal rule "${o.flag}": `,
        code(o.output),
        ` (protocol ${o.protocol ?? 'none'}${o.services.length > 0 ? `, services ${o.services.join('+')}` : ''})`,
      );
      break;
    case 'handoff':
      p.append(
        'Hand-off ("P") to protocol ',
        o.protocol ?? '?',
        ': ',
        code(o.output),
        '. DDDS ends here.',
      );
      break;
    case 'failure':
      p.append('Failure ', code(o.code), `: ${o.message}`);
      break;
  }
  return p;
}

/** Where an answer came from: the cache, or the server / DoH URL with protocol and time. */
function source(s: {
  cached: boolean;
  server: string;
  protocol?: string;
  rttMs?: number;
}): Child[] {
  if (s.cached) return ['the client cache'];
  const detail = [s.protocol, s.rttMs !== undefined ? `${s.rttMs.toFixed(1)} ms` : undefined]
    .filter((x) => x !== undefined)
    .join(', ');
  return [code(s.server, { class: 'server' }), detail === '' ? '' : ` (${detail})`];
}

/** The client's own verdict (`validate`): secure from an anchor, or insecure with its proof. */
function verdictText(v: Verdict | undefined): string | undefined {
  if (v?.status === 'secure') return `, secure (validated here: ${v.zone} from anchor ${v.anchor})`;
  if (v?.status === 'insecure') return `, insecure (${verdictLine(v)})`;
  if (v?.status === 'bogus') return `, bogus (${verdictLine(v)})`;
  return undefined;
}

function answerText(s: {
  result: string;
  ttl?: number;
  dnssec?: string;
  validation?: Verdict;
  error?: { code: string };
}): string {
  const ttl = s.ttl !== undefined && s.ttl >= 0 ? `, TTL ${s.ttl} s` : '';
  const sec =
    verdictText(s.validation) ??
    (s.error?.code === 'DNSSEC_BOGUS' ? ', bogus' : s.dnssec ? `, ${s.dnssec}` : '');
  return `${s.result}${ttl}${sec}`;
}

function errorView(e: { code: string; message: string } | undefined): Child[] {
  return e
    ? [el('p', { class: 'step-error', 'data-code': e.code }, code(e.code), `: ${e.message}`)]
    : [];
}

function naptrView(s: NaptrTraceStep): HTMLLIElement {
  const li = el(
    'li',
    { class: 'step', 'data-kind': 'naptr', 'data-step': String(s.step), 'data-key': s.key },
    el('h3', {}, `Step ${s.step}: NAPTR `, code(s.key, { class: 'key' })),
    facts([
      ['Query', code(s.key), ' NAPTR IN'],
      ['Answered by', ...source(s)],
      ['Answer', answerText(s)],
      ...(s.cnames && s.cnames.length > 0 ? [['Via CNAME', s.cnames.join(' → ')] as const] : []),
    ]),
  );
  if (s.referrals && s.referrals.length > 0) {
    li.append(
      el(
        'ul',
        { class: 'referrals' },
        ...s.referrals.map((r) =>
          el(
            'li',
            {},
            `Referral from ${r.server}: ${r.cut}. NS ${r.ns.join(', ')} at ${r.addresses.join(', ')}${r.fromGlue ? ' (glue)' : ''}`,
          ),
        ),
      ),
    );
  }
  if (s.records.length > 0) {
    li.append(
      el('h4', {}, `Records (${s.records.length})`),
      el('ol', { class: 'records' }, ...s.records.map(recordItem)),
    );
  }
  if (s.outcome) li.append(outcomeView(s.outcome));
  if (s.punycode) {
    li.append(
      el(
        'p',
        { class: 'punycode', 'data-from': s.punycode.from, 'data-to': s.punycode.to },
        'Punycode key: ',
        code(s.punycode.from),
        ' → ',
        code(s.punycode.to),
      ),
    );
  }
  li.append(...errorView(s.error));
  return li;
}

function lookupView(s: LookupTraceStep): HTMLLIElement {
  return el(
    'li',
    { class: 'step', 'data-kind': s.kind, 'data-qtype': s.qtype, 'data-name': s.name },
    el('h3', {}, `${s.qtype} lookup `, code(s.name)),
    facts([
      ['Query', code(s.name), ` ${s.qtype} IN`],
      ['Answered by', ...source(s)],
      ['Answer', answerText(s)],
      ...(s.selected ? [['RFC 2782 order', s.selected.join(', ')] as const] : []),
    ]),
    ...(s.records.length > 0
      ? [el('ul', { class: 'lookup-records' }, ...s.records.map((r) => el('li', {}, code(r))))]
      : []),
    ...errorView(s.error),
  );
}

const hostOf = (url: string): string | undefined => {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
};

/** Who found the HTTP host's address: the browser, or (its fallback) DoH. */
function nameResolutionNote(s: HttpTraceStep): HTMLElement[] {
  const host = hostOf(s.url);
  if (host === undefined || /^[\d.]+$|^\[/.test(host)) return [];
  const sent = s.exchanges.map((x) => hostOf(x.url)).find((h) => h !== host);
  if (sent !== undefined) {
    return [
      el(
        'p',
        { class: 'name-resolution', 'data-by': 'doh' },
        'The browser could not resolve ',
        code(host),
        '; the request went to the address the DoH lookups gave, ',
        code(sent),
        ' (plain http only: an https certificate names the host).',
      ),
    ];
  }
  return [
    el(
      'p',
      { class: 'name-resolution', 'data-by': 'browser' },
      "This step relies on the browser's own name resolution of ",
      code(host),
      ' (a page cannot send a request to the address a DoH lookup found).',
    ),
  ];
}

function httpView(s: HttpTraceStep): HTMLLIElement {
  return el(
    'li',
    { class: 'step', 'data-kind': 'http', 'data-url': s.url },
    el('h3', {}, 'THTTP request'),
    ...nameResolutionNote(s),
    ...s.exchanges.map((x) =>
      el(
        'p',
        { class: 'exchange', 'data-status': String(x.status) },
        `${x.method} `,
        code(x.url, { class: 'url' }),
        ` → ${x.status}`,
        ...(x.location ? [' Location: ', code(x.location)] : []),
        x.contentType ? ` (${x.contentType}, ${x.bytes} bytes)` : '',
        ` ${x.ms.toFixed(1)} ms`,
      ),
    ),
    ...(s.error ? [el('p', {}, 'GET ', code(s.url))] : []),
    ...errorView(s.error),
  );
}

function stepView(s: TraceStep): HTMLLIElement | undefined {
  switch (s.kind) {
    case 'naptr':
      return naptrView(s);
    case 'srv':
    case 'address':
      return lookupView(s);
    case 'http':
      return httpView(s);
    case 'partition':
      if (s.applied === 'none') return undefined;
      return el(
        'li',
        { class: 'step', 'data-kind': 'partition', 'data-applied': s.applied },
        el('h3', {}, 'Partition'),
        el(
          'p',
          {},
          {
            fragment: 'The #f-component replaces any fragment: ',
            partition: 'The partition is appended as #fragment: ',
            kept: 'The resolver already gave a fragment, kept: ',
          }[s.applied],
          code(s.after),
        ),
      );
    case 'fallback':
      return el(
        'li',
        { class: 'step', 'data-kind': 'fallback' },
        el('h3', {}, 'Fallback'),
        el('p', {}, `From ${s.from} back to ${s.to} (${s.reason})`),
      );
  }
}

/** The summary of a trace and its steps, as DOM elements (for `#steps`). */
export function traceView(t: Trace): Node[] {
  const summary = facts([
    ['URN', code(t.input)],
    ...(t.aus !== undefined ? [['AUS', code(t.aus)] as const] : []),
    ...(t.partition !== undefined ? [['Partition', code(t.partition)] as const] : []),
    ...(t.fragment !== undefined ? [['Fragment', code(t.fragment)] as const] : []),
    ['Service', t.service],
    ['DNS', `${t.mode} mode`, ...(t.servers.length > 0 ? [' via ', t.servers.join(', ')] : [])],
  ]);
  const steps = t.steps.map(stepView).filter((x): x is HTMLLIElement => x !== undefined);
  return [summary, el('ol', { class: 'steps' }, ...steps)];
}
