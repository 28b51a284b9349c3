/**
 * A server logger whose JSON lines the test reads back as objects (the
 * events `startServer` logs: zone_loaded, xfr_in, journal_stale ...).
 */
import { createLogger, type Logger, type LogLevel } from '../../src/authority/log.ts';

export type LogEvent = Record<string, unknown>;

/** A JSON logger at `level` that pushes each event onto `events` (a new array when not given). */
export function eventLogger(
  level: LogLevel = 'info',
  events: LogEvent[] = [],
): { log: Logger; events: LogEvent[] } {
  const log = createLogger((l) => void events.push(JSON.parse(l) as LogEvent), level, 'json');
  return { log, events };
}
