/**
 * Logs that survive abuse: events that can repeat per packet or connection
 * are counted (one Map update) and written as one line per kind per interval.
 */
import type { Logger, LogLevel } from './log.ts';

/** Sources kept per event and interval; beyond it only the totals grow. */
const MAX_SOURCES = 1024;
/** Busiest sources named in a summary line. */
const TOP = 5;

interface Tally {
  count: number;
  readonly level: Exclude<LogLevel, 'silent' | 'debug'>;
  readonly sources: Map<string, number>;
  /** Sources not tracked individually once MAX_SOURCES was reached. */
  untracked: number;
  /** Counts per reason (kept small: reasons are a fixed set of codes). */
  readonly reasons: Map<string, number>;
  sample: string | undefined;
}

export interface LogSummary {
  /** Count one `event` from `source`, with an optional `reason` code and a sample message (the first kept). */
  note(
    event: string,
    source: string,
    reason?: string,
    level?: Tally['level'],
    sample?: string,
  ): void;
  /** Write the pending summary lines now (also done at each interval and on close). */
  flush(): void;
  close(): void;
}

/** Summaries every `intervalMs`, one line per event kind: `{event, count, sources, top, reasons, intervalMs}`. */
export function createLogSummary(log: Logger, intervalMs: number): LogSummary {
  let tallies = new Map<string, Tally>();
  let since = Date.now();
  const flush = () => {
    if (tallies.size === 0) {
      since = Date.now();
      return;
    }
    const seconds = Math.max(1, Math.round((Date.now() - since) / 1000));
    const current = tallies;
    tallies = new Map();
    since = Date.now();
    for (const [event, t] of current) {
      const top = [...t.sources]
        .sort((a, b) => b[1] - a[1])
        .slice(0, TOP)
        .map(([source, count]) => ({ source, count }));
      const sources = t.sources.size;
      const fields: Record<string, unknown> = {
        count: t.count,
        sources: t.sources.size,
        ...(t.untracked > 0 ? { sourcesUntracked: t.untracked } : {}),
        seconds,
        top,
      };
      if (t.reasons.size > 0) fields.reasons = Object.fromEntries(t.reasons);
      if (t.sample !== undefined) fields.sample = t.sample;
      fields.summary = `${event.replaceAll('_', ' ')}: ${t.count.toLocaleString('en')} from ${sources}${t.untracked > 0 ? '+' : ''} source${sources === 1 ? '' : 's'} in the last ${seconds} s`;
      log[t.level](event, fields);
    }
  };
  const timer = setInterval(flush, intervalMs);
  timer.unref();
  return {
    note(event, source, reason, level = 'warn', sample) {
      let t = tallies.get(event);
      if (t === undefined) {
        t = { count: 0, level, sources: new Map(), untracked: 0, reasons: new Map(), sample };
        tallies.set(event, t);
      }
      t.count++;
      const n = t.sources.get(source);
      if (n !== undefined) t.sources.set(source, n + 1);
      else if (t.sources.size < MAX_SOURCES) t.sources.set(source, 1);
      else t.untracked++;
      if (reason !== undefined) t.reasons.set(reason, (t.reasons.get(reason) ?? 0) + 1);
    },
    flush,
    close() {
      clearInterval(timer);
      flush();
    },
  };
}
