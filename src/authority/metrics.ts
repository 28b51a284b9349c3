/**
 * The server's metrics (`serve --metrics ADDR:PORT`) as plain data per
 * worker, summed by `mergeFamilies`; each family's help text says what it counts.
 */
import type { Secondaries } from '../xfr/secondary.ts';
import type { CatalogConsumed } from '../xfr/catalog-consumer.ts';
import { family, type MetricFamily } from '../kit/metrics/prom.ts';
import type { Engine } from './engine.ts';
import type { QueryPipeline } from './pipeline.ts';
import type { Rrl } from './rrl.ts';
import type { TcpListener, TcpStats } from './tcp.ts';
import { secondsToExpiry } from './zone-signatures.ts';
import { soaSerial, type ZoneStatusBook } from './zone-status.ts';

export interface ServerMetricsSource {
  readonly engine: Engine;
  readonly pipeline: QueryPipeline;
  readonly tcp: readonly TcpListener[];
  readonly rrl: Rrl | undefined;
}

/** Gauges that are not summed across workers (the same value in each). */
export const SHARED_GAUGES: ReadonlySet<string> = new Set([
  'lexroute_dns_zone_serial',
  'lexroute_dns_zone_records',
  'lexroute_dns_zone_signature_expiry_seconds',
  'lexroute_dns_zone_last_reload_timestamp_seconds',
  'lexroute_dns_zone_last_reload_success',
  'lexroute_dns_zone_loaded_timestamp_seconds',
  'lexroute_dns_zones',
  'lexroute_start_time_seconds',
]);

type Series = [Record<string, string>, number][];
const counter = (name: string, help: string, series: Series) =>
  family(name, 'counter', help, series);
const gauge = (name: string, help: string, series: Series) => family(name, 'gauge', help, series);

/** The families of one worker: its engine, listeners and rate limiter. */
export function workerFamilies(s: ServerMetricsSource): MetricFamily[] {
  const tcp = (k: keyof TcpStats) => s.tcp.reduce((n, l) => n + l.stats[k], 0);
  const out: MetricFamily[] = [
    ...s.engine.stats.families(),
    counter(
      'lexroute_dns_queries_dropped_total',
      'Messages dropped without an answer (shorter than a header, or a response).',
      [[{}, s.engine.counters.dropped]],
    ),
    counter(
      'lexroute_dns_truncated_total',
      'Answers sent truncated (TC=1) because they did not fit (RRL slips are counted apart).',
      [[{}, s.pipeline.counters.truncated]],
    ),
    gauge('lexroute_dns_tcp_connections_open', 'TCP connections open now.', [[{}, tcp('open')]]),
    counter('lexroute_dns_tcp_connections_accepted_total', 'TCP connections accepted.', [
      [{}, tcp('accepted')],
    ]),
    counter('lexroute_dns_tcp_connections_refused_total', 'TCP connections refused, by reason.', [
      [{ reason: 'maxConnections' }, tcp('refusedMax')],
      [{ reason: 'perClient' }, tcp('refusedPerClient')],
    ]),
    counter(
      'lexroute_dns_tcp_connections_closed_total',
      'TCP connections closed by the server, by reason.',
      [
        [{ reason: 'messageTimeout' }, tcp('closedMessageTimeout')],
        [{ reason: 'idle' }, tcp('closedIdle')],
      ],
    ),
  ];
  if (s.rrl) {
    const r = s.rrl.counters;
    out.push(
      counter(
        'lexroute_dns_rrl_responses_total',
        'UDP responses seen by response-rate limiting, by action.',
        [
          [{ action: 'sent' }, r.checked - r.dropped - r.slipped],
          [{ action: 'dropped' }, r.dropped],
          [{ action: 'slipped' }, r.slipped],
        ],
      ),
      counter(
        'lexroute_dns_rrl_would_limit_total',
        'Responses RRL would have limited but sent (log-only mode or exempt prefix).',
        [[{}, r.wouldLimit]],
      ),
      gauge('lexroute_dns_rrl_table_entries', 'Entries in the RRL table.', [[{}, s.rrl.size]]),
    );
  }
  return out;
}

/** The families that describe the zones (the same in every worker: written once). */
export function zoneFamilies(
  engine: Engine,
  book: ZoneStatusBook,
  startedAt: number,
): MetricFamily[] {
  const serial: Series = [];
  const records: Series = [];
  const expiry: Series = [];
  const attempt: Series = [];
  const ok: Series = [];
  const loaded: Series = [];
  const now = Date.now();
  for (const z of engine.zones) {
    const s = soaSerial(z);
    if (s !== undefined) serial.push([{ zone: z.origin }, s]);
    records.push([{ zone: z.origin }, z.size]);
    const e = secondsToExpiry(z, now);
    if (e !== undefined) expiry.push([{ zone: z.origin }, e]);
  }
  for (const st of book.files.values()) {
    const labels = { zone: st.origin ?? '', file: st.file };
    attempt.push([labels, st.lastAttemptAt / 1000]);
    ok.push([labels, st.lastResult === 'loaded' ? 1 : 0]);
    if (st.loadedAt !== undefined) loaded.push([labels, st.loadedAt / 1000]);
  }
  return [
    gauge('lexroute_dns_zones', 'Zones served.', [[{}, engine.zones.length]]),
    gauge('lexroute_dns_zone_serial', 'SOA serial of each served zone.', serial),
    gauge('lexroute_dns_zone_records', 'Records in each served zone.', records),
    gauge(
      'lexroute_dns_zone_signature_expiry_seconds',
      'Seconds to the earliest RRSIG expiration of each signed zone (negative: expired).',
      expiry,
    ),
    gauge(
      'lexroute_dns_zone_loaded_timestamp_seconds',
      'When the version being served was loaded (Unix time).',
      loaded,
    ),
    gauge(
      'lexroute_dns_zone_last_reload_timestamp_seconds',
      'When the zone file was last loaded or tried (Unix time).',
      attempt,
    ),
    gauge(
      'lexroute_dns_zone_last_reload_success',
      '1 when the last load of the zone file succeeded, 0 when it failed (the previous version is kept).',
      ok,
    ),
    ...trafficFamilies(book),
    gauge('lexroute_start_time_seconds', 'When the server started (Unix time).', [
      [{}, startedAt / 1000],
    ]),
  ];
}

