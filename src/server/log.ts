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

export function createLogger(
  write: (line: string) => void,
  level: LogLevel,
  format: LogFormat,
  now: () => Date = () => new Date(),
): Logger {
  const emit = (lvl: Exclude<LogLevel, 'silent'>, event: string, fields: LogFields = {}) => {
    if (RANK[lvl] < RANK[level]) return;
    const time = now().toISOString();
    if (format === 'json') {
      write(`${JSON.stringify({ time, level: lvl, event, ...fields })}\n`);
      return;
    }
    const rest = Object.entries(fields)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' ');
    write(
      `${time.slice(11, 23)} ${lvl.toUpperCase().padEnd(5)} ${event}${rest ? ` ${rest}` : ''}\n`,
    );
  };
  return {
    debug: (e, f) => emit('debug', e, f),
    info: (e, f) => emit('info', e, f),
    warn: (e, f) => emit('warn', e, f),
    error: (e, f) => emit('error', e, f),
  };
}
