/**
 * Structured logs: one JSON object per line (`{"time","level","event",...}`),
 * or a readable line per event for terminals (`--log-format pretty`).
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = 'json' | 'pretty';

export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** One log line: JSON `{"time","level","event",...fields}`, or `HH:MM:SS.mmm LEVEL event key=value ...`. */
export function formatLogLine(
  format: LogFormat,
  time: string,
  level: string,
  event: string,
  fields: LogFields,
): string {
  if (format === 'json') return `${JSON.stringify({ time, level, event, ...fields })}\n`;
  const rest = Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${time.slice(11, 23)} ${level.toUpperCase().padEnd(5)} ${event}${rest ? ` ${rest}` : ''}\n`;
}

export function createLogger(
  write: (line: string) => void,
  level: LogLevel,
  format: LogFormat,
  now: () => Date = () => new Date(),
): Logger {
  const emit = (lvl: Exclude<LogLevel, 'silent'>, event: string, fields: LogFields = {}) => {
    if (RANK[lvl] < RANK[level]) return;
    write(formatLogLine(format, now().toISOString(), lvl, event, fields));
  };
  return {
    debug: (e, f) => emit('debug', e, f),
    info: (e, f) => emit('info', e, f),
    warn: (e, f) => emit('warn', e, f),
    error: (e, f) => emit('error', e, f),
  };
}