/** Transfers out and NOTIFY results per zone (this thread's: `zone-traffic.ts`). */
function trafficFamilies(book: ZoneStatusBook): MetricFamily[] {
  const out: Series = [];
  const notify: Series = [];
  for (const zone of book.traffic.zones.keys()) {
    const r = book.traffic.report(zone);
    for (const t of r.transfersOut)
      out.push([{ zone, kind: t.kind, peer: t.peer, result: t.result }, t.count]);
    for (const n of r.notify) notify.push([{ zone, peer: n.peer, result: n.result }, n.count]);
  }
  return [
    counter(
      'lexroute_dns_xfr_out_total',
      'Transfers served per zone by type (AXFR, IXFR:incremental, IXFR:full, IXFR:current), peer address and result (ok, failed).',
      out,
    ),
    counter(
      'lexroute_dns_notify_total',
      "NOTIFY sent per zone by peer and result: the peer's rcode (NOERROR, REFUSED, NOTAUTH, ...) or timeout.",
      notify,
    ),
  ];
}

/** Secondary zones: transfers in by result, the serial held, expiry (`server/secondary.ts`). */
export function secondaryFamilies(status: ReturnType<Secondaries['status']>): MetricFamily[] {
  const results: Series = [];
  const serial: Series = [];
  const expired: Series = [];
  for (const z of status) {
    for (const [result, n] of Object.entries(z.results))
      results.push([{ zone: z.origin, result }, n]);
    if (z.serial !== undefined) serial.push([{ zone: z.origin }, z.serial]);
    expired.push([{ zone: z.origin }, z.expired ? 1 : 0]);
  }
  return [
    counter(
      'lexroute_dns_xfr_in_total',
      'Refreshes of secondary zones by result (axfr, ixfr, current, failed).',
      results,
    ),
    gauge('lexroute_dns_secondary_serial', 'SOA serial held for each secondary zone.', serial),
    gauge(
      'lexroute_dns_secondary_expired',
      '1 while a secondary zone is past its SOA expire (answered SERVFAIL).',
      expired,
    ),
  ];
}

/** Catalogs consumed (`catalog-consumer.ts`): serial, members by state, problems, last transfer; each member's state. */
export function catalogFamilies(status: readonly CatalogConsumed[]): MetricFamily[] {
  const serial: Series = [];
  const members: Series = [];
  const problems: Series = [];
  const applied: Series = [];
  const transferAt: Series = [];
  const transferOk: Series = [];
  const member: Series = [];
  for (const c of status) {
    const catalog = c.catalog;
    if (c.serial !== undefined) serial.push([{ catalog }, c.serial]);
    for (const [state, n] of Object.entries(c.states)) members.push([{ catalog, state }, n]);
    members.push([{ catalog, state: 'rejected' }, c.rejected.length]);
    for (const [code, n] of Object.entries(c.problems)) problems.push([{ catalog, code }, n]);
    if (c.appliedAt) applied.push([{ catalog }, Date.parse(c.appliedAt) / 1000]);
    if (c.lastTransfer) {
      transferAt.push([{ catalog }, Date.parse(c.lastTransfer.at) / 1000]);
      transferOk.push([{ catalog }, c.lastTransfer.result === 'failed' ? 0 : 1]);
    }
    for (const m of c.memberZones) member.push([{ catalog, zone: m.zone, state: m.state }, 1]);
  }
  return [
    gauge(
      'lexroute_dns_catalog_serial',
      'SOA serial of the version of each catalog consumed read last.',
      serial,
    ),
    gauge(
      'lexroute_dns_catalog_members',
      'Members of each catalog consumed by state (provisioned, pending: no version yet, failed: last refresh failed, rejected: listed but not provisioned, CATALOG_MEMBER_CONFLICT).',
      members,
    ),
    gauge(
      'lexroute_dns_catalog_problems',
      "Problems of each catalog's last version read, by code.",
      problems,
    ),
    gauge(
      'lexroute_dns_catalog_applied_timestamp_seconds',
      "When each catalog's last version was read (Unix time).",
      applied,
    ),
    gauge(
      'lexroute_dns_catalog_last_transfer_timestamp_seconds',
      'When each catalog zone was last refreshed from its primaries, or tried (Unix time).',
      transferAt,
    ),
    gauge(
      'lexroute_dns_catalog_last_transfer_success',
      "1 when the catalog zone's last refresh succeeded (a transfer, or current), 0 when it failed.",
      transferOk,
    ),
    gauge(
      'lexroute_dns_catalog_member_state',
      '1 for each member of a catalog consumed, labelled with its state (provisioned, pending, failed).',
      member,
    ),
  ];
}
