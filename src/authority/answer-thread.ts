/**
 * An answering thread of `serve --workers N`: its own engine, sockets
 * (`SO_REUSEPORT`), rate limiter and log summaries; it loads nothing and
 * swaps in each zone set the main thread sends (`answer-threads.ts`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ServerConfig } from '../config/server.ts';
import { Engine, type EngineOptions } from './engine.ts';
import { createLogger, type LogFormat, type Logger } from './log.ts';
import { workerFamilies } from './metrics.ts';
import type { NotifyHook } from './pipeline.ts';
import { unpackIndexedZone, type PackedZone } from './zones/transfer.ts';
import { listenAll, secondariesFor, transferServiceFor, type Listeners } from './server.ts';
import type { ZoneDiff } from '../xfr/core/diff.ts';
import type { Transfers } from '../xfr/out.ts';
import type { Secondaries } from '../xfr/secondary.ts';
import { plainStats, workerQueriesFamily } from './answer-threads.ts';
import { collectorAfter, COLLECT_AFTER_MS } from './zones/collector.ts';

export interface ThreadInit {
  /** 1-based; the main thread is worker 0. */
  readonly index: number;
  readonly config: ServerConfig;
  /** The port of each `config.listen` entry as the main thread bound it. */
  readonly ports: readonly number[];
  readonly engineOptions: Partial<EngineOptions>;
  readonly logFormat: LogFormat;
  /** Base directory of relative paths in the configuration (the TSIG key file). */
  readonly cwd: string;
}

export type ThreadCommand =
  | {
      readonly type: 'zones';
      readonly zones: readonly PackedZone[];
      readonly unavailable: readonly string[];
      readonly id: number;
    }
  | { readonly type: 'zone'; readonly zone: PackedZone; readonly id: number }
  | { readonly type: 'metrics'; readonly id: number }
  | { readonly type: 'stats'; readonly id: number }
  | {
      readonly type: 'history';
      readonly origin: string;
      readonly diffs: readonly ZoneDiff[];
      readonly id: number;
    }
  | {
      readonly type: 'members';
      readonly members: readonly (readonly [string, string])[];
      readonly id: number;
    }
  | { readonly type: 'close'; readonly id: number };

/** NOTIFY for the secondary zones, answered here; an accepted one goes to the main thread's Secondaries. */
async function notifyHook(
  init: ThreadInit,
  log: Logger,
  accepted: (origin: string) => void,
): Promise<{ hook: NotifyHook; secondaries: Secondaries } | undefined> {
  const noTarget = {
    install: () => Promise.resolve(false),
    setExpired: () => Promise.resolve(),
    zoneOfFile: () => undefined,
  };
  const s = await secondariesFor(init.config, init.cwd, log, noTarget, accepted);
  return s && { hook: (msg, source, key) => s.notify(msg, source, key), secondaries: s };
}

async function main(init: ThreadInit): Promise<void> {
  const port = parentPort!;
  const { config, index } = init;
  const log = createLogger((line) => process.stderr.write(line), config.log.level, init.logFormat);
  const engine = new Engine([], init.engineOptions);
  // The columns replaced are on SharedArrayBuffers: only a collection here frees them
  // (collector.ts). One thread after the other, not all at once (the main thread first).
  const collectSoon = collectorAfter(COLLECT_AFTER_MS * (1 + init.index));
  // Zone sets arrive from the start (queued while the sockets open).
  port.on('message', (cmd: ThreadCommand) => {
    let value: boolean | undefined;
    if (cmd.type === 'zones') engine.setZones(cmd.zones.map(unpackIndexedZone), cmd.unavailable);
    else if (cmd.type === 'zone') value = engine.replaceZone(unpackIndexedZone(cmd.zone));
    else return;
    port.postMessage({ type: 'done', id: cmd.id, value });
    collectSoon();
  });
  let transfers: Transfers;
  let l: Listeners;
  let secondaries: Secondaries | undefined;
  try {
    transfers = (await transferServiceFor(config, init.cwd, log)).transfers;
    const notify = await notifyHook(init, log, (origin) =>
      port.postMessage({ type: 'notify', origin }),
    );
    secondaries = notify?.secondaries;
    l = await listenAll(engine, config, init.cwd, log, true, transfers, notify?.hook, init.ports);
  } catch (e) {
    port.postMessage({ type: 'failed', error: (e as Error).message });
    return;
  }
  const source = { engine, pipeline: l.pipeline, tcp: l.tcp, rrl: l.rrl };
  port.on('message', (cmd: ThreadCommand) => {
    if (cmd.type === 'zones' || cmd.type === 'zone') return;
    if (cmd.type === 'metrics') {
      const families = [...workerFamilies(source), workerQueriesFamily(index, engine)];
      port.postMessage({ type: 'done', id: cmd.id, value: families });
    } else if (cmd.type === 'history') {
      transfers.setHistory(cmd.origin, [...cmd.diffs]);
      port.postMessage({ type: 'done', id: cmd.id });
    } else if (cmd.type === 'members') {
      secondaries?.setCatalogMembers(cmd.members);
      port.postMessage({ type: 'done', id: cmd.id });
    } else if (cmd.type === 'stats') {
      port.postMessage({ type: 'done', id: cmd.id, value: plainStats(source) });
    } else {
      void l.close().then(() => {
        port.postMessage({ type: 'done', id: cmd.id });
        port.close();
      });
    }
  });
  port.postMessage({ type: 'ready' });
}

if (parentPort) void main(workerData as ThreadInit);
