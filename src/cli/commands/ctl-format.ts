/**
 * The text `lexroute ctl` prints for an answer of the control channel
 * (`--json` prints the answer itself): a serve's status, zones, stats and
 * reloads, a resolver's.
 */
import type { ControlAnswer, ZoneReport } from '../../authority/control.ts';
import type { CatalogConsumed } from '../../xfr/catalog-consumer.ts';

function zoneLine(z: ZoneReport): string {
  const name = z.zone || `(${z.file ?? '?'})`;
  const serial = z.serial === undefined ? 'no serial' : `serial ${z.serial}`;
  const records = z.records === undefined ? '' : `  ${z.records} records`;
  const loaded = z.loadedAt ? `  loaded ${z.loadedAt}` : '  never loaded';
  const err =
    z.lastResult === 'failed'
      ? `\n      last reload FAILED ${z.lastAttemptAt}: ${z.lastError ?? ''}`
      : '';
  return `  ${name}  ${serial}${records}${loaded}${err}`;
}

/** A catalog consumed: serial, members by state, last transfer, problems; with `members`, one line each. */
function catalogLines(c: Partial<CatalogConsumed>, members: boolean): string {
  const states = Object.entries(c.states ?? {})
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
  const t = c.lastTransfer;
  const problems = Object.entries(c.problems ?? {}).map(([k, v]) => `${k} x${v}`);
  const lines = [
    `  catalog ${String(c.catalog)}  ${c.serial === undefined ? 'no version read' : `serial ${c.serial}`}  ` +
      `${String(c.members)} members (${states})` +
      (t ? `  last transfer ${t.result}${t.code ? ` ${t.code}` : ''} ${t.at}` : ''),
    ...(problems.length > 0 ? [`      problems: ${problems.join(', ')}`] : []),
    ...(c.rejected ?? []).map((r) => `      not provisioned ${r.zone}: ${r.code}`),
  ];
  if (members)
    for (const m of c.memberZones ?? [])
      lines.push(
        `    ${m.zone}  ${m.state}${m.serial === undefined ? '' : `  serial ${m.serial}`}` +
          `${m.groups.length > 0 ? `  group ${m.groups.join(', ')}` : ''}` +
          `${m.lastRefresh?.code ? `  ${m.lastRefresh.code}` : ''}`,
      );
  return `${lines.join('\n')}\n`;
}

/** `status ZONE`: the zone's line, and what it is to a catalog consumed. */
function zoneStatusText(r: Record<string, unknown>): string {
  const consumed = r.catalogConsumed as CatalogConsumed | undefined;
  const member = r.catalogMember as
    { catalog: string; state: string; groups: string[] } | undefined;
  const line = `${zoneLine(r as unknown as ZoneReport).trimStart()}\n`;
  if (consumed) return line + catalogLines(consumed, true);
  if (member)
    return `${line}  member of catalog ${member.catalog} (${member.state})${member.groups.length > 0 ? `, group ${member.groups.join(', ')}` : ''}\n`;
  return line;
}

const n = (v: unknown) => (typeof v === 'number' ? v.toLocaleString('en') : '?');

const ms = (s: unknown) =>
  s === null ? '-' : s === Infinity || typeof s !== 'number' ? '>2.5 s' : `<=${s * 1000} ms`;

/** `ctl stats` of a resolver: requests by service and status, latency bounds, cache. */
function formatResolverStats(r: Record<string, unknown>): string {
  const requests = Object.entries((r.requests ?? {}) as Record<string, number>).sort();
  const total = requests.reduce((a, [, v]) => a + v, 0);
  const p = (r.latencyUpperBoundSeconds ?? {}) as Record<string, unknown>;
  const cache = (r.cache ?? {}) as Record<string, unknown>;
  return (
    `requests: ${n(total)} in ${String(r.uptimeSeconds)} s\n` +
    requests.map(([k, v]) => `  ${k.padEnd(12)} ${n(v)}\n`).join('') +
    `latency: p50 ${ms(p.p50)}, p90 ${ms(p.p90)}, p99 ${ms(p.p99)}\n` +
    `answer cache: hits ${n(cache.hits)}, misses ${n(cache.misses)}\n`
  );
}

