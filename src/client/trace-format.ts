/** A readable rendering of a resolution trace (what `lexroute resolve --trace` prints). */
import { naptrText, type RecordFate } from '../ddds/core/step.ts';
import type { Trace, TraceStep } from './resolve.ts';
import { verdictLine, type Verdict } from '../dnssec/core/validate/verdict.ts';

function fate(f: RecordFate): string {
  const mark = f.fate === 'used' ? 'used   ' : 'skipped';
  return `    ${mark} #${f.index} ${naptrText(f.record)}\n              ${f.code}: ${f.reason}`;
}

function ms(n: number | undefined): string {
  return n === undefined ? '' : ` ${n.toFixed(1)} ms`;
}

/** The DNSSEC verdict of a step: the client's own (`--validate`) or the resolver's AD (`--dnssec`). */
function security(s: { dnssec?: string; validation?: Verdict; error?: { code: string } }): string {
  const v = s.validation;
  if (v?.status === 'secure') return `, secure (validated: ${v.zone} from anchor ${v.anchor})`;
  if (v?.status === 'insecure') return `, insecure (${verdictLine(v)})`;
  if (v?.status === 'bogus') return `, bogus (${verdictLine(v)})`;
  if (s.error?.code === 'DNSSEC_BOGUS') return ', bogus';
  return s.dnssec !== undefined ? `, ${s.dnssec}` : '';
}

function step(s: TraceStep): string[] {
  switch (s.kind) {
    case 'naptr': {
      const where = s.cached
        ? 'from cache'
        : `from ${s.server} (${s.protocol ?? '?'}${ms(s.rttMs)})`;
      const lines = [
        `step ${s.step}  NAPTR ${s.key}  ${where}: ${s.result}${s.ttl !== undefined && s.ttl >= 0 ? `, ttl ${s.ttl}` : ''}${security(s)}`,
      ];
      if (s.cnames && s.cnames.length > 0) lines.push(`    via CNAME ${s.cnames.join(' -> ')}`);
      for (const r of s.referrals ?? []) {
        lines.push(
          `    referral from ${r.server}: ${r.cut}. NS ${r.ns.join(', ')} at ${r.addresses.join(', ')}${r.fromGlue ? ' (glue)' : ' (NS names resolved)'}`,
        );
      }
      for (const f of s.records) lines.push(fate(f));
      const o = s.outcome;
      if (o?.kind === 'next') {
        lines.push(`    => rewrite ${JSON.stringify(o.rewritten)}, next key ${o.key}`);
      } else if (o?.kind === 'terminal') {
        lines.push(
          `    => terminal '${o.flag}' ${o.output} (protocol ${o.protocol ?? 'none'}${o.services.length > 0 ? `, services ${o.services.join('+')}` : ''})`,
        );
      } else if (o?.kind === 'handoff') {
        lines.push(
          `    => hand-off 'P' ${JSON.stringify(o.output)} to protocol ${o.protocol ?? '?'} (services ${JSON.stringify(o.record.services)}): DDDS ends here, the rest is protocol-specific`,
        );
      } else if (o?.kind === 'failure') {
        lines.push(`    => failure ${o.code}: ${o.message}`);
      }
      if (s.punycode) lines.push(`    punycode: ${s.punycode.from} -> ${s.punycode.to}`);
      if (s.error) lines.push(`    error ${s.error.code}: ${s.error.message}`);
      return lines;
    }
    case 'srv':
    case 'address': {
      const where = s.cached ? 'from cache' : `from ${s.server}`;
      const lines = [`${s.qtype.padEnd(5)} ${s.name}  ${where}: ${s.result}${security(s)}`];
      for (const r of s.records) lines.push(`    ${r}`);
      if (s.selected) lines.push(`    RFC 2782 order: ${s.selected.join(', ')}`);
      if (s.error) lines.push(`    error ${s.error.code}: ${s.error.message}`);
      return lines;
    }
    case 'http': {
      const lines = s.exchanges.map(
        (x) =>
          `HTTP  GET ${x.url}\n    -> ${x.status}${x.location ? ` Location: ${x.location}` : ''}${x.contentType ? ` (${x.contentType}, ${x.bytes} bytes)` : ''}${ms(x.ms)}`,
      );
      if (s.error) lines.push(`HTTP  GET ${s.url}\n    error ${s.error.code}: ${s.error.message}`);
      return lines;
    }
    case 'partition': {
      const what = {
        fragment: 'the #f-component replaces any fragment',
        partition: 'partition appended as #fragment',
        kept: 'the resolver already gave a fragment: kept',
        none: 'no partition or fragment',
      }[s.applied];
      return s.applied === 'none' ? [] : [`final ${what}: ${s.after}`];
    }
    case 'fallback':
      return [`fallback from ${s.from} back to ${s.to} (${s.reason})`];
  }
}

export function formatTrace(t: Trace): string {
  const head = [
    `URN      ${t.input}`,
    ...(t.aus !== undefined ? [`AUS      ${t.aus}`] : []),
    ...(t.partition !== undefined ? [`partition ${t.partition}`] : []),
    ...(t.fragment !== undefined ? [`fragment ${t.fragment}`] : []),
    `service  ${t.service}, ${t.mode} mode${t.servers.length > 0 ? ` via ${t.servers.join(', ')}` : ''}`,
    '',
  ];
  return `${[...head, ...t.steps.flatMap(step)].join('\n')}\n`;
}
