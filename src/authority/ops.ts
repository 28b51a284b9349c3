/** The operator's side of a running server: `/metrics` and the control channel, closed with the listeners. */
import type { ListenAddress } from '../config/server.ts';
import type { MetricsEndpoint } from '../kit/metrics/http.ts';
import { mergeFamilies } from '../kit/metrics/prom.ts';
import { startControlServer, type ControlServer } from './control.ts';
import type { ControlEndpoint } from './control-endpoint.ts';
import type { Logger } from './log.ts';
import {
  catalogFamilies,
  secondaryFamilies,
  SHARED_GAUGES,
  workerFamilies,
  zoneFamilies,
} from './metrics.ts';
import type { RunningServer } from './server.ts';
import { workerQueriesFamily } from './answer-threads.ts';
import type { ZoneStatusBook } from './zone-status.ts';

export interface OpsOptions {
  readonly metrics?: ListenAddress | undefined;
  /** The control channel: a Unix socket path, or a loopback TCP port with its key. */
  readonly control?: string | ControlEndpoint | undefined;
  readonly version: string;
  /** Called by the control channel's `stop`. */
  readonly stop: () => void;
  readonly log: Logger;
  readonly book: ZoneStatusBook;
  readonly startedAt: number;
}

export interface Ops {
  readonly metrics: MetricsEndpoint | undefined;
  readonly control: ControlServer | undefined;
  close(): Promise<void>;
}

/** Every metric family of this server, summed over its workers (and queries per worker). */
export async function collectServerMetrics(
  server: RunningServer,
  book: ZoneStatusBook,
  startedAt: number,
) {
  const threads = (await server.threads?.metrics()) ?? [];
  const own = [...workerFamilies(server), workerQueriesFamily(0, server.engine)];
  return mergeFamilies(
    [
      own,
      ...threads,
      zoneFamilies(server.engine, book, startedAt),
      server.secondaries ? secondaryFamilies(server.secondaries.status()) : [],
      server.catalogs ? catalogFamilies(server.catalogs.status()) : [],
    ],
    SHARED_GAUGES,
  );
}

export async function startOps(server: RunningServer, o: OpsOptions): Promise<Ops> {
  let metrics: MetricsEndpoint | undefined;
  if (o.metrics) {
    // Imported only when asked for (node:http brings in Node's fetch).
    const { metricsExposure, startMetricsEndpoint } = await import('../kit/metrics/http.ts');
    metrics = await startMetricsEndpoint(o.metrics.host, o.metrics.port, () =>
      collectServerMetrics(server, o.book, o.startedAt),
    );
    o.log.info('metrics_listening', { url: metrics.url });
    const exposed = metricsExposure(o.metrics.host);
    if (exposed) o.log.warn('metrics_not_loopback', { url: metrics.url, ...exposed });
  }
  let control: ControlServer | undefined;
  if (o.control) {
    try {
      control = await startControlServer(
        o.control,
        { ...o, server, workers: server.workers },
        o.log,
      );
    } catch (e) {
      await metrics?.close();
      throw e;
    }
    o.log.info('control_listening', { path: control.path });
  }
  return {
    metrics,
    control,
    close: async () => {
      await Promise.all([metrics?.close(), control?.close()]);
    },
  };
}