/** `ctl stats` of a server: queries by kind, TCP connections, RRL, each worker's queries. */
function formatServerStats(r: Record<string, unknown>): string {
  const queries = Object.entries((r.queries ?? {}) as Record<string, number>);
  const tcp = (r.tcp ?? {}) as Record<string, unknown>;
  const rrl = r.rrl as Record<string, number> | null | undefined;
  const workers = (r.workers ?? []) as { worker: number; queries: number }[];
  return (
    `queries in ${String(r.uptimeSeconds)} s:\n` +
    queries.map(([k, v]) => `  ${k.padEnd(16)} ${n(v)}\n`).join('') +
    `tcp: ${n(tcp.open)} open, ${n(tcp.accepted)} accepted, ${n(tcp.refused)} refused, ` +
    `${n(tcp.closedMessageTimeout)} closed on a message timeout, ${n(tcp.closedIdle)} closed idle\n` +
    (rrl
      ? `rrl: ${Object.entries(rrl)
          .map(([k, v]) => `${k} ${n(v)}`)
          .join(', ')}\n`
      : 'rrl: off\n') +
    (workers.length > 1
      ? `workers: ${workers.map((w) => `#${w.worker} ${n(w.queries)}`).join(', ')}\n`
      : '')
  );
}

/** The human form of a resolver's answer. */
function formatResolverAnswer(command: string, r: Record<string, unknown>): string {
  switch (command) {
    case 'status': {
      const cat = (r.catalogue ?? {}) as Record<string, unknown>;
      const cache = (r.cache ?? {}) as Record<string, unknown>;
      const catalogue = Object.entries(cat)
        .filter(([k]) => k !== 'name')
        .map(([k, v]) => `${n(v)} ${k}`)
        .join(', ');
      return (
        `lexroute resolver ${String(r.version)}, pid ${String(r.pid)}, up ${String(r.uptimeSeconds)} s, ` +
        `${String(r.workers)} worker(s), listening on ${((r.listen ?? []) as string[]).join(' ')}\n` +
        `catalogue ${String(cat.name)}: ${catalogue}\n` +
        `answer cache: ${n(cache.entries)} entries, ${n(cache.bytes)} bytes, ${n(cache.hits)} hits, ${n(cache.misses)} misses\n` +
        `configuration loaded ${String(r.configLoadedAt)}` +
        `${r.lastReloadError ? `; last reload FAILED: ${String(r.lastReloadError)}` : ''}\n`
      );
    }
    case 'reload': {
      const restart = (r.needRestart ?? []) as string[];
      const warnings = (r.warnings ?? []) as string[];
      return (
        `configuration reloaded; answer cache emptied (${n(r.cacheFlushed)} entries)` +
        `${restart.length > 0 ? `; changed keys that need a restart (not applied): ${restart.join(', ')}` : ''}\n` +
        warnings.map((w) => `${w}\n`).join('')
      );
    }
    case 'stats':
      return formatResolverStats(r);
    case 'flush-cache': {
      const f = (r.flushed ?? {}) as Record<string, unknown>;
      return `answer cache emptied: ${n(f.entries)} entries, ${n(f.bytes)} bytes\n`;
    }
    case 'stop':
      return 'stopping\n';
    default:
      return `${JSON.stringify(r, null, 2)}\n`;
  }
}

/** The human form of an answer. */
export function formatAnswer(command: string, a: ControlAnswer): string {
  if (!a.ok) {
    const zones = a.result && Array.isArray(a.result.zones) ? (a.result.zones as ZoneReport[]) : [];
    const extra = zones.length > 0 ? `\n${zones.map(zoneLine).join('\n')}` : '';
    return `${a.code}: ${a.message}${extra}\n`;
  }
  const r = a.result;
  if (r.kind === 'resolver') return formatResolverAnswer(command, r);
  switch (command) {
    case 'status': {
      const zones = r.zones as ZoneReport[];
      return (
        `lexroute ${String(r.version)}, pid ${String(r.pid)}, up ${String(r.uptimeSeconds)} s, ` +
        `${String(r.workers)} worker(s), listening on ${(r.listen as string[]).join(' ')}` +
        `${r.rrl ? ', RRL on' : ''}\n` +
        `zones (${zones.length}):\n${zones.map(zoneLine).join('\n')}\n` +
        ((r.catalogs as CatalogConsumed[] | undefined) ?? [])
          .map((c) => catalogLines(c, false))
          .join('')
      );
    }
    case 'zone-status':
      return zoneStatusText(r);
    case 'retransfer':
      return `${String(r.zone)}: transferred, serving serial ${String(r.serial)}\n`;
    case 'stats':
      return formatServerStats(r);
    case 'reload': {
      const head = `reloaded: ${String(r.loaded)} loaded, ${String(r.unchanged)} unchanged, ${String(r.failed)} failed, ${String(r.removed)} removed`;
      if (Array.isArray(r.zones))
        return `${head}\n${(r.zones as ZoneReport[]).map(zoneLine).join('\n')}\n`;
      return `${head}\n${zoneLine(r as unknown as ZoneReport)}\n`;
    }
    case 'stop':
      return 'stopping\n';
    default:
      return `${JSON.stringify(r, null, 2)}\n`;
  }
}
